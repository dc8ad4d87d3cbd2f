/**
 * $ln, $log10, $log, $exp and $pow of Decimal128 operands at Decimal128's own precision: 34
 * significant digits, rounded once (half to even), as mongod's decimal library answers them. A
 * detour through a double would keep about 16 digits. Values are BigInt rationals; logarithms and
 * exponentials are series on fixed-point BigInts with far more digits than the result keeps.
 *
 * Result shapes follow mongod: an inexact result has a full 34-digit coefficient; $pow always
 * has one (`$pow: [10.0, 2]` is 100.0000000000000000000000000000000); an exact logarithm of a power
 * of ten is the integer itself, and a quotient that is exact keeps its ideal exponent ("1", not
 * 1.000…).
 */
import { Decimal128 } from 'bson';
import { bsonClassOf } from '../../values/types';

/** A finite decimal: coef × 10^exp. */
export interface Dec {
  coef: bigint;
  exp: number;
}

const DIGITS = 34;
const MAX_COEF = 10n ** BigInt(DIGITS);
const MIN_COEF = 10n ** BigInt(DIGITS - 1);
const MAX_EXP = 6111;
const MIN_EXP = -6176;

/** Working precision of the fixed-point series, in decimal digits. */
const WORK = 90n;
const ONE = 10n ** WORK;

/**
 * An operand as mongod widens it to a decimal: a decimal as it is, an integer exactly, a double
 * through 15 significant digits. NaN and infinities are not Decs.
 */
export function toDec(value: unknown): Dec | 'nan' | 'inf' | '-inf' {
  let text: string;
  if (bsonClassOf(value) === 'Decimal128') text = (value as Decimal128).toString();
  else if (bsonClassOf(value) === 'Long') text = (value as { toString(): string }).toString();
  else {
    const n = typeof value === 'number' ? value : Number((value as { valueOf(): unknown }).valueOf());
    if (Number.isNaN(n)) return 'nan';
    if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
    text =
      bsonClassOf(value) === 'Int32' || (Number.isInteger(n) && Math.abs(n) < 2 ** 31) ? String(n) : n.toPrecision(15);
  }
  if (/^-?NaN$/.test(text)) return 'nan';
  if (text === 'Infinity') return 'inf';
  if (text === '-Infinity') return '-inf';
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return 'nan';
  const frac = m[3] ?? '';
  const coef = BigInt(m[2] + frac);
  return { coef: m[1] ? -coef : coef, exp: Number(m[4] ?? 0) - frac.length };
}

export function decOf(d: Dec | 'nan' | 'inf' | '-inf'): Decimal128 {
  if (d === 'nan') return Decimal128.fromString('NaN');
  if (d === 'inf') return Decimal128.fromString('Infinity');
  if (d === '-inf') return Decimal128.fromString('-Infinity');
  let { coef, exp } = d;
  if (exp < MIN_EXP) {
    // Below the smallest exponent the coefficient loses digits (a subnormal result).
    const drop = 10n ** BigInt(MIN_EXP - exp);
    coef = roundQuotient(coef < 0n ? -coef : coef, drop).q * (coef < 0n ? -1n : 1n);
    exp = MIN_EXP;
  }
  if (exp > MAX_EXP) return Decimal128.fromString(coef < 0n ? '-Infinity' : 'Infinity');
  return Decimal128.fromString(`${coef}E${exp}`);
}

function digitCount(n: bigint): number {
  return (n < 0n ? -n : n).toString().length;
}

/** num / den rounded half to even (both positive), and whether nothing was lost. */
function roundQuotient(num: bigint, den: bigint): { q: bigint; exact: boolean } {
  let q = num / den;
  const r = num - q * den;
  if (r === 0n) return { q, exact: true };
  const twice = 2n * r;
  if (twice > den || (twice === den && q % 2n === 1n)) q += 1n;
  return { q, exact: false };
}

/**
 * The positive rational num/den × 10^exp10 with a coefficient of exactly 34 digits, and whether
 * it is exact.
 */
