/**
 * An index in words, as the tree shows it: `TTL 1 h after lastModifiedDate`, `expires at the date
 * in expireAt`, `NaN — ignored by the monitor`, `hashed — TTL never applies`. Whether an index is a
 * TTL index, which seconds the monitor uses and whether its key can expire anything are the
 * engine's rules (`ttlRules`); this module only puts them into words.
 */
import type { Document } from '../../engine';
import * as ttlRules from '../../engine/ttl/validation';
import { formatSeconds } from './durations';

/** What a backend knows about one index. */
export interface IndexFacts {
  name: string;
  /** The spec as listIndexes reports it (invalid TTL values read 2147483647 there, rule 9.1). */
  spec: Document;
  /** What the catalog really stores when listIndexes hides it (NaN, out of range, …). */
  stored?: {
    expireAfterSeconds: unknown;
    problem: 'NaN' | 'out of range' | 'negative' | 'not a number' | 'fractional';
  };
}

/** The collection facts that change how an index reads. */
export interface IndexCollectionFacts {
  clustered?: boolean;
  timeseries?: { timeField: string; metaField?: string };
}

export type IndexKind =
  | 'id' // the _id index
  | 'ttl' // TTL after N seconds
  | 'ttlAtDate' // expireAfterSeconds 0: expire at the stored date
  | 'ttlInvalid' // stored value the monitor skips (NaN, out of range, negative)
  | 'ttlNeverApplies' // hashed / text / 2d / 2dsphere / compound key with expireAfterSeconds
  | 'plain'; // an ordinary index

export interface IndexDescription {
  kind: IndexKind;
  /** The words after the name: `TTL 1 h after lastModifiedDate · hidden`. */
  summary: string;
  /** The single indexed field, when there is one. */
  field?: string;
  /** Seconds the monitor uses, for TTL indexes it can use. */
  seconds?: number;
  hidden: boolean;
  partial: boolean;
  /** Something the user should know (shown with a warning icon). */
  warning?: string;
  /** A single-field ordinary index that collMod can turn into a TTL index (rule 3.5). */
  convertible: boolean;
  /** The TTL monitor deletes through this index. */
  ttlApplies: boolean;
}

const SPECIAL = new Set(['hashed', 'text', '2d', '2dsphere', '2dsphere_bucket']);

function directionWord(value: unknown): string {
  if (typeof value === 'string') return value;
  const n = Number((value as { valueOf(): unknown })?.valueOf?.() ?? value);
  return n < 0 ? 'descending' : 'ascending';
}

/** `status`, `createdAt (descending)`, `a, b (descending)`, `location (2dsphere)`. */
export function describeKey(key: Document): string {
  return Object.entries(key)
    .map(([field, dir]) => {
      const w = directionWord(dir);
      return w === 'ascending' ? field : `${field} (${w})`;
    })
    .join(', ');
}

/** The value listIndexes shows when the stored one is invalid (rule 4.2 / 9.1). */
const REPAIRED_VALUE = ttlRules.INT32_MAX;

