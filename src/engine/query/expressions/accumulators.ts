/** Accumulators: shared by $group, $bucket, $setWindowFields and the array forms of $sum & co. */
import { type Decimal128 } from 'bson';
import { compareValues } from '../../values/compare';
import { setField } from '../../values/fields';
import { numericKind, toDouble, type NumericKind } from '../../values/numbers';
import { isPlainObject, type Document } from '../../values/types';
import { compile, fail, isNullish, operandList, show, typeName, type OperatorParser } from './core';
import {
  decimalOfRational,
  decimalOfSpecial,
  narrowInteger,
  rationalOf,
  toBigInt,
  widestKind,
  type Rational,
} from './numeric';
import { valueKey } from './value-key';

/** One running aggregate: fed values one at a time (undefined = missing), read once at the end. */
export interface Accumulator {
  add(value: unknown): void;
  result(): unknown;
}

/**
 * Exact-as-possible running sum with mongod's result typing: ints stay int until they overflow
 * (then long, then double), any double makes a double, any decimal makes a decimal. Non-numbers
 * are ignored.
 */
class NumericSum {
  kind: NumericKind = 'int';
  count = 0;
  private integers = 0n;
  private doubles = 0;
  private compensation = 0;
  private decimals: Rational = { num: 0n, den: 1n };
  private decimalSpecial: number | undefined;

  add(v: unknown): void {
    const kind = numericKind(v);
    if (!kind) return;
    this.count++;
    this.kind = widestKind(this.kind, kind);
    if (kind === 'int' || kind === 'long') {
      this.integers += toBigInt(v);
    } else if (kind === 'double') {
      this.addDouble(toDouble(v));
    } else {
      const r = rationalOf(v);
      if (r)
        this.decimals = { num: this.decimals.num * r.den + r.num * this.decimals.den, den: this.decimals.den * r.den };
      else this.decimalSpecial = (this.decimalSpecial ?? 0) + toDouble(v);
    }
  }

  /** Neumaier summation keeps long double sums close to the exact total, as mongod's double-double does. */
  private addDouble(x: number): void {
    const t = this.doubles + x;
    if (Number.isFinite(t)) {
      this.compensation += Math.abs(this.doubles) >= Math.abs(x) ? this.doubles - t + x : x - t + this.doubles;
    }
    this.doubles = t;
  }

  doubleTotal(): number {
    const d = Number.isFinite(this.doubles) ? this.doubles + this.compensation : this.doubles;
    return Number(this.integers) + d;
  }

  result(): unknown {
    switch (this.kind) {
      case 'int':
      case 'long':
        return narrowInteger(this.integers, this.kind);
      case 'double':
        return this.doubleTotal();
      case 'decimal':
        return this.decimalTotal();
    }
  }

  decimalTotal(): Decimal128 {
    const nonDecimal = this.doubles + this.compensation;
    const special = (this.decimalSpecial ?? 0) + (Number.isFinite(nonDecimal) ? 0 : nonDecimal);
    if (this.decimalSpecial !== undefined || !Number.isFinite(nonDecimal)) return decimalOfSpecial(special);
    return decimalOfRational(this.exactTotal());
  }

  exactTotal(): Rational {
    const d = rationalOf(this.doubles + this.compensation) ?? { num: 0n, den: 1n };
    const { num, den } = this.decimals;
    return { num: num * d.den + d.num * den + this.integers * den * d.den, den: den * d.den };
  }
}

class SumAccumulator implements Accumulator {
  private readonly sum = new NumericSum();
  add(v: unknown): void {
    this.sum.add(v);
  }
  result(): unknown {
    return this.sum.result();
  }
}

