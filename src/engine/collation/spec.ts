/**
 * The collation document: parsed and checked as mongod's ICU collator factory does, with every
 * field the user left out filled from the locale's defaults, so listCollections, listIndexes and
 * explain echo the whole collation as mongod does.
 */
import { Int32 } from 'bson';
import { fail } from '../errors';
import { formatValue } from '../values/format';
import { bsonTypeOf, isNumeric, isPlainObject, type Document } from '../values/types';
import { toDouble } from '../values/numbers';
import { localeDefaults, resolveLocale } from './locales';

/** The ICU version mongod 8.0 is built with: what it echoes as `version` and accepts in a spec. */
export const ICU_VERSION = '57.1';

export interface CollationSpec {
  locale: string;
  /** The locale as a BCP 47 tag for Intl. */
  bcp47: string;
  caseLevel: boolean;
  caseFirst: 'upper' | 'lower' | 'off';
  strength: 1 | 2 | 3 | 4 | 5;
  numericOrdering: boolean;
  alternate: 'non-ignorable' | 'shifted';
  maxVariable: 'punct' | 'space';
  normalization: boolean;
  backwards: boolean;
}

const FIELDS = new Set([
  'locale',
  'caseLevel',
  'caseFirst',
  'strength',
  'numericOrdering',
  'alternate',
  'maxVariable',
  'normalization',
  'backwards',
  'version',
]);

function typeError(field: string, expected: string, value: unknown): never {
  fail('TypeMismatch', `"${field}" had the wrong type. Expected ${expected}, found ${bsonTypeOf(value)}`);
}

function boolField(spec: Document, field: string): boolean | undefined {
  const v = spec[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') typeError(field, 'bool', v);
  return v;
}

function stringField(spec: Document, field: string): string | undefined {
  const v = spec[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') typeError(field, 'string', v);
  return v;
}

function oneOf<T extends string>(spec: Document, field: string, allowed: readonly T[]): T | undefined {
  const v = stringField(spec, field);
  if (v === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(v))
    fail(
      'FailedToParse',
      `Field '${field}' must be ${allowed.map((a) => `'${a}'`).join(', or ')}. Got: ${v}. Collation spec: ${formatValue(spec)}`,
    );
  return v as T;
}

function strengthField(spec: Document): CollationSpec['strength'] | undefined {
  const v = spec.strength;
  if (v === undefined) return undefined;
  if (!isNumeric(v)) typeError('strength', 'a number', v);
  const n = toDouble(v);
  if (!Number.isInteger(n))
    fail(
      'BadValue',
      `Expected field "strength" to have a value exactly representable as a 64-bit integer, but found strength: ${formatValue(v)}`,
    );
  if (n < 1 || n > 5) fail('FailedToParse', `Field 'strength' must be an integer 1 through 5. Got: ${n}`);
  return n as CollationSpec['strength'];
}

/**
 * Parses a `collation` option: null for `{locale: "simple"}` (binary comparison), else the spec with
 * defaults filled in. Errors carry mongod's codes: FailedToParse (9) for an unknown field or value,
 * TypeMismatch (14) for a field of the wrong type, BadValue (2) for a locale ICU does not have or a
 * combination that has no effect.
 */
export function parseCollation(value: unknown): CollationSpec | null {
  if (!isPlainObject(value)) typeError('collation', 'object', value);
  const spec = value;
  if (spec.locale === undefined)
    fail('NoSuchKey', `Missing expected field "locale": a collation needs one, e.g. {locale: "en", strength: 2}.`);
  const localeId = stringField(spec, 'locale')!;
  if (localeId === 'simple') {
    if (Object.keys(spec).length > 1)
      fail('FailedToParse', `If locale=simple, no other fields should be present in: ${formatValue(spec)}`);
    return null;
  }
  const { id, bcp47 } = resolveLocale(localeId, spec);
  const defaults = localeDefaults(bcp47);
  // Parsed in mongod's order, so the first bad field is the one reported.
  const caseLevel = boolField(spec, 'caseLevel') ?? false;
  const caseFirst = oneOf(spec, 'caseFirst', ['upper', 'lower', 'off'] as const) ?? defaults.caseFirst;
  const strength = strengthField(spec) ?? 3;
  const numericOrdering = boolField(spec, 'numericOrdering') ?? false;
  const alternate = oneOf(spec, 'alternate', ['non-ignorable', 'shifted'] as const) ?? defaults.alternate;
  const maxVariable = oneOf(spec, 'maxVariable', ['punct', 'space'] as const) ?? 'punct';
  const normalization = boolField(spec, 'normalization') ?? false;
  const backwards = boolField(spec, 'backwards') ?? defaults.backwards;
  const version = stringField(spec, 'version');
  if (version !== undefined && version !== ICU_VERSION)
    fail(
      'IncompatibleCollationVersion',
      `Requested collation version ${version} but the only available collator version was ${ICU_VERSION}. Requested collation spec: ${formatValue(spec)}`,
    );
  for (const field of Object.keys(spec))
    if (!FIELDS.has(field))
      fail('FailedToParse', `Collation spec contains unknown field '${field}'. Collation spec: ${formatValue(spec)}`);
  const parsed: CollationSpec = {
    locale: id,
    bcp47,
    caseLevel,
    caseFirst,
    strength,
    numericOrdering,
    alternate,
    maxVariable,
    normalization,
    backwards,
  };
  // Combinations ICU would accept but that change nothing: mongod refuses them.
  if (backwards && strength === 1 && spec.backwards !== undefined)
    fail('BadValue', `'backwards' is invalid with 'strength' of 1 in: ${formatValue(collationDocument(parsed))}`);
  if (caseFirst !== 'off' && !caseLevel && strength <= 2 && spec.caseFirst !== undefined)
    fail(
      'BadValue',
      `'caseFirst' is invalid unless 'caseLevel' is on or 'strength' is greater than 2 in: ${formatValue(collationDocument(parsed))}`,
    );
  return parsed;
}

/** The collation as mongod echoes it: every field, in mongod's order, with the ICU version. */
export function collationDocument(spec: CollationSpec): Document {
  return {
    locale: spec.locale,
    caseLevel: spec.caseLevel,
    caseFirst: spec.caseFirst,
    strength: new Int32(spec.strength),
    numericOrdering: spec.numericOrdering,
    alternate: spec.alternate,
    maxVariable: spec.maxVariable,
    normalization: spec.normalization,
    backwards: spec.backwards,
    version: ICU_VERSION,
  };
}

/** Whether two collations (null = simple) compare every pair of strings alike. */
export function sameCollation(a: CollationSpec | null, b: CollationSpec | null): boolean {
  if (a === null || b === null) return a === b;
  return collationKey(a) === collationKey(b);
}

/** A string naming a collation's behaviour: equal keys, equal comparisons. */
export function collationKey(spec: CollationSpec): string {
  return [
    spec.locale,
    spec.caseLevel,
    spec.caseFirst,
    spec.strength,
    spec.numericOrdering,
    spec.alternate,
    spec.maxVariable,
    spec.normalization,
    spec.backwards,
  ].join('|');
}
