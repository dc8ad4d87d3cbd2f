/**
 * Azure Cosmos DB for MongoDB (RU) TTL, the engine's "cosmos" flavor (docs/ttl-rules.md §10).
 *
 * - Every write stamps a system `_ts` (seconds, last modification; rule 10.1). It is record metadata
 *   kept here, never a field of the stored document, so find/aggregate/projections cannot show it.
 * - A TTL index on `_ts` sets the collection default (10.1); a document's own top-level `ttl`
 *   overrides it when it is a valid whole int32 (10.2, 10.3), `ttl: -1` never expires (10.4), and
 *   anything else is accepted on insert but ignored. Without a `_ts` TTL index nothing expires and
 *   per-document `ttl` means nothing (10.2).
 * - Expiry order is a per-collection B+ tree keyed by [expiresAtMs, rid] holding only documents that
 *   can expire, kept in step with the collection through a RecordObserver, so a TTL visit walks the
 *   expired prefix and never scans the collection. The tree is rebuilt when the collection default
 *   changes (the `_ts` index created, dropped or collMod'ed), which is noticed on the next write or
 *   the next monitor visit, whichever comes first.
 *
 * The ordinary IndexTTLTarget does not walk `_ts` indexes in this flavor (the monitor skips them,
 * see `isCosmosTimestampIndexSpec`): documents hold no `_ts` values for it to compare.
 */
import type { Int32, Long } from 'bson';
import BTree from 'sorted-btree';
import type { Collection, RecordObserver } from '../catalog/collection';
import type { StoredRecord } from '../catalog/record';
import { bsonClassOf, isPlainObject, type Document } from '../values/types';
import type { EngineContext } from '../engine-context';
import { countBefore } from '../indexes/btree-rank';
import {
  deleteWithinBudget,
  NO_BACKLOG,
  type Backlog,
  type TTLTarget,
  type VisitBudget,
  type VisitOutcome,
} from './targets';
import { effectiveExpireAfterSeconds, INT32_MAX, isTTLIndexSpec, ttlKeyIsUsable } from './validation';

/** The system field Cosmos keeps and the per-document override field (both exact, lower case). */
export const COSMOS_TS_FIELD = '_ts';
export const COSMOS_TTL_FIELD = 'ttl';

const INT32_MIN = -2147483648;

// ---- per-document `ttl` (rules 10.3, 10.4) -----------------------------------------------------

/** How a document's own `ttl` value is read. */
export type CosmosDocumentTTL =
  | { kind: 'absent' }
  /** A valid override: expire this many seconds after the last write. */
  | { kind: 'seconds'; seconds: number }
  /** `ttl: -1` (in any valid numeric form): never expires (rule 10.4). */
  | { kind: 'never' }
  /** Accepted on insert, ignored: the collection default applies (rules 10.3, 10.4). */
  | { kind: 'invalid'; reason: string };

/**
 * The whole int32 a value denotes in one of the forms rule 10.3 allows (Int32; Int64 within int32
 * range; a double with no fractional part within int32 range), or a reason why it is not one.
 */
function wholeInt32Of(value: unknown): { ok: true; n: number } | { ok: false; reason: string } {
  const inRange = (n: number) => n >= INT32_MIN && n <= INT32_MAX;
  if (typeof value === 'number' || bsonClassOf(value) === 'Double') {
    const d = typeof value === 'number' ? value : (value as { value: number }).value;
    if (!Number.isFinite(d)) return { ok: false, reason: `a double that is not finite (${d})` };
    if (!Number.isInteger(d)) return { ok: false, reason: `a double with a fractional part (${d})` };
    if (!inRange(d)) return { ok: false, reason: `a double outside the int32 range (${d})` };
    return { ok: true, n: d === 0 ? 0 : d };
  }
  if (bsonClassOf(value) === 'Int32') return { ok: true, n: (value as Int32).value };
  if (bsonClassOf(value) === 'Long') {
    const l = value as Long;
    if (l.greaterThan(INT32_MAX) || l.lessThan(INT32_MIN))
      return { ok: false, reason: `a NumberLong outside the int32 range (${l.toString()})` };
    return { ok: true, n: l.toNumber() };
  }
  if (typeof value === 'bigint') {
    if (value > BigInt(INT32_MAX) || value < BigInt(INT32_MIN))
      return { ok: false, reason: `a NumberLong outside the int32 range (${value.toString()})` };
    return { ok: true, n: Number(value) };
  }
  return { ok: false, reason: `not an int32, int64 or whole double (${describeType(value)})` };
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return 'a date';
  const cls = bsonClassOf(value);
  if (cls) return cls;
  if (isPlainObject(value)) return 'an object';
  return typeof value;
}

