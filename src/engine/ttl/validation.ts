/**
 * TTL rules that need no engine state: validating `expireAfterSeconds` for createIndex (rules
 * 1.2–1.4), collMod (3.1–3.2) and clustered/time-series collections (5.3), and whole TTL index specs
 * against the collection they are for (1.5–1.10, 6.4). The diagnostics layer calls the same
 * functions, so the editor and the engine can never disagree.
 */
import { type Decimal128, Int32, type Long } from 'bson';
import { EngineError } from '../errors';
import { chooseTTLField, type FieldSample } from './ttl-field-choice';
import { formatValue } from '../values/format';
import { toDouble } from '../values/numbers';
import { bsonClassOf, bsonTypeOf, isNumeric, isPlainObject, type Document } from '../values/types';

export type TTLServerVersion = '8.0' | '7.0';

export const INT32_MAX = 2147483647;
const INT32_MIN = -2147483648;
const TWO_63 = 2 ** 63;

/** The TTL facts of a spec: is it a TTL index at all (rule 1.1: presence of the option). */
export function isTTLIndexSpec(spec: Document): boolean {
  return Object.prototype.hasOwnProperty.call(spec, 'expireAfterSeconds');
}

function isNaNValue(value: unknown): boolean {
  if (typeof value === 'number') return Number.isNaN(value);
  if (bsonClassOf(value) === 'Decimal128') return (value as Decimal128).toString().endsWith('NaN');
  if (bsonClassOf(value) === 'Double') return Number.isNaN((value as { value: number }).value);
  return false;
}

/** mongod's safeNumberLong: NaN → 0, truncation toward zero, clamped to ±2^63. */
export function safeNumberLong(value: unknown): number {
  if (bsonClassOf(value) === 'Long') return (value as Long).toNumber();
  const d = toDouble(value);
  if (Number.isNaN(d)) return 0;
  if (d >= TWO_63) return TWO_63;
  if (d <= -TWO_63) return -TWO_63;
  // `|| 0` turns -0 (from -0.5) into 0.
  return Math.trunc(d) || 0;
}

/** mongod's safeNumberInt: safeNumberLong then clamped to int32. */
export function safeNumberInt(value: unknown): number {
  const l = safeNumberLong(value);
  return l > INT32_MAX ? INT32_MAX : l < INT32_MIN ? INT32_MIN : l;
}

/** Human form of a number for messages. */
function show(value: unknown): string {
  return formatValue(value);
}

export interface EASCheck {
  /** The truncated integer the TTL monitor will use. */
  seconds: number;
  /** What the catalog stores: 8.0 stores the truncated Int32; 7.0 keeps the value as given. */
  stored: unknown;
}

/**
 * Rules 1.2–1.4: `expireAfterSeconds` of createIndex. Throws 67 CannotCreateIndex with mongod's
 * wording plus what to do; returns the truncated seconds and the value to store.
 */
export function checkIndexExpireAfterSeconds(
  value: unknown,
  version: TTLServerVersion = '8.0',
  specForMessage?: Document,
): EASCheck {
  // Formatted only when a check fails: most values pass, and formatting the spec costs more than the checks.
  const context = (): string => (specForMessage ? ` Index spec: ${show(specForMessage)}` : '');
  if (!isNumeric(value)) {
    throw new EngineError(
      'CannotCreateIndex',
      `TTL index 'expireAfterSeconds' option must be numeric, but received a type of '${bsonTypeOf(value)}'. Use a number of seconds, e.g. expireAfterSeconds: 3600.${context()}`,
    );
  }
  if (isNaNValue(value)) {
    throw new EngineError(
      'CannotCreateIndex',
      `TTL index 'expireAfterSeconds' option must not be NaN: a NaN TTL index deletes nothing on current servers and deleted everything at once on 5.0.0–5.0.13 / 6.0.0–6.0.1. Use a number of seconds.${context()}`,
    );
  }
  const asLong = safeNumberLong(value);
  const asInt = safeNumberInt(value);
  if (asLong !== asInt) {
    const wording =
      version === '7.0'
        ? "TTL index 'expireAfterSeconds' option must be within an acceptable range, try a lower number"
        : "TTL index 'expireAfterSeconds' must be within the range of a 32-bit integer";
    throw new EngineError(
      'CannotCreateIndex',
      `${wording} (got ${show(value)}; the largest allowed is ${INT32_MAX} seconds, about 68 years).${context()}`,
    );
  }
  if (asLong < 0) {
    throw new EngineError(
      'CannotCreateIndex',
      `TTL index 'expireAfterSeconds' option cannot be less than 0 (got ${show(value)}). Use 0 to expire documents at the date stored in the field.${context()}`,
    );
  }
  return { seconds: asLong, stored: version === '7.0' ? value : new Int32(asLong) };
}

