/**
 * Numbers across BSON's four numeric types. Comparison is exact (a Long beyond 2^53 or a Decimal128
 * compares by value, not through a lossy double), because index order and equality depend on it.
 */
import { Decimal128, type Double, Int32, Long } from 'bson';
import { bsonClassOf } from './types';

const TWO_53 = 2 ** 53;

/** A JS number when the value converts without loss, else undefined. */
export function exactDouble(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  switch (bsonClassOf(value)) {
    case 'Int32':
      return (value as Int32).value;
    case 'Double':
      return (value as Double).value;
    case 'Long': {
      const l = value as Long;
      const n = l.toNumber();
      return Math.abs(n) < TWO_53 ? n : undefined;
    }
  }
  return undefined;
}

/** Nearest double (Decimal128 and large Longs round), for arithmetic and display. */
export function toDouble(value: unknown): number {
  if (typeof value === 'number') return value;
  switch (bsonClassOf(value)) {
    case 'Int32':
      return (value as Int32).value;
    case 'Double':
      return (value as Double).value;
    case 'Long':
      return (value as Long).toNumber();
    case 'Decimal128':
      return Number((value as Decimal128).toString());
  }
  return NaN;
}

/** Exact rational form num/den (den > 0) of a finite number, or a special marker. */
type Exact = { kind: 'finite'; num: bigint; den: bigint } | { kind: 'nan' } | { kind: 'inf'; sign: 1 | -1 };

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

function exactOfDouble(d: number): Exact {
  if (Number.isNaN(d)) return { kind: 'nan' };
  if (!Number.isFinite(d)) return { kind: 'inf', sign: d > 0 ? 1 : -1 };
  if (Number.isInteger(d)) return { kind: 'finite', num: BigInt(d), den: 1n };
  f64[0] = d;
  const lo = u32[0];
  const hi = u32[1];
  const sign = hi >>> 31 ? -1n : 1n;
  const expBits = (hi >>> 20) & 0x7ff;
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exp: number;
  if (expBits === 0) {
    exp = -1074;
  } else {
    mantissa |= 1n << 52n;
    exp = expBits - 1075;
  }
  // d is not an integer, so exp < 0.
  return { kind: 'finite', num: sign * mantissa, den: 1n << BigInt(-exp) };
}

function exactOfDecimal(dec: Decimal128): Exact {
  const s = dec.toString();
  if (s === 'NaN' || s === '-NaN') return { kind: 'nan' };
  if (s === 'Infinity') return { kind: 'inf', sign: 1 };
  if (s === '-Infinity') return { kind: 'inf', sign: -1 };
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:E([+-]\d+))?$/i.exec(s);
  if (!m) return { kind: 'nan' };
  const frac = m[3] ?? '';
  const exp = Number(m[4] ?? 0) - frac.length;
  let num = BigInt(m[2] + frac);
  if (m[1]) num = -num;
  let den = 1n;
  if (exp >= 0) num *= 10n ** BigInt(exp);
  else den = 10n ** BigInt(-exp);
  return { kind: 'finite', num, den };
}

function exactOf(value: unknown): Exact {
  switch (bsonClassOf(value)) {
    case 'Long':
      return { kind: 'finite', num: (value as Long).toBigInt(), den: 1n };
    case 'Decimal128':
      return exactOfDecimal(value as Decimal128);
  }
  return exactOfDouble(toDouble(value));
}

/**
 * A number truncated toward zero, exactly (a Long or a Decimal128 beyond 2^53 is not read through a
 * double); undefined for NaN, ±Infinity and non-numbers.
 */
export function truncatedBigInt(value: unknown): bigint | undefined {
  const e = exactOf(value);
  return e.kind === 'finite' ? e.num / e.den : undefined;
}

/** Total order on numbers as MongoDB sorts them: NaN first, then -Infinity … +Infinity. */
export function compareNumbers(a: unknown, b: unknown): number {
  const x = exactDouble(a);
  const y = exactDouble(b);
  if (x !== undefined && y !== undefined) {
    if (x < y) return -1;
    if (x > y) return 1;
    if (x === y) return 0;
    const xn = Number.isNaN(x);
    const yn = Number.isNaN(y);
    return xn && yn ? 0 : xn ? -1 : 1;
  }
  return compareExact(exactOf(a), exactOf(b));
}

function rank(e: Exact): number {
  if (e.kind === 'nan') return 0;
  if (e.kind === 'inf') return e.sign < 0 ? 1 : 3;
  return 2;
}

