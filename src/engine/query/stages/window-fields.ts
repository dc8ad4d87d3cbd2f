/**
 * $setWindowFields: documents are partitioned (partitionBy), sorted (sortBy), and each gets output
 * fields computed over a window of its partition: `documents: [lower, upper]` (positions relative
 * to the current document, "current" or "unbounded") or `range: [lower, upper]` (values of the
 * single sortBy field, with `unit` for dates). Without a window the whole partition is used.
 */
import { Int32 } from 'bson';
import { compareValues } from '../../values/compare';
import { toDouble } from '../../values/numbers';
import { isNumeric, isPlainObject, type Document } from '../../values/types';
import {
  ACCUMULATORS,
  accumulatorFactory,
  addToDate,
  compileExpression,
  valueKey,
  type CompiledExpression,
  type Vars,
} from '../expressions';
import { compileSort } from '../sort';
import { fail, fieldPathParts, hasOwn, setPath, show, typeName } from './shared';
import type { StageParser } from './types';

type Bound = 'unbounded' | 'current' | number;
interface Window {
  kind: 'documents' | 'range';
  lower: Bound;
  upper: Bound;
  unit?: string;
}

interface Ctx {
  docs: Document[];
  /** Value of the single sortBy field per document (for range windows, ranks and fills). */
  keys: unknown[];
  vars: Vars;
  sameSortKey: (a: Document, b: Document) => boolean;
}

type Compute = (ctx: Ctx, i: number, lo: number, hi: number) => unknown;

interface OutputField {
  parts: string[];
  window?: Window;
  /** Operators that ignore windows and look at the partition in order. */
  positional: boolean;
  compute: Compute;
}

const DATE_UNITS = new Set(['year', 'quarter', 'month', 'week', 'day', 'hour', 'minute', 'second', 'millisecond']);

function parseBound(v: unknown, kind: 'documents' | 'range'): Bound {
  if (v === 'unbounded' || v === 'current') return v;
  if (isNumeric(v)) {
    const d = toDouble(v);
    if (kind === 'documents' && !Number.isInteger(d))
      fail(5371700, `Numeric document-based bounds must be an integer: ${show(v)}`);
    return d;
  }
  fail(5371700, `Window bounds must be 'unbounded', 'current', or a number: ${show(v)}`);
}

function parseWindow(spec: unknown): Window {
  if (!isPlainObject(spec)) fail(5371701, `'window' field must be an object, got ${typeName(spec)}`);
  const kinds = Object.keys(spec).filter((k) => k === 'documents' || k === 'range');
  for (const k of Object.keys(spec))
    if (!['documents', 'range', 'unit'].includes(k))
      fail(5371702, `'window' field that specifies 'documents' or 'range' can't have extra field: '${k}'`);
  if (kinds.length !== 1) fail(5371703, "'window' field must have exactly one of 'documents' or 'range'");
  const kind = kinds[0];
  const b = spec[kind];
  if (!Array.isArray(b) || b.length !== 2) fail(5371704, `Window bounds must be a 2-element array: ${show(b)}`);
  const lower = parseBound(b[0], kind);
  const upper = parseBound(b[1], kind);
  if (typeof lower === 'number' && typeof upper === 'number' && lower > upper)
    fail(5339900, `Lower bound must not exceed upper bound: ${show(b)}`);
  if (spec.unit !== undefined) {
    if (kind !== 'range') fail(5371705, "'unit' can only be used with 'range' windows");
    if (typeof spec.unit !== 'string' || !DATE_UNITS.has(spec.unit))
      fail(5397902, `Unknown time unit value: ${show(spec.unit)}`);
  }
  return { kind, lower, upper, ...(typeof spec.unit === 'string' ? { unit: spec.unit } : {}) };
}

function numbers(ctx: Ctx, fn: CompiledExpression, lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let j = lo; j <= hi; j++) {
    const v = fn(ctx.docs[j], ctx.vars);
    if (isNumeric(v)) out.push(toDouble(v));
  }
  return out;
}

function stdDev(values: number[], sample: boolean): unknown {
  const n = values.length;
  if (n === 0 || (sample && n < 2)) return null;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const ss = values.reduce((a, b) => a + (b - mean) ** 2, 0);
  return Math.sqrt(ss / (sample ? n - 1 : n));
}

