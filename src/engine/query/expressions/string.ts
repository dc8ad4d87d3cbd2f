/** String operators. */
import { Int32, type Timestamp } from 'bson';
import { numericKind, toDouble } from '../../values/numbers';
import { bsonTypeOf } from '../../values/types';
import { fail, isNullish, show, ternary, typeName, unary, variadic, type OperatorParser } from './core';
import { isoString } from './date-parts';
import { int32Of } from './numeric';

/** Double rendering of $toString: shortest round-trip form, mongod's spelling of specials. */
export function formatDouble(d: number): string {
  if (Number.isNaN(d)) return 'NaN';
  if (d === Infinity) return 'Infinity';
  if (d === -Infinity) return '-Infinity';
  if (Object.is(d, -0)) return '-0';
  return String(d);
}

/** Value::coerceToString: what $toLower, $substrBytes ... accept in place of a string. */
export function coerceToString(v: unknown): string {
  if (isNullish(v)) return '';
  if (typeof v === 'string') return v;
  switch (bsonTypeOf(v)) {
    case 'double':
      return formatDouble(toDouble(v));
    case 'int':
    case 'long':
    case 'decimal':
      return (v as { toString(): string }).toString();
    case 'symbol':
      return (v as { value: string }).value;
    case 'date':
      return isoString(v as Date);
    case 'timestamp':
      return `Timestamp(${(v as Timestamp).t}, ${(v as Timestamp).i})`;
  }
  fail(16007, `can't convert from BSON type ${typeName(v)} to String`);
}

function opConcat(vals: unknown[]): unknown {
  let out = '';
  for (const v of vals) {
    if (isNullish(v)) return null;
    if (typeof v !== 'string') fail(16702, `$concat only supports strings, not ${typeName(v)}`);
    out += v;
  }
  return out;
}

/** mongod changes case of ASCII letters only. */
function asciiCase(upper: boolean): (v: unknown) => unknown {
  const re = upper ? /[a-z]+/g : /[A-Z]+/g;
  return (v) => coerceToString(v).replace(re, (m) => (upper ? m.toUpperCase() : m.toLowerCase()));
}

function opSubstrBytes(s: unknown, start: unknown, length: unknown, name: string): unknown {
  const str = coerceToString(s);
  if (!numericKind(start))
    fail(16034, `${name}: starting index must be a numeric type (is BSON type ${typeName(start)})`);
  if (!numericKind(length)) fail(16035, `${name}: length must be a numeric type (is BSON type ${typeName(length)})`);
  const bytes = Buffer.from(str, 'utf8');
  const lower = Math.trunc(toDouble(start));
  if (lower < 0 || lower >= bytes.length) return '';
  const len = Math.trunc(toDouble(length));
  const upper = len < 0 ? bytes.length : Math.min(bytes.length, lower + len);
  const isContinuation = (i: number): boolean => i < bytes.length && (bytes[i] & 0xc0) === 0x80;
  if (isContinuation(lower)) fail(28656, `${name}: Invalid range, starting index is a UTF-8 continuation byte.`);
  if (isContinuation(upper)) fail(28657, `${name}: Invalid range, ending index is in the middle of a UTF-8 character.`);
  return bytes.subarray(lower, upper).toString('utf8');
}

function opSubstrCP(s: unknown, start: unknown, length: unknown, name: string): unknown {
  const str = coerceToString(s);
  if (!numericKind(start))
    fail(34450, `${name}: starting index must be a numeric type (is BSON type ${typeName(start)})`);
  if (!numericKind(length)) fail(34452, `${name}: length must be a numeric type (is BSON type ${typeName(length)})`);
  const from = int32Of(start);
  if (from === undefined)
    fail(34451, `${name}: starting index cannot be represented as a 32-bit integral value: ${show(start)}`);
  const len = int32Of(length);
  if (len === undefined)
    fail(34453, `${name}: length cannot be represented as a 32-bit integral value: ${show(length)}`);
  if (from < 0) fail(34455, `${name}: the starting index must be nonnegative integer.`);
  if (len < 0) fail(34454, `${name}: length must be a nonnegative integer.`);
  return Array.from(str)
    .slice(from, from + len)
    .join('');
}

function opStrLenCP(v: unknown, name: string): unknown {
  if (typeof v !== 'string') fail(34471, `${name} requires a string argument, found: ${typeName(v)}`);
  let n = 0;
  for (const _ of v) n++;
  return new Int32(n);
}

function opStrLenBytes(v: unknown, name: string): unknown {
  if (typeof v !== 'string') fail(34473, `${name} requires a string argument, found: ${typeName(v)}`);
  return new Int32(Buffer.byteLength(v, 'utf8'));
}

export const STRING_OPERATORS: Readonly<Record<string, OperatorParser>> = {
  $concat: variadic(opConcat),
  $toLower: unary(asciiCase(false)),
  $toUpper: unary(asciiCase(true)),
  $substr: (arg) => ternary(opSubstrBytes)(arg, '$substrBytes'),
  $substrBytes: ternary(opSubstrBytes),
  $substrCP: ternary(opSubstrCP),
  $strLenCP: unary(opStrLenCP),
  $strLenBytes: unary(opStrLenBytes),
};