function round34(num: bigint, den: bigint, exp10: number): { dec: Dec; exact: boolean } {
  // Scale so the quotient has 34 digits: 10^33 <= num × 10^k / den < 10^34.
  let k = DIGITS - (digitCount(num) - digitCount(den));
  for (;;) {
    const n = k >= 0 ? num * 10n ** BigInt(k) : num;
    const d = k >= 0 ? den : den * 10n ** BigInt(-k);
    const whole = n / d;
    if (whole >= MAX_COEF) k--;
    else if (whole < MIN_COEF) k++;
    else {
      const { q, exact } = roundQuotient(n, d);
      // Rounding up may carry into a 35th digit.
      if (q === MAX_COEF) return { dec: { coef: MIN_COEF, exp: exp10 - k + 1 }, exact: false };
      return { dec: { coef: q, exp: exp10 - k }, exact };
    }
  }
}

function signed(r: { dec: Dec; exact: boolean }, negative: boolean): { dec: Dec; exact: boolean } {
  return negative ? { dec: { coef: -r.dec.coef, exp: r.dec.exp }, exact: r.exact } : r;
}

/** Trailing zeros taken off while the exponent stays at or below `ideal` (an exact result's shape). */
function towardIdeal(d: Dec, ideal: number): Dec {
  let { coef, exp } = d;
  while (exp < ideal && coef !== 0n && coef % 10n === 0n) {
    coef /= 10n;
    exp++;
  }
  return { coef, exp };
}

// ---- fixed point (value × ONE) -------------------------------------------------------------

/** atanh(p/q) for |p/q| < 1, as fixed point. */
function atanhFixed(p: bigint, q: bigint): bigint {
  const z = (p * ONE) / q;
  const z2 = (z * z) / ONE;
  let power = z;
  let sum = 0n;
  for (let i = 1n; power !== 0n; i += 2n) {
    sum += power / i;
    power = (power * z2) / ONE;
  }
  return sum;
}

let lnConstants: { ln2: bigint; ln10: bigint } | undefined;
function constants(): { ln2: bigint; ln10: bigint } {
  if (!lnConstants) {
    const ln2 = 2n * atanhFixed(1n, 3n);
    // 10 = 2^3 × 1.25, and ln 1.25 = 2 atanh(1/9).
    lnConstants = { ln2, ln10: 3n * ln2 + 2n * atanhFixed(1n, 9n) };
  }
  return lnConstants;
}

/** ln of the positive value coef × 10^exp, as fixed point. */
function lnFixed(d: Dec): bigint {
  const { ln2, ln10 } = constants();
  // d = y × 10^m with y in [1, 10), then y = w × 2^k with w near 1.
  const m = d.exp + digitCount(d.coef) - 1;
  const yn = d.coef;
  const yd = 10n ** BigInt(digitCount(d.coef) - 1);
  const k = Math.round(Math.log2(Number(yn) / Number(yd)));
  const wn = yn;
  const wd = yd * (1n << BigInt(k));
  // ln w = 2 atanh((w - 1) / (w + 1)).
  const lnW = 2n * atanhFixed(wn - wd, wn + wd);
  return lnW + BigInt(k) * ln2 + BigInt(m) * ln10;
}

/** e^(x/ONE) for a fixed-point x, as the rational num/den; undefined when it leaves Decimal128's range. */
function expFixed(x: bigint): { num: bigint; den: bigint } | 'inf' | 'zero' {
  const { ln2 } = constants();
  const n = Math.round(Number((x * 1000n) / ln2) / 1000);
  if (n > 21_000) return 'inf';
  if (n < -21_500) return 'zero';
  const r = x - BigInt(n) * ln2;
  let term = ONE;
  let sum = ONE;
  for (let i = 1n; term !== 0n; i++) {
    term = (term * r) / (ONE * i);
    sum += term;
  }
  return n >= 0 ? { num: sum * (1n << BigInt(n)), den: ONE } : { num: sum, den: ONE * (1n << BigInt(-n)) };
}

function fromFixed(f: bigint): Dec {
  if (f === 0n) return { coef: 0n, exp: 0 };
  return signed(round34(f < 0n ? -f : f, ONE, 0), f < 0n).dec;
}

// ---- the operators ---------------------------------------------------------------------------