function covariance(
  ctx: Ctx,
  x: CompiledExpression,
  y: CompiledExpression,
  lo: number,
  hi: number,
  sample: boolean,
): unknown {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let j = lo; j <= hi; j++) {
    const a = x(ctx.docs[j], ctx.vars);
    const b = y(ctx.docs[j], ctx.vars);
    if (isNumeric(a) && isNumeric(b)) {
      xs.push(toDouble(a));
      ys.push(toDouble(b));
    }
  }
  const n = xs.length;
  if (n === 0 || (sample && n < 2)) return null;
  const mx = xs.reduce((s, v) => s + v, 0) / n;
  const my = ys.reduce((s, v) => s + v, 0) / n;
  let c = 0;
  for (let k = 0; k < n; k++) c += (xs[k] - mx) * (ys[k] - my);
  return c / (sample ? n - 1 : n);
}

/** Time in the unit asked for (derivative and integral over dates), or the number itself. */
function axis(v: unknown, unit: string | undefined): number | undefined {
  if (v instanceof Date) {
    if (!unit) fail(5624901, 'For windows that involve date or time ranges, a unit must be provided.');
    const ms: Record<string, number> = {
      week: 604_800_000,
      day: 86_400_000,
      hour: 3_600_000,
      minute: 60_000,
      second: 1000,
      millisecond: 1,
    };
    if (!hasOwn.call(ms, unit))
      fail(5490704, `unit must be one of week, day, hour, minute, second, millisecond: ${unit}`);
    return v.getTime() / ms[unit];
  }
  return isNumeric(v) ? toDouble(v) : undefined;
}

