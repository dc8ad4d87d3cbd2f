/**
 * Open cursors of find / aggregate / listIndexes / listCollections replies. Results are
 * materialized when the cursor opens (a consistent snapshot, like a read at one point in time) and
 * handed out in batches by getMore. A batch ends at its batchSize (101 documents for a first batch
 * without one; everything left for a getMore without one) or before its documents pass 16 MiB,
 * whichever comes first, as on mongod: a batch always holds at least one document, and the one
 * that did not fit opens the next batch.
 */
import { Long } from 'bson';
import { fail } from '../errors';
import { bsonDocumentSize } from '../values/bson-size';
import type { Document } from '../values/types';

interface OpenCursor {
  ns: string;
  docs: Document[];
  position: number;
  /** Shapes a stored document for the reply (projection); applied lazily per batch. */
  shape?: (doc: Document) => Document;
  tail?: CursorTail;
  guard?: CursorGuard;
}

/**
 * What kills a cursor's plan between batches, as mongod's plan executor notices on restoring after
 * a yield (its index dropped, its place in a capped collection deleted). Called with the number of
 * documents handed out so far, before the next batch; it throws the error the getMore answers.
 */
export type CursorGuard = (handedOut: number) => void;

/**
 * What keeps a tailable cursor alive past its last document: the documents written after it. A
 * tailable cursor stays open when it runs out, and each getMore first takes what was written since.
 */
export interface CursorTail {
  /** The matching documents written since the last call, in natural order; throws when the position is lost. */
  more(): Document[];
  /** True once the cursor's limit is reached: nothing more will ever be returned. */
  finished(): boolean;
  /** The find asked to await data: only then may a getMore carry maxTimeMS (its wait). */
  awaitData?: boolean;
}

export const DEFAULT_FIRST_BATCH = 101;
/** The most document bytes mongod puts in one batch (BSONObjMaxUserSize). */
export const MAX_BATCH_BYTES = 16 * 1024 * 1024;

/**
 * The batch of up to `count` documents from `from`, shaped for the reply, ending before its
 * documents (measured as BSON, as they are sent) pass MAX_BATCH_BYTES; at least one document when
 * any is left.
 */
export function takeBatch(
  docs: Document[],
  from: number,
  count: number,
  shape?: (doc: Document) => Document,
): Document[] {
  const end = Math.min(docs.length, from + Math.floor(count));
  const batch: Document[] = [];
  let bytes = 0;
  for (let i = from; i < end; i++) {
    const doc = shape ? shape(docs[i]) : docs[i];
    bytes += bsonDocumentSize(doc);
    if (bytes > MAX_BATCH_BYTES && batch.length > 0) break;
    batch.push(doc);
  }
  return batch;
}

const MAX_KILLED_REMEMBERED = 1000;

export class CursorStore {
  private readonly open = new Map<string, OpenCursor>();
  /** Why a cursor killed with its namespace died, until its next getMore asks. */
  private readonly killedBy = new Map<string, string>();
  private nextId = 1n;

  /** Reply `cursor` field for a new result set: first batch, and an id when more remains. */
  openCursor(
    ns: string,
    docs: Document[],
    batchSize: number | undefined,
    shape?: OpenCursor['shape'],
    tail?: CursorTail,
    guard?: CursorGuard,
  ): Document {
    const first = takeBatch(docs, 0, batchSize ?? DEFAULT_FIRST_BATCH, shape);
    // A first batch of 0 reads nothing, so mongod cannot know the results are exhausted: the cursor
    // stays open even when nothing would come (an empty result shows on the first getMore).
    if (batchSize !== 0 && first.length >= docs.length && (!tail || tail.finished()))
      return { firstBatch: first, id: Long.fromNumber(0), ns };
    const id = this.nextId++;
    this.open.set(id.toString(), { ns, docs, position: first.length, shape, tail, guard });
    return { firstBatch: first, id: Long.fromBigInt(id), ns };
  }

  getMore(id: unknown, ns: string, batchSize: number | undefined, opts: { maxTimeMS?: boolean } = {}): Document {
    const key = cursorKey(id);
    const cursor = this.open.get(key);
    const killedBy = this.killedBy.get(key);
    if (!cursor && killedBy !== undefined) {
      this.killedBy.delete(key);
      fail('QueryPlanKilled', `${killedBy}: the cursor's collection is gone. Run the query again.`);
    }
    if (!cursor)
      fail(
        'CursorNotFound',
        `cursor id ${key} not found: it was exhausted, killed, or belongs to a dropped collection.`,
      );
    if (cursor.ns !== ns)
      fail(
        'Unauthorized',
        `Requested getMore on namespace '${ns}', but cursor belongs to a different namespace ${cursor.ns}`,
      );
    // maxTimeMS on a getMore is how long an awaitData cursor waits for new data: mongod refuses it
    // on any other cursor.
    if (opts.maxTimeMS && !cursor.tail?.awaitData)
      fail(
        'BadValue',
        'cannot set maxTimeMS on getMore command for a non-awaitData cursor: set maxTimeMS on the find or aggregate that opened it.',
      );
    if (cursor.guard) {
      try {
        cursor.guard(cursor.position);
      } catch (err) {
        this.open.delete(key);
        throw err;
      }
    }
    if (cursor.tail) {
      // What was handed out is dropped, so a long-lived tailable cursor holds only what is pending.
      cursor.docs = cursor.docs.slice(cursor.position);
      cursor.position = 0;
      try {
        for (const doc of cursor.tail.more()) cursor.docs.push(doc);
      } catch (err) {
        this.open.delete(key);
        throw err;
      }
    }
    const count = batchSize && batchSize > 0 ? batchSize : cursor.docs.length;
    const batch = takeBatch(cursor.docs, cursor.position, count, cursor.shape);
    cursor.position += batch.length;
    const done = cursor.position >= cursor.docs.length && (!cursor.tail || cursor.tail.finished());
    if (done) this.open.delete(key);
    return { nextBatch: batch, id: done ? Long.fromNumber(0) : Long.fromString(key), ns };
  }

  kill(ids: unknown[]): { killed: Long[]; notFound: Long[] } {
    const killed: Long[] = [];
    const notFound: Long[] = [];
    for (const id of ids) {
      const key = cursorKey(id);
      (this.open.delete(key) ? killed : notFound).push(Long.fromString(key));
    }
    return { killed, notFound };
  }

  /**
   * Cursors of a dropped (or renamed) namespace die with it; their next getMore says why with
   * QueryPlanKilled (175), as mongod's does, instead of CursorNotFound.
   */
  killNamespace(prefix: string, reason = 'collection dropped'): void {
    // A collection's namespace ("db.c") kills its own cursors only, not those of "db.c.sub"; a
    // database name (which has no dot) kills every cursor under it.
    const isCollection = prefix.includes('.');
    for (const [key, cursor] of this.open) {
      if (cursor.ns !== prefix && (isCollection || !cursor.ns.startsWith(`${prefix}.`))) continue;
      this.open.delete(key);
      this.killedBy.set(key, reason);
      // Remembered for a while only: the oldest reasons go first.
      if (this.killedBy.size > MAX_KILLED_REMEMBERED) this.killedBy.delete(this.killedBy.keys().next().value!);
    }
  }

  get count(): number {
    return this.open.size;
  }
}

function cursorKey(id: unknown): string {
  if (typeof id === 'number' || typeof id === 'bigint') return String(id);
  if (id && typeof id === 'object' && 'toString' in id) return (id as { toString(): string }).toString();
  fail('TypeMismatch', `cursor id must be a number or Long, got ${JSON.stringify(id)}`);
}
