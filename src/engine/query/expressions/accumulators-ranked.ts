/**
 * Accumulators that keep n values: $firstN, $lastN, $minN, $maxN, $topN, $bottomN, $top,
 * $bottom. `n` is evaluated once per group; in $group it may use the group key (`$_id`), so a
 * stage that knows the key passes it to `make`.
 */
import { compareValues } from '../../values/compare';
import { isPlainObject, type Document } from '../../values/types';
import { compareSortKeys, parseSort, sortKeyOf, type SortField } from '../sort';
import type { Accumulator } from './accumulators';
import { validateN } from './array';
import { compile, fail, hasOwn, isNullish, show, type CompiledExpression, type Fn, type Vars } from './core';

/** How a $group-style stage builds one accumulator per group and feeds it. */
export interface AccumulatorFactory {
  /** `groupKey` is the group's _id (what `n` may read as `$_id`), `vars` the stage's variables. */
  make(groupKey?: unknown, vars?: Vars): Accumulator;
  input: CompiledExpression;
}

const NO_VARS: Vars = Object.freeze({});

function nOf(nFn: Fn, groupKey: unknown, vars: Vars | undefined): number {
  const scope: Document = groupKey === undefined ? {} : { _id: groupKey };
  return validateN(nFn(scope, vars ?? NO_VARS));
}

class FirstLastN implements Accumulator {
  private readonly values: unknown[] = [];
  constructor(
    private readonly n: number,
    private readonly last: boolean,
  ) {}
  add(v: unknown): void {
    // Missing becomes null: the n slots count documents, not values.
    const value = v === undefined ? null : v;
    if (!this.last) {
      if (this.values.length < this.n) this.values.push(value);
      return;
    }
    this.values.push(value);
    if (this.values.length > this.n) this.values.shift();
  }
  result(): unknown {
    return this.values;
  }
}

class MinMaxN implements Accumulator {
  private readonly values: unknown[] = [];
  constructor(
    private readonly n: number,
    private readonly sign: 1 | -1,
  ) {}
  add(v: unknown): void {
    if (isNullish(v)) return;
    // Sorted ascending for $minN, descending for $maxN; insertion keeps arrival order among equals.
    let i = this.values.length;
    while (i > 0 && this.sign * compareValues(v, this.values[i - 1]) < 0) i--;
    if (i >= this.n) return;
    this.values.splice(i, 0, v);
    if (this.values.length > this.n) this.values.pop();
  }
  result(): unknown {
    return this.values;
  }
}

/** What $topN & co are fed: the document's sort key and its output value. */
interface Ranked {
  key: unknown[];
  output: unknown;
}

class TopBottom implements Accumulator {
  private readonly entries: Ranked[] = [];
  constructor(
    private readonly n: number,
    private readonly fields: SortField[],
    private readonly bottom: boolean,
    private readonly single: boolean,
  ) {}
  add(v: unknown): void {
    const entry = v as Ranked;
    // Keep the entries in sort order; $topN keeps the first n, $bottomN the last n.
    let i = this.entries.length;
    while (i > 0 && compareSortKeys(entry.key, this.entries[i - 1].key, this.fields) < 0) i--;
    this.entries.splice(i, 0, entry);
    if (this.entries.length > this.n) {
      if (this.bottom) this.entries.shift();
      else this.entries.pop();
    }
  }
  result(): unknown {
    const outputs = this.entries.map((e) => e.output);
    return this.single ? (outputs[0] ?? null) : outputs;
  }
}

function nArgs(arg: unknown): { n: Fn; input: Fn } {
  if (!isPlainObject(arg)) fail(5787900, `specification must be an object; found ${show(arg)}`);
  for (const k of Object.keys(arg))
    if (k !== 'n' && k !== 'input') fail(5787901, `Unknown argument for 'n' operator: ${k}`);
  if (!hasOwn.call(arg, 'n')) fail(5787906, "Missing value for 'n'");
  if (!hasOwn.call(arg, 'input')) fail(5787907, "Missing value for 'input'");
  return { n: compile(arg.n), input: compile(arg.input) };
}

function topBottomArgs(arg: unknown, name: string, single: boolean): { n?: Fn; output: Fn; fields: SortField[] } {
  if (!isPlainObject(arg)) fail(5788001, `specification must be an object; found ${show(arg)}`);
  for (const k of Object.keys(arg))
    if (!(k === 'output' || k === 'sortBy' || (!single && k === 'n')))
      fail(5788002, `Unknown argument to ${name} '${k}'`);
  if (!single && !hasOwn.call(arg, 'n')) fail(5788003, "Missing value for 'n'");
  if (!hasOwn.call(arg, 'output')) fail(5788004, "Missing value for 'output'");
  if (!hasOwn.call(arg, 'sortBy')) fail(5788005, "Missing value for 'sortBy'");
  if (!isPlainObject(arg.sortBy)) fail(5788005, `${name}'s 'sortBy' must be an object, found ${show(arg.sortBy)}`);
  return {
    ...(single ? {} : { n: compile(arg.n) }),
    output: compile(arg.output),
    fields: parseSort(arg.sortBy),
  };
}

function wrap(fn: Fn): CompiledExpression {
  return (doc, vars) => fn(doc, vars ?? NO_VARS);
}

function topBottom(bottom: boolean, single: boolean) {
  return (arg: unknown, name: string): AccumulatorFactory => {
    const { n, output, fields } = topBottomArgs(arg, name, single);
    return {
      make: (groupKey, vars) => new TopBottom(n ? nOf(n, groupKey, vars) : 1, fields, bottom, single),
      input: (doc, vars): Ranked => {
        const v = output(doc, vars ?? NO_VARS);
        return { key: sortKeyOf(doc, fields), output: v === undefined ? null : v };
      },
    };
  };
}

export const RANKED_ACCUMULATORS: Readonly<Record<string, (arg: unknown, name: string) => AccumulatorFactory>> = {
  $firstN: (arg) => {
    const { n, input } = nArgs(arg);
    return { make: (key, vars) => new FirstLastN(nOf(n, key, vars), false), input: wrap(input) };
  },
  $lastN: (arg) => {
    const { n, input } = nArgs(arg);
    return { make: (key, vars) => new FirstLastN(nOf(n, key, vars), true), input: wrap(input) };
  },
  $minN: (arg) => {
    const { n, input } = nArgs(arg);
    return { make: (key, vars) => new MinMaxN(nOf(n, key, vars), 1), input: wrap(input) };
  },
  $maxN: (arg) => {
    const { n, input } = nArgs(arg);
    return { make: (key, vars) => new MinMaxN(nOf(n, key, vars), -1), input: wrap(input) };
  },
  $topN: topBottom(false, false),
  $bottomN: topBottom(true, false),
  $top: topBottom(false, true),
  $bottom: topBottom(true, true),
};
