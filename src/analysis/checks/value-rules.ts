/**
 * TTL001–TTL005 and TTL014: the value of `expireAfterSeconds` (or Mongoose `expires`), judged by
 * the engine's own validation for where it appears: createIndex (rules 1.2–1.4), collMod's
 * `index` (3.1–3.2) or a clustered / time-series collection (5.3). The engine decides whether a
 * value fails; the code only sorts the failure into a rule by the value's kind.
 */
import { EngineError } from '../../engine/errors';
import {
  checkClusteredExpireAfterSeconds,
  checkCollModIndexExpireAfterSeconds,
  checkIndexExpireAfterSeconds,
  INT32_MAX,
  isNaNExpireAfterSeconds,
  safeNumberLong,
} from '../../engine/ttl/validation';
import { toDouble } from '../../engine/values/numbers';
import { isNumeric } from '../../engine/values/types';
import { parseDuration } from '../../formats/duration';
import { nodeText, replace, textOffset } from '../edits';
import type { Prop } from '../literals';
import type { RuleCode } from '../rules';
import type { Unit } from '../source';
import type { Fix } from '../types';
import { durationWords } from '../words';
import type { CheckContext } from './context';

export type TTLPlace = 'createIndex' | 'collMod' | 'collection';

export interface TTLValueInput {
  unit: Unit;
  prop: Prop;
  /** The value the server receives (Mongoose `expires` strings already converted to seconds). */
  value: unknown;
  place: TTLPlace;
  /** `expireAfterSeconds` or Mongoose's `expires`. */
  optionName: string;
}

const CREATE_INDEX_FAILS = 'createIndex fails with CannotCreateIndex (67)';

/**
 * TTL001 for `expireAfterSeconds: process.env.TTL`: an environment variable is a string, or
 * undefined when it is not set, never a number. The engine's check says what mongod answers to
 * a string; the fix reads it as a number (with a fallback unless the code gives one). `fallback`
 * is what `process.env.TTL || fallback` gives when the variable is unset (undefined: no fallback).
 */
export function checkEnvValue(ctx: CheckContext, unit: Unit, prop: Prop, env: string, fallback: unknown): void {
  let engineMessage = '';
  try {
    checkIndexExpireAfterSeconds('3600', ctx.serverVersion);
  } catch (err) {
    if (err instanceof EngineError) engineMessage = ` (mongod: "${err.message.split('. ')[0]}")`;
  }
  const source = nodeText(unit, prop.value.node);
  const hasFallback = fallback !== undefined;
  const defaultSeconds = 3600;
  const replacement = hasFallback ? `Number(${source})` : `Number(${source} ?? ${defaultSeconds})`;
  const when = hasFallback ? `whenever ${env} is set` : 'whenever this runs';
  const what = hasFallback
    ? `process.env.${env} is a string, never a number`
    : `process.env.${env} is a string, or undefined when the variable is not set, never a number`;
  ctx.report(
    'TTL001',
    unit,
    prop.value.at,
    `${CREATE_INDEX_FAILS} ${when}: ${what}${engineMessage}. Convert it${hasFallback ? '' : ', with a fallback for when it is missing'}: ${replacement}.`,
    [
      {
        title: hasFallback
          ? `Use ${replacement} (a number of seconds)`
          : `Use ${replacement} (a number; ${durationWords(defaultSeconds)} when ${env} is not set)`,
        edits: [replace(unit, prop.value.node, replacement)],
        preferred: true,
      },
    ],
  );
}

/**
 * TTL001 for Mongoose `expires: process.env.TTL || 60`: Mongoose reads a string `expires` with
 * the `ms` package, where a bare number is milliseconds, so TTL=3600 gives Math.round(3.6) = 4
 * seconds. A string with a unit ("1h") is fine, so this fires only when the fallback is a number
 * of seconds: the variable is then meant to hold one too.
 */
export function checkMongooseEnvValue(ctx: CheckContext, unit: Unit, prop: Prop, env: string, fallback: unknown): void {
  if (typeof fallback !== 'number' || !Number.isFinite(fallback)) return;
  const source = nodeText(unit, prop.value.node);
  const replacement = `Number(${source})`;
  ctx.report(
    'TTL001',
    unit,
    prop.value.at,
    `Whenever ${env} is set, expires gets a string, which Mongoose reads as a duration where a bare number means milliseconds: ${env}=${fallback} gives a TTL of ${Math.round(fallback / 1000)} seconds, not ${durationWords(fallback)}. Convert it to a number of seconds: ${replacement} (or set ${env} with a unit, such as "1h").`,
    [
      {
        title: `Use ${replacement} (a number of seconds)`,
        edits: [replace(unit, prop.value.node, replacement)],
        preferred: true,
      },
    ],
  );
}

/** The seconds the server uses, or undefined when the value is refused (a problem was reported). */
export function checkTTLValue(ctx: CheckContext, input: TTLValueInput): number | undefined {
  switch (input.place) {
    case 'createIndex':
      return checkIndexValue(ctx, input);
    case 'collMod':
      return checkCollModValue(ctx, input);
    case 'collection':
      return checkCollectionValue(ctx, input);
  }
}

