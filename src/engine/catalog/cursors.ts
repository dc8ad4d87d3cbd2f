/**
 * Open cursors of find / aggregate / listIndexes / listCollections replies. Results are
 * materialized when the cursor opens (a consistent snapshot, like a read at one point in time) and
 * handed out in batches by getMore.
 */
import { Long } from 'bson';
import { fail } from '../errors';
import type { Document } from '../values/types';

interface OpenCursor {
  ns: string;
  docs: Document[];
  position: number;
  /** Shapes a stored document for the reply (projection); applied lazily per batch. */
  shape?: (doc: Document) => Document;
}

export const DEFAULT_FIRST_BATCH = 101;

export class CursorStore {
  private readonly open = new Map<string, OpenCursor>();
  private nextId = 1n;

  /** Reply `cursor` field for a new result set: first batch, and an id when more remains. */
  openCursor(ns: string, docs: Document[], batchSize: number | undefined, shape?: OpenCursor['shape']): Document {
    const size = batchSize ?? DEFAULT_FIRST_BATCH;
    const first = docs.slice(0, size).map(shape ?? identity);
    if (docs.length <= size) return { firstBatch: first, id: Long.fromNumber(0), ns };
    const id = this.nextId++;
    this.open.set(id.toString(), { ns, docs, position: size, shape });
    return { firstBatch: first, id: Long.fromBigInt(id), ns };
  }

  getMore(id: unknown, ns: string, batchSize: number | undefined): Document {
    const key = cursorKey(id);
    const cursor = this.open.get(key);
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
    const end = batchSize && batchSize > 0 ? cursor.position + batchSize : cursor.docs.length;
    const batch = cursor.docs.slice(cursor.position, end).map(cursor.shape ?? identity);
    cursor.position = Math.min(end, cursor.docs.length);
    const done = cursor.position >= cursor.docs.length;
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

  /** Cursors of a dropped namespace die with it. */
  killNamespace(prefix: string): void {
    for (const [key, cursor] of this.open)
      if (cursor.ns === prefix || cursor.ns.startsWith(`${prefix}.`)) this.open.delete(key);
  }

  get count(): number {
    return this.open.size;
  }
}

function identity(d: Document): Document {
  return d;
}

function cursorKey(id: unknown): string {
  if (typeof id === 'number' || typeof id === 'bigint') return String(id);
  if (id && typeof id === 'object' && 'toString' in id) return (id as { toString(): string }).toString();
  fail('TypeMismatch', `cursor id must be a number or Long, got ${JSON.stringify(id)}`);
}