/**
 * Rules 10.3 / 10.4: what a document's top-level `ttl` means. Positive whole int32 values override
 * the collection default; -1 never expires; 0 and other negatives are treated as invalid and ignored
 * (rule 10.4 marks them confidence: low).
 */
export function cosmosDocumentTTL(doc: Document): CosmosDocumentTTL {
  if (!Object.prototype.hasOwnProperty.call(doc, COSMOS_TTL_FIELD)) return { kind: 'absent' };
  const value = doc[COSMOS_TTL_FIELD];
  if (value === undefined) return { kind: 'absent' };
  const n = wholeInt32Of(value);
  if (!n.ok) return { kind: 'invalid', reason: `ttl is ${n.reason}: ignored, the collection TTL applies (rule 10.3)` };
  if (n.n === -1) return { kind: 'never' };
  if (n.n <= 0)
    return {
      kind: 'invalid',
      reason: `ttl ${n.n} is neither positive nor -1: ignored, the collection TTL applies (rule 10.4, confidence low)`,
    };
  return { kind: 'seconds', seconds: n.n };
}

// ---- the collection default (rule 10.1) --------------------------------------------------------

/** Whether an index spec is a TTL index on the Cosmos system field `_ts` (a single-field key). */
export function isCosmosTimestampIndexSpec(spec: Document): boolean {
  if (!isTTLIndexSpec(spec) || !isPlainObject(spec.key)) return false;
  const fields = Object.keys(spec.key);
  return fields.length === 1 && fields[0] === COSMOS_TS_FIELD;
}

/**
 * The collection default in seconds: the `expireAfterSeconds` of the first usable `_ts` TTL index
 * (creation order), or undefined when there is none (then nothing expires, rule 10.2). A hashed or
 * otherwise special `_ts` key, or an invalid stored value, does not count (rule 7.6 applied here).
 */
export function cosmosCollectionTTL(collection: Collection): { seconds: number; indexName: string } | undefined {
  for (const index of collection.indexes.values()) {
    const spec = index.spec;
    if (!isCosmosTimestampIndexSpec(spec)) continue;
    if (!ttlKeyIsUsable(spec.key as Document).usable) continue;
    const seconds = effectiveExpireAfterSeconds(spec.expireAfterSeconds);
    if (seconds === undefined) continue;
    return { seconds, indexName: index.name };
  }
  return undefined;
}

/**
 * When a document last written at `tsSeconds` expires, in epoch milliseconds, or null when it never
 * does: `_ts + ttl` with a valid own `ttl`, else `_ts + default`; nothing expires without a default.
 */
export function cosmosExpiryMs(doc: Document, tsSeconds: number, defaultSeconds: number | undefined): number | null {
  if (defaultSeconds === undefined) return null;
  const own = cosmosDocumentTTL(doc);
  if (own.kind === 'never') return null;
  const seconds = own.kind === 'seconds' ? own.seconds : defaultSeconds;
  return (tsSeconds + seconds) * 1000;
}

// ---- per-collection state: `_ts` stamps and the expiry order -----------------------------------

type ExpiryKey = [expiresAtMs: number, rid: number];

function compareExpiryKeys(a: ExpiryKey, b: ExpiryKey): number {
  return a[0] - b[0] || a[1] - b[1];
}

