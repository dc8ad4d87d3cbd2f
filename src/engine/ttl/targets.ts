/**
 * What one TTL monitor visit deletes. A target is one TTL index or one collection-level TTL
 * (clustered collection); `visit` deletes at most the budget's documents / milliseconds and says
 * whether expired work remains. Targets re-read their spec on every visit (rules 3.11 and 7.6), so
 * a collMod takes effect at the next visit and an index that became invalid is skipped.
 */
import type { Collection } from '../catalog/collection';
import type { StoredRecord } from '../catalog/record';
import type { EngineError } from '../errors';
import type { BTreeIndex } from '../indexes/btree-index';
import { countBetween } from '../indexes/btree-rank';
import { pendingInterrupt } from '../interrupt';
import { encodeEntry, KeyBound, MIN_BOUND, MAX_BOUND, type EntryKey } from '../indexes/key-order';
import { effectiveExpireAfterSeconds, isTTLIndexSpec, ttlKeyIsUsable } from './validation';

const DATE_RANK = 45;

export interface VisitBudget {
  /** 0 = unlimited (ttlIndexDeleteTargetDocs). */
  maxDocs: number;
  /** 0 = unlimited (ttlIndexDeleteTargetTimeMS), measured in real time: it bounds CPU work. */
  maxMillis: number;
  /** The engine clock's time at the visit. */
  now: number;
  /** serverStatus().batchedDeletes counters, present when ttlMonitorBatchDeletes is true. */
  batchStats?: { batches: number; docs: number; timeMillis: number };
}

export type VisitOutcome =
  // metricCount: what metrics.ttl.deletedDocuments gains, for targets that remove records themselves
  // instead of through `remove` (time-series TTL counts buckets, rule 7.12).
  // interrupted: the visit stopped at a safe point (between batches) for a time limit or an
  // interrupt; what it deleted is counted and committed, then the monitor throws this error.
  | { kind: 'done' | 'more'; deleted: number; metricCount?: number; interrupted?: EngineError }
  | { kind: 'skipped'; reason: string; logId: number };

/** Eligible documents a target has not deleted, counted at most up to a limit (see BACKLOG_COUNT_LIMIT). */
export interface Backlog {
  count: number;
  /** The count stopped at the limit: there are at least `count`. */
  atLeast: boolean;
}

/**
 * A backlog walk stops after this many documents: a multikey index or a time series is counted
 * by walking what is expired, and a secondary's backlog grows every pass.
 */
export const BACKLOG_COUNT_LIMIT = 100_000;

export interface TTLTarget {
  readonly collection: Collection;
  /** `index <name>` or `collection` for clustered / time-series TTL. */
  readonly label: string;
  visit(budget: VisitBudget, remove: (record: StoredRecord) => void): VisitOutcome;
  /**
   * The documents this rule makes eligible at `nowMs` that are still there: what a visit at that
   * time would delete with no budget. None when the monitor skips the rule (rule 7.6).
   */
  backlog(nowMs: number): Backlog;
}

export const NO_BACKLOG: Backlog = { count: 0, atLeast: false };

/**
 * Extra target kinds (time series, Cosmos) register a factory per collection. Declared here, not
 * in monitor.ts, so the engine interface can name it without depending on the monitor.
 */
export type TargetFactory = (collection: Collection) => TTLTarget[];

/** Time budget check done every so many deletions (reading the clock per document costs). */
const TIME_CHECK_EVERY = 256;

/**
 * Deletes records yielded by `candidates` (in index order) until the budget is spent. Collects a
 * small batch first so the scan never walks entries it is deleting.
 */
export function deleteWithinBudget(
  candidates: () => IterableIterator<StoredRecord>,
  budget: VisitBudget,
  remove: (record: StoredRecord) => void,
): { kind: 'done' | 'more'; deleted: number; interrupted?: EngineError } {
  const started = performance.now();
  let deleted = 0;
  for (;;) {
    const room = budget.maxDocs > 0 ? Math.min(budget.maxDocs - deleted, 1024) : 1024;
    if (room <= 0) return { kind: 'more', deleted };
    const batch: StoredRecord[] = [];
    const seen = new Set<number>();
    for (const record of candidates()) {
      if (seen.has(record.rid)) continue;
      seen.add(record.rid);
      batch.push(record);
      if (batch.length >= room) break;
    }
    if (batch.length === 0) return { kind: 'done', deleted };
    for (const record of batch) {
      const interrupted = pendingInterrupt(); // between documents: each delete is whole
      if (interrupted) return { kind: 'more', deleted, interrupted };
      remove(record);
      deleted++;
      if (budget.maxMillis > 0 && deleted % TIME_CHECK_EVERY === 0 && performance.now() - started >= budget.maxMillis) {
        return { kind: 'more', deleted };
      }
    }
    if (budget.maxDocs > 0 && deleted >= budget.maxDocs) {
      // The budget ran out exactly: whether work remains decides if the index is visited again.
      const next = candidates().next();
      return { kind: next.done ? 'done' : 'more', deleted };
    }
  }
}

