/**
 * The ObjectIds the engine makes (an inserted document without _id, $merge's new documents), as
 * mongod makes them: 4 bytes of seconds, 5 bytes unique to the process, a 3-byte counter. The
 * process's bytes are its "machine id", which the `features` command reports and, with oidReset,
 * draws again (what a forked process does so that it never repeats its parent's ids).
 */
import { randomBytes, randomInt } from 'node:crypto';
import { Long, ObjectId } from 'bson';

let processUnique = randomBytes(5);
let counter = randomInt(0, 0x1000000);

export function nextObjectId(seconds: number): ObjectId {
  const bytes = Buffer.alloc(12);
  bytes.writeUInt32BE(seconds >>> 0, 0);
  processUnique.copy(bytes, 4);
  counter = (counter + 1) % 0x1000000;
  bytes.writeUIntBE(counter, 9, 3);
  return new ObjectId(bytes);
}

/** The machine id `features` reports: the first four of the process's bytes, as mongod reads them. */
export function objectIdMachine(): Long {
  return Long.fromNumber(processUnique.readUInt32LE(0));
}

/** Draws the process's bytes again: ids made from now on differ from every earlier one in them. */
export function regenerateObjectIdMachine(): void {
  processUnique = randomBytes(5);
}
