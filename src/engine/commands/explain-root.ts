/**
 * The stage an explained write or count puts above its scan, as mongod 8.0 shows it: COUNT (or
 * RECORD_STORE_FAST_COUNT for a count of everything, COUNT_SCAN when the index answers alone),
 * DELETE with nWouldDelete, UPDATE with nMatched / nWouldModify / nWouldUpsert. The counts come
 * from a dry run over the records the scan found: nothing is written.
 */
import type { QueryRequest, QueryResult } from '../query/executor';
import { multiKeyPathsDocument } from '../indexes/multikey-paths';
import { MaxKey, MinKey } from 'bson';
import { KeyBound } from '../indexes/key-order';
import { indexBounds, type IndexPlan } from '../query/planner';
import { canonicalRank, isPlainObject, type Document } from '../values/types';
import { prepareUpdate } from './crud';
import { filterIsCoveredBy } from './explain-plan';

export interface ExplainedStages {
  winningPlan: Document;
  executionStages: Document;
  /** What executionStats.nReturned says: writes return no document (findAndModify: its one). */
  nReturned: number;
  /** The index answered the count alone: no document was read. */
  docsExamined?: number;
}

export interface RootContext {
  op: string;
  inner: Document;
  request: QueryRequest;
  /** Undefined when the collection does not exist. */
  result: QueryResult | undefined;
  now: Date;
}

/** Wrap `below` in the command's root stage, or return it unchanged for find, distinct, aggregate. */
export function withRootStage(ctx: RootContext, below: ExplainedStages): ExplainedStages {
  // A write to a collection that does not exist is an EOF plan alone: nothing to delete or update.
  if (ctx.result === undefined && ctx.op !== 'count') return below;
  switch (ctx.op) {
    case 'count':
      return countRoot(ctx, below);
    case 'delete':
      return writeRoot({ stage: 'DELETE' }, { nWouldDelete: ctx.result?.records.length ?? 0 }, below, 0);
    case 'update':
      return updateRoot(ctx, firstStatement(ctx.inner, 'updates'), below, false);
    case 'findAndModify':
      return withFieldsStage(ctx.inner, findAndModifyRoot(ctx, below));
  }
  return below;
}

function findAndModifyRoot(ctx: RootContext, below: ExplainedStages): ExplainedStages {
  if (ctx.inner.remove === true) {
    const n = ctx.result?.records.length ?? 0;
    return writeRoot({ stage: 'DELETE' }, { nWouldDelete: n }, below, n);
  }
  return updateRoot(ctx, { q: ctx.request.filter ?? {}, u: ctx.inner.update, upsert: ctx.inner.upsert }, below, true);
}

/**
 * findAndModify's `fields` shape the one document it returns: mongod puts a PROJECTION_DEFAULT
 * (whatever the projection's form) above the write stage.
 */
function withFieldsStage(inner: Document, root: ExplainedStages): ExplainedStages {
  const fields = inner.fields ?? inner.projection;
  if (!isPlainObject(fields) || Object.keys(fields).length === 0) return root;
  const stage = { stage: 'PROJECTION_DEFAULT', transformBy: fields };
  return {
    ...root,
    winningPlan: { ...stage, inputStage: root.winningPlan },
    executionStages: { ...stage, nReturned: root.nReturned, inputStage: root.executionStages },
  };
}

function firstStatement(inner: Document, field: string): Document {
  const statements = inner[field];
  return Array.isArray(statements) && isPlainObject(statements[0]) ? statements[0] : {};
}

function writeRoot(plan: Document, counts: Document, below: ExplainedStages, nReturned: number): ExplainedStages {
  return {
    winningPlan: { ...plan, inputStage: below.winningPlan },
    executionStages: { ...plan, nReturned, ...counts, inputStage: below.executionStages },
    nReturned,
  };
}

/**
 * Which matched documents the update would change, by applying it to each and comparing: an
 * update that sets a value already there modifies nothing, as on mongod.
 */
function updateRoot(ctx: RootContext, statement: Document, below: ExplainedStages, isFindAndModify: boolean) {
  const upsert = statement.upsert === true;
  const prepared = prepareUpdate((statement.q as Document) ?? {}, statement.u, {
    multi: statement.multi === true,
    upsert,
    arrayFilters: isFindAndModify ? ctx.inner.arrayFilters : statement.arrayFilters,
    arrayFiltersField: isFindAndModify ? 'arrayFilters' : 'update.updates.arrayFilters',
    constants: isFindAndModify ? undefined : statement.c,
    now: ctx.now,
  });
  const records = ctx.result?.records ?? [];
  let modified = 0;
  for (const record of records) {
    const next = prepared.compiled
      ? prepared.compiled.apply(record.doc, {
          now: ctx.now,
          isInsert: false,
          matchedField: prepared.matchedPosition?.(record.doc),
        })
      : prepared.pipeline
        ? prepared.pipeline(record.doc)
        : { changed: true };
    if (next.changed) modified++;
  }
  const wouldUpsert = records.length === 0 && upsert ? 1 : 0;
  const returned = isFindAndModify && (records.length > 0 || (wouldUpsert && ctx.inner.new === true)) ? 1 : 0;
  return writeRoot(
    { stage: 'UPDATE' },
    { nMatched: records.length, nWouldModify: modified, nWouldUpsert: wouldUpsert },
    below,
    returned,
  );
}