function numberFix(input: TTLValueInput, seconds: number, why: string, preferred = false): Fix {
  return {
    title: `Use ${seconds} (${why})`,
    edits: [replace(input.unit, input.prop.value.node, String(seconds))],
    ...(preferred ? { preferred: true } : {}),
  };
}

function nanFix(input: TTLValueInput): Fix {
  return {
    title: 'Replace NaN with a number of seconds…',
    edits: [{ ...replace(input.unit, input.prop.value.node, ''), fromInput: true }],
    input: { prompt: `${input.optionName} in seconds (3600, or 1h, 30d)`, placeholder: '3600' },
    preferred: true,
  };
}

/** A string such as "3600" or "1h" read as seconds, for the fix of TTL001. */
function secondsFromString(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const t = value.trim();
  if (t !== '' && Number.isFinite(Number(t))) return Number(t);
  const ms = parseDuration(t);
  return typeof ms === 'number' && ms % 1000 === 0 ? ms / 1000 : undefined;
}

const DAY = 86_400;

/**
 * Rule TTL014: a whole number of minutes once read as milliseconds (60000 is one minute), unless
 * it is also a whole number of days up to a year as seconds (2160000 is 25 days: people write
 * those on purpose). The comment check (`reportAccepted`) spares values a comment confirms.
 */
export function looksLikeMilliseconds(seconds: number): boolean {
  if (seconds < 60_000 || seconds % 60_000 !== 0) return false;
  return !(seconds % DAY === 0 && seconds <= 366 * DAY);
}

const COMMENT_UNITS: Array<[RegExp, number]> = [
  [/^(ms|msecs?|milliseconds?)$/, 0.001],
  [/^(s|secs?|seconds?)$/, 1],
  [/^(m|mins?|minutes?)$/, 60],
  [/^(h|hrs?|hours?)$/, 3600],
  [/^(d|days?)$/, DAY],
  [/^(w|wks?|weeks?)$/, 7 * DAY],
  [/^(months?)$/, 30 * DAY],
  [/^(y|yrs?|years?)$/, 365 * DAY],
];

/** Durations a comment names ("25 days", "24h", "1 week"), in seconds. */
export function commentDurations(comment: string): number[] {
  const out: number[] = [];
  for (const m of comment.matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/gi)) {
    const unit = m[2].toLowerCase();
    const size = COMMENT_UNITS.find(([re]) => re.test(unit))?.[1];
    if (size !== undefined) out.push(Number(m[1]) * size);
  }
  return out;
}

/** The comment on the value's line (after it) or on the line above, if any. */
function nearbyComment(input: TTLValueInput): string {
  const { unit, prop } = input;
  const text = unit.text;
  const end = textOffset(unit, prop.value.at.end ?? 0);
  const lineEnd = text.indexOf('\n', end);
  const rest = text.slice(end, lineEnd < 0 ? text.length : lineEnd);
  const lineStart = text.lastIndexOf('\n', end - 1);
  const prevStart = lineStart > 0 ? text.lastIndexOf('\n', lineStart - 1) + 1 : -1;
  const previous = prevStart >= 0 ? text.slice(prevStart, lineStart).trim() : '';
  const own = /\/\/.*|\/\*.*?\*\//.exec(rest)?.[0] ?? '';
  return `${own} ${previous.startsWith('//') ? previous : ''}`;
}

/** Whether the engine's check for this place accepts a candidate value (fixes offer only those). */
function acceptedAt(ctx: CheckContext, place: TTLPlace, seconds: number): boolean {
  try {
    if (place === 'createIndex') checkIndexExpireAfterSeconds(seconds, ctx.serverVersion);
    else if (place === 'collMod')
      checkIndexExpireAfterSeconds(checkCollModIndexExpireAfterSeconds(seconds), ctx.serverVersion);
    else checkClusteredExpireAfterSeconds(seconds, ctx.nowMs);
    return true;
  } catch {
    return false;
  }
}

/** The engine's checks refuse with an EngineError; anything else is a bug, not a finding. */
function refusal(err: unknown): EngineError {
  if (err instanceof EngineError) return err;
  throw err;
}

