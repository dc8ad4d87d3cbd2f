/** String operators. */
import { Int32, type Timestamp } from 'bson';
import { numericKind, toDouble } from '../../values/numbers';
import { bsonTypeOf, isPlainObject } from '../../values/types';
import {
  binary,
  compile,
  fail,
  isNullish,
  namedArgs,
  show,
  ternary,
  typeName,
  unary,
  variadic,
  type Fn,
  type OperatorParser,
} from './core';
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

function indexBound(v: unknown, name: string, what: string): number {
  const n = numericKind(v) ? int32Of(v) : undefined;
  if (n === undefined)
    fail(40096, `${name} requires an integral ${what}, found a value of type: ${typeName(v)}, with value: ${show(v)}`);
  if (n < 0) fail(40097, `${name} requires a nonnegative ${what}, found: ${n}`);
  return n;
}

/** $indexOfBytes / $indexOfCP: positions count UTF-8 bytes or code points. */
function indexOf(unit: 'bytes' | 'cp', codes: [number, number]): (vals: unknown[], name: string) => unknown {
  return (vals, name) => {
    const [s, sub] = vals;
    if (isNullish(s)) return null;
    if (typeof s !== 'string') fail(codes[0], `${name} requires a string as the first argument, found: ${typeName(s)}`);
    if (typeof sub !== 'string')
      fail(codes[1], `${name} requires a string as the second argument, found: ${typeName(sub)}`);
    const units: readonly (number | string)[] = unit === 'bytes' ? [...Buffer.from(s, 'utf8')] : Array.from(s);
    const needle: readonly (number | string)[] = unit === 'bytes' ? [...Buffer.from(sub, 'utf8')] : Array.from(sub);
    const start = vals.length > 2 ? indexBound(vals[2], name, 'starting index') : 0;
    const end = vals.length > 3 ? Math.min(units.length, indexBound(vals[3], name, 'ending index')) : units.length;
    if (start > units.length || start > end) return new Int32(-1);
    for (let i = start; i + needle.length <= end; i++) {
      let j = 0;
      while (j < needle.length && units[i + j] === needle[j]) j++;
      if (j === needle.length) return new Int32(i);
    }
    return new Int32(-1);
  };
}

function opSplit(s: unknown, sep: unknown, name: string): unknown {
  if (isNullish(s) || isNullish(sep)) return null;
  if (typeof s !== 'string')
    fail(40085, `${name} requires an expression that evaluates to a string as a first argument, found: ${typeName(s)}`);
  if (typeof sep !== 'string')
    fail(
      40086,
      `${name} requires an expression that evaluates to a string as a second argument, found: ${typeName(sep)}`,
    );
  if (sep === '') fail(40087, `${name} requires a non-empty separator`);
  return s.split(sep);
}

/** mongod's default $trim characters: the ASCII controls it names and Unicode's spaces. */
const DEFAULT_TRIM = [
  '\0',
  ' ',
  '\t',
  '\n',
  '\v',
  '\f',
  '\r',
  '\u00a0',
  '\u1680',
  '\u2000',
  '\u2001',
  '\u2002',
  '\u2003',
  '\u2004',
  '\u2005',
  '\u2006',
  '\u2007',
  '\u2008',
  '\u2009',
  '\u200a',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
];

function trimOperator(left: boolean, right: boolean): OperatorParser {
  return (arg, name) => {
    if (!isPlainObject(arg)) fail(50696, `${name} only supports an object as an argument, found: ${typeName(arg)}`);
    for (const k of Object.keys(arg))
      if (k !== 'input' && k !== 'chars') fail(50694, `${name} found an unrecognized argument: ${k}`);
    if (!('input' in arg)) fail(50695, `${name} requires an 'input' field`);
    const input = compile(arg.input);
    const chars = 'chars' in arg ? compile(arg.chars) : undefined;
    return (root, vars) => {
      const s = input(root, vars);
      if (isNullish(s)) return null;
      if (typeof s !== 'string')
        fail(50699, `${name} requires its input to be a string, got ${show(s)} (of type ${typeName(s)}) instead.`);
      let set = DEFAULT_TRIM;
      if (chars) {
        const c = chars(root, vars);
        if (isNullish(c)) return null;
        if (typeof c !== 'string')
          fail(50700, `${name} requires 'chars' to be a string, got ${show(c)} (of type ${typeName(c)}) instead.`);
        set = Array.from(c);
      }
      const cps = Array.from(s);
      let from = 0;
      let to = cps.length;
      if (left) while (from < to && set.includes(cps[from])) from++;
      if (right) while (to > from && set.includes(cps[to - 1])) to--;
      return cps.slice(from, to).join('');
    };
  };
}

/** ASCII case-insensitive comparison of the coerced strings, as -1, 0 or 1. */
function opStrcasecmp(a: unknown, b: unknown): unknown {
  const x = coerceToString(a).replace(/[a-z]+/g, (m) => m.toUpperCase());
  const y = coerceToString(b).replace(/[a-z]+/g, (m) => m.toUpperCase());
  return new Int32(x === y ? 0 : Buffer.compare(Buffer.from(x, 'utf8'), Buffer.from(y, 'utf8')));
}

function replaceOperator(all: boolean): OperatorParser {
  return (arg, name) => {
    if (!isPlainObject(arg)) fail(51751, `${name} requires an object as an argument, found: ${typeName(arg)}`);
    const f = namedArgs(arg, ['input', 'find', 'replacement'], ['input', 'find', 'replacement'], {
      unknown: (k) => [51750, `${name} found an unknown argument: ${k}`],
      missing: (k) => [
        ({ input: 51749, find: 51748, replacement: 51747 } as Record<string, number>)[k],
        `${name} requires '${k}' to be specified`,
      ],
    });
    const parts: Array<[string, Fn, number]> = [
      ['input', f.input!, 51746],
      ['find', f.find!, 51745],
      ['replacement', f.replacement!, 51744],
    ];
    return (root, vars) => {
      const vals: unknown[] = [];
      for (const [field, fn, code] of parts) {
        const v = fn(root, vars);
        if (!isNullish(v) && typeof v !== 'string')
          fail(code, `${name} requires that '${field}' be a string, found: ${show(v)}`);
        vals.push(v);
      }
      if (vals.some(isNullish)) return null;
      const [s, find, rep] = vals as string[];
      return all ? s.split(find).join(rep) : s.replace(find, () => rep);
    };
  };
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
  $indexOfBytes: variadic(indexOf('bytes', [40091, 40092]), 2, 4),
  $indexOfCP: variadic(indexOf('cp', [40093, 40094]), 2, 4),
  $split: binary(opSplit),
  $trim: trimOperator(true, true),
  $ltrim: trimOperator(true, false),
  $rtrim: trimOperator(false, true),
  $strcasecmp: binary(opStrcasecmp),
  $replaceOne: replaceOperator(false),
  $replaceAll: replaceOperator(true),
};
