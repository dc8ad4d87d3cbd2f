/**
 * What a standalone engine refuses in a command's read and write concerns before running it, as a
 * mongod that is not a replica-set member does: write concerns that wait for other members, and
 * reads that wait for an oplog position.
 */
import { fail } from '../errors';
import { isNumeric, isPlainObject, type Document } from '../values/types';
import { toDouble } from '../values/numbers';

export function checkConcerns(command: Document, isReplicaSet: boolean): void {
  if (isReplicaSet) return;
  const wc = command.writeConcern;
  if (isPlainObject(wc) && wc.w !== undefined) {
    const w = wc.w;
    if (isNumeric(w) && toDouble(w) > 1)
      fail(
        'BadValue',
        "cannot use 'w' > 1 when a host is not replicated: this engine is a standalone (start it with a replica-set name for more members' acknowledgement).",
      );
    if (typeof w === 'string' && w !== 'majority')
      fail(
        'BadValue',
        `cannot use non-majority 'w' mode ${w} when a host is not a member of a replica set. Use w: 1 or w: "majority".`,
      );
  }
  const rc = command.readConcern;
  if (isPlainObject(rc) && rc.afterOpTime !== undefined)
    fail(
      'NotAReplicaSet',
      'node needs to be a replica set member to use readConcern afterOpTime: this engine is a standalone.',
    );
}

/** The write commands, which read at no snapshot of their own outside a transaction. */
const WRITE_COMMANDS = new Set(['insert', 'update', 'delete', 'findAndModify']);

/**
 * A write outside a multi-document transaction cannot take readConcern snapshot (InvalidOptions),
 * on a replica set or not; reads can since MongoDB 5.0.
 */
export function checkSnapshotWrite(command: Document, inTransaction: boolean): void {
  if (inTransaction) return;
  const name = Object.keys(command)[0];
  const rc = command.readConcern;
  if (WRITE_COMMANDS.has(name) && isPlainObject(rc) && rc.level === 'snapshot')
    fail(
      'InvalidOptions',
      `readConcern level snapshot is not allowed for ${name} outside a multi-document transaction: leave the readConcern out, or run the ${name} in a transaction.`,
    );
}