class AvgAccumulator implements Accumulator {
  private readonly sum = new NumericSum();
  add(v: unknown): void {
    this.sum.add(v);
  }
  result(): unknown {
    const n = this.sum.count;
    if (n === 0) return null;
    if (this.sum.kind !== 'decimal') return this.sum.doubleTotal() / n;
    const total = this.sum.decimalTotal();
    const r = rationalOf(total);
    return r ? decimalOfRational({ num: r.num, den: r.den * BigInt(n) }) : total;
  }
}

/** $min / $max ignore null and missing; they answer null when nothing else was seen. */
class ExtremumAccumulator implements Accumulator {
  private best: unknown = undefined;
  constructor(private readonly sign: 1 | -1) {}
  add(v: unknown): void {
    if (isNullish(v)) return;
    if (this.best === undefined || compareValues(v, this.best) * this.sign > 0) this.best = v;
  }
  result(): unknown {
    return this.best === undefined ? null : this.best;
  }
}

class FirstAccumulator implements Accumulator {
  private seen = false;
  private value: unknown;
  add(v: unknown): void {
    if (this.seen) return;
    this.seen = true;
    this.value = v;
  }
  result(): unknown {
    return this.value;
  }
}

class LastAccumulator implements Accumulator {
  private value: unknown;
  add(v: unknown): void {
    this.value = v;
  }
  result(): unknown {
    return this.value;
  }
}

class PushAccumulator implements Accumulator {
  private readonly values: unknown[] = [];
  add(v: unknown): void {
    if (v !== undefined) this.values.push(v);
  }
  result(): unknown {
    return this.values;
  }
}

class AddToSetAccumulator implements Accumulator {
  private readonly values = new Map<string, unknown>();
  add(v: unknown): void {
    if (v === undefined) return;
    const key = valueKey(v);
    if (!this.values.has(key)) this.values.set(key, v);
  }
  result(): unknown {
    return [...this.values.values()];
  }
}

export class MergeObjectsAccumulator implements Accumulator {
  private readonly out: Document = {};
  add(v: unknown): void {
    if (isNullish(v)) return;
    if (!isPlainObject(v))
      fail(40400, `$mergeObjects requires object inputs, but input ${show(v)} is of type ${typeName(v)}`);
    for (const k of Object.keys(v)) if (v[k] !== undefined) setField(this.out, k, v[k]);
  }
  result(): unknown {
    return this.out;
  }
}

/** $group accumulators by name. `$count` is rewritten to `$sum: 1` by the $group stage. */
export const ACCUMULATORS: Readonly<Record<string, () => Accumulator>> = {
  $sum: () => new SumAccumulator(),
  $avg: () => new AvgAccumulator(),
  $min: () => new ExtremumAccumulator(-1),
  $max: () => new ExtremumAccumulator(1),
  $first: () => new FirstAccumulator(),
  $last: () => new LastAccumulator(),
  $push: () => new PushAccumulator(),
  $addToSet: () => new AddToSetAccumulator(),
  $mergeObjects: () => new MergeObjectsAccumulator(),
};

/**
 * $sum: "$arr" sums the array's elements; with several operands each operand is one value (an
 * array operand is then just a non-number).
 */
export function accumulatorExpression(make: () => Accumulator): OperatorParser {
  return (arg) => {
    const fns = operandList(arg).map(compile);
    return (root, vars) => {
      const acc = make();
      if (fns.length === 1) {
        const v = fns[0](root, vars);
        if (Array.isArray(v)) for (const el of v) acc.add(el);
        else acc.add(v);
      } else {
        for (const fn of fns) acc.add(fn(root, vars));
      }
      return acc.result();
    };
  };
}

/** The array forms of the accumulators that are also expressions. */
export const ACCUMULATOR_EXPRESSIONS: Readonly<Record<string, OperatorParser>> = {
  $sum: accumulatorExpression(ACCUMULATORS.$sum),
  $avg: accumulatorExpression(ACCUMULATORS.$avg),
  $min: accumulatorExpression(ACCUMULATORS.$min),
  $max: accumulatorExpression(ACCUMULATORS.$max),
};