function countRoot(ctx: RootContext, below: ExplainedStages): ExplainedStages {
  const { request, result } = ctx;
  const counted = result?.records.length ?? 0;
  // A $comment constrains nothing.
  const constrained = Object.keys(request.filter ?? {}).some((k) => k !== '$comment');
  const everything = result !== undefined && !constrained && request.hint === undefined;
  if (everything) {
    // The record store keeps the number: no scan at all (skip and limit applied to it).
    const stage = { stage: 'RECORD_STORE_FAST_COUNT' };
    return {
      winningPlan: stage,
      executionStages: { ...stage, nReturned: 0, nCounted: counted, nSkipped: request.skip ?? 0 },
      nReturned: 0,
      docsExamined: 0,
    };
  }
  const plan = result?.plan;
  // No interval at all ($gt: MaxKey) is an empty range: still one COUNT_SCAN.
  // Bounds a checked scan tests key by key are no one range to count.
  const singleRange =
    plan?.kind === 'IXSCAN' && plan.checked === undefined && plan.fieldIntervals.every((ivs) => ivs.length <= 1);
  if (plan?.kind === 'IXSCAN' && singleRange && filterIsCoveredBy(plan, request)) {
    // COUNT_SCAN counts the keys its bounds hold, the document never read: a MinKey key counts for
    // $gt: MinKey (bounds [MinKey, MaxKey]) though the matcher alone would refuse it, as on mongod.
    const keys = plan.ranges.reduce((n, [start, end]) => n + plan.index.countRange(start, end), 0);
    const skipped = Math.max(0, keys - (request.skip ?? 0));
    const keysCounted = request.limit ? Math.min(skipped, request.limit) : skipped;
    // Counting index entries: mongod's COUNT_SCAN, no FETCH.
    const countScan = countScanStage(plan);
    const stage = { stage: 'COUNT' };
    return {
      winningPlan: { ...stage, inputStage: countScan },
      executionStages: {
        ...stage,
        nReturned: 0,
        nCounted: keysCounted,
        nSkipped: request.skip ?? 0,
        inputStage: { ...countScan, nReturned: keysCounted, keysExamined: result?.keysExamined ?? 0 },
      },
      nReturned: 0,
      docsExamined: 0,
    };
  }
  return writeRoot({ stage: 'COUNT' }, { nCounted: counted, nSkipped: request.skip ?? 0 }, below, 0);
}

/** The COUNT_SCAN stage that counts the keys of `plan`'s one range. */
export function countScanStage(plan: IndexPlan): Document {
  return {
    stage: 'COUNT_SCAN',
    keyPattern: plan.index.spec.key,
    indexName: plan.index.name,
    isMultiKey: plan.index.multikey,
    multiKeyPaths: multiKeyPathsDocument(plan.index.pattern.fields, plan.index.multikeyPaths),
    isUnique: plan.index.unique,
    isSparse: plan.index.sparse,
    isPartial: plan.index.isPartial,
    indexVersion: 2,
    // A type bracket's end that is no BSON value (a date's) keeps the per-field interval form.
    indexBounds: keyRange(plan) ?? indexBounds(plan),
  };
}

/**
 * COUNT_SCAN walks one contiguous key range (several intervals on a field make mongod count over
 * an IXSCAN), shown as mongod does: whole start and end keys with their inclusivity. Undefined
 * for a type-bracketed end other than a number's.
 */
function keyRange(plan: IndexPlan): Document | undefined {
  const startKey: Document = {};
  const endKey: Document = {};
  let startKeyInclusive = true;
  let endKeyInclusive = true;
  let ok = true;
  const valueOf = (v: unknown, low: boolean): unknown => {
    if (!(v instanceof KeyBound)) return v;
    if (v.rank === undefined) return low ? new MinKey() : new MaxKey();
    if (v.rank === NUMBER_RANK) return low ? -Infinity : Infinity;
    ok = false;
    return undefined;
  };
  if (plan.fieldIntervals.some((ivs) => ivs.length === 0)) return undefined;
  plan.index.pattern.fields.forEach((field, i) => {
    const iv = plan.fieldIntervals[i]?.[0];
    const ascending = plan.index.directions[i] === 1;
    if (!iv) {
      // Past the constrained fields the range takes everything, or nothing past an exclusive end.
      startKey[field.path] = startKeyInclusive === ascending ? new MinKey() : new MaxKey();
      endKey[field.path] = endKeyInclusive === ascending ? new MaxKey() : new MinKey();
      return;
    }
    const [from, to] = ascending ? [iv.low, iv.high] : [iv.high, iv.low];
    startKey[field.path] = valueOf(from, ascending);
    endKey[field.path] = valueOf(to, !ascending);
    startKeyInclusive &&= ascending ? iv.lowInclusive : iv.highInclusive;
    endKeyInclusive &&= ascending ? iv.highInclusive : iv.lowInclusive;
  });
  return ok ? { startKey, startKeyInclusive, endKey, endKeyInclusive } : undefined;
}

const NUMBER_RANK = canonicalRank(0);
