/** Arithmetic operators: $add … $trunc, with BSON's numeric promotion and mongod's errors. */
import { Decimal128, Int32, Long } from 'bson';
import {
  addNumbers,
  LONG_MAX,
  LONG_MIN,
  multiplyNumbers,
  numericKind,
  toDouble,
  type NumericKind,
} from '../../values/numbers';
import { isNumeric } from '../../values/types';
import { binary, fail, isNullish, show, typeName, unary, variadic, type OperatorParser } from './core';
import {
  decimalBinary,
  decimalString,
  digitCount,
  isZero,
  millisOf,
  narrowInteger,
  R,
  rationalOf,
  rationalOfDecimalString,
  roundRational,
  toBigInt,
  widestKind,
} from './numeric';

function opAdd(vals: unknown[]): unknown {
  let total: unknown = new Int32(0);
  let date: Date | undefined;
  for (const v of vals) {
    if (isNullish(v)) return null;
    if (v instanceof Date) {
      if (date) fail(16612, 'only one date allowed in an $add expression');
      date = v;
    } else if (isNumeric(v)) {
      total = addNumbers(total, v);
    } else {
      fail(16554, `$add only supports numeric or date types, not ${typeName(v)}`);
    }
  }
  return date ? new Date(date.getTime() + millisOf(total)) : total;
}

export function subtractValues(a: unknown, b: unknown): unknown {
  const ka = numericKind(a);
  const kb = numericKind(b);
  if (ka && kb) {
    const kind = widestKind(ka, kb);
    if (kind === 'decimal') return decimalBinary(a, b, R.sub, (x, y) => x - y);
    if (kind === 'double') return toDouble(a) - toDouble(b);
    return narrowInteger(toBigInt(a) - toBigInt(b), kind);
  }
  if (isNullish(a) || isNullish(b)) return null;
  if (a instanceof Date) {
    if (b instanceof Date) return Long.fromNumber(a.getTime() - b.getTime());
    if (kb) return new Date(a.getTime() - millisOf(b));
    fail(14, `can't $subtract ${typeName(b)} from date`);
  }
  fail(14, `can't $subtract ${typeName(b)} from ${typeName(a)}`);
}

function opMultiply(vals: unknown[]): unknown {
  let total: unknown = new Int32(1);
  for (const v of vals) {
    if (isNullish(v)) return null;
    if (!isNumeric(v)) fail(16555, `$multiply only supports numeric types, not ${typeName(v)}`);
    total = multiplyNumbers(total, v);
  }
  return total;
}

function opDivide(a: unknown, b: unknown): unknown {
  const ka = numericKind(a);
  const kb = numericKind(b);
  if (ka && kb) {
    if (isZero(b)) fail(2, "can't $divide by zero");
    if (ka === 'decimal' || kb === 'decimal') return decimalBinary(a, b, R.div, (x, y) => x / y);
    return toDouble(a) / toDouble(b);
  }
  if (isNullish(a) || isNullish(b)) return null;
  fail(14, `$divide only supports numeric types, not ${typeName(a)} and ${typeName(b)}`);
}

function isInt32Valued(d: number): boolean {
  return Number.isInteger(d) && d >= -2147483648 && d <= 2147483647;
}

function opMod(a: unknown, b: unknown): unknown {
  const ka = numericKind(a);
  const kb = numericKind(b);
  if (ka && kb) {
    if (isZero(b)) fail(16610, "can't $mod by zero");
    const kind = widestKind(ka, kb);
    if (kind === 'decimal') return decimalBinary(a, b, R.mod, (x, y) => x % y);
    // An integer dividend keeps its type when the divisor is a double holding a 32-bit integer
    // (mongod: NumberInt(8) mod 3.0 is NumberInt(2)); otherwise a double takes the floating remainder.
    if (ka === 'double' || (kb === 'double' && !isInt32Valued(b as number))) return toDouble(a) % toDouble(b);
    return narrowInteger(toBigInt(a) % toBigInt(b), ka === 'long' || kb === 'long' ? 'long' : 'int');
  }
  if (isNullish(a) || isNullish(b)) return null;
  fail(16611, `$mod only supports numeric types, not ${typeName(a)} and ${typeName(b)}`);
}

export function requireNumber(v: unknown, name: string): NumericKind {
  const kind = numericKind(v);
  if (!kind) fail(28765, `${name} only supports numeric types, not ${typeName(v)}`);
  return kind;
}

