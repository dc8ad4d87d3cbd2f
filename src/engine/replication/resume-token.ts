/**
 * Resume tokens: `{_data: "<hex>"}`, opaque to clients as mongod's are. Ours hold the position of
 * an oplog entry (its cluster time and its index among the entries of that time) and whether the
 * token names an event or only a point the stream has read up to (a high-water mark: the
 * postBatchResumeToken of a batch with no events).
 */
import { Timestamp } from 'bson';
import { fail } from '../errors';

export interface TokenPosition {
  ts: Timestamp;
  opIndex: number;
  /** An event's token; false for a high-water mark (the stream resumes at, not after, it). */
  event: boolean;
  /** The token of an invalidate event (resumeAfter refuses it; startAfter starts after it). */
  invalidate: boolean;
}

const VERSION = '82';

export function encodeToken(p: TokenPosition): { _data: string } {
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
  const kind = p.invalidate ? '03' : p.event ? '01' : '00';
  return { _data: `${VERSION}${hex(p.ts.high)}${hex(p.ts.low)}${hex(p.opIndex)}${kind}` };
}

export function decodeToken(token: unknown, option: string): TokenPosition {
  const data = (token as { _data?: unknown } | null)?._data;
  if (typeof data !== 'string' || data.length !== 28 || !data.startsWith(VERSION) || !/^[0-9a-f]+$/.test(data))
    fail(
      'InvalidResumeToken',
      `${option} is not a resume token of this server: pass the _id of a change event, or a postBatchResumeToken, as it was given.`,
    );
  const word = (at: number) => parseInt(data.slice(at, at + 8), 16);
  const kind = data.slice(26, 28);
  return {
    ts: new Timestamp({ t: word(2), i: word(10) }),
    opIndex: word(18),
    event: kind !== '00',
    invalidate: kind === '03',
  };
}
