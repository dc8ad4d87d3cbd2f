/**
 * Trigonometry: $sin … $atanh, $atan2, $degreesToRadians, $radiansToDegrees. Integers and doubles
 * give doubles; a decimal gives a decimal (computed through a double, see math.ts). NaN passes
 * through; a value outside a function's domain is refused (50989) rather than answered with NaN.
 */
import { numericKind, toDouble } from '../../values/numbers';
import { binary, fail, isNullish, typeName, type OperatorParser } from './core';
import { decimalOfDouble, singleNumeric } from './math';

interface Domain {
  lo: number;
  hi: number;
  /** Whether each bound is part of the domain. */
  loIn: boolean;
  hiIn: boolean;
}

const OPEN_LINE: Domain = { lo: -Infinity, hi: Infinity, loIn: false, hiIn: false };
const UNIT: Domain = { lo: -1, hi: 1, loIn: true, hiIn: true };

function showBound(d: number): string {
  return d === Infinity ? 'inf' : d === -Infinity ? '-inf' : String(d);
}

function bounded(f: (x: number) => number, domain: Domain): OperatorParser {
  return singleNumeric((x, name) => {
    if (Number.isNaN(x)) return x;
    const aboveLo = domain.loIn ? x >= domain.lo : x > domain.lo;
    const belowHi = domain.hiIn ? x <= domain.hi : x < domain.hi;
    if (!aboveLo || !belowHi) {
      const range = `${domain.loIn ? '[' : '('}${showBound(domain.lo)},${showBound(domain.hi)}${domain.hiIn ? ']' : ')'}`;
      fail(50989, `cannot apply ${name} to ${showBound(x)}, value must be in ${range}`);
    }
    return f(x);
  });
}

function opAtan2(y: unknown, x: unknown, name: string): unknown {
  if (isNullish(y)) return null;
  const ky = numericKind(y);
  if (!ky) fail(51044, `${name} only supports numeric types, not ${typeName(y)}`);
  if (isNullish(x)) return null;
  const kx = numericKind(x);
  if (!kx) fail(51045, `${name} only supports numeric types, not ${typeName(x)}`);
  const r = Math.atan2(toDouble(y), toDouble(x));
  return ky === 'decimal' || kx === 'decimal' ? decimalOfDouble(r) : r;
}

export const TRIGONOMETRY_OPERATORS: Readonly<Record<string, OperatorParser>> = {
  $sin: bounded(Math.sin, OPEN_LINE),
  $cos: bounded(Math.cos, OPEN_LINE),
  $tan: bounded(Math.tan, OPEN_LINE),
  $asin: bounded(Math.asin, UNIT),
  $acos: bounded(Math.acos, UNIT),
  $atan: singleNumeric(Math.atan),
  $atan2: binary(opAtan2),
  $sinh: singleNumeric(Math.sinh),
  $cosh: singleNumeric(Math.cosh),
  $tanh: singleNumeric(Math.tanh),
  $asinh: singleNumeric(Math.asinh),
  $acosh: bounded(Math.acosh, { lo: 1, hi: Infinity, loIn: true, hiIn: true }),
  $atanh: bounded(Math.atanh, UNIT),
  $degreesToRadians: singleNumeric((x) => x * (Math.PI / 180)),
  $radiansToDegrees: singleNumeric((x) => x * (180 / Math.PI)),
};
