/**
 * Type operators and conversions: $type, $isNumber, $convert and its shorthands ($toBool,
 * $toInt, $toLong, $toDouble, $toDecimal, $toString, $toDate, $toObjectId, $toUUID), with
 * mongod's conversion table: a pair it does not list is a ConversionFailure (241), which
 * `onError` catches; `onNull` answers for null or missing input.
 */
import { Binary, Decimal128, Int32, Long, ObjectId, type Timestamp } from 'bson';
import { EngineError } from '../../errors';
import { LONG_MAX, LONG_MIN, numericKind, toDouble } from '../../values/numbers';
import { BSON_TYPE_NUMBERS, bsonTypeOf, isPlainObject, type BsonTypeName } from '../../values/types';
import { compile, fail, isNullish, show, typeName, unary, type Fn, type OperatorParser } from './core';
import { isoString, parseDateString } from './date-parts';
import { formatDouble } from './string';

function opType(v: unknown): unknown {
  return typeName(v);
}

function conversionFailure(from: unknown, to: string): never {
  fail(241, `Unsupported conversion from ${typeName(from)} to ${to} in $convert with no onError value`);
}

function opToString(v: unknown, format?: string): unknown {
  if (isNullish(v)) return null;
  switch (bsonTypeOf(v)) {
    case 'binData':
      if (format === undefined) fail(4341115, "Format must be speficied when converting from 'binData' to 'string'");
      return binDataToString(v as Binary, format);
    case 'string':
      return v;
    case 'bool':
      return v ? 'true' : 'false';
    case 'double':
      return formatDouble(toDouble(v));
    case 'int':
    case 'long':
    case 'decimal':
      return (v as { toString(): string }).toString();
    case 'date':
      return isoString(v as Date);
    case 'objectId':
      return (v as ObjectId).toHexString();
    case 'symbol':
      return (v as { value: string }).value;
  }
  return conversionFailure(v, 'string');
}

function opToDate(v: unknown): unknown {
  if (isNullish(v)) return null;
  switch (bsonTypeOf(v)) {
    case 'date':
      return v;
    case 'long':
      return new Date((v as Long).toNumber());
    case 'double':
    case 'decimal': {
      const d = toDouble(v);
      if (!Number.isFinite(d))
        fail(241, `Conversion from ${typeName(v)} to date failed: value ${show(v)} is out of range for a date`);
      return new Date(Math.trunc(d));
    }
    case 'objectId':
      return (v as ObjectId).getTimestamp();
    case 'timestamp':
      return new Date((v as Timestamp).t * 1000);
    case 'string':
      return parseDateString(v as string);
  }
  return conversionFailure(v, 'date');
}

function rangeFailure(v: unknown): never {
  fail(241, `Conversion would overflow target type in $convert with no onError value: ${show(v)}`);
}

/** A double or decimal truncated to an integer in [min, max], or a ConversionFailure. */
function truncatedInteger(v: unknown, min: bigint, max: bigint): bigint {
  const d = toDouble(v);
  if (Number.isNaN(d)) fail(241, `Attempt to convert NaN value to integer type in $convert with no onError value`);
  if (!Number.isFinite(d))
    fail(241, `Attempt to convert infinity value to integer type in $convert with no onError value`);
  // A decimal in plain notation truncates exactly; other forms are far outside a long anyway.
  const plain = numericKind(v) === 'decimal' ? /^-?\d+(\.\d*)?$/.exec((v as Decimal128).toString()) : null;
  const r = plain ? BigInt(plain[0].split('.')[0]) : BigInt(Math.trunc(d));
  if (r < min || r > max) rangeFailure(v);
  return r;
}

const INT_MIN = -(2n ** 31n);
const INT_MAX = 2n ** 31n - 1n;

function parseFailure(s: string, detail: string): never {
  fail(241, `Failed to parse number '${s}' in $convert with no onError value: ${detail}`);
}

/** Base-10 integers only, as mongod's NumberParser with base 10: no spaces, no fractions. */
function parseIntegerString(s: string, min: bigint, max: bigint): bigint {
  if (!/^[+-]?\d+$/.test(s)) parseFailure(s, s === '' ? 'No digits' : 'Did not consume whole string.');
  const r = BigInt(s);
  if (r < min || r > max) parseFailure(s, 'Overflow');
  return r;
}

