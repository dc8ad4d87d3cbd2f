/**
 * Legacy TTL specs (rules 4.1–4.3): catalogs written by older servers can hold an
 * expireAfterSeconds that createIndex refuses today (NaN, beyond int32, negative, fractional).
 * They load without validation, are reported, are skipped by the monitor, are listed as
 * 2147483647, and are rewritten when the node becomes primary (step-up).
 */
import { Int32 } from 'bson';
import type { EngineContext } from '../engine-context';
import { fail } from '../errors';
import { BTreeIndex } from '../indexes/btree-index';
import { normalizeIndexSpec } from '../indexes/index-spec';
import { compileFilter } from '../query/matcher';
import { toDouble } from '../values/numbers';
import { isNumeric, type Document } from '../values/types';
import { effectiveExpireAfterSeconds, INT32_MAX, isNaNExpireAfterSeconds, isTTLIndexSpec } from './validation';

export interface TTLIndexProblem {
  db: string;
  collection: string;
  index: string;
  key: Document;
  /** The stored value, as found in the catalog. */
  expireAfterSeconds: unknown;
  problem: 'NaN' | 'out of range' | 'negative' | 'not a number' | 'fractional';
}

function problemOf(stored: unknown): TTLIndexProblem['problem'] | undefined {
  if (!isNumeric(stored)) return 'not a number';
  if (isNaNExpireAfterSeconds(stored)) return 'NaN';
  const valid = effectiveExpireAfterSeconds(stored);
  if (valid === undefined) return toDouble(stored) < 0 ? 'negative' : 'out of range';
  if (!Number.isInteger(toDouble(stored))) return 'fractional';
  return undefined;
}

/** Every TTL index whose stored expireAfterSeconds is not a valid integer, across all databases. */
export function findInvalidTTLIndexes(engine: EngineContext): TTLIndexProblem[] {
  const out: TTLIndexProblem[] = [];
  for (const db of engine.databases.values()) {
    for (const coll of db.collections.values()) {
      for (const index of coll.indexes.values()) {
        if (!isTTLIndexSpec(index.spec)) continue;
        const problem = problemOf(index.spec.expireAfterSeconds);
        if (problem) {
          out.push({
            db: db.name,
            collection: coll.name,
            index: index.name,
            key: index.spec.key as Document,
            expireAfterSeconds: index.spec.expireAfterSeconds,
            problem,
          });
        }
      }
    }
  }
  return out;
}

/** What the MongoDB docs' getNaNIndexes() script lists: TTL indexes whose value is NaN. */
export function findNaNTTLIndexes(engine: EngineContext): TTLIndexProblem[] {
  return findInvalidTTLIndexes(engine).filter((p) => p.problem === 'NaN');
}

/**
 * Rule 4.3: put an index spec into the catalog as an old server left it, without the TTL checks of
 * createIndex (the key pattern and options are still checked). For loading stored catalogs only.
 */
export function loadLegacyIndexSpec(
  engine: EngineContext,
  dbName: string,
  collectionName: string,
  spec: Document,
): void {
  const { collection } = engine.ensureCollection(dbName, collectionName);
  const { spec: normalized } = normalizeIndexSpec({ ...spec, expireAfterSeconds: undefined });
  delete normalized.expireAfterSeconds;
  if (isTTLIndexSpec(spec)) normalized.expireAfterSeconds = spec.expireAfterSeconds;
  if (collection.indexes.has(normalized.name as string))
    fail('IndexOptionsConflict', `index ${String(normalized.name)} already exists on ${collection.ns}.`);
  const partial = normalized.partialFilterExpression
    ? compileFilter(normalized.partialFilterExpression as Document)
    : undefined;
  collection.addIndex(new BTreeIndex(normalized, partial));
  if (isNaNExpireAfterSeconds(normalized.expireAfterSeconds)) {
    engine.log(6852200, "Found an existing TTL index with NaN 'expireAfterSeconds' in the catalog", {
      ns: collection.ns,
      index: normalized.name,
    });
  }
  engine.recordEvent({
    kind: 'indexesCreated',
    db: dbName,
    collection: collectionName,
    names: [normalized.name as string],
  });
  engine.flushEvents();
}

/**
 * Rule 4.2 (step-up): rewrite invalid stored values to 2147483647; 8.0 also rewrites fractional
 * doubles to their truncated integer. Returns what was rewritten.
 */
export function repairInvalidTTLSpecs(engine: EngineContext): TTLIndexProblem[] {
  const fixed: TTLIndexProblem[] = [];
  for (const p of findInvalidTTLIndexes(engine)) {
    if (p.problem === 'fractional' && engine.serverVersion === '7.0') continue;
    const index = engine.getCollection(p.db, p.collection)!.indexes.get(p.index)!;
    const next = p.problem === 'fractional' ? Math.trunc(toDouble(p.expireAfterSeconds)) : INT32_MAX;
    index.spec.expireAfterSeconds = new Int32(next);
    engine.log(
      p.problem === 'fractional' ? 6847701 : 6847700,
      'Rewrote invalid expireAfterSeconds of a TTL index on step-up',
      { ns: `${p.db}.${p.collection}`, index: p.index, from: String(p.expireAfterSeconds), to: next },
    );
    engine.recordEvent({ kind: 'indexChanged', db: p.db, collection: p.collection, names: [p.index] });
    fixed.push(p);
  }
  engine.flushEvents();
  return fixed;
}