/** What this module keeps for one collection; it is the collection's RecordObserver. */
class CosmosCollectionState implements RecordObserver {
  /** rid → `_ts` in seconds (last modification). */
  readonly stamps = new Map<number, number>();
  /** Documents that can expire, in expiry order. */
  private tree = new BTree<ExpiryKey, StoredRecord>(undefined, compareExpiryKeys);
  /** rid → the expiry the record is filed under in `tree`. */
  private readonly filedAt = new Map<number, number>();
  /** The collection default the tree was built for (undefined: no `_ts` TTL index, empty tree). */
  private builtFor: number | undefined = undefined;

  constructor(
    private readonly engine: EngineContext,
    private readonly collection: Collection,
  ) {
    // Records written before the observer was attached (should not happen: collections get it at
    // creation) are stamped with the time they are first seen.
    const now = this.nowSeconds();
    for (const record of collection.records.values()) this.stamps.set(record.rid, now);
    this.sync();
  }

  private nowSeconds(): number {
    return Math.floor(this.engine.clock.now() / 1000);
  }

  // RecordObserver: every write stamps `_ts` and refiles the record (rule 10.1).
  inserted(record: StoredRecord): void {
    this.stamps.set(record.rid, this.nowSeconds());
    if (!this.sync()) this.file(record);
  }

  replaced(record: StoredRecord): void {
    this.stamps.set(record.rid, this.nowSeconds());
    if (!this.sync()) this.file(record);
  }

  removed(record: StoredRecord): void {
    this.unfile(record.rid);
    this.stamps.delete(record.rid);
  }

  /** The current collection default in seconds (undefined: none). */
  currentDefault(): number | undefined {
    return cosmosCollectionTTL(this.collection)?.seconds;
  }

  /** Rebuild the tree if the collection default changed since it was built; true if it did. */
  sync(): boolean {
    const current = this.currentDefault();
    if (current === this.builtFor) return false;
    this.builtFor = current;
    this.tree = new BTree<ExpiryKey, StoredRecord>(undefined, compareExpiryKeys);
    this.filedAt.clear();
    if (current !== undefined) {
      for (const record of this.collection.records.values()) this.file(record);
    }
    return true;
  }

  /** Refile a record whose stamp was set from outside (a restore). */
  refile(record: StoredRecord): void {
    if (!this.sync()) this.file(record);
  }

  /** File (or refile) one record under its expiry for the default the tree is built for. */
  private file(record: StoredRecord): void {
    this.unfile(record.rid);
    let ts = this.stamps.get(record.rid);
    // Stryker disable next-line BlockStatement: every record is stamped before it is filed (insert, replace, restore and attach stamp first), so this fallback never runs
    if (ts === undefined) {
      ts = this.nowSeconds();
      this.stamps.set(record.rid, ts);
    }
    const at = cosmosExpiryMs(record.doc, ts, this.builtFor);
    if (at === null) return;
    this.tree.set([at, record.rid], record);
    this.filedAt.set(record.rid, at);
  }

  private unfile(rid: number): void {
    const at = this.filedAt.get(rid);
    if (at === undefined) return;
    this.tree.delete([at, rid]);
    this.filedAt.delete(rid);
  }

  /** Records expired at `nowMs` (expiry ≤ now, inclusive like rule 7.8), earliest first. */
  *expired(nowMs: number): IterableIterator<StoredRecord> {
    for (const [key, record] of this.tree.entries()) {
      if (key[0] > nowMs) return;
      yield record;
    }
  }

  /** Records expired at `nowMs`: those filed at or before it (any rid sorts before Infinity). */
  expiredCount(nowMs: number): number {
    return countBefore<ExpiryKey, StoredRecord>(this.tree, [nowMs, Infinity]);
  }

  /** How many documents can expire (for status and tests). */
  get expiringCount(): number {
    return this.tree.size;
  }

  /** Earliest pending expiry, epoch ms, or null. */
  get nextExpiryMs(): number | null {
    const k = this.tree.minKey();
    return k === undefined ? null : k[0];
  }
}

const states = new WeakMap<Collection, CosmosCollectionState>();

/** A record's `_ts` (seconds), for durable storage. */
export function cosmosStampOf(collection: Collection, rid: number): number | undefined {
  return states.get(collection)?.stamps.get(rid);
}