function parseDoubleString(s: string): number {
  if (/^[+-]?(inf|infinity)$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(s)) return NaN;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s))
    parseFailure(s, s === '' ? 'No digits' : 'Did not consume whole string.');
  return Number(s);
}

function toBool(v: unknown): boolean {
  switch (bsonTypeOf(v)) {
    case 'bool':
      return v as boolean;
    case 'double':
    case 'int':
    case 'long':
    case 'decimal':
      return toDouble(v) !== 0;
  }
  // Strings (even empty), dates, ids, documents, arrays … are all true.
  return true;
}

function toInt(v: unknown): Int32 {
  switch (bsonTypeOf(v)) {
    case 'int':
      return v as Int32;
    case 'bool':
      return new Int32(v ? 1 : 0);
    case 'long':
    case 'double':
    case 'decimal':
      return new Int32(Number(truncatedInteger(v, INT_MIN, INT_MAX)));
    case 'string':
      return new Int32(Number(parseIntegerString(v as string, INT_MIN, INT_MAX)));
  }
  return conversionFailure(v, 'int');
}

function toLong(v: unknown): Long {
  switch (bsonTypeOf(v)) {
    case 'long':
      return v as Long;
    case 'int':
      return Long.fromInt((v as Int32).value);
    case 'bool':
      return Long.fromInt(v ? 1 : 0);
    case 'double':
    case 'decimal':
      return Long.fromBigInt(truncatedInteger(v, LONG_MIN, LONG_MAX));
    case 'date':
      return Long.fromNumber((v as Date).getTime());
    case 'string':
      return Long.fromBigInt(parseIntegerString(v as string, LONG_MIN, LONG_MAX));
  }
  return conversionFailure(v, 'long');
}

function toDoubleValue(v: unknown): number {
  switch (bsonTypeOf(v)) {
    case 'double':
    case 'int':
    case 'long':
      return toDouble(v);
    case 'decimal': {
      const d = toDouble(v);
      const s = (v as Decimal128).toString();
      if (!Number.isFinite(d) && /^-?\d/.test(s)) rangeFailure(v);
      return d;
    }
    case 'bool':
      return v ? 1 : 0;
    case 'date':
      return (v as Date).getTime();
    case 'string':
      return parseDoubleString(v as string);
  }
  return conversionFailure(v, 'double');
}

function toDecimal(v: unknown): Decimal128 {
  switch (bsonTypeOf(v)) {
    case 'decimal':
      return v as Decimal128;
    case 'int':
    case 'long':
      return Decimal128.fromString((v as Int32 | Long).toString());
    case 'double': {
      const d = v as number;
      if (Number.isNaN(d)) return Decimal128.fromString('NaN');
      if (!Number.isFinite(d)) return Decimal128.fromString(d > 0 ? 'Infinity' : '-Infinity');
      // mongod converts a double to the nearest 15-significant-digit decimal.
      return Decimal128.fromString(String(Number(d.toPrecision(15))));
    }
    case 'bool':
      return Decimal128.fromString(v ? '1' : '0');
    case 'date':
      return Decimal128.fromString(String((v as Date).getTime()));
    case 'string': {
      const s = v as string;
      if (/^[+-]?(inf|infinity)$/i.test(s)) return Decimal128.fromString(s.startsWith('-') ? '-Infinity' : 'Infinity');
      if (/^[+-]?nan$/i.test(s)) return Decimal128.fromString('NaN');
      if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s))
        parseFailure(s, s === '' ? 'No digits' : 'Did not consume whole string.');
      try {
        return Decimal128.fromString(s);
      } catch {
        return parseFailure(s, 'Overflow');
      }
    }
  }
  return conversionFailure(v, 'decimal');
}

function toObjectId(v: unknown): ObjectId {
  switch (bsonTypeOf(v)) {
    case 'objectId':
      return v as ObjectId;
    case 'string': {
      const s = v as string;
      if (s.length !== 24)
        fail(
          241,
          `Failed to parse objectId '${s}' in $convert with no onError value: Invalid string length for parsing to OID, expected 24 but found ${s.length}`,
        );
      if (!/^[0-9a-fA-F]{24}$/.test(s))
        fail(
          241,
          `Failed to parse objectId '${s}' in $convert with no onError value: Invalid character found in hex string: ${s}`,
        );
      return ObjectId.createFromHexString(s);
    }
  }
  return conversionFailure(v, 'objectId');
}