/** Rule 7.7–7.9: a secondary TTL index, walked over [min date, now − EAS] (both inclusive). */
export class IndexTTLTarget implements TTLTarget {
  constructor(
    readonly collection: Collection,
    private readonly indexName: string,
  ) {}

  get label(): string {
    return `index ${this.indexName}`;
  }

  /** The index and its seconds as a visit re-reads them (rule 7.6), or why the monitor skips it. */
  private rule(): { index: BTreeIndex; seconds: number } | { kind: 'skipped'; reason: string; logId: number } {
    const index = this.collection.indexes.get(this.indexName);
    if (!index || !isTTLIndexSpec(index.spec)) return { kind: 'skipped', reason: 'no longer a TTL index', logId: 0 };
    const usable = ttlKeyIsUsable(index.spec.key as Record<string, unknown>);
    if (!usable.usable) return { kind: 'skipped', reason: usable.reason, logId: usable.logId };
    const seconds = effectiveExpireAfterSeconds(index.spec.expireAfterSeconds);
    if (seconds === undefined)
      return {
        kind: 'skipped',
        reason: 'Skipping TTL job due to invalid index spec (expireAfterSeconds is NaN, negative or beyond int32)',
        logId: 6909100,
      };
    return { index, seconds };
  }

  visit(budget: VisitBudget, _remove: (record: StoredRecord) => void): VisitOutcome {
    const rule = this.rule();
    if ('kind' in rule) return rule;
    const threshold = budget.now - rule.seconds * 1000;
    return deleteIndexRange(this.collection, rule.index, threshold, budget);
  }

  backlog(nowMs: number): Backlog {
    const rule = this.rule();
    if ('kind' in rule) return NO_BACKLOG;
    const [start, end] = expiredRange(rule.index, nowMs - rule.seconds * 1000);
    // A single-key index: one range count by subtree sizes. A multikey one holds a document under
    // each of its dates: its distinct documents are walked.
    if (!rule.index.multikey) return { count: countBetween(rule.index.tree, start, end), atLeast: false };
    return distinctInRange(rule.index, start, end);
  }
}

/** The expired dates [min date, threshold] of a TTL index as a range in tree order (rule 7.8). */
function expiredRange(index: BTreeIndex, thresholdMs: number): [EntryKey, EntryKey] {
  // A descending index holds the threshold end first.
  const oldest = new KeyBound(-1, DATE_RANK);
  const threshold = new Date(thresholdMs);
  return index.directions[0] === 1
    ? [encodeEntry([oldest, MIN_BOUND]), encodeEntry([threshold, MAX_BOUND])]
    : [encodeEntry([threshold, MIN_BOUND]), encodeEntry([oldest, MAX_BOUND])];
}

/** The distinct documents of a range, up to BACKLOG_COUNT_LIMIT. */
function distinctInRange(index: BTreeIndex, start: EntryKey, end: EntryKey): Backlog {
  const seen = new Set<number>();
  let atLeast = false;
  // Stryker disable next-line BooleanLiteral: no entry equals the end key (its rid slot is MAX_BOUND), so including it or not walks the same entries
  index.tree.forRange(start, end, true, (_entry, record) => {
    seen.add(record.rid);
    if (seen.size >= BACKLOG_COUNT_LIMIT) {
      atLeast = true;
      return STOP_WALK;
    }
  });
  return { count: seen.size, atLeast };
}

// Stryker disable next-line BooleanLiteral: sorted-btree stops a walk on any `break` property that is not undefined, false included
const STOP_WALK = { break: true };

/** Documents the first index-range batch of a visit deletes at most (mongod's visit budget is 50000). */
const INDEX_BATCH = 16_384;
/** Share of the visit's time left that a later batch is sized to fill, from the last batch's pace. */
const BATCH_TIME_SHARE = 0.8;

/**
 * Deletes what [min date, threshold] of a TTL index holds, in batches. The first batch holds up to
 * INDEX_BATCH documents; later ones as many as the visit's time left should hold at the pace
 * measured so far: every batch walks the other indexes once, so fewer, larger batches cost less,
 * and the time limit is checked between them. The caller's metric counts every deleted document
 * (rule 7.12).
 */