/** Put back a stored `_ts` (restoring from storage stamps records with their original time). */
export function restoreCosmosStamp(collection: Collection, record: StoredRecord, ts: number): void {
  const state = states.get(collection);
  if (!state) return;
  state.stamps.set(record.rid, ts);
  state.refile(record);
}

/**
 * Attach the Cosmos `_ts` / expiry observer to a collection (the engine does this for every
 * collection it creates in the cosmos flavor). Idempotent.
 */
export function attachCosmosTTL(engine: EngineContext, collection: Collection): void {
  if (states.has(collection)) return;
  const state = new CosmosCollectionState(engine, collection);
  states.set(collection, state);
  collection.observers.push(state);
}

// ---- the TTL target ----------------------------------------------------------------------------

/** The Cosmos collection TTL of one collection: the `_ts` default plus per-document overrides. */
export class CosmosTTLTarget implements TTLTarget {
  constructor(
    readonly collection: Collection,
    private readonly indexName: string,
  ) {}

  get label(): string {
    return `index ${this.indexName}`;
  }

  visit(budget: VisitBudget, remove: (record: StoredRecord) => void): VisitOutcome {
    const state = states.get(this.collection);
    if (!state) return { kind: 'skipped', reason: 'the collection has no Cosmos _ts tracking', logId: 0 };
    // The `_ts` index may have been dropped or collMod'ed since the snapshot: rebuild if needed.
    state.sync();
    if (state.currentDefault() === undefined)
      return { kind: 'skipped', reason: 'no TTL index on _ts any more: nothing expires (rule 10.2)', logId: 0 };
    return deleteWithinBudget(() => state.expired(budget.now), budget, remove);
  }

  backlog(nowMs: number): Backlog {
    const state = states.get(this.collection);
    if (!state) return NO_BACKLOG;
    state.sync();
    if (state.currentDefault() === undefined) return NO_BACKLOG;
    return { count: state.expiredCount(nowMs), atLeast: false };
  }
}

/**
 * Register the Cosmos TTL target factory with the engine's monitor: one target per collection that
 * has a usable `_ts` TTL index. Called once from the Engine constructor in the cosmos flavor.
 */
export function registerCosmosTTL(engine: EngineContext): void {
  engine.ttl.registerTargets((collection) => {
    if (collection.options.timeseries) return [];
    let state = states.get(collection);
    if (!state) {
      attachCosmosTTL(engine, collection);
      state = states.get(collection)!;
    }
    // Keeps the tree in step with the catalog (and frees it once the `_ts` index is gone).
    state.sync();
    const def = cosmosCollectionTTL(collection);
    return def ? [new CosmosTTLTarget(collection, def.indexName)] : [];
  });
}

// ---- read access for the UI and tests ----------------------------------------------------------

/** The record's Cosmos `_ts` (seconds since the epoch, last modification), if tracked. */
export function cosmosTimestampOf(collection: Collection, record: StoredRecord): number | undefined {
  return states.get(collection)?.stamps.get(record.rid);
}

/**
 * When the record expires under the collection's current TTL settings: a Date, null when it never
 * does (no `_ts` TTL index, or `ttl: -1`), undefined when the record is not tracked.
 */
export function cosmosExpiryOf(collection: Collection, record: StoredRecord): Date | null | undefined {
  const ts = cosmosTimestampOf(collection, record);
  if (ts === undefined) return undefined;
  const at = cosmosExpiryMs(record.doc, ts, cosmosCollectionTTL(collection)?.seconds);
  return at === null ? null : new Date(at);
}

/** Summary of a collection's Cosmos TTL state, for status views. */
export function cosmosTTLStatus(
  collection: Collection,
): { defaultSeconds: number | null; indexName: string | null; expiring: number; nextExpiry: Date | null } | undefined {
  const state = states.get(collection);
  if (!state) return undefined;
  state.sync();
  const def = cosmosCollectionTTL(collection);
  const next = state.nextExpiryMs;
  return {
    defaultSeconds: def?.seconds ?? null,
    indexName: def?.indexName ?? null,
    expiring: state.expiringCount,
    nextExpiry: next === null ? null : new Date(next),
  };
}