const BIN_DATA_FORMATS = ['base64', 'base64url', 'utf8', 'hex', 'uuid', 'auto'];
const UUID_SHAPE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

function binDataFailure(s: string, format: string): never {
  fail(241, `Failed to parse BinData '${s}' in $convert with no onError value: Input is not a valid ${format} string.`);
}

function stringToBinData(s: string, format: string, subtype: number): Binary {
  let bytes: Buffer;
  switch (format) {
    case 'base64':
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 !== 0) binDataFailure(s, format);
      bytes = Buffer.from(s, 'base64');
      break;
    case 'base64url':
      if (!/^[A-Za-z0-9_-]*$/.test(s)) binDataFailure(s, format);
      bytes = Buffer.from(s, 'base64url');
      break;
    case 'hex':
      if (!/^([0-9a-fA-F]{2})*$/.test(s)) binDataFailure(s, format);
      bytes = Buffer.from(s, 'hex');
      break;
    case 'utf8':
      bytes = Buffer.from(s, 'utf8');
      break;
    case 'uuid':
      if (!UUID_SHAPE.test(s)) binDataFailure(s, format);
      if (subtype !== 4)
        fail(241, `Only the UUID subtype (4) is allowed with the 'uuid' format: got subtype ${subtype}`);
      bytes = Buffer.from(s.replace(/-/g, ''), 'hex');
      break;
    default:
      fail(4341116, `Format '${format}' is not allowed when converting from 'string' to 'binData'`);
  }
  return new Binary(bytes, subtype);
}

function binDataToString(b: Binary, format: string): string {
  const bytes = Buffer.from(b.buffer);
  switch (format) {
    case 'base64':
    case 'auto':
      if (format === 'auto' && b.sub_type === 4 && bytes.length === 16) return uuidString(bytes);
      return bytes.toString('base64');
    case 'base64url':
      return bytes.toString('base64url');
    case 'hex':
      return bytes.toString('hex').toUpperCase();
    case 'utf8': {
      const s = bytes.toString('utf8');
      if (!Buffer.from(s, 'utf8').equals(bytes))
        fail(241, `Failed to convert BinData to string in $convert with no onError value: the data is not valid UTF-8`);
      return s;
    }
    case 'uuid':
      if (b.sub_type !== 4 || bytes.length !== 16)
        fail(241, `Failed to convert BinData to string in $convert with no onError value: the data is not a UUID`);
      return uuidString(bytes);
  }
  fail(4341116, `Format '${format}' is not allowed when converting from 'binData' to 'string'`);
}