function compareExact(a: Exact, b: Exact): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if (a.kind !== 'finite' || b.kind !== 'finite') return 0;
  const l = a.num * b.den;
  const r = b.num * a.den;
  return l < r ? -1 : l > r ? 1 : 0;
}

export type NumericKind = 'int' | 'long' | 'double' | 'decimal';

export function numericKind(value: unknown): NumericKind | undefined {
  if (typeof value === 'number') return 'double';
  switch (bsonClassOf(value)) {
    case 'Int32':
      return 'int';
    case 'Long':
      return 'long';
    case 'Double':
      return 'double';
    case 'Decimal128':
      return 'decimal';
  }
  return undefined;
}

const KIND_RANK: Record<NumericKind, number> = { int: 0, long: 1, double: 2, decimal: 3 };

function widest(a: NumericKind, b: NumericKind): NumericKind {
  return KIND_RANK[a] >= KIND_RANK[b] ? a : b;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
/** The range of a BSON long (int64). */
export const LONG_MIN = -(2n ** 63n);
export const LONG_MAX = 2n ** 63n - 1n;

function toBigIntExact(value: unknown): bigint {
  if (bsonClassOf(value) === 'Long') return (value as Long).toBigInt();
  return BigInt(toDouble(value));
}

/** Decimal128 from any number (doubles through their shortest string form, as mongod does). */
function toDecimal(value: unknown): Decimal128 {
  if (bsonClassOf(value) === 'Decimal128') return value as Decimal128;
  if (bsonClassOf(value) === 'Long') return Decimal128.fromString((value as Long).toString());
  const d = toDouble(value);
  if (Number.isNaN(d)) return Decimal128.fromString('NaN');
  if (!Number.isFinite(d)) return Decimal128.fromString(d > 0 ? 'Infinity' : '-Infinity');
  return Decimal128.fromString(String(d));
}

/**
 * Exact decimal arithmetic on the string form: enough for $inc/$mul/$sum on Decimal128 without a
 * decimal library (precision beyond 34 digits is rounded by Decimal128.fromString).
 */
function decimalOp(a: Decimal128, b: Decimal128, op: 'add' | 'mul'): Decimal128 {
  const x = exactOfDecimal(a);
  const y = exactOfDecimal(b);
  if (x.kind !== 'finite' || y.kind !== 'finite') {
    const r = op === 'add' ? toDouble(a) + toDouble(b) : toDouble(a) * toDouble(b);
    return toDecimal(r);
  }
  // Addition keeps the finer of the two scales (0.1 + 0.2 = 0.3, not 0.30); multiplication adds them.
  const den = op === 'add' ? (x.den > y.den ? x.den : y.den) : x.den * y.den;
  const num = op === 'add' ? x.num * (den / x.den) + y.num * (den / y.den) : x.num * y.num;
  // den is a power of ten: turn num/den into a decimal string.
  const scale = den.toString().length - 1;
  const neg = num < 0n;
  let digits = (neg ? -num : num).toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, '0');
    digits = `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
  }
  return Decimal128.fromStringWithRounding((neg ? '-' : '') + digits);
}

function arith(a: unknown, b: unknown, op: 'add' | 'mul'): unknown {
  const ka = numericKind(a);
  const kb = numericKind(b);
  if (!ka || !kb) throw new TypeError('arith on non-numbers');
  const kind = widest(ka, kb);
  if (kind === 'decimal') return decimalOp(toDecimal(a), toDecimal(b), op);
  if (kind === 'double') return op === 'add' ? toDouble(a) + toDouble(b) : toDouble(a) * toDouble(b);
  const r = op === 'add' ? toBigIntExact(a) + toBigIntExact(b) : toBigIntExact(a) * toBigIntExact(b);
  if (kind === 'int' && r >= BigInt(INT32_MIN) && r <= BigInt(INT32_MAX)) return new Int32(Number(r));
  if (r >= LONG_MIN && r <= LONG_MAX) return Long.fromBigInt(r);
  // Long overflow falls back to double, as mongod does for $inc / $sum.
  return op === 'add' ? toDouble(a) + toDouble(b) : toDouble(a) * toDouble(b);
}

/** a + b with MongoDB's type promotion: int+int=int (long on overflow), long, double, decimal. */
export function addNumbers(a: unknown, b: unknown): unknown {
  return arith(a, b, 'add');
}

/** a × b with the same promotion rules as addNumbers. */
export function multiplyNumbers(a: unknown, b: unknown): unknown {
  return arith(a, b, 'mul');
}

/** Number of the same kind as `like` holding integer n (for results such as $size or counts). */
export function int32(n: number): Int32 {
  return new Int32(n);
}