export function describeIndex(index: IndexFacts, collection: IndexCollectionFacts = {}): IndexDescription {
  const spec = index.spec;
  const key = (spec.key ?? {}) as Document;
  const fields = Object.keys(key);
  const field = fields.length === 1 ? fields[0] : undefined;
  const hidden = spec.hidden === true;
  const partial = spec.partialFilterExpression !== undefined;
  const plugin = fields.map((f) => key[f]).find((v): v is string => typeof v === 'string');
  const flags = (summary: string) =>
    [summary, ...(partial ? ['partial'] : []), ...(hidden ? ['hidden'] : [])].join(' · ');
  const base = { field, hidden, partial, convertible: false, ttlApplies: false };

  if (index.name === '_id_') {
    const clusteredNote = collection.clustered ? 'clustered by _id' : 'unique on _id';
    return { ...base, kind: 'id', summary: clusteredNote };
  }

  if (!ttlRules.isTTLIndexSpec(spec) && !index.stored) {
    const unique = spec.unique === true ? 'unique ' : '';
    const sparse = spec.sparse === true ? 'sparse ' : '';
    const convertible = fields.length === 1 && !plugin && !collection.timeseries;
    return { ...base, kind: 'plain', summary: flags(`${unique}${sparse}index on ${describeKey(key)}`), convertible };
  }

  // A TTL index (rule 1.1: the option is present, whatever its value).
  const usable = ttlRules.ttlKeyIsUsable(key);
  if (!usable.usable) {
    const what = plugin && SPECIAL.has(plugin) ? plugin : fields.length > 1 ? 'compound' : 'this key';
    return {
      ...base,
      kind: 'ttlNeverApplies',
      summary: flags(`${what} — TTL never applies`),
      warning: `The TTL monitor skips this index every pass (${usable.reason}). Create a single-field ascending index on a date field instead.`,
    };
  }

  if (index.stored && index.stored.problem !== 'fractional') {
    const shown =
      index.stored.problem === 'NaN'
        ? 'NaN'
        : `expireAfterSeconds ${String(index.stored.expireAfterSeconds)} (${index.stored.problem})`;
    return {
      ...base,
      kind: 'ttlInvalid',
      summary: flags(`${shown} — ignored by the monitor`),
      warning:
        `The catalog holds expireAfterSeconds ${String(index.stored.expireAfterSeconds)}, written by an older server. ` +
        'The TTL monitor skips the index and deletes nothing through it (rule 4.2); listIndexes reports it as 2147483647. ' +
        'Fix: set a valid value with collMod.',
    };
  }

  const seconds = ttlRules.effectiveExpireAfterSeconds(
    index.stored ? index.stored.expireAfterSeconds : spec.expireAfterSeconds,
  );
  if (seconds === undefined) {
    return {
      ...base,
      kind: 'ttlInvalid',
      summary: flags(`expireAfterSeconds ${String(spec.expireAfterSeconds)} — ignored by the monitor`),
      warning:
        'The stored expireAfterSeconds is not a valid number of seconds: the TTL monitor skips this index. Fix: set a valid value with collMod.',
    };
  }
  const where = field ?? describeKey(key);
  const warnings: string[] = [];
  if (index.stored?.problem === 'fractional')
    warnings.push(`The catalog stores ${String(index.stored.expireAfterSeconds)}; the monitor uses ${seconds}.`);
  if (seconds === REPAIRED_VALUE) {
    warnings.push(
      '2147483647 (about 68 years) is the value servers write in place of an invalid expireAfterSeconds such as NaN: documents here effectively never expire. Set the intended value with collMod.',
    );
  }
  if (hidden)
    warnings.push(
      'Hidden indexes are ignored by the query planner, but the TTL monitor still deletes through them (rule 1.13).',
    );
  const common = { ...base, seconds, ttlApplies: true, ...(warnings.length ? { warning: warnings.join(' ') } : {}) };
  if (seconds === 0) return { ...common, kind: 'ttlAtDate', summary: flags(`expires at the date in ${where}`) };
  return { ...common, kind: 'ttl', summary: flags(`TTL ${formatSeconds(seconds)} after ${where}`) };
}

/** The whole row as one line, for messages and tests: `expireAt_1 — expires at the date in expireAt`. */
export function indexRowText(index: IndexFacts, collection?: IndexCollectionFacts): string {
  return `${index.name} — ${describeIndex(index, collection).summary}`;
}

/** The collection-level TTL of clustered and time-series collections, in words, if any. */
export function describeCollectionTTL(options: Document): string | undefined {
  const eas = options.expireAfterSeconds;
  if (eas === undefined) return undefined;
  const seconds = Number(typeof eas === 'object' && eas !== null ? (eas as { toString(): string }).toString() : eas);
  const ts = options.timeseries as { timeField?: string } | undefined;
  const field = ts?.timeField ?? '_id';
  return seconds === 0 ? `expires at the date in ${field}` : `TTL ${formatSeconds(seconds)} after ${field}`;
}
