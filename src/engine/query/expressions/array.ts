/** Array operators. */
import { Int32 } from 'bson';
import { compareValues, valuesEqual } from '../../values/compare';
import { setField } from '../../values/fields';
import { numericKind, toDouble } from '../../values/numbers';
import { isPlainObject, type Document } from '../../values/types';
import { compileSort } from '../sort';
import {
  bind,
  binary,
  compile,
  fail,
  isNullish,
  loopVariable,
  namedArgs,
  show,
  typeName,
  unary,
  variadic,
  type Fn,
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

function opObjectToArray(v: unknown): unknown {
  if (isNullish(v)) return null;
  if (!isPlainObject(v)) fail(40390, `$objectToArray requires a document input, found: ${typeName(v)}`);
  return Object.keys(v)
    .filter((k) => v[k] !== undefined)
    .map((k) => {
      const pair: Document = {};
      setField(pair, 'k', k);
      setField(pair, 'v', v[k]);
      return pair;
    });
}

function checkKey(key: string, code: number): void {
  if (key.includes('\0')) fail(code, 'Key field cannot contain an embedded null byte');
}

/** `[[k, v], ...]` or `[{k, v}, ...]`: the first element decides, mixing is refused. */
function opArrayToObject(v: unknown): unknown {
  if (isNullish(v)) return null;
  if (!Array.isArray(v)) fail(40386, `$arrayToObject requires an array input, found: ${typeName(v)}`);
  const out: Document = {};
  if (v.length === 0) return out;
  const pairs = Array.isArray(v[0]);
  if (!pairs && !isPlainObject(v[0]))
    fail(40398, `Unrecognised input type format for $arrayToObject: ${typeName(v[0])}`);
  for (const el of v) {
    if (pairs) {
      if (!Array.isArray(el))
        fail(
          40396,
          `$arrayToObject requires a consistent input format. Elements must all be arrays or all be objects. Array was detected, now found: ${typeName(el)}`,
        );
      if (el.length !== 2)
        fail(40397, `$arrayToObject requires an array of size 2 arrays,found array of size: ${el.length}`);
      if (typeof el[0] !== 'string')
        fail(
          40395,
          `$arrayToObject requires an array of key-value pairs, where the key must be of type string. Found key type: ${typeName(el[0])}`,
        );
      checkKey(el[0], 4940400);
      setField(out, el[0], el[1]);
    } else {
      if (!isPlainObject(el))
        fail(
          40391,
          `$arrayToObject requires a consistent input format. Elements must all be arrays or all be objects. Object was detected, now found: ${typeName(el)}`,
        );
      const keys = Object.keys(el);
      if (keys.length !== 2)
        fail(
          40392,
          `$arrayToObject requires an object keys of 'k' and 'v'. Found incorrect number of keys:${keys.length}`,
        );
      if (el.k === undefined || el.v === undefined || !keys.includes('k') || !keys.includes('v'))
        fail(
          40393,
          `$arrayToObject requires an object with keys 'k' and 'v'. Missing either or both keys from: ${show(el)}`,
        );
      if (typeof el.k !== 'string')
        fail(
          40394,
          `$arrayToObject requires an object with keys 'k' and 'v', where the value of 'k' must be of type string. Found type: ${typeName(el.k)}`,
        );
      checkKey(el.k, 4940401);
      setField(out, el.k, el.v);
    }
  }
  return out;
}

function indexBound(v: unknown, what: string): number {
  const n = numericKind(v) ? int32Of(v) : undefined;
  if (n === undefined)
    fail(
      40096,
      `$indexOfArray requires an integral ${what}, found a value of type: ${typeName(v)}, with value: ${show(v)}`,
    );
  if (n < 0) fail(40097, `$indexOfArray requires a nonnegative ${what}, found: ${n}`);
  return n;
}

function opIndexOfArray(vals: unknown[]): unknown {
  const [arr, search] = vals;
  if (isNullish(arr)) return null;
  if (!Array.isArray(arr)) fail(40090, `$indexOfArray requires an array as a first argument, found: ${typeName(arr)}`);
  const start = vals.length > 2 ? indexBound(vals[2], 'starting index') : 0;
  const end = vals.length > 3 ? Math.min(arr.length, indexBound(vals[3], 'ending index')) : arr.length;
  for (let i = start; i < end; i++) if (valuesEqual(arr[i], search)) return new Int32(i);
  return new Int32(-1);
}

function rangeBound(v: unknown, what: string, typeCode: number, intCode: number): number {
  if (!numericKind(v)) fail(typeCode, `$range requires a numeric ${what} value, found value of type: ${typeName(v)}`);
  const n = int32Of(v);
  if (n === undefined)
    fail(
      intCode,
      `$range requires a${what === 'ending' ? 'n' : ''} ${what} value that can be represented as a 32-bit integer, found value: ${show(v)}`,
    );
  return n;
}

/** Above this many elements $range stops (mongod's internalQueryMaxRangeBytes, 64 MiB of Values). */
const MAX_RANGE_LENGTH = (64 * 1024 * 1024) / 16;

function opRange(vals: unknown[]): unknown {
  const start = rangeBound(vals[0], 'starting', 34443, 34444);
  const end = rangeBound(vals[1], 'ending', 34445, 34446);
  let step = 1;
  if (vals.length > 2) {
    const s = vals[2];
    if (!numericKind(s)) fail(34447, `$range requires a numeric step value, found value of type:${typeName(s)}`);
    const n = int32Of(s);
    if (n === undefined)
      fail(34448, `$range requires a step value that can be represented as a 32-bit integer, found value: ${show(s)}`);
    if (n === 0) fail(34449, '$range requires a non-zero step value');
    step = n;
  }
  const length = Math.max(0, Math.ceil((end - start) / step));
  if (length > MAX_RANGE_LENGTH)
    fail(
      146,
      `$range would use too much memory (${length * 16} bytes) and cannot spill to disk: ask for a shorter range`,
    );
  const out: Int32[] = [];
  for (let i = start; step > 0 ? i < end : i > end; i += step) out.push(new Int32(i));
  return out;
}

function opReverseArray(v: unknown): unknown {
  if (isNullish(v)) return null;
  if (!Array.isArray(v)) fail(34435, `The argument to $reverseArray must be an array, but was of type: ${typeName(v)}`);
  return [...v].reverse();
}

function opSlice(vals: unknown[]): unknown {
  const [arr, a, b] = vals;
  if (vals.some(isNullish)) return null;
  if (!Array.isArray(arr)) fail(28724, `First argument to $slice must be an array, but is of type: ${typeName(arr)}`);
  if (!numericKind(a)) fail(28725, `Second argument to $slice must be a numeric value, but is of type: ${typeName(a)}`);
  const first = int32Of(a);
  if (first === undefined)
    fail(28726, `Second argument to $slice can't be represented as a 32-bit integer: ${show(a)}`);
  if (vals.length === 2) {
    // [array, n]: the first n elements, or the last -n.
    return first >= 0 ? arr.slice(0, first) : arr.slice(Math.max(0, arr.length + first));
  }
  if (!numericKind(b)) fail(28727, `Third argument to $slice must be numeric, but is of type: ${typeName(b)}`);
  const count = int32Of(b);
  if (count === undefined) fail(28728, `Third argument to $slice can't be represented as a 32-bit integer: ${show(b)}`);
  if (count <= 0) fail(28729, `Third argument to $slice must be positive: ${show(b)}`);
  const from = first >= 0 ? Math.min(first, arr.length) : Math.max(0, arr.length + first);
  return arr.slice(from, from + count);
}

const parseReduce: OperatorParser = (arg, name) => {
  if (!isPlainObject(arg)) fail(40075, `${name} requires an object as an argument, found: ${typeName(arg)}`);
  const f = namedArgs(arg, ['input', 'initialValue', 'in'], ['input', 'initialValue', 'in'], {
    unknown: (k) => [40076, `${name} found an unknown argument: ${k}`],
    missing: (k) => [
      k === 'input' ? 40077 : k === 'initialValue' ? 40078 : 40079,
      `${name} requires '${k}' to be specified`,
    ],
  });
  return (root, vars) => {
    const input = f.input!(root, vars);
    if (isNullish(input)) return null;
    if (!Array.isArray(input)) fail(40080, `${name} requires that 'input' be an array, found: ${show(input)}`);
    let acc = f.initialValue!(root, vars);
    for (const el of input) acc = f.in!(root, bind(bind(vars, 'value', acc), 'this', el));
    return acc;
  };
};

const parseZip: OperatorParser = (arg, name) => {
  if (!isPlainObject(arg)) fail(34460, `${name} only supports an object as an argument, found ${typeName(arg)}`);
  // Each field is checked as it comes, in the order given, then how they fit together (mongod's order).
  for (const k of Object.keys(arg)) {
    const v = arg[k];
    if (k === 'inputs') {
      if (!Array.isArray(v)) fail(34461, `inputs must be an array of expressions, found ${typeName(v)}`);
    } else if (k === 'defaults') {
      if (!Array.isArray(v)) fail(34462, `defaults must be an array of expressions, found ${typeName(v)}`);
    } else if (k === 'useLongestLength') {
      if (typeof v !== 'boolean') fail(34463, `useLongestLength must be a bool, found ${typeName(v)}`);
    } else fail(34464, `${name} found an unknown argument: ${k}`);
  }
  if (!Array.isArray(arg.inputs)) fail(34461, `inputs must be an array of expressions, found ${typeName(arg.inputs)}`);
  if (arg.inputs.length === 0) fail(34465, `${name} requires at least one input array`);
  const longest = (arg.useLongestLength ?? false) as boolean;
  let defaults: Fn[] | undefined;
  if (arg.defaults !== undefined) {
    if (!longest) fail(34466, 'cannot specify defaults unless useLongestLength is true');
    const given = arg.defaults as unknown[];
    if (given.length !== arg.inputs.length) fail(34467, 'inputs and defaults must be the same length');
    defaults = given.map(compile);
  }
  const inputs = arg.inputs.map(compile);
  return (root, vars) => {
    const arrays: unknown[][] = [];
    for (const fn of inputs) {
      const v = fn(root, vars);
      if (isNullish(v)) return null;
      if (!Array.isArray(v)) fail(34468, `${name} found a non-array expression in input: ${show(v)}`);
      arrays.push(v);
    }
    const fill = defaults ? defaults.map((fn) => fn(root, vars) ?? null) : arrays.map(() => null);
    const lengths = arrays.map((a) => a.length);
    const n = longest ? Math.max(...lengths) : Math.min(...lengths);
    const out: unknown[][] = [];
    for (let i = 0; i < n; i++) out.push(arrays.map((a, j) => (i < a.length ? a[i] : fill[j])));
    return out;
  };
};

/** A comparator for $sortArray's `sortBy`: 1 / -1 compares whole values, a document compares fields. */
export function valueSortComparator(sortBy: unknown, name: string): (a: unknown, b: unknown) => number {
  if (numericKind(sortBy) && (toDouble(sortBy) === 1 || toDouble(sortBy) === -1)) {
    const dir = toDouble(sortBy);
    return (a, b) => dir * compareValues(a, b);
  }
  if (!isPlainObject(sortBy) || Object.keys(sortBy).length === 0)
    fail(2942505, `${name} requires sortBy to be either 1, -1, or a non-empty document, found: ${show(sortBy)}`);
  const cmp = compileSort(sortBy)!;
  // Elements that are not documents have none of the fields: they compare as missing.
  const asDoc = (v: unknown): Document => (isPlainObject(v) ? v : {});
  return (a, b) => cmp(asDoc(a), asDoc(b));
}

const parseSortArray: OperatorParser = (arg, name) => {
  if (!isPlainObject(arg)) fail(2942500, `${name} requires an object as an argument, found: ${typeName(arg)}`);
  for (const k of Object.keys(arg))
    if (k !== 'input' && k !== 'sortBy') fail(2942501, `${name} found an unknown argument: ${k}`);
  if (!('input' in arg)) fail(2942502, `${name} requires 'input' to be specified`);
  if (!('sortBy' in arg)) fail(2942503, `${name} requires 'sortBy' to be specified`);
  const cmp = valueSortComparator(arg.sortBy, name);
  const input = compile(arg.input);
  return (root, vars) => {
    const v = input(root, vars);
    if (isNullish(v)) return null;
    if (!Array.isArray(v))
      fail(2942504, `The input argument to ${name} must be an array, but was of type: ${typeName(v)}`);
    // Array.prototype.sort is stable, as mongod's std::stable_sort-equivalent ordering of equal keys.
    return [...v].sort(cmp);
  };
};

/** mongod's AccumulatorN::validateN: a positive integral number. */
export function validateN(n: unknown): number {
  if (!numericKind(n)) fail(5787902, `Value for 'n' must be of integral type, but found ${show(n)}`);
  const d = toDouble(n);
  if (!Number.isInteger(d)) fail(5787903, `Value for 'n' must be of integral type, but found ${show(n)}`);
  if (d <= 0) fail(5787908, `'n' must be greater than 0, found ${d}`);
  return d;
}

/** The expression forms of $firstN, $lastN, $minN, $maxN: `{n, input}` over an array. */
function nOfArray(pick: (arr: unknown[], n: number) => unknown[]): OperatorParser {
  return (arg, name) => {
    if (!isPlainObject(arg)) fail(5787801, `specification must be an object; found ${show(arg)}`);
    for (const k of Object.keys(arg))
      if (k !== 'n' && k !== 'input') fail(5787901, `Unknown argument for 'n' operator: ${k}`);
    if (!('n' in arg)) fail(5787906, "Missing value for 'n'");
    if (!('input' in arg)) fail(5787907, "Missing value for 'input'");
    const nFn = compile(arg.n);
    const input = compile(arg.input);
    return (root, vars) => {
      const n = validateN(nFn(root, vars));
      const v = input(root, vars);
      if (isNullish(v)) return null;
      if (!Array.isArray(v)) fail(5788200, `Input to ${name} must be an array, but found ${typeName(v)}`);
      return pick(v, n);
    };
  };
}

function extremes(sign: 1 | -1): (arr: unknown[], n: number) => unknown[] {
  return (arr, n) =>
    arr
      .filter((v) => !isNullish(v))
      .sort((a, b) => sign * compareValues(a, b))
      .slice(0, n);
}

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
  $objectToArray: unary(opObjectToArray),
  $arrayToObject: unary(opArrayToObject),
  $indexOfArray: variadic(opIndexOfArray, 2, 4),
  $range: variadic(opRange, 2, 3),
  $reverseArray: unary(opReverseArray),
  $slice: variadic(opSlice, 2, 3),
  $reduce: parseReduce,
  $zip: parseZip,
  $sortArray: parseSortArray,
  $firstN: nOfArray((arr, n) => arr.slice(0, n)),
  $lastN: nOfArray((arr, n) => arr.slice(Math.max(0, arr.length - n))),
  $maxN: nOfArray(extremes(-1)),
  $minN: nOfArray(extremes(1)),
};