function uuidString(bytes: Buffer): string {
  const h = bytes.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

interface Target {
  /** 'missing' is a type name mongod knows (EOO) that no value converts to. */
  type: BsonTypeName | 'missing';
  subtype: number;
}

const TYPE_BY_NUMBER = new Map<number, BsonTypeName>(
  Object.entries(BSON_TYPE_NUMBERS).map(([name, n]) => [n, name as BsonTypeName]),
);

function targetOf(to: unknown): Target {
  let spec = to;
  let subtype = 0;
  if (isPlainObject(to)) {
    for (const k of Object.keys(to))
      if (k !== 'type' && k !== 'subtype') fail(9, `$convert found an unknown argument in 'to': ${k}`);
    spec = to.type;
    if (to.subtype !== undefined) {
      const n = numericKind(to.subtype) ? toDouble(to.subtype) : NaN;
      if (!Number.isInteger(n) || n < 0 || n > 255)
        fail(4341107, `In $convert, 'subtype' must be a valid binData subtype: ${show(to.subtype)}`);
      subtype = n;
    }
  }
  if (typeof spec === 'string') {
    if (spec === 'missing') return { type: 'missing', subtype };
    if (!Object.prototype.hasOwnProperty.call(BSON_TYPE_NUMBERS, spec)) fail(2, `Unknown type name: ${spec}`);
    return { type: spec as BsonTypeName, subtype };
  }
  if (numericKind(spec)) {
    const n = toDouble(spec);
    const name = Number.isInteger(n) ? TYPE_BY_NUMBER.get(n) : undefined;
    if (!name) fail(2, `In $convert, numeric 'to' argument is not a valid type: ${show(spec)}`);
    return { type: name, subtype };
  }
  fail(9, `$convert's 'to' argument must be a string or number, but is ${typeName(spec)}`);
}

/** One conversion of a non-null value; a ConversionFailure (241) when mongod's table has no entry. */
export function convertValue(v: unknown, target: Target, format?: string): unknown {
  switch (target.type) {
    case 'bool':
      return toBool(v);
    case 'int':
      return toInt(v);
    case 'long':
      return toLong(v);
    case 'double':
      return toDoubleValue(v);
    case 'decimal':
      return toDecimal(v);
    case 'string':
      return opToString(v, format);
    case 'date':
      return opToDate(v);
    case 'objectId':
      return toObjectId(v);
    case 'binData':
      if (typeof v === 'string') {
        if (format === undefined) fail(4341115, "Format must be speficied when converting from 'string' to 'binData'");
        return stringToBinData(v, format, target.subtype);
      }
      if (bsonTypeOf(v) === 'binData') {
        const b = v as Binary;
        if (b.sub_type !== target.subtype)
          fail(
            241,
            `Conversions between different BinData subtypes are not supported: ${b.sub_type} to ${target.subtype}`,
          );
        return b;
      }
  }
  return conversionFailure(v, target.type);
}

const CONVERT_FIELDS = ['input', 'to', 'onError', 'onNull', 'format'];

const parseConvert: OperatorParser = (arg, name) => {
  if (!isPlainObject(arg)) fail(9, `${name} expects an object of named arguments but found: ${typeName(arg)}`);
  const f: Record<string, Fn> = {};
  for (const k of Object.keys(arg)) {
    if (!CONVERT_FIELDS.includes(k)) fail(9, `${name} found an unknown argument: ${k}`);
    f[k] = compile(arg[k]);
  }
  if (!f.input) fail(9, `Missing 'input' parameter to ${name}`);
  if (!f.to) fail(9, `Missing 'to' parameter to ${name}`);
  return (root, vars) => {
    const input = f.input(root, vars);
    const to = f.to(root, vars);
    // mongod reads `to` first (a bad one fails even for a null input), then answers a nullish input
    // with onNull before a nullish `to` makes the answer null.
    const target = isNullish(to) ? undefined : targetOf(to);
    if (isNullish(input)) return f.onNull ? f.onNull(root, vars) : null;
    if (target === undefined) return null;
    let format: string | undefined;
    if (f.format) {
      const fv = f.format(root, vars);
      if (!isNullish(fv)) {
        if (typeof fv !== 'string' || !BIN_DATA_FORMATS.includes(fv))
          fail(4341114, `Invalid 'format' argument for $convert: ${show(fv)}`);
        format = fv;
      }
    }
    try {
      return convertValue(input, target, format);
    } catch (err) {
      if (f.onError && err instanceof EngineError && err.code === 241) return f.onError(root, vars);
      throw err;
    }
  };
};

/** $toInt & co: $convert without onError or onNull (null in, null out). */
function shorthand(target: Target, format?: string): OperatorParser {
  return unary((v) => (isNullish(v) ? null : convertValue(v, target, format)));
}

export const CONVERSION_OPERATORS: Readonly<Record<string, OperatorParser>> = {
  $type: unary(opType),
  $toString: unary((v) => opToString(v)),
  $toDate: unary(opToDate),
  $isNumber: unary((v) => numericKind(v) !== undefined),
  $convert: parseConvert,
  $toBool: shorthand({ type: 'bool', subtype: 0 }),
  $toInt: shorthand({ type: 'int', subtype: 0 }),
  $toLong: shorthand({ type: 'long', subtype: 0 }),
  $toDouble: shorthand({ type: 'double', subtype: 0 }),
  $toDecimal: shorthand({ type: 'decimal', subtype: 0 }),
  $toObjectId: shorthand({ type: 'objectId', subtype: 0 }),
  $toUUID: unary((v, name) => {
    if (isNullish(v)) return null;
    if (typeof v !== 'string') fail(241, `${name} requires a string input, found: ${typeName(v)}`);
    return convertValue(v, { type: 'binData', subtype: 4 }, 'uuid');
  }),
};