/**
 * Rules 3.1–3.2: `index.expireAfterSeconds` of collMod is parsed as safeInt (type error 14), then
 * NaN becomes 0 and out-of-range values clamp to int32 (confidence low, as the spec says), and a
 * negative value is 72 InvalidOptions.
 */
export function checkCollModIndexExpireAfterSeconds(value: unknown): number {
  if (!isNumeric(value)) {
    throw new EngineError(
      'TypeMismatch',
      `BSON field 'collMod.index.expireAfterSeconds' is the wrong type '${bsonTypeOf(value)}', expected types '[long, int, decimal, double']. Use a number of seconds.`,
    );
  }
  const seconds = safeNumberInt(value);
  if (seconds < 0) {
    throw new EngineError(
      'InvalidOptions',
      `TTL index 'expireAfterSeconds' option cannot be less than 0 (got ${show(value)}).`,
    );
  }
  return seconds;
}

/**
 * Rule 5.3 (and 6.1): collection-level `expireAfterSeconds` of clustered and time-series
 * collections, an int64 of seconds no larger than the time since the epoch. `nowMs` is the engine
 * clock's time.
 */
export function checkClusteredExpireAfterSeconds(value: unknown, nowMs: number): number {
  if (!isNumeric(value)) {
    throw new EngineError(
      'TypeMismatch',
      `'expireAfterSeconds' must be a number of seconds (or "off" in collMod), got ${bsonTypeOf(value)}.`,
    );
  }
  const seconds = safeNumberLong(value);
  if (seconds < 0)
    throw new EngineError('InvalidOptions', `'expireAfterSeconds' cannot be less than 0 (got ${show(value)}).`);
  if (seconds * 1000 > nowMs || !Number.isSafeInteger(seconds * 1000)) {
    throw new EngineError(
      'InvalidOptions',
      `'expireAfterSeconds' must be within an acceptable range, try a lower number: ${seconds} seconds reaches back before 1970 (at most ${Math.floor(nowMs / 1000)} now).`,
    );
  }
  return seconds;
}

/** What a TTL index spec is checked against. */
export interface TTLCollectionFacts {
  capped: boolean;
  clustered: boolean;
  timeseries?: { timeField: string; metaField?: string };
  serverVersion: TTLServerVersion;
  /** What the collection's documents hold in a field: names the TTL field a refused compound key meant. */
  sample?: (field: string) => FieldSample;
}

const SPECIAL_PLUGINS = new Set(['hashed', 'text', '2dsphere', '2d']);

/**
 * Rules 1.5–1.10 and 6.4, in mongod's order: capped+clustered (6049202), then the value (1.2–1.4),
 * then the key (1.6 compound, 1.9 wildcard), then the collection (1.8 capped by version, 1.10/6.4
 * time series). `_id` (1.7) is refused earlier, by the spec validation of the _id index. Returns
 * the checked seconds.
 */
export function checkTTLIndexSpec(spec: Document, facts: TTLCollectionFacts): EASCheck {
  if (facts.capped && facts.clustered) {
    throw new EngineError(
      6049202,
      'TTL secondary indexes are not allowed on a capped clustered collection. Use a non-capped clustered collection with a collection-level expireAfterSeconds instead.',
    );
  }
  const check = checkIndexExpireAfterSeconds(spec.expireAfterSeconds, facts.serverVersion, spec);
  const key = isPlainObject(spec.key) ? spec.key : {};
  const fields = Object.keys(key);
  if (fields.length > 1) {
    throw new EngineError(
      'CannotCreateIndex',
      `TTL indexes are single-field indexes, compound indexes do not support TTL. Cannot create TTL index on ${show(key)}: ${compoundAdvice(fields, facts.sample)}, and the compound index without it.`,
    );
  }
  // The key has one field from here on: a compound wildcard key ({"a.$**": 1, b: 1}) was refused
  // as compound above, as createIndexes' TTL check runs before the wildcard index's own validation.
  if (isWildcardKeyField(fields[0] ?? '')) {
    throw new EngineError(
      'CannotCreateIndex',
      "cannot make a TTL index: Index type 'wildcard' does not support the 'expireAfterSeconds' option. Index a single date field instead, e.g. {createdAt: 1}.",
    );
  }
  if (facts.capped && facts.serverVersion === '7.0') {
    throw new EngineError(
      'CannotCreateIndex',
      'Cannot create TTL index on a capped collection (MongoDB 7.0). Capped collections remove their oldest documents by size; TTL indexes on capped collections need MongoDB 7.1+ (serverVersion "8.0").',
    );
  }
  if (facts.timeseries) checkTimeseriesTTLIndex(spec, fields, facts.timeseries);
  return check;
}