function reportRefusal(ctx: CheckContext, input: TTLValueInput, err: EngineError, runtime: string): void {
  const { unit, prop, value } = input;
  const at = prop.value.at;
  const engineMessage = err.message;
  const code: RuleCode = isNaNExpireAfterSeconds(value)
    ? 'TTL002'
    : !isNumeric(value)
      ? 'TTL001'
      : safeNumberLong(value) < 0
        ? 'TTL003'
        : 'TTL004';
  const fixes: Fix[] = [];
  const ok = (n: number) => acceptedAt(ctx, input.place, n);
  if (code === 'TTL001') {
    const s = secondsFromString(value);
    if (s !== undefined && ok(s))
      fixes.push(
        numberFix(
          input,
          s,
          `the number ${typeof value === 'string' && value.trim() !== String(s) ? `of seconds in "${value}"` : 'instead of a string'}`,
          true,
        ),
      );
  } else if (code === 'TTL002') {
    fixes.push(nanFix(input));
  } else if (code === 'TTL003') {
    const abs = Math.abs(safeNumberLong(value));
    // abs is at least 1 here: a value whose whole part is 0 is accepted in every place.
    if (ok(abs)) fixes.push(numberFix(input, abs, durationWords(abs), true));
    fixes.push(numberFix(input, 0, 'expire at the date stored in the field'));
  } else {
    const n = toDouble(value);
    if (n % 1000 === 0 && ok(n / 1000))
      fixes.push(numberFix(input, n / 1000, `if ${n} was milliseconds: ${durationWords(n / 1000)}`, true));
    if (ok(INT32_MAX)) fixes.push(numberFix(input, INT32_MAX, 'the largest allowed, about 68 years'));
  }
  // The engine's messages already say what the value does on which server and what to use.
  ctx.report(code, unit, at, `${runtime}: ${engineMessage}`, fixes);
}

function checkIndexValue(ctx: CheckContext, input: TTLValueInput): number | undefined {
  let seconds: number;
  try {
    seconds = checkIndexExpireAfterSeconds(input.value, ctx.serverVersion).seconds;
  } catch (err) {
    reportRefusal(ctx, input, refusal(err), CREATE_INDEX_FAILS);
    return undefined;
  }
  reportAccepted(ctx, input, seconds);
  return seconds;
}

/** Values the server accepts but not as written: fractions (TTL005) and milliseconds (TTL014). */
function reportAccepted(ctx: CheckContext, input: TTLValueInput, seconds: number): void {
  const { unit, prop, optionName } = input;
  const asDouble = toDouble(input.value);
  if (asDouble !== seconds) {
    const fixes: Fix[] = [numberFix(input, seconds, 'what the server keeps', true)];
    const rounded = Math.round(asDouble);
    if (rounded !== seconds && acceptedAt(ctx, input.place, rounded)) fixes.push(numberFix(input, rounded, 'rounded'));
    ctx.report(
      'TTL005',
      unit,
      prop.value.at,
      `${optionName} counts whole seconds: the server truncates ${asDouble} to ${seconds} (${durationWords(seconds)}) and expires documents by that. Write ${seconds} so the code says what happens.`,
      fixes,
    );
    return;
  }
  if (looksLikeMilliseconds(seconds) && !commentDurations(nearbyComment(input)).includes(seconds)) {
    const meant = seconds / 1000;
    ctx.report(
      'TTL014',
      unit,
      prop.value.at,
      `${optionName}: ${seconds} is ${durationWords(seconds)}; did you mean ${meant} (${durationWords(meant)})? ${optionName} counts seconds, not milliseconds: as written, documents stay ${1000} times longer than ${durationWords(meant)}.`,
      [numberFix(input, meant, durationWords(meant), true)],
    );
  }
}

function checkCollModValue(ctx: CheckContext, input: TTLValueInput): number | undefined {
  const { unit, prop, value, optionName } = input;
  let seconds: number;
  try {
    seconds = checkCollModIndexExpireAfterSeconds(value);
  } catch (err) {
    const e = refusal(err);
    reportRefusal(ctx, input, e, `collMod fails with ${e.codeName} (${e.code})`);
    return undefined;
  }
  if (isNaNExpireAfterSeconds(value)) {
    // collMod reads NaN as 0 (rule 3.1): the opposite of "never", and immediate.
    ctx.report(
      'TTL002',
      unit,
      prop.value.at,
      `collMod reads a NaN ${optionName} as 0 (rule 3.1): every document whose date has passed is deleted at the next TTL pass. Use a number of seconds.`,
      [nanFix(input)],
    );
    return undefined;
  }
  if (seconds !== safeNumberLong(value)) {
    ctx.report(
      'TTL004',
      unit,
      prop.value.at,
      `collMod silently clamps ${toDouble(value)} to ${seconds} (about 68 years, rule 3.1): documents effectively never expire. Use a number of seconds up to ${INT32_MAX}.`,
      [numberFix(input, INT32_MAX, 'what collMod would store', true)],
      { severity: 'warning' },
    );
    return undefined;
  }
  reportAccepted(ctx, input, seconds);
  return seconds;
}

function checkCollectionValue(ctx: CheckContext, input: TTLValueInput): number | undefined {
  const { unit, prop, value, optionName } = input;
  let seconds: number;
  try {
    seconds = checkClusteredExpireAfterSeconds(value, ctx.nowMs);
  } catch (err) {
    const e = refusal(err);
    reportRefusal(ctx, input, e, `the collection's TTL is refused with ${e.codeName} (${e.code})`);
    return undefined;
  }
  if (isNaNExpireAfterSeconds(value)) {
    ctx.report(
      'TTL002',
      unit,
      prop.value.at,
      `A NaN collection-level ${optionName} is read as 0 (rule 5.3 converts with safeNumberLong): every document expires as soon as its _id or timeField date passes. Use a number of seconds.`,
      [nanFix(input)],
    );
    return undefined;
  }
  reportAccepted(ctx, input, seconds);
  return seconds;
}