function deleteIndexRange(coll: Collection, index: BTreeIndex, thresholdMs: number, budget: VisitBudget): VisitOutcome {
  const started = performance.now();
  const [start, end] = expiredRange(index, thresholdMs);
  let deleted = 0;
  let batchSize = INDEX_BATCH;
  for (;;) {
    const room = budget.maxDocs > 0 ? Math.min(budget.maxDocs - deleted, batchSize) : batchSize;
    if (room <= 0) return { kind: hasEntries(index, start, end) ? 'more' : 'done', deleted, metricCount: deleted };
    // Between batches: every index holds exactly the entries of the documents left.
    const interrupted = pendingInterrupt();
    if (interrupted) return { kind: 'more', deleted, metricCount: deleted, interrupted };
    const batchBegan = performance.now();
    // A multikey index may hold a document under dates outside the range too: its batch is
    // collected first and removed as a whole. Otherwise the walk that finds a batch deletes it.
    const removed = index.multikey
      ? removeMultikeyBatch(coll, index, start, end, room)
      : coll.removeIndexRange(index, start, end, room, 'ttl');
    if (removed === 0) return { kind: 'done', deleted, metricCount: deleted };
    deleted += removed;
    if (budget.batchStats) {
      budget.batchStats.batches++;
      budget.batchStats.docs += removed;
      budget.batchStats.timeMillis += Math.round(performance.now() - batchBegan);
    }
    if (budget.maxMillis > 0) {
      const now = performance.now();
      if (now - started >= budget.maxMillis)
        return { kind: hasEntries(index, start, end) ? 'more' : 'done', deleted, metricCount: deleted };
      const msPerDoc = (now - batchBegan) / removed;
      if (msPerDoc > 0)
        batchSize = Math.max(
          INDEX_BATCH,
          Math.floor(((budget.maxMillis - (now - started)) * BATCH_TIME_SHARE) / msPerDoc),
        );
    }
  }
}

/** The distinct documents of the first `room` entries of [start, end], removed; returns how many. */
function removeMultikeyBatch(
  coll: Collection,
  index: BTreeIndex,
  start: EntryKey,
  end: EntryKey,
  room: number,
): number {
  const batch: StoredRecord[] = [];
  const seen = new Set<number>();
  // A callback walk: the generator of scan() cost about as much as the deletes of a batch.
  // Stryker disable next-line BooleanLiteral: no entry equals the end key (its rid slot is MAX_BOUND), so including it or not walks the same entries
  index.tree.forRange(start, end, true, (_entry, record) => {
    if (seen.has(record.rid)) return;
    seen.add(record.rid);
    batch.push(record);
    if (batch.length >= room) return STOP_WALK;
  });
  coll.removeMany(batch, 'ttl');
  return batch.length;
}

function hasEntries(index: BTreeIndex, start: EntryKey, end: EntryKey): boolean {
  // Stryker disable next-line BooleanLiteral: a backward scan of the range is empty exactly when a forward one is
  return !index.scan(start, end, true).next().done;
}

/**
 * Rules 5.4 / 7.10: a clustered collection's own expireAfterSeconds, a bounded scan of the cluster
 * key from Date(0) to now − EAS; `_id`s that are not dates (or are before 1970) never expire.
 */
export class ClusteredTTLTarget implements TTLTarget {
  readonly label = 'collection';

  constructor(readonly collection: Collection) {}

  private rule(): { index: BTreeIndex; seconds: number } | { kind: 'skipped'; reason: string; logId: number } {
    const stored = this.collection.options.expireAfterSeconds;
    if (stored === undefined) return { kind: 'skipped', reason: 'expireAfterSeconds was removed', logId: 0 };
    const seconds = Number(stored);
    const index = this.collection.idIndex;
    if (!index || !Number.isFinite(seconds))
      return { kind: 'skipped', reason: 'invalid clustered expireAfterSeconds', logId: 0 };
    return { index, seconds };
  }

  /** The `_id` dates from 1970 to the threshold, or none before 1970 (rule 5.4). */
  private range(nowMs: number, seconds: number): [EntryKey, EntryKey] | undefined {
    const threshold = nowMs - seconds * 1000;
    if (threshold < 0) return undefined;
    return [encodeEntry([new Date(0), MIN_BOUND]), encodeEntry([new Date(threshold), MAX_BOUND])];
  }

  visit(budget: VisitBudget, remove: (record: StoredRecord) => void): VisitOutcome {
    const rule = this.rule();
    if ('kind' in rule) return rule;
    const { index } = rule;
    const range = this.range(budget.now, rule.seconds);
    if (!range) return { kind: 'done', deleted: 0 };
    const [start, end] = range;
    return deleteWithinBudget(
      function* () {
        for (const [, record] of index.scan(start, end, true)) yield record;
      },
      budget,
      remove,
    );
  }

  backlog(nowMs: number): Backlog {
    const rule = this.rule();
    if ('kind' in rule) return NO_BACKLOG;
    const range = this.range(nowMs, rule.seconds);
    return range ? { count: countBetween(rule.index.tree, range[0], range[1]), atLeast: false } : NO_BACKLOG;
  }
}
