/**
 * What the engine writes to durable storage, and the interface it writes through (the engine
 * imports no `fs`: the file store in src/storage implements StorageSink).
 *
 * One commit (one command, or one visit of a TTL pass) is one frame:
 *   { t: <engine clock>, m: <metrics.ttl>, ops: [...] }
 * Every op is idempotent — applying it twice, or to a state that already holds it, gives the same
 * state — because compaction writes a snapshot while commits continue (file-store.ts):
 *   { put: ns, d: document, ts? }   the whole document, by its _id (ts: Cosmos `_ts`)
 *   { del: ns, id }                  by _id
 *   { cat: ns, o: options, ix: [index specs as stored, NaN and all] }   a collection's catalog entry
 *   { drop: ns }                     the collection is gone
 *   { ren: ns, to: ns }              renamed
 *   { param: name, v }               a setParameter
 *   { clock: true }                  nothing but the time (a clock move without writes)
 */
import type { Document } from '../values/types';

export interface StorageSink {
  /** Make one commit durable before it is acknowledged; throw when it cannot be. */
  commit(frame: Document): void;
}

export type JournalOp =
  | { put: string; d: Document; ts?: number }
  | { del: string; id: unknown }
  | { cat: string; o: Document; ix: Document[] }
  | { drop: string }
  | { ren: string; to: string }
  | { param: string; v: unknown };

/** `db.collection` → [db, collection] (database names never contain a dot). */
export function splitNs(ns: string): [string, string] {
  const dot = ns.indexOf('.');
  return [ns.slice(0, dot), ns.slice(dot + 1)];
}