function opAbs(v: unknown, name: string): unknown {
  if (isNullish(v)) return null;
  switch (requireNumber(v, name)) {
    case 'int':
      return narrowInteger(BigInt(Math.abs((v as Int32).value)), 'int');
    case 'long': {
      const n = (v as Long).toBigInt();
      if (n === LONG_MIN) fail(28680, "can't take $abs of long long min");
      return Long.fromBigInt(n < 0n ? -n : n);
    }
    case 'double':
      return Math.abs(toDouble(v));
    case 'decimal': {
      const s = (v as Decimal128).toString();
      return s.startsWith('-') ? Decimal128.fromString(s.slice(1)) : v;
    }
  }
}

/** $floor / $ceil: integers pass through, doubles use Math, decimals round exactly. */
function integralOp(dir: 'floor' | 'ceil'): (v: unknown, name: string) => unknown {
  return (v, name) => {
    if (isNullish(v)) return null;
    const kind = requireNumber(v, name);
    if (kind === 'int' || kind === 'long') return v;
    if (kind === 'double') return dir === 'floor' ? Math.floor(v as number) : Math.ceil(toDouble(v));
    const r = rationalOf(v);
    if (!r) return v;
    let q = r.num / r.den;
    const exact = q * r.den === r.num;
    if (!exact && dir === 'floor' && r.num < 0n) q -= 1n;
    if (!exact && dir === 'ceil' && r.num > 0n) q += 1n;
    return Decimal128.fromString(q.toString());
  };
}

/** $round (half to even) and $trunc, with an optional place in [-20, 100]. */
function roundingOp(mode: 'round' | 'trunc'): OperatorParser {
  return variadic(
    (vals, name) => {
      const [v, placeArg] = vals;
      if (isNullish(v)) return null;
      let place = 0;
      if (vals.length > 1) {
        if (isNullish(placeArg)) return null;
        place = roundingPlace(placeArg, name);
      }
      const kind = numericKind(v);
      if (!kind) fail(51081, `${name} only supports numeric types, not ${typeName(v)}`);
      if (kind === 'int' || kind === 'long') return roundInteger(v, place, mode, kind, name, vals);
      if (kind === 'double') return roundDouble(v as number, place, mode);
      return roundDecimal(v as Decimal128, place, mode);
    },
    1,
    2,
  );
}

function roundingPlace(p: unknown, name: string): number {
  const kind = numericKind(p);
  if (!kind) fail(16006, `precision argument to ${name} must be a numeric type, not ${typeName(p)}`);
  const d = toDouble(p);
  if (!Number.isInteger(d)) fail(51082, `precision argument to ${name} must be a integral value`);
  if (d < -20 || d > 100) fail(51083, `cannot apply ${name} with precision value ${d} value must be in [-20, 100]`);
  return d;
}

function roundInteger(
  v: unknown,
  place: number,
  mode: 'round' | 'trunc',
  kind: 'int' | 'long',
  name: string,
  args: unknown[],
): unknown {
  if (place >= 0) return v;
  const r = roundRational({ num: toBigInt(v), den: 1n }, place, mode) * 10n ** BigInt(-place);
  if (r < LONG_MIN || r > LONG_MAX) {
    fail(
      51080,
      `invalid conversion from Decimal128 result in ${name} resulting from arguments: [${args.map(show).join(', ')}]`,
    );
  }
  return narrowInteger(r, kind);
}

function roundDouble(d: number, place: number, mode: 'round' | 'trunc'): number {
  // A double carries at most 15 reliable digits; mongod rounds through a 15-digit Decimal128.
  if (place >= 15 || !Number.isFinite(d) || d === 0) return d;
  const r = rationalOfDecimalString(d.toPrecision(15));
  if (!r) return d;
  const q = roundRational(r, place, mode);
  return Number(decimalString(q, place));
}

function roundDecimal(v: Decimal128, place: number, mode: 'round' | 'trunc'): Decimal128 {
  const r = rationalOf(v);
  if (!r) return v;
  let q = roundRational(r, place, mode);
  // The result keeps `place` digits after the point, capped at Decimal128's 34 digits.
  while (digitCount(q) > 34) {
    place -= digitCount(q) - 34;
    q = roundRational(r, place, mode);
  }
  return Decimal128.fromString(decimalString(q, place));
}

export const ARITHMETIC_OPERATORS: Readonly<Record<string, OperatorParser>> = {
  $add: variadic(opAdd),
  $subtract: binary(subtractValues),
  $multiply: variadic(opMultiply),
  $divide: binary(opDivide),
  $mod: binary(opMod),
  $abs: unary(opAbs),
  $floor: unary(integralOp('floor')),
  $ceil: unary(integralOp('ceil')),
  $round: roundingOp('round'),
  $trunc: roundingOp('trunc'),
};