function parseOperator(field: string, spec: Document, sortFields: number): OutputField {
  const keys = Object.keys(spec).filter((k) => k !== 'window');
  if (keys.length !== 1) fail(40414, `Expected exactly one window function in output field '${field}'`);
  const op = keys[0];
  const arg = spec[op];
  const window = spec.window !== undefined ? parseWindow(spec.window) : undefined;
  const parts = fieldPathParts(field);
  const needsSort = (what: string) => {
    if (sortFields !== 1)
      fail(5371602, `${what} must be specified with a top level sortBy expression with exactly one element`);
  };
  const noArgs = () => {
    if (!isPlainObject(arg) || Object.keys(arg).length !== 0)
      fail(5371603, `${op} must be specified with '{}' as the value`);
  };
  const positional = (compute: Compute): OutputField => {
    if (window) fail(5371601, `${op} does not accept a 'window' field`);
    return { parts, positional: true, compute };
  };
  const windowed = (compute: Compute): OutputField => ({ parts, window, positional: false, compute });
  switch (op) {
    case '$documentNumber':
      noArgs();
      return positional((_c, i) => new Int32(i + 1));
    case '$rank':
    case '$denseRank': {
      noArgs();
      needsSort(op);
      return positional((c, i) => {
        let rank = 1;
        let dense = 1;
        for (let j = 1; j <= i; j++) {
          if (!c.sameSortKey(c.docs[j - 1], c.docs[j])) {
            rank = j + 1;
            dense++;
          }
        }
        return new Int32(op === '$rank' ? rank : dense);
      });
    }
    case '$shift': {
      if (!isPlainObject(arg)) fail(5788600, '$shift must be specified with an object');
      if (!isNumeric(arg.by) || !Number.isInteger(toDouble(arg.by)))
        fail(5788603, "'$shift:by' field must be an integer");
      if (arg.output === undefined) fail(5788601, "$shift requires an 'output' expression");
      const out = compileExpression(arg.output);
      const by = toDouble(arg.by);
      const def = arg.default === undefined ? null : arg.default;
      return positional((c, i) => {
        const j = i + by;
        if (j < 0 || j >= c.docs.length) return def;
        const v = out(c.docs[j], c.vars);
        return v === undefined ? null : v;
      });
    }
    case '$locf': {
      const fn = compileExpression(arg);
      return positional((c, i) => {
        for (let j = i; j >= 0; j--) {
          const v = fn(c.docs[j], c.vars);
          if (v !== undefined && v !== null) return v;
        }
        return null;
      });
    }
    case '$linearFill': {
      needsSort(op);
      const fn = compileExpression(arg);
      return positional((c, i) => {
        const here = fn(c.docs[i], c.vars);
        if (here !== undefined && here !== null) return here;
        let a = i - 1;
        while (a >= 0 && !isNumeric(fn(c.docs[a], c.vars))) a--;
        let b = i + 1;
        while (b < c.docs.length && !isNumeric(fn(c.docs[b], c.vars))) b++;
        if (a < 0 || b >= c.docs.length) return null;
        const x0 = axis(c.keys[a], 'millisecond')!;
        const x1 = axis(c.keys[b], 'millisecond')!;
        const x = axis(c.keys[i], 'millisecond')!;
        const y0 = toDouble(fn(c.docs[a], c.vars));
        const y1 = toDouble(fn(c.docs[b], c.vars));
        return y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
      });
    }
    case '$expMovingAvg': {
      if (!isPlainObject(arg) || arg.input === undefined) fail(5433600, '$expMovingAvg must have an input expression');
      const fn = compileExpression(arg.input);
      let alpha: number;
      if (arg.N !== undefined) {
        if (!isNumeric(arg.N) || toDouble(arg.N) <= 0 || !Number.isInteger(toDouble(arg.N)))
          fail(5433602, "'N' field must be an integer greater than 0");
        alpha = 2 / (toDouble(arg.N) + 1);
      } else if (arg.alpha !== undefined) {
        if (!isNumeric(arg.alpha) || toDouble(arg.alpha) <= 0 || toDouble(arg.alpha) >= 1)
          fail(5433603, "'alpha' must be between 0 and 1 (exclusive)");
        alpha = toDouble(arg.alpha);
      } else fail(5433601, "$expMovingAvg requires either 'N' or 'alpha'");
      needsSort(op);
      return positional((c, i) => {
        let avg: number | undefined;
        for (let j = 0; j <= i; j++) {
          const v = fn(c.docs[j], c.vars);
          if (!isNumeric(v)) continue;
          avg = avg === undefined ? toDouble(v) : toDouble(v) * alpha + avg * (1 - alpha);
        }
        return avg ?? null;
      });
    }
    case '$derivative':
    case '$integral': {
      if (!isPlainObject(arg) || arg.input === undefined) fail(5624900, `${op} requires an 'input' expression`);
      needsSort(op);
      const fn = compileExpression(arg.input);
      const unit = typeof arg.unit === 'string' ? arg.unit : undefined;
      if (op === '$derivative' && !window) fail(5624902, '$derivative requires explicit window bounds');
      return windowed((c, _i, lo, hi) => {
        if (op === '$derivative') {
          if (hi <= lo) return null;
          const y0 = fn(c.docs[lo], c.vars);
          const y1 = fn(c.docs[hi], c.vars);
          const x0 = axis(c.keys[lo], unit);
          const x1 = axis(c.keys[hi], unit);
          if (!isNumeric(y0) || !isNumeric(y1) || x0 === undefined || x1 === undefined || x1 === x0) return null;
          return (toDouble(y1) - toDouble(y0)) / (x1 - x0);
        }
        let total = 0;
        for (let j = lo + 1; j <= hi; j++) {
          const y0 = fn(c.docs[j - 1], c.vars);
          const y1 = fn(c.docs[j], c.vars);
          const x0 = axis(c.keys[j - 1], unit);
          const x1 = axis(c.keys[j], unit);
          if (isNumeric(y0) && isNumeric(y1) && x0 !== undefined && x1 !== undefined)
            total += ((toDouble(y0) + toDouble(y1)) / 2) * (x1 - x0);
        }
        return total;
      });
    }
    case '$count':
      noArgs();
      return windowed((_c, _i, lo, hi) => new Int32(Math.max(0, hi - lo + 1)));
    case '$stdDevPop':
    case '$stdDevSamp': {
      const fn = compileExpression(arg);
      return windowed((c, _i, lo, hi) => stdDev(numbers(c, fn, lo, hi), op === '$stdDevSamp'));
    }
    case '$covariancePop':
    case '$covarianceSamp': {
      if (!Array.isArray(arg) || arg.length !== 2) fail(5371604, `${op} requires an array of two expressions`);
      const x = compileExpression(arg[0]);
      const y = compileExpression(arg[1]);
      return windowed((c, _i, lo, hi) => covariance(c, x, y, lo, hi, op === '$covarianceSamp'));
    }
  }
  const factory = accumulatorFactory(op, arg);
  if (!factory && (!hasOwn.call(ACCUMULATORS, op) || op === '$mergeObjects'))
    fail(5397900, `Unrecognized window function, ${op}`);
  const make = factory ? factory.make : ACCUMULATORS[op];
  const fn = factory ? factory.input : compileExpression(arg);
  return windowed((c, _i, lo, hi) => {
    const acc = make(undefined, c.vars);
    for (let j = lo; j <= hi; j++) acc.add(fn(c.docs[j], c.vars));
    const v = acc.result();
    return v === undefined ? null : v;
  });
}

