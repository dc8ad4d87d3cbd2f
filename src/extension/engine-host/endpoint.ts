/**
 * The local endpoint, on the engine host's side: the window's shared engine served over the
 * MongoDB wire protocol (src/wire) from the worker that runs it. An app's writes are then the
 * engine's own: they raise the same engine events as the tree's and the notebooks' writes (so the
 * Databases view follows them), and the TTL monitor and the virtual clock expire the app's data.
 * No `vscode` import.
 */
import { runWireCommand } from '../../wire/commands';
import { CONTROL_COMMAND } from '../../wire/control';
import { WireServer } from '../../wire/server';
import type { EmbeddedBackend } from '../backend/embedded-backend';

export interface EndpointAddress {
  host: string;
  port: number;
  /** mongodb://127.0.0.1:PORT/ */
  uri: string;
}

/**
 * A listen that failed. `listenCode` is Node's code ('EADDRINUSE', 'EACCES', ...): a string
 * `code` would not cross to the extension host (errors cross with numeric codes only), this field does.
 */
export class EndpointListenError extends Error {
  override readonly name = 'EndpointListenError';
  constructor(
    message: string,
    readonly listenCode: string,
    readonly port: number,
  ) {
    super(message);
  }
}

/**
 * A WireServer over the backend's engine as it is at each command (Reset Engine replaces the
 * engine; the endpoint and its connections stay, the old engine's cursors die with it). The
 * `{ttlWorkbench: ...}` control commands move the clock on the engine directly, so the backend's
 * listeners are told, as after its own advanceClock: the status bar and the tree show the new time.
 */
export function serveBackend(
  backend: EmbeddedBackend,
  options: { port: number; host: string; log?: (line: string) => void },
): WireServer {
  return new WireServer({
    engine: () => backend.currentEngine,
    port: options.port,
    host: options.host,
    ...(options.log ? { log: options.log } : {}),
    intercept: (connection, command) => {
      if (Object.keys(command)[0] !== CONTROL_COMMAND) return undefined;
      const reply = runWireCommand(backend.currentEngine, connection, command);
      if (reply.ok === 1 && command[CONTROL_COMMAND] !== 'status')
        backend.announce([{ kind: 'clockChanged' }, { kind: 'monitorRan' }]);
      return reply;
    },
  });
}

/** Starts listening; a failure becomes an EndpointListenError that says which port and why. */
export async function listen(server: WireServer, port: number, host: string): Promise<EndpointAddress> {
  try {
    return await server.start();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'UNKNOWN';
    throw new EndpointListenError(`Cannot listen on ${host}:${port}: ${(err as Error).message}`, code, port);
  }
}
