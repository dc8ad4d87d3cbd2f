/**
 * The BSON constructors of the mongosh global scope: `ObjectId`, `ISODate`, `NumberInt`,
 * `NumberLong`, `NumberDecimal`, `Double`, `Timestamp`, `UUID`, `BinData`, `MinKey`, `MaxKey`, the
 * bson classes under their own names, and `EJSON`. They build the host's `bson` classes (the ones
 * the engine recognises) and work with or without `new`, as in mongosh; `x instanceof ObjectId`
 * holds because each wrapper shares its class's prototype.
 */
import * as bson from 'bson';
import { checkEjsonDepth, objectIdAt, parseEjson } from '../engine';
import type { Boundary } from './boundary';
import type { ScriptErrors } from './errors';

type AnyFn = (...args: never[]) => unknown;

/**
 * A function usable with or without `new` that returns `make(args)`, sharing `cls.prototype` and
 * the class's static methods (bound to the class). Host errors come out as script-realm errors.
 */
function withinDepth<T>(value: T): T {
  checkEjsonDepth(value);
  return value;
}

function callable(
  name: string,
  make: (args: unknown[]) => unknown,
  errors: ScriptErrors,
  cls?: { prototype: object },
): AnyFn {
  const fn = function (...args: unknown[]): unknown {
    try {
      return make(args);
    } catch (err) {
      throw errors.fromHost(err);
    }
  };
  Object.defineProperty(fn, 'name', { value: name });
  if (cls) {
    fn.prototype = cls.prototype;
    for (const key of Object.getOwnPropertyNames(cls)) {
      if (key === 'length' || key === 'name' || key === 'prototype') continue;
      const descriptor = Object.getOwnPropertyDescriptor(cls, key)!;
      if (!('value' in descriptor)) continue;
      const value = descriptor.value as unknown;
      (fn as unknown as Record<string, unknown>)[key] = typeof value === 'function' ? value.bind(cls) : value;
    }
  }
  return fn;
}

/** Date from an ISO-8601 string the way mongosh's ISODate reads it: no zone means UTC. */
const ISO =
  /^(\d{4})-?(\d{2})-?(\d{2})(?:[T ](\d{2})(?::?(\d{2})(?::?(\d{2})(?:\.(\d{1,9}))?)?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

export function parseISODate(text: string): Date | undefined {
  const m = ISO.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone = 'Z'] = m;
  const ms = frac ? Number(frac.padEnd(3, '0').slice(0, 3)) : 0;
  let t = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms);
  // Date.UTC maps years 0–99 to 1900–1999; ISO years are literal.
  if (Number(y) < 100) {
    const date = new Date(t);
    date.setUTCFullYear(Number(y));
    t = date.getTime();
  }
  if (zone.toUpperCase() !== 'Z') {
    const zm = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
    const offset = (Number(zm[2]) * 60 + Number(zm[3] ?? 0)) * 60_000;
    t += zm[1] === '+' ? -offset : offset;
  }
  const date = new Date(t);
  // Reject calendar overflow such as 2013-02-30.
  if (
    Number.isNaN(t) ||
    Number(mo) < 1 ||
    Number(mo) > 12 ||
    Number(d) < 1 ||
    Number(d) > 31 ||
    Number(h) > 24 ||
    Number(mi) > 59 ||
    Number(s) > 60
  )
    return undefined;
  return date;
}

function toLong(value: unknown, unsigned?: unknown): bson.Long {
  if (value === undefined) return bson.Long.fromNumber(0);
  if (bson.Long.isLong(value)) return value;
  if (typeof value === 'bigint') return bson.Long.fromBigInt(value, unsigned === true);
  if (typeof value === 'string') return bson.Long.fromString(value, unsigned === true);
  if (typeof value === 'number') {
    // Long(low, high[, unsigned]) is the bson constructor's bit form.
    if (typeof unsigned === 'number') return new bson.Long(value, unsigned);
    return bson.Long.fromNumber(value, unsigned === true);
  }
  if (value !== null && typeof value === 'object' && typeof (value as { valueOf(): unknown }).valueOf() === 'number') {
    return bson.Long.fromNumber((value as { valueOf(): number }).valueOf());
  }
  throw new TypeError(`NumberLong() needs a number or a numeric string, got ${typeof value}.`);
}