/** Which single field to make the TTL index on instead; a wildcard part can never be it. */
function compoundAdvice(fields: string[], sample: TTLCollectionFacts['sample']): string {
  const plain = fields.filter((f) => !isWildcardKeyField(f));
  if (plain.length === 0) return 'create a single-field index on the date field with expireAfterSeconds';
  const choice = chooseTTLField(plain, sample);
  return `create {${choice.field}: 1} with expireAfterSeconds (${choice.because})`;
}

function isWildcardKeyField(field: string): boolean {
  return field === '$**' || field.endsWith('.$**');
}

/** Rule 6.4: a secondary TTL index on a time-series collection (`fields`: its key's one field). */
export function checkTimeseriesTTLIndex(
  spec: Document,
  fields: string[],
  ts: { timeField: string; metaField?: string },
): void {
  if (fields[0] !== ts.timeField) {
    throw new EngineError(
      'InvalidOptions',
      `TTL indexes on non-time fields are not supported on time-series collections: index '${ts.timeField}' (the timeField), not '${fields[0]}'.`,
    );
  }
  const filter = spec.partialFilterExpression;
  if (!isPlainObject(filter) || !ts.metaField || !onlyReferences(filter, ts.metaField)) {
    throw new EngineError(
      'InvalidOptions',
      `TTL indexes on time-series collections require a partialFilterExpression on the metaField${ts.metaField ? ` ('${ts.metaField}')` : ' (this collection has none)'}: e.g. {partialFilterExpression: {"${ts.metaField ?? 'meta'}.kind": "debug"}}. For the whole collection use the top-level expireAfterSeconds (collMod).`,
    );
  }
}

/** Whether every field a filter names is `meta` or a subfield of it. */
function onlyReferences(filter: Document, meta: string): boolean {
  const keys = Object.keys(filter);
  if (keys.length === 0) return false;
  return keys.every((k) => {
    if (k === '$and' || k === '$or') {
      const v = filter[k];
      return Array.isArray(v) && v.length > 0 && v.every((sub) => isPlainObject(sub) && onlyReferences(sub, meta));
    }
    return k === meta || k.startsWith(`${meta}.`);
  });
}

/**
 * Rule 1.9 / 7.6: whether the TTL monitor can delete through an index with this key at all.
 * Hashed, text, 2d and 2dsphere TTL indexes are accepted at creation but never expire anything.
 */
export function ttlKeyIsUsable(key: Document): { usable: true } | { usable: false; reason: string; logId: number } {
  const entries = Object.entries(key);
  if (entries.length !== 1) return { usable: false, reason: 'key for ttl index can only have 1 field', logId: 22540 };
  const [, dir] = entries[0];
  if (typeof dir === 'string' && SPECIAL_PLUGINS.has(dir)) {
    if (dir === 'text') return { usable: false, reason: 'key for ttl index can only have 1 field', logId: 22540 };
    return { usable: false, reason: "special index can't be used as a TTL index, skipping TTL job", logId: 22541 };
  }
  return { usable: true };
}

/**
 * Rule 4.2 / 7.6: the seconds the monitor uses for a stored value, or undefined when the stored value
 * is invalid (NaN, out of int32 range, negative, not a number) and the monitor skips the index.
 */
export function effectiveExpireAfterSeconds(stored: unknown): number | undefined {
  if (!isNumeric(stored) || isNaNValue(stored)) return undefined;
  const l = safeNumberLong(stored);
  if (l !== safeNumberInt(stored) || l < 0) return undefined;
  return l;
}

/** Rule 9.1 / 4.2: what listIndexes reports: an int32, with invalid stored values as 2147483647. */
export function listedExpireAfterSeconds(stored: unknown): Int32 {
  const s = effectiveExpireAfterSeconds(stored);
  return new Int32(s === undefined ? INT32_MAX : s);
}

export function isNaNExpireAfterSeconds(stored: unknown): boolean {
  return isNaNValue(stored);
}

export { toDouble };
