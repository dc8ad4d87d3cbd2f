/**
 * Set operators: arrays read as sets (duplicates ignored, values equal as mongod compares them).
 * $setUnion and $setIntersection answer in mongod's value order (they build ordered sets);
 * $setDifference keeps the first array's order.
 */
import { compareValues } from '../../values/compare';
import { fail, isNullish, typeName, unary, variadic, type OperatorParser } from './core';
import { isTruthy } from './logic';
import { valueKey } from './value-key';

function keysOf(arr: readonly unknown[]): Set<string> {
  return new Set(arr.map(valueKey));
}

function distinctSorted(values: Iterable<unknown>): unknown[] {
  const seen = new Map<string, unknown>();
  for (const v of values) {
    const k = valueKey(v);
    if (!seen.has(k)) seen.set(k, v);
  }
  return [...seen.values()].sort(compareValues);
}

function opSetUnion(vals: unknown[], name: string): unknown {
  const all: unknown[] = [];
  for (const v of vals) {
    if (isNullish(v)) return null;
    if (!Array.isArray(v))
      fail(17043, `All operands of ${name} must be arrays. One argument is of type: ${typeName(v)}`);
    all.push(...v);
  }
  return distinctSorted(all);
}

function opSetIntersection(vals: unknown[]): unknown {
  let current: unknown[] | undefined;
  for (const v of vals) {
    if (isNullish(v)) return null;
    if (!Array.isArray(v))
      fail(17047, `All operands of $setIntersection must be arrays. One argument is of type: ${typeName(v)}`);
    if (current === undefined) current = v;
    else {
      const keys = keysOf(v);
      current = current.filter((x) => keys.has(valueKey(x)));
    }
  }
  return distinctSorted(current ?? []);
}

function opSetDifference(vals: unknown[]): unknown {
  const [a, b] = vals;
  if (isNullish(a) || isNullish(b)) return null;
  if (!Array.isArray(a))
    fail(17048, `both operands of $setDifference must be arrays. First argument is of type: ${typeName(a)}`);
  if (!Array.isArray(b))
    fail(17049, `both operands of $setDifference must be arrays. Second argument is of type: ${typeName(b)}`);
  const seen = keysOf(b);
  const out: unknown[] = [];
  for (const x of a) {
    const k = valueKey(x);
    if (!seen.has(k)) {
      seen.add(k);
      out.push(x);
    }
  }
  return out;
}

const parseSetEquals: OperatorParser = (arg, name) => {
  const n = Array.isArray(arg) ? arg.length : 1;
  if (n < 2) fail(17045, `${name} needs at least two arguments had: ${n}`);
  return variadic((vals) => {
    let first: Set<string> | undefined;
    let equal = true;
    vals.forEach((v, i) => {
      if (!Array.isArray(v))
        fail(17044, `All operands of ${name} must be arrays. ${i + 1}-th argument is of type: ${typeName(v)}`);
      const keys = keysOf(v);
      if (!first) first = keys;
      else if (keys.size !== first.size || [...keys].some((k) => !first!.has(k))) equal = false;
    });
    return equal;
  })(arg, name);
};

function opSetIsSubset(vals: unknown[]): unknown {
  const [a, b] = vals;
  if (!Array.isArray(a))
    fail(17046, `both operands of $setIsSubset must be arrays. First argument is of type: ${typeName(a)}`);
  if (!Array.isArray(b))
    fail(17042, `both operands of $setIsSubset must be arrays. Second argument is of type: ${typeName(b)}`);
  const keys = keysOf(b);
  return a.every((x) => keys.has(valueKey(x)));
}

function elementsTrue(every: boolean, code: number): (v: unknown, name: string) => unknown {
  return (v, name) => {
    if (!Array.isArray(v)) fail(code, `${name}'s argument must be an array, but is ${typeName(v)}`);
    return every ? v.every(isTruthy) : v.some(isTruthy);
  };
}

export const SET_OPERATORS: Readonly<Record<string, OperatorParser>> = {
  $setUnion: variadic(opSetUnion),
  $setIntersection: variadic(opSetIntersection),
  $setDifference: variadic(opSetDifference, 2, 2),
  $setEquals: parseSetEquals,
  $setIsSubset: variadic(opSetIsSubset, 2, 2),
  $allElementsTrue: unary(elementsTrue(true, 17040)),
  $anyElementTrue: unary(elementsTrue(false, 17041)),
};