function toTimestamp(args: unknown[]): bson.Timestamp {
  const [a, b] = args;
  if (a === undefined) return new bson.Timestamp({ t: 0, i: 0 });
  if (typeof a === 'number' || typeof b === 'number') {
    // The legacy shell's Timestamp(t, i): seconds, then the ordinal.
    return new bson.Timestamp({ t: Number(a ?? 0), i: Number(b ?? 0) });
  }
  return new bson.Timestamp(a as { t: number; i: number });
}

function toBinary(subtype: unknown, base64: unknown): bson.Binary {
  if (typeof subtype !== 'number' || typeof base64 !== 'string') {
    throw new TypeError(
      'BinData(subtype, base64) needs a numeric subtype and a base64 string, e.g. BinData(0, "aGVsbG8=").',
    );
  }
  return new bson.Binary(Buffer.from(base64, 'base64'), subtype);
}

function hexBinary(subtype: unknown, hex: unknown): bson.Binary {
  if (typeof subtype !== 'number' || typeof hex !== 'string' || !/^([0-9a-f]{2})*$/i.test(hex)) {
    throw new TypeError('HexData(subtype, hex) needs a numeric subtype and an even-length hex string.');
  }
  return new bson.Binary(Buffer.from(hex, 'hex'), subtype);
}

/**
 * The shell's `Timestamp`: its prototype inherits bson's and names it as `constructor`, so a
 * timestamp made in the script or read back from the engine is `instanceof Timestamp` and has
 * `constructor === Timestamp`, as in mongosh (the boundary gives stored ones this prototype).
 */
function shellTimestamp(errors: ScriptErrors, boundary: Boundary): AnyFn {
  const proto: object = Object.create(bson.Timestamp.prototype) as object;
  const fn = callable(
    'Timestamp',
    (args) => Object.setPrototypeOf(toTimestamp(args), proto) as unknown,
    errors,
    bson.Timestamp,
  );
  Object.defineProperty(proto, 'constructor', { value: fn, writable: true, configurable: true, enumerable: false });
  fn.prototype = proto;
  boundary.useScriptPrototype('Timestamp', proto);
  return fn;
}

/**
 * The globals, given the clock `now` (for `ISODate()` without arguments), the realm's errors and
 * the boundary (dates for the script; `bsonsize` measures what the engine would store).
 */