export function decIsOne(x: Dec): boolean {
  return x.exp <= 0 && x.coef === 10n ** BigInt(-x.exp);
}

/** ln of a positive decimal (the caller has refused zero and negatives). */
export function decimalLn(x: Dec): Dec {
  if (decIsOne(x)) return { coef: 0n, exp: 0 };
  return fromFixed(lnFixed(x));
}

/** log10 of a positive decimal: a power of ten gives its exponent exactly. */
export function decimalLog10(x: Dec): Dec {
  const bare = towardIdeal(x, Number.MAX_SAFE_INTEGER);
  if (bare.coef === 1n) return { coef: BigInt(bare.exp), exp: 0 };
  return fromFixed((lnFixed(x) * ONE) / constants().ln10);
}

/** log of x in base b, as mongod computes it: ln(x) / ln(b), each rounded, then a decimal division. */
export function decimalLog(x: Dec, b: Dec): Dec {
  return divide(decimalLn(x), decimalLn(b));
}

function divide(a: Dec, b: Dec): Dec {
  if (a.coef === 0n) return { coef: 0n, exp: a.exp - b.exp };
  const negative = a.coef < 0n !== b.coef < 0n;
  const r = round34(a.coef < 0n ? -a.coef : a.coef, b.coef < 0n ? -b.coef : b.coef, a.exp - b.exp);
  const dec = r.exact ? towardIdeal(r.dec, a.exp - b.exp) : r.dec;
  return negative ? { coef: -dec.coef, exp: dec.exp } : dec;
}

export function decimalExp(x: Dec): Dec | 'inf' {
  if (x.coef === 0n) return { coef: 1n, exp: 0 };
  const scaled = x.exp >= 0 ? x.coef * 10n ** BigInt(x.exp) * ONE : (x.coef * ONE) / 10n ** BigInt(-x.exp);
  const e = expFixed(scaled);
  if (e === 'inf') return 'inf';
  if (e === 'zero') return { coef: 0n, exp: MIN_EXP };
  return round34(e.num, e.den, 0).dec;
}

/** base^exponent with a 34-digit coefficient; NaN for a negative base and a fractional exponent. */
export function decimalPow(base: Dec, exponent: Dec): Dec | 'nan' | 'inf' {
  const exp = towardIdeal(exponent, Number.MAX_SAFE_INTEGER);
  const integral = exp.exp >= 0;
  if (base.coef === 0n) return exponent.coef === 0n ? { coef: MIN_COEF, exp: 1 - DIGITS } : { coef: 0n, exp: 0 };
  const negative = base.coef < 0n;
  const magnitude: Dec = { coef: negative ? -base.coef : base.coef, exp: base.exp };
  if (integral) {
    const n = exp.coef * 10n ** BigInt(exp.exp);
    const abs = n < 0n ? -n : n;
    // Exactly, while the power stays a reasonable size; beyond, through logarithms.
    if (abs * BigInt(digitCount(magnitude.coef)) <= 20_000n) {
      const p = Number(abs);
      const big = magnitude.coef ** abs;
      const scale = magnitude.exp * p;
      const odd = abs % 2n === 1n;
      const r =
        n >= 0n
          ? scale >= 0
            ? round34(big * 10n ** BigInt(scale), 1n, 0)
            : round34(big, 10n ** BigInt(-scale), 0)
          : scale >= 0
            ? round34(1n, big * 10n ** BigInt(scale), 0)
            : round34(10n ** BigInt(-scale), big, 0);
      return signed(r, negative && odd).dec;
    }
  } else if (negative) {
    return 'nan';
  }
  const n = exp.exp >= 0 ? exp.coef * 10n ** BigInt(exp.exp) : exp.coef;
  const lnScaled = lnFixed(magnitude) * n;
  const power = expFixed(exp.exp >= 0 ? lnScaled : lnScaled / 10n ** BigInt(-exp.exp));
  if (power === 'inf') return 'inf';
  if (power === 'zero') return { coef: 0n, exp: MIN_EXP };
  const odd = integral && n % 2n !== 0n;
  return signed(round34(power.num, power.den, 0), negative && odd).dec;
}
