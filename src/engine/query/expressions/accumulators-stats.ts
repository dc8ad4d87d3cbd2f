/**
 * Statistics: $stdDevPop, $stdDevSamp, $median, $percentile, as $group accumulators and as
 * expressions over an array. Non-numeric values are ignored; results are doubles.
 *
 * Percentiles are discrete (a value of the input: the one at rank ceil(p·n) − 1), which is what
 * mongod's expressions compute and what its 'approximate' accumulator (a t-digest) converges to;
 * over large groups mongod's accumulator may answer a neighbouring value.
 */
import { numericKind, toDouble } from '../../values/numbers';
import { isPlainObject } from '../../values/types';
import { accumulatorExpression, type Accumulator } from './accumulators';
import type { AccumulatorFactory } from './accumulators-ranked';
import { compile, fail, hasOwn, isNullish, show, typeName, type Fn, type OperatorParser, type Vars } from './core';

/** Welford's running mean and sum of squared deviations, as mongod's AccumulatorStdDev. */
class StdDev implements Accumulator {
  private count = 0;
  private mean = 0;
  private m2 = 0;
  constructor(private readonly sample: boolean) {}
  add(v: unknown): void {
    if (!numericKind(v)) return;
    const x = toDouble(v);
    this.count++;
    const delta = x - this.mean;
    this.mean += delta / this.count;
    this.m2 += delta * (x - this.mean);
  }
  result(): unknown {
    const n = this.count;
    if (n === 0 || (this.sample && n < 2)) return null;
    return Math.sqrt(this.m2 / (this.sample ? n - 1 : n));
  }
}

export const STDDEV_ACCUMULATORS: Readonly<Record<string, () => Accumulator>> = {
  $stdDevPop: () => new StdDev(false),
  $stdDevSamp: () => new StdDev(true),
};

export function discretePercentiles(values: number[], ps: readonly number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  return ps.map((p) => sorted[p >= 1 ? n - 1 : Math.max(0, Math.ceil(p * n) - 1)]);
}

class Quantiles implements Accumulator {
  private readonly values: number[] = [];
  constructor(
    private readonly ps: readonly number[],
    private readonly single: boolean,
  ) {}
  add(v: unknown): void {
    if (numericKind(v)) this.values.push(toDouble(v));
  }
  result(): unknown {
    if (this.values.length === 0) return this.single ? null : this.ps.map(() => null);
    const r = discretePercentiles(this.values, this.ps);
    return this.single ? r[0] : r;
  }
}

interface QuantileSpec {
  input: Fn;
  ps: number[];
}

function quantileSpec(arg: unknown, name: string, median: boolean): QuantileSpec {
  if (!isPlainObject(arg)) fail(median ? 7436100 : 7429703, `specification must be an object; found ${show(arg)}`);
  const allowed = median ? ['input', 'method'] : ['input', 'p', 'method'];
  for (const k of Object.keys(arg))
    if (!allowed.includes(k)) fail(40415, `BSON field '${name}.${k}' is an unknown field.`);
  for (const k of allowed)
    if (!hasOwn.call(arg, k)) fail(40414, `BSON field '${name}.${k}' is missing but a required field`);
  if (typeof arg.method !== 'string')
    fail(14, `BSON field '${name}.method' is the wrong type '${typeName(arg.method)}', expected type 'string'`);
  if (arg.method !== 'approximate') fail(2, "Currently only 'approximate' can be used as percentile 'method'.");
  return { input: compile(arg.input), ps: median ? [0.5] : parseP(arg.p) };
}

/** `p` must be a constant array of numbers in [0, 1] ($literal allowed). */
function parseP(p: unknown): number[] {
  const value = isPlainObject(p) && hasOwn.call(p, '$literal') ? p.$literal : p;
  const msg = "The $percentile 'p' field must be an array of numbers from [0.0, 1.0], but found: ";
  if (isPlainObject(value) || (typeof value === 'string' && value.startsWith('$')))
    fail(7750300, `The $percentile 'p' field must be an array of constant values, but found value: ${show(p)}.`);
  if (!Array.isArray(value) || value.length === 0) fail(7750301, `${msg}${show(value)}`);
  return value.map((x) => {
    if (!numericKind(x)) fail(7750302, `${msg}${show(x)}`);
    const d = toDouble(x);
    if (d < 0 || d > 1) fail(7750303, `${msg}${d}`);
    return d;
  });
}

const NO_VARS: Vars = Object.freeze({});

function quantileAccumulator(median: boolean) {
  return (arg: unknown, name: string): AccumulatorFactory => {
    const { input, ps } = quantileSpec(arg, name, median);
    return { make: () => new Quantiles(ps, median), input: (doc, vars) => input(doc, vars ?? NO_VARS) };
  };
}

export const QUANTILE_ACCUMULATORS: Readonly<Record<string, (arg: unknown, name: string) => AccumulatorFactory>> = {
  $median: quantileAccumulator(true),
  $percentile: quantileAccumulator(false),
};

/** The expression forms: a number is its own every percentile; an array's numbers are the data. */
function quantileExpression(median: boolean): OperatorParser {
  return (arg, name) => {
    const { input, ps } = quantileSpec(arg, name, median);
    return (root, vars) => {
      const v = input(root, vars);
      const acc = new Quantiles(ps, median);
      if (Array.isArray(v)) for (const x of v) acc.add(x);
      else if (!isNullish(v)) acc.add(v);
      return acc.result();
    };
  };
}

export const STATISTICS_EXPRESSIONS: Readonly<Record<string, OperatorParser>> = {
  $stdDevPop: accumulatorExpression(STDDEV_ACCUMULATORS.$stdDevPop),
  $stdDevSamp: accumulatorExpression(STDDEV_ACCUMULATORS.$stdDevSamp),
  $median: quantileExpression(true),
  $percentile: quantileExpression(false),
};
