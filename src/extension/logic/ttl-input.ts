/**
 * Checking a TTL index before it is created, with the engine's own rules (one rule, one
 * implementation): the spec checks of createIndexes (`normalizeIndexSpec`: key pattern, `_id`,
 * options) and the TTL checks (`ttlRules.checkTTLIndexSpec`: value range, compound, wildcard,
 * capped by version, time series). A refusal comes back as words plus mongod's code, so the input
 * box can explain it while the user types.
 */
import type { Document } from '../../engine';
import { EngineError } from '../../engine/errors';
import * as ttlRules from '../../engine/ttl/validation';
import { normalizeIndexSpec } from '../../engine/indexes/index-spec';
import { defaultIndexName } from '../../engine/indexes/key-pattern';
import { formatSeconds, parseTTLDuration } from './durations';
import { looksLikeMilliseconds } from '../../analysis/checks/value-rules';
import { durationWords } from '../../analysis/words';

export interface TTLTargetFacts {
  capped: boolean;
  clustered: boolean;
  timeseries?: { timeField: string; metaField?: string };
  serverVersion: '8.0' | '7.0';
}

export type TTLInputCheck =
  | { ok: true; seconds: number; spec: Document; explanation: string }
  | { ok: false; message: string; code?: number; codeName?: string };

/** The createIndexes spec of a single-field TTL index (ascending, default name). */
export function ttlIndexSpec(
  field: string,
  seconds: number,
  partialFilterExpression?: Document,
  name?: string,
): Document {
  const key = { [field]: 1 };
  return {
    key,
    name: name ?? defaultIndexName(key),
    expireAfterSeconds: seconds,
    ...(partialFilterExpression ? { partialFilterExpression } : {}),
  };
}

/** What the index will do, in words. */
export function explainTTL(field: string, seconds: number): string {
  return seconds === 0
    ? `Documents expire at the date stored in ${field}.`
    : `Documents expire ${formatSeconds(seconds)} (${seconds.toLocaleString('en-US')} s) after the date in ${field}.`;
}

function refusal(err: unknown): TTLInputCheck {
  if (err instanceof EngineError)
    return {
      ok: false,
      message: `${err.message} (${err.codeName} ${err.code})`,
      code: err.code,
      codeName: err.codeName,
    };
  return { ok: false, message: err instanceof Error ? err.message : String(err) };
}

/** Check a whole TTL index spec against the collection, as createIndexes would. */
export function checkTTLSpec(spec: Document, facts: TTLTargetFacts): TTLInputCheck {
  try {
    const { spec: normalized } = normalizeIndexSpec(spec);
    const check = ttlRules.checkTTLIndexSpec(normalized, facts);
    const key = Object.keys(normalized.key as Document);
    return {
      ok: true,
      seconds: check.seconds,
      spec: normalized,
      explanation: explainTTL(key.join(', '), check.seconds),
    };
  } catch (err) {
    return refusal(err);
  }
}

/**
 * The duration box of "Create TTL Index…": the text (`3600`, `90s`, `1h`, `30d`, "at the date in
 * the field") read as seconds, then the whole spec checked with the engine's rules.
 */
export function checkTTLInput(
  text: string,
  field: string,
  facts: TTLTargetFacts,
  partialFilterExpression?: Document,
): TTLInputCheck {
  const parsed = parseTTLDuration(text);
  if ('error' in parsed) return { ok: false, message: parsed.error };
  return checkTTLSpec(ttlIndexSpec(field, parsed.seconds, partialFilterExpression), facts);
}

/**
 * A new value for an existing TTL index (collMod), as collMod checks it: a number, not negative
 * (72 InvalidOptions); out-of-range values are clamped by collMod, so they are refused here with
 * createIndex's wording to avoid a silent clamp.
 */
export function checkCollModInput(text: string, serverVersion: '8.0' | '7.0'): TTLInputCheck {
  const parsed = parseTTLDuration(text);
  if ('error' in parsed) return { ok: false, message: parsed.error };
  try {
    const seconds = ttlRules.checkCollModIndexExpireAfterSeconds(parsed.seconds);
    // collMod would clamp 1e10 to 2147483647: say so instead, with createIndex's range rule.
    ttlRules.checkIndexExpireAfterSeconds(parsed.seconds, serverVersion);
    return {
      ok: true,
      seconds,
      spec: { expireAfterSeconds: seconds },
      explanation: `expireAfterSeconds becomes ${seconds.toLocaleString('en-US')} (${formatSeconds(seconds)}).`,
    };
  } catch (err) {
    return refusal(err);
  }
}

/**
 * Rule TTL014 in an input box: a value that looks like milliseconds (`86400000`) is accepted by the
 * server but keeps documents 1,000 times longer than meant. Undefined for other values.
 */
export function millisecondsWarning(seconds: number): string | undefined {
  if (!looksLikeMilliseconds(seconds)) return undefined;
  const meant = seconds / 1000;
  return `${seconds.toLocaleString('en-US')} s is ${durationWords(seconds)}; did you mean ${meant} (${durationWords(meant)})? expireAfterSeconds counts seconds, not milliseconds.`;
}

/** The words of an input box for a new expireAfterSeconds: `old → new` when there is an old one. */
export function changeWords(oldSeconds: number | undefined, newSeconds: number): string {
  return oldSeconds === undefined
    ? `expireAfterSeconds ${newSeconds.toLocaleString('en-US')} (${formatSeconds(newSeconds)})`
    : `expireAfterSeconds ${oldSeconds.toLocaleString('en-US')} (${formatSeconds(oldSeconds)}) → ${newSeconds.toLocaleString('en-US')} (${formatSeconds(newSeconds)})`;
}
