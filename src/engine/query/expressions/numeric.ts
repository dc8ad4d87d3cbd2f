/**
 * Number helpers shared by the operator families: BSON promotion (int → long → double →
 * decimal) and exact decimal arithmetic through rationals, so Decimal128 results round once.
 */
import { Decimal128, Int32, Long } from 'bson';
import { LONG_MAX, LONG_MIN, numericKind, toDouble, type NumericKind } from '../../values/numbers';
import { bsonClassOf } from '../../values/types';

export const KIND_RANK: Record<NumericKind, number> = { int: 0, long: 1, double: 2, decimal: 3 };
export const INT32_MIN = -(2n ** 31n);
export const INT32_MAX = 2n ** 31n - 1n;

export function widestKind(a: NumericKind, b: NumericKind): NumericKind {
  return KIND_RANK[a] >= KIND_RANK[b] ? a : b;
}

/** Integer-valued number (Int32, Long, or an integral double) as a bigint. */
export function toBigInt(v: unknown): bigint {
  if (bsonClassOf(v) === 'Long') return (v as Long).toBigInt();
  return BigInt(Math.trunc(toDouble(v)));
}

/** An int-or-long result: Int32 when `kind` is int and it fits, Long when it fits, else double. */
export function narrowInteger(r: bigint, kind: 'int' | 'long'): unknown {
  if (kind === 'int' && r >= INT32_MIN && r <= INT32_MAX) return new Int32(Number(r));
  if (r >= LONG_MIN && r <= LONG_MAX) return Long.fromBigInt(r);
  return Number(r);
}

/** A finite number as the exact fraction num/den (den > 0), or null for NaN and infinities. */
export interface Rational {
  num: bigint;
  den: bigint;
}

export function decimalSpecial(d: Decimal128): number | undefined {
  const s = d.toString();
  if (s === 'NaN' || s === '-NaN') return NaN;
  if (s === 'Infinity') return Infinity;
  if (s === '-Infinity') return -Infinity;
  return undefined;
}

export function rationalOfDecimalString(s: string): Rational | null {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
  if (!m) return null;
  const frac = m[3] ?? '';
  let num = BigInt((m[2] || '0') + frac);
  if (m[1] === '-') num = -num;
  const exp = Number(m[4] ?? 0) - frac.length;
  return exp >= 0 ? { num: num * 10n ** BigInt(exp), den: 1n } : { num, den: 10n ** BigInt(-exp) };
}

/** Exact value of any finite number. Doubles go through their shortest decimal form, as numbers.ts does. */
export function rationalOf(v: unknown): Rational | null {
  switch (numericKind(v)) {
    case 'int':
      return { num: BigInt((v as Int32).value), den: 1n };
    case 'long':
      return { num: (v as Long).toBigInt(), den: 1n };
    case 'decimal':
      return decimalSpecial(v as Decimal128) === undefined
        ? rationalOfDecimalString((v as Decimal128).toString())
        : null;
    default: {
      const d = toDouble(v);
      return Number.isFinite(d) ? rationalOfDecimalString(String(d)) : null;
    }
  }
}

export function decimalOfSpecial(d: number): Decimal128 {
  return Decimal128.fromString(Number.isNaN(d) ? 'NaN' : d > 0 ? 'Infinity' : '-Infinity');
}

export function digitCount(n: bigint): number {
  return (n < 0n ? -n : n).toString().length;
}

/** Round-half-even quotient of n / d (d > 0). */
export function divRoundHalfEven(n: bigint, d: bigint): bigint {
  let q = n / d;
  const r = n - q * d;
  if (r === 0n) return q;
  const twice = (r < 0n ? -r : r) * 2n;
  const away = n < 0n ? -1n : 1n;
  if (twice > d || (twice === d && (q & 1n) !== 0n)) q += away;
  return q;
}

/** `digits × 10^-scale` as a decimal string Decimal128 accepts. */
export function decimalString(digits: bigint, scale: number): string {
  if (scale <= 0) return scale === 0 ? digits.toString() : `${digits}E+${-scale}`;
  const neg = digits < 0n;
  let s = (neg ? -digits : digits).toString().padStart(scale + 1, '0');
  s = `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
  return (neg ? '-' : '') + s;
}

/** The nearest Decimal128 (34 significant digits, half-even) to num/den, without trailing zeros. */
export function decimalOfRational(r: Rational): Decimal128 {
  let { num, den } = r;
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  if (num === 0n) return Decimal128.fromString('0');
  // Start one digit past 34 significant digits and come down (rounding may carry into a new
  // digit); then drop the trailing zeros an exact result does not need.
  let scale = 34 - (digitCount(num) - digitCount(den)) + 1;
  let q = scaledQuotient(num, den, scale);
  while (digitCount(q) > 34) q = scaledQuotient(num, den, --scale);
  while (scale > 0 && q % 10n === 0n) {
    q /= 10n;
    scale--;
  }
  return Decimal128.fromString(decimalString(q, scale));
}

function scaledQuotient(num: bigint, den: bigint, scale: number): bigint {
  return scale >= 0
    ? divRoundHalfEven(num * 10n ** BigInt(scale), den)
    : divRoundHalfEven(num, den * 10n ** BigInt(-scale));
}

/** Decimal arithmetic on exact fractions; NaN and infinities fall back to double arithmetic. */
export function decimalBinary(
  a: unknown,
  b: unknown,
  exact: (x: Rational, y: Rational) => Rational,
  approx: (x: number, y: number) => number,
): Decimal128 {
  const x = rationalOf(a);
  const y = rationalOf(b);
  if (!x || !y) return decimalOfSpecial(approx(toDouble(a), toDouble(b)));
  return decimalOfRational(exact(x, y));
}

export const R = {
  sub: (x: Rational, y: Rational): Rational => ({ num: x.num * y.den - y.num * x.den, den: x.den * y.den }),
  div: (x: Rational, y: Rational): Rational => ({ num: x.num * y.den, den: x.den * y.num }),
  mod: (x: Rational, y: Rational): Rational => {
    // x - y * trunc(x / y): the remainder takes the dividend's sign, like fmod.
    const q = (x.num * y.den) / (x.den * y.num);
    return { num: x.num * y.den - q * y.num * x.den, den: x.den * y.den };
  },
};

export function isZero(v: unknown): boolean {
  return toDouble(v) === 0;
}

/** Rounds num/den to `place` decimal digits (negative: tens, hundreds...). */
export function roundRational(r: Rational, place: number, mode: 'round' | 'trunc'): bigint {
  const { num, den } = r;
  const n = place >= 0 ? num * 10n ** BigInt(place) : num;
  const d = place >= 0 ? den : den * 10n ** BigInt(-place);
  return mode === 'round' ? divRoundHalfEven(n, d) : n / d;
}

/** Milliseconds to add to a date for a number (llround for doubles, as mongod does). */
export function millisOf(v: unknown): number {
  const kind = numericKind(v);
  if (kind === 'int' || kind === 'long') return Number(toBigInt(v));
  const d = toDouble(v);
  return d < 0 ? -Math.round(-d) : Math.round(d);
}

export function int32Of(v: unknown): number | undefined {
  const d = toDouble(v);
  return Number.isInteger(d) && d >= -(2 ** 31) && d < 2 ** 31 ? d : undefined;
}
