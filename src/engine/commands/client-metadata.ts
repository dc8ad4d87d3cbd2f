/**
 * A connection's client metadata (hello's `client`: the driver, its version, the application's
 * name) is set once, by the connection's first hello; mongod refuses it in any later hello with
 * ClientMetadataCannotBeMutated. The engine has no connections of its own: its front ends (the
 * wire endpoint per socket, the shell for its one connection) ask here.
 */
import { fail } from '../errors';
import type { Document } from '../values/types';

const HELLO_NAMES = new Set(['hello', 'isMaster', 'ismaster']);

/** Whether this command is a hello that carries client metadata. */
export function carriesClientMetadata(command: Document): boolean {
  const name = Object.keys(command)[0];
  return name !== undefined && HELLO_NAMES.has(name) && command.client !== undefined;
}

/** Throws ClientMetadataCannotBeMutated (186): the connection sent its metadata already. */
export function refuseClientMetadata(): never {
  fail(
    'ClientMetadataCannotBeMutated',
    "The client metadata document may only be sent in the first hello: this connection sent its own when it opened. Leave 'client' out of later hello commands.",
  );
}
