/**
 * Exponents and logarithms: $exp, $ln, $log, $log10, $pow, $sqrt.
 *
 * Doubles follow C's libm (JS Math is the same IEEE functions). A decimal operand makes a decimal
 * result at Decimal128's full precision (decimal-math.ts), as mongod's decimal library gives it.
 */
import { Decimal128, Long } from 'bson';
import { LONG_MAX, LONG_MIN, numericKind, toDouble, type NumericKind } from '../../values/numbers';
import { binary, fail, isNullish, typeName, type OperatorParser, unary } from './core';
import {
  decIsOne,
  decimalExp,
  decimalLn,
  decimalLog,
  decimalLog10,
  decimalPow,
  decOf,
  toDec,
  type Dec,
} from './decimal-math';
import { narrowInteger, toBigInt } from './numeric';

/** A double as the Decimal128 a decimal operand's result is given as. */
export function decimalOfDouble(d: number): Decimal128 {
  if (Number.isNaN(d)) return Decimal128.fromString('NaN');
  if (!Number.isFinite(d)) return Decimal128.fromString(d > 0 ? 'Infinity' : '-Infinity');
  return Decimal128.fromString(String(d));
}

/** ExpressionSingleNumericArg: null for nullish, 28765 for a non-number, then `f` on a double. */
export function singleNumeric(
  f: (x: number, name: string, kind: NumericKind) => number,
  /** The decimal form, where one computes at full precision (else `f` through a double). */
  decimal?: (x: Dec, name: string) => Decimal128,
): OperatorParser {
  return unary((v, name) => {
    if (isNullish(v)) return null;
    const kind = numericKind(v);
    if (!kind) fail(28765, `${name} only supports numeric types, not ${typeName(v)}`);
    if (kind === 'decimal' && decimal) {
      const d = toDec(v);
      if (typeof d !== 'string') return decimal(d, name);
    }
    const r = f(toDouble(v), name, kind);
    return kind === 'decimal' ? decimalOfDouble(r) : r;
  });
}

function positive(code: number): (x: number, name: string) => number {
  return (x, name) => {
    if (!(x > 0) && !Number.isNaN(x)) fail(code, `${name}'s argument must be a positive number, but is ${x}`);
    return x;
  };
}

function positiveDec(code: number, x: Dec, name: string): Dec {
  if (x.coef <= 0n) fail(code, `${name}'s argument must be a positive number, but is ${decOf(x).toString()}`);
  return x;
}

function opLog(arg: unknown, base: unknown): unknown {
  if (isNullish(arg) || isNullish(base)) return null;
  const ka = numericKind(arg);
  const kb = numericKind(base);
  if (!ka) fail(28756, `$log's argument must be numeric, not ${typeName(arg)}`);
  if (!kb) fail(28757, `$log's base must be numeric, not ${typeName(base)}`);
  if (ka === 'decimal' || kb === 'decimal') {
    // mongod's order: a decimal answer when both are in the domain (compared as decimals); NaN and
    // the errors fall through to the double computation.
    const dx = toDec(arg);
    const db = toDec(base);
    if (typeof dx !== 'string' && typeof db !== 'string' && dx.coef > 0n && db.coef > 0n && !decIsOne(db))
      return decOf(decimalLog(dx, db));
  }
  const x = toDouble(arg);
  const b = toDouble(base);
  if (!(x > 0) && !Number.isNaN(x)) fail(28758, `$log's argument must be a positive number, but is ${x}`);
  if (!(b > 0 && b !== 1) && !Number.isNaN(b))
    fail(28759, `$log's base must be a positive number not equal to 1, but is ${b}`);
  const r = Math.log(x) / Math.log(b);
  // Infinite decimal operands are left to doubles; NaN stays a double NaN, as mongod answers it.
  return (ka === 'decimal' || kb === 'decimal') && !Number.isNaN(r) ? decimalOfDouble(r) : r;
}

/** $pow keeps integers integral while the result fits a long (int when both are ints and it fits). */
function opPow(base: unknown, exp: unknown): unknown {
  if (isNullish(base) || isNullish(exp)) return null;
  const kb = numericKind(base);
  const ke = numericKind(exp);
  if (!kb) fail(28762, `$pow's base must be numeric, not ${typeName(base)}`);
  if (!ke) fail(28763, `$pow's exponent must be numeric, not ${typeName(exp)}`);
  const b = toDouble(base);
  const e = toDouble(exp);
  if (b === 0 && e < 0) fail(28764, '$pow cannot take a base of 0 and a negative exponent');
  if (kb === 'decimal' || ke === 'decimal') {
    const db = toDec(base);
    const de = toDec(exp);
    if (db === 'nan' || de === 'nan') return decOf('nan');
    if (typeof db !== 'string' && typeof de !== 'string') return decOf(decimalPow(db, de));
    return decimalOfDouble(Math.pow(b, e));
  }
  if (kb === 'double' || ke === 'double') return Math.pow(b, e);
  const kind = kb === 'long' || ke === 'long' ? 'long' : 'int';
  const bi = toBigInt(base);
  const ei = toBigInt(exp);
  const integral = (r: bigint): unknown => (kind === 'long' ? Long.fromBigInt(r) : narrowInteger(r, 'int'));
  if (bi === 0n) return integral(ei === 0n ? 1n : 0n);
  if (bi === 1n) return integral(1n);
  if (bi === -1n) return integral(ei % 2n === 0n ? 1n : -1n);
  if (ei < 0n || ei > 63n) return Math.pow(b, e);
  const r = bi ** ei;
  return r >= LONG_MIN && r <= LONG_MAX ? integral(r) : Math.pow(b, e);
}

export const MATH_OPERATORS: Readonly<Record<string, OperatorParser>> = {
  $exp: singleNumeric(
    (x) => Math.exp(x),
    (x) => decOf(decimalExp(x)),
  ),
  $ln: singleNumeric(
    (x, name) => Math.log(positive(28766)(x, name)),
    (x, name) => decOf(decimalLn(positiveDec(28766, x, name))),
  ),
  $log10: singleNumeric(
    (x, name) => Math.log10(positive(28761)(x, name)),
    (x, name) => decOf(decimalLog10(positiveDec(28761, x, name))),
  ),
  $sqrt: singleNumeric((x) => {
    if (x < 0) fail(28714, "$sqrt's argument must be greater than or equal to 0");
    return Math.sqrt(x);
  }),
  $log: binary(opLog),
  $pow: binary(opPow),
};
