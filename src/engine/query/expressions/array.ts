/** Array operators. */
import { Int32 } from 'bson';
import { valuesEqual } from '../../values/compare';
import { numericKind } from '../../values/numbers';
import { isPlainObject } from '../../values/types';
import {
  bind,
  binary,
  fail,
  isNullish,
  loopVariable,
  namedArgs,
  show,
  typeName,
  unary,
  variadic,
  type OperatorParser,
} from './core';
import { isTruthy } from './logic';
import { int32Of } from './numeric';

function opSize(v: unknown): unknown {
  if (!Array.isArray(v)) fail(17124, `The argument to $size must be an array. Type of argument is: ${typeName(v)}`);
  return new Int32(v.length);
}

function opArrayElemAt(arr: unknown, idx: unknown): unknown {
  if (isNullish(arr) || isNullish(idx)) return null;
  if (!Array.isArray(arr)) fail(28689, `$arrayElemAt's first argument must be an array, but is ${typeName(arr)}`);
  if (!numericKind(idx)) fail(28690, `$arrayElemAt's second argument must be a numeric value, but is ${typeName(idx)}`);
  const i = int32Of(idx);
  if (i === undefined)
    fail(28691, `$arrayElemAt's second argument must be representable as a 32-bit integer: ${show(idx)}`);
  const at = i < 0 ? arr.length + i : i;
  return at >= 0 && at < arr.length ? arr[at] : undefined;
}

function firstOrLast(which: 'first' | 'last'): (v: unknown, name: string) => unknown {
  return (v, name) => {
    if (isNullish(v)) return null;
    if (!Array.isArray(v)) fail(28689, `${name}'s argument must be an array, but is ${typeName(v)}`);
    return which === 'first' ? v[0] : v[v.length - 1];
  };
}

function opIn(value: unknown, arr: unknown): unknown {
  if (!Array.isArray(arr)) fail(40081, `$in requires an array as a second argument, found: ${typeName(arr)}`);
  return arr.some((el) => valuesEqual(el, value));
}

function opConcatArrays(vals: unknown[]): unknown {
  const out: unknown[] = [];
  for (const v of vals) {
    if (isNullish(v)) return null;
    if (!Array.isArray(v)) fail(28664, `$concatArrays only supports arrays, not ${typeName(v)}`);
    out.push(...v);
  }
  return out;
}

const parseMap: OperatorParser = (arg, name) => {
  if (!isPlainObject(arg)) fail(16878, `${name} only supports an object as its argument`);
  const as = loopVariable(name, arg.as, 16866);
  const f = namedArgs(arg, ['input', 'as', 'in'], ['input', 'in'], {
    unknown: (k) => [16879, `Unrecognized parameter to ${name}: ${k}`],
    missing: (k) =>
      k === 'input' ? [16880, `Missing 'input' parameter to ${name}`] : [16882, `Missing 'in' parameter to ${name}`],
  });
  const input = f.input!;
  const body = f.in!;
  return (root, vars) => {
    const arr = input(root, vars);
    if (isNullish(arr)) return null;
    if (!Array.isArray(arr)) fail(16883, `input to ${name} must be an array not ${typeName(arr)}`);
    return arr.map((el) => {
      const v = body(root, bind(vars, as, el));
      return v === undefined ? null : v;
    });
  };
};

const parseFilter: OperatorParser = (arg, name) => {
  if (!isPlainObject(arg)) fail(28646, `${name} only supports an object as its argument`);
  const as = loopVariable(name, arg.as, 28649);
  const f = namedArgs(arg, ['input', 'as', 'cond', 'limit'], ['input', 'cond'], {
    unknown: (k) => [28647, `Unrecognized parameter to ${name}: ${k}`],
    missing: (k) =>
      k === 'input' ? [28648, `Missing 'input' parameter to ${name}`] : [28650, `Missing 'cond' parameter to ${name}`],
  });
  const { input, cond, limit } = f;
  return (root, vars) => {
    const arr = input!(root, vars);
    if (isNullish(arr)) return null;
    if (!Array.isArray(arr)) fail(28651, `input to ${name} must be an array not ${typeName(arr)}`);
    let max = Infinity;
    if (limit) {
      const l = limit(root, vars);
      if (!isNullish(l)) {
        const n = int32Of(l);
        if (!numericKind(l) || n === undefined)
          fail(327391, `${name}: limit must be represented as a 32-bit integral value: ${show(l)}`);
        if (n < 1) fail(327392, `${name}: limit must be greater than 0: ${n}`);
        max = n;
      }
    }
    const out: unknown[] = [];
    for (const el of arr) {
      if (out.length >= max) break;
      if (isTruthy(cond!(root, bind(vars, as, el)))) out.push(el);
    }
    return out;
  };
};

export const ARRAY_OPERATORS: Readonly<Record<string, OperatorParser>> = {
  $size: unary(opSize),
  $arrayElemAt: binary(opArrayElemAt),
  $first: unary(firstOrLast('first')),
  $last: unary(firstOrLast('last')),
  $in: binary(opIn),
  $isArray: unary((v) => Array.isArray(v)),
  $concatArrays: variadic(opConcatArrays),
  $map: parseMap,
  $filter: parseFilter,
};