export function createBsonGlobals(
  now: () => number,
  errors: ScriptErrors,
  boundary: Boundary,
  warn: (message: string) => void = () => undefined,
): Record<string, unknown> {
  // mongosh warns (on the script's output) when a number may already have lost precision.
  const lossy = (name: string, v: unknown): void => {
    if (typeof v === 'number')
      warn(
        `${name}: specifying a number as argument is deprecated and may lead to loss of precision, pass a string instead`,
      );
  };
  const toEngine = (v: unknown) => boundary.toEngine(v);
  const isoDate = (args: unknown[]): Date => {
    const [value] = args;
    if (value === undefined) return boundary.date(now());
    if (typeof value === 'number') return boundary.date(value);
    if (Object.prototype.toString.call(value) === '[object Date]') return boundary.date((value as Date).getTime());
    if (typeof value === 'string') {
      const date = parseISODate(value);
      if (date) return boundary.date(date.getTime());
    }
    throw errors.error(
      `${JSON.stringify(value)} is not a valid ISODate: use e.g. ISODate("2026-01-01T00:00:00Z").`,
      'MongoshInvalidInputError',
    );
  };
  return {
    // A new id's timestamp comes from the engine clock, like every other "now" in the shell.
    ObjectId: callable(
      'ObjectId',
      ([id]) => (id === undefined ? objectIdAt(now()) : new bson.ObjectId(id as string)),
      errors,
      bson.ObjectId,
    ),
    ISODate: callable('ISODate', isoDate, errors),
    NumberInt: callable('NumberInt', ([v = 0]) => new bson.Int32(Number(v)), errors),
    NumberLong: callable(
      'NumberLong',
      ([v, u]) => {
        lossy('NumberLong', v);
        return toLong(v, u);
      },
      errors,
    ),
    NumberDecimal: callable(
      'NumberDecimal',
      ([v = '0']) => {
        lossy('NumberDecimal', v);
        return bson.Decimal128.fromString(String(v));
      },
      errors,
    ),
    Int32: callable('Int32', ([v = 0]) => new bson.Int32(Number(v)), errors, bson.Int32),
    Long: callable('Long', ([v, u]) => toLong(v, u), errors, bson.Long),
    Decimal128: callable(
      'Decimal128',
      ([v = '0']) => (typeof v === 'string' ? bson.Decimal128.fromString(v) : new bson.Decimal128(v as Uint8Array)),
      errors,
      bson.Decimal128,
    ),
    Double: callable('Double', ([v = 0]) => new bson.Double(Number(v)), errors, bson.Double),
    Timestamp: shellTimestamp(errors, boundary),
    UUID: callable('UUID', ([v]) => new bson.UUID(v as string | undefined), errors, bson.UUID),
    BinData: callable('BinData', ([s, b]) => toBinary(s, b), errors),
    HexData: callable('HexData', ([s, h]) => hexBinary(s, h), errors),
    MD5: callable('MD5', ([h]) => hexBinary(bson.Binary.SUBTYPE_MD5, h), errors),
    Binary: callable(
      'Binary',
      ([buffer, subtype]) => new bson.Binary(buffer as Uint8Array, subtype as number | undefined),
      errors,
      bson.Binary,
    ),
    MinKey: callable('MinKey', () => new bson.MinKey(), errors, bson.MinKey),
    MaxKey: callable('MaxKey', () => new bson.MaxKey(), errors, bson.MaxKey),
    Code: callable(
      'Code',
      ([code, scope]) => new bson.Code(code as string, scope as bson.Document | undefined),
      errors,
      bson.Code,
    ),
    BSONRegExp: callable(
      'BSONRegExp',
      ([pattern, options]) => new bson.BSONRegExp(pattern as string, options as string | undefined),
      errors,
      bson.BSONRegExp,
    ),
    BSONSymbol: callable('BSONSymbol', ([v]) => new bson.BSONSymbol(String(v)), errors, bson.BSONSymbol),
    DBRef: callable(
      'DBRef',
      ([collection, oid, db, fields]) =>
        new bson.DBRef(
          collection as string,
          oid as bson.ObjectId,
          db as string | undefined,
          fields as bson.Document | undefined,
        ),
      errors,
      bson.DBRef,
    ),
    // The bson package walks values recursively: too deep a value is refused (code 15) first.
    bsonsize: callable(
      'bsonsize',
      ([doc]) => bson.calculateObjectSize(toEngine(withinDepth(doc)) as bson.Document),
      errors,
    ),
    EJSON: Object.freeze({
      parse: callable(
        'parse',
        ([text, options]) =>
          typeof text === 'string'
            ? parseEjson(text, options as bson.EJSONOptions | undefined)
            : bson.EJSON.parse(text as string, options as bson.EJSONOptions | undefined),
        errors,
      ),
      stringify: callable(
        'stringify',
        (args) => (bson.EJSON.stringify as (...a: unknown[]) => string)(withinDepth(args[0]), ...args.slice(1)),
        errors,
      ),
      serialize: callable(
        'serialize',
        ([value, options]) => bson.EJSON.serialize(withinDepth(value), options as bson.EJSONOptions | undefined),
        errors,
      ),
      deserialize: callable(
        'deserialize',
        ([value, options]) =>
          bson.EJSON.deserialize(withinDepth(value) as bson.Document, options as bson.EJSONOptions | undefined),
        errors,
      ),
    }),
  };
}