/** [lo, hi] positions of the window of document i (hi < lo: empty). */
function windowOf(w: Window | undefined, ctx: Ctx, i: number): [number, number] {
  const n = ctx.docs.length;
  if (!w) return [0, n - 1];
  if (w.kind === 'documents') {
    const lo = w.lower === 'unbounded' ? 0 : w.lower === 'current' ? i : i + w.lower;
    const hi = w.upper === 'unbounded' ? n - 1 : w.upper === 'current' ? i : i + w.upper;
    return [Math.max(0, lo), Math.min(n - 1, hi)];
  }
  const here = ctx.keys[i];
  const shift = (b: number): unknown => {
    if (here instanceof Date) {
      if (!w.unit) fail(5429513, 'Range-based bounds over dates need a unit');
      return new Date(addToDate(here.getTime(), w.unit, b));
    }
    if (!isNumeric(here))
      fail(5429414, `Invalid range: Expected the sortBy field to be a number, but it was ${typeName(here)}`);
    return toDouble(here) + b;
  };
  const low = w.lower === 'unbounded' ? undefined : shift(w.lower === 'current' ? 0 : w.lower);
  const high = w.upper === 'unbounded' ? undefined : shift(w.upper === 'current' ? 0 : w.upper);
  let lo = 0;
  while (lo < n && low !== undefined && compareValues(ctx.keys[lo], low) < 0) lo++;
  let hi = n - 1;
  while (hi >= 0 && high !== undefined && compareValues(ctx.keys[hi], high) > 0) hi--;
  return [lo, hi];
}

export const parseSetWindowFields: StageParser = (spec, env) => {
  if (!isPlainObject(spec))
    fail(14, `the $setWindowFields stage specification must be an object, found ${typeName(spec)}`);
  for (const k of Object.keys(spec))
    if (!['partitionBy', 'sortBy', 'output'].includes(k))
      fail(40415, `BSON field '$setWindowFields.${k}' is an unknown field.`);
  if (spec.output === undefined) fail(40414, "BSON field '$setWindowFields.output' is missing but a required field");
  if (!isPlainObject(spec.output))
    fail(
      14,
      `BSON field '$setWindowFields.output' is the wrong type '${typeName(spec.output)}', expected type 'object'`,
    );
  if (spec.sortBy !== undefined && !isPlainObject(spec.sortBy))
    fail(
      14,
      `BSON field '$setWindowFields.sortBy' is the wrong type '${typeName(spec.sortBy)}', expected type 'object'`,
    );
  const sortSpec = spec.sortBy;
  const sortCmp = sortSpec ? compileSort(sortSpec) : undefined;
  const sortFields = sortSpec ? Object.keys(sortSpec) : [];
  const sortKeyParts = sortFields.length === 1 ? sortFields[0].split('.') : undefined;
  const partitionBy = spec.partitionBy !== undefined ? compileExpression(spec.partitionBy) : undefined;
  const outputs = Object.entries(spec.output).map(([field, op]) => {
    if (!isPlainObject(op)) fail(40415, `The field '${field}' must be an object`);
    const parsed = parseOperator(field, op, sortFields.length);
    if (parsed.window?.kind === 'range' && sortFields.length !== 1)
      fail(5339902, 'Range-based window requires sortBy a single field');
    return parsed;
  });
  return function* (input) {
    const partitions = new Map<string, { key: unknown; docs: Document[] }>();
    for (const doc of input) {
      const raw = partitionBy ? partitionBy(doc, env.vars) : null;
      if (Array.isArray(raw)) fail(5722200, 'An expression used to partition cannot evaluate to value of type array');
      const key = raw === undefined ? null : raw;
      const k = valueKey(key);
      let p = partitions.get(k);
      if (!p) partitions.set(k, (p = { key, docs: [] }));
      p.docs.push(doc);
    }
    const ordered = [...partitions.values()].sort((a, b) => compareValues(a.key, b.key));
    for (const p of ordered) {
      const docs = sortCmp ? [...p.docs].sort(sortCmp) : p.docs;
      const keys = sortKeyParts ? docs.map((d) => pathValue(d, sortKeyParts)) : docs.map(() => undefined);
      const ctx: Ctx = {
        docs,
        keys,
        vars: env.vars,
        sameSortKey: (a, b) => (sortCmp ? sortCmp(a, b) === 0 : true),
      };
      const results = docs.map((_d, i) =>
        outputs.map((o) => {
          const [lo, hi] = o.positional ? [0, docs.length - 1] : windowOf(o.window, ctx, i);
          return o.compute(ctx, i, lo, hi);
        }),
      );
      for (let i = 0; i < docs.length; i++) {
        let out = docs[i];
        outputs.forEach((o, k) => {
          out = setPath(out, o.parts, results[i][k]);
        });
        yield out;
      }
    }
  };
};

function pathValue(doc: Document, parts: string[]): unknown {
  let v: unknown = doc;
  for (const p of parts) v = isPlainObject(v) ? v[p] : undefined;
  return v;
}
