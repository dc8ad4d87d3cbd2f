/**
 * $bucket (documents grouped into the ranges [b0, b1), [b1, b2)… of `boundaries`, the others in
 * `default`) and $bucketAuto (a number of buckets of about the same size, by the sorted values).
 */
import { Int32 } from 'bson';
import { compareValues } from '../../values/compare';
import { toDouble } from '../../values/numbers';
import { canonicalRank, isNumeric, isPlainObject, type Document } from '../../values/types';
import { compileExpression, type Vars } from '../expressions';
import { ONE, parseAccumulator, type AccumulatorSpec } from './accumulators';
import { fail, put, show, typeName } from './shared';
import type { StageParser } from './types';

function parseOutput(output: unknown, stage: string): AccumulatorSpec[] {
  if (output === undefined) return [{ field: 'count', make: () => new CountAcc(), input: () => ONE }];
  if (!isPlainObject(output))
    fail(40196, `The ${stage} 'output' field must be an object, but found type: ${typeName(output)}.`);
  return Object.keys(output).map((k) => parseAccumulator(k, output[k]));
}

class CountAcc {
  n = 0;
  add(): void {
    this.n++;
  }
  result(): unknown {
    return new Int32(this.n);
  }
}

function checkGroupBy(v: unknown, stage: string): void {
  const ok = (typeof v === 'string' && v.startsWith('$')) || (isPlainObject(v) && Object.keys(v)[0]?.startsWith('$'));
  if (!ok)
    fail(
      stage === '$bucket' ? 40202 : 40239,
      `The ${stage} 'groupBy' field must be defined as a $-prefixed path or an expression object, but found: ${show(v)}.`,
    );
}

function finish(
  id: unknown,
  accs: AccumulatorSpec[],
  states: Array<{ add(v: unknown): void; result(): unknown }>,
): Document {
  const out: Document = { _id: id };
  accs.forEach((a, i) => {
    const v = states[i].result();
    put(out, a.field, v === undefined ? null : v);
  });
  return out;
}

export const parseBucket: StageParser = (spec, env) => {
  if (!isPlainObject(spec))
    fail(40201, `Argument to $bucket stage must be an object, but found type: ${typeName(spec)}.`);
  for (const k of Object.keys(spec))
    if (!['groupBy', 'boundaries', 'default', 'output'].includes(k))
      fail(40197, `Unrecognized option to $bucket: ${k}.`);
  if (spec.groupBy === undefined || spec.boundaries === undefined)
    fail(40198, "$bucket requires 'groupBy' and 'boundaries' to be specified.");
  checkGroupBy(spec.groupBy, '$bucket');
  const groupBy = compileExpression(spec.groupBy);
  const boundaries = spec.boundaries;
  if (!Array.isArray(boundaries))
    fail(40200, `The $bucket 'boundaries' field must be an array, but found type: ${typeName(boundaries)}.`);
  if (boundaries.length < 2)
    fail(40192, `The $bucket 'boundaries' field must have at least 2 values, but found ${boundaries.length} value(s).`);
  for (let i = 1; i < boundaries.length; i++) {
    const a = boundaries[i - 1];
    const b = boundaries[i];
    if (canonicalRank(a) !== canonicalRank(b))
      fail(
        40193,
        `All values in the the 'boundaries' option to $bucket must have the same type. Found conflicting types ${typeName(a)} and ${typeName(b)}.`,
      );
    if (compareValues(a, b) >= 0)
      fail(
        40194,
        `The 'boundaries' option to $bucket must be sorted in ascending order, but elements ${i - 1} and ${i} are not in ascending order (${show(a)} is not less than ${show(b)}).`,
      );
  }
  const hasDefault = spec.default !== undefined;
  const def = spec.default;
  if (
    hasDefault &&
    canonicalRank(def) === canonicalRank(boundaries[0]) &&
    compareValues(def, boundaries[0]) >= 0 &&
    compareValues(def, boundaries[boundaries.length - 1]) < 0
  )
    fail(
      40199,
      "The $bucket 'default' field must be less than the lowest boundary or greater than or equal to the highest boundary.",
    );
  const accs = parseOutput(spec.output, '$bucket');
  return function* (input) {
    const buckets = new Map<number, Array<{ add(v: unknown): void; result(): unknown }>>();
    for (const doc of input) {
      const v = groupBy(doc, env.vars);
      let slot = -1;
      if (v !== undefined && canonicalRank(v) === canonicalRank(boundaries[0])) {
        for (let i = 0; i + 1 < boundaries.length; i++)
          if (compareValues(v, boundaries[i]) >= 0 && compareValues(v, boundaries[i + 1]) < 0) slot = i;
      }
      if (slot === -1) {
        if (!hasDefault)
          fail(40066, '$switch could not find a matching branch for an input, and no default was specified.');
        slot = boundaries.length;
      }
      let states = buckets.get(slot);
      if (!states) buckets.set(slot, (states = accs.map((a) => a.make())));
      states.forEach((s, i) => s.add(accs[i].input(doc, env.vars)));
    }
    // mongod runs $bucket as a $group then a $sort on _id: the default bucket takes its place among
    // the others by value (and by the collation: "2" before "100" under numericOrdering).
    const idOf = (slot: number) => (slot === boundaries.length ? def : boundaries[slot]);
    const slots = [...buckets.keys()].sort((a, b) => compareValues(idOf(a), idOf(b)));
    for (const slot of slots) yield finish(idOf(slot), accs, buckets.get(slot)!);
  };
};

export const parseBucketAuto: StageParser = (spec, env) => {
  if (!isPlainObject(spec))
    fail(40240, `The argument to $bucketAuto must be an object, but found type: ${typeName(spec)}.`);
  for (const k of Object.keys(spec))
    if (!['groupBy', 'buckets', 'output', 'granularity'].includes(k))
      fail(40245, `Unrecognized option to $bucketAuto: ${k}.`);
  if (spec.groupBy === undefined || spec.buckets === undefined)
    fail(40246, "$bucketAuto requires 'groupBy' and 'buckets' to be specified");
  checkGroupBy(spec.groupBy, '$bucketAuto');
  const nb = spec.buckets;
  if (!isNumeric(nb) || !Number.isInteger(toDouble(nb)))
    fail(40241, `The $bucketAuto 'buckets' field must be a numeric value, but found type: ${typeName(nb)}.`);
  const n = toDouble(nb);
  if (n <= 0) fail(40243, `The $bucketAuto 'buckets' field must be greater than 0, but found: ${n}.`);
  if (spec.granularity !== undefined) granularityRounder(spec.granularity);
  const rounder = spec.granularity !== undefined ? granularityRounder(spec.granularity) : undefined;
  const groupBy = compileExpression(spec.groupBy);
  const accs = parseOutput(spec.output, '$bucketAuto');
  return function* (input) {
    const entries: Array<{ key: unknown; doc: Document }> = [];
    for (const doc of input) {
      const v = groupBy(doc, env.vars);
      const key = v === undefined ? null : v;
      if (rounder && !(isNumeric(key) && toDouble(key) >= 0))
        fail(
          40258,
          `$bucketAuto can specify a 'granularity' with numeric boundaries only, but found a value with type: ${typeName(key)}.`,
        );
      entries.push({ key, doc });
    }
    entries.sort((a, b) => compareValues(a.key, b.key));
    yield* autoBuckets(entries, n, accs, env.vars, rounder);
  };
};

function* autoBuckets(
  entries: Array<{ key: unknown; doc: Document }>,
  n: number,
  accs: AccumulatorSpec[],
  vars: Vars,
  rounder: ((v: number, up: boolean) => number) | undefined,
): Iterable<Document> {
  if (entries.length === 0) return;
  const per = Math.max(1, Math.round(entries.length / n));
  const buckets: Array<{ min: unknown; max: unknown; states: Array<{ add(v: unknown): void; result(): unknown }> }> =
    [];
  let i = 0;
  while (i < entries.length) {
    const states = accs.map((a) => a.make());
    const min = entries[i].key;
    let j = i;
    // Fill to the target size, then keep going while the value repeats (equal values share a bucket).
    const last = buckets.length === n - 1;
    while (j < entries.length && (last || j - i < per || compareValues(entries[j].key, entries[j - 1].key) === 0)) {
      states.forEach((s, k) => s.add(accs[k].input(entries[j].doc, vars)));
      j++;
    }
    buckets.push({ min, max: j < entries.length ? entries[j].key : entries[j - 1].key, states });
    i = j;
  }
  for (let b = 0; b < buckets.length; b++) {
    let { min, max } = buckets[b];
    if (rounder) {
      min = b === 0 ? rounder(toDouble(min), false) : buckets[b - 1].max;
      max = rounder(toDouble(max), true);
      buckets[b].max = max;
    }
    yield finish({ min, max }, accs, buckets[b].states);
  }
}

const SERIES: Record<string, number[]> = {
  R5: [1.0, 1.6, 2.5, 4.0, 6.3],
  R10: [1.0, 1.25, 1.6, 2.0, 2.5, 3.15, 4.0, 5.0, 6.3, 8.0],
  R20: [1.0, 1.12, 1.25, 1.4, 1.6, 1.8, 2.0, 2.24, 2.5, 2.8, 3.15, 3.55, 4.0, 4.5, 5.0, 5.6, 6.3, 7.1, 8.0, 9.0],
  E6: [1.0, 1.5, 2.2, 3.3, 4.7, 6.8],
  E12: [1.0, 1.2, 1.5, 1.8, 2.2, 2.7, 3.3, 3.9, 4.7, 5.6, 6.8, 8.2],
  '1-2-5': [1.0, 2.0, 5.0],
};

/** Rounds to the next (up) or previous (down) number of a preferred-number series. */
function granularityRounder(name: unknown): (v: number, up: boolean) => number {
  if (name === 'POWERSOF2')
    return (v, up) => {
      if (v === 0) return 0;
      const p = 2 ** (up ? Math.floor(Math.log2(v)) + 1 : Math.ceil(Math.log2(v)) - 1);
      return p;
    };
  const series = typeof name === 'string' ? SERIES[name] : undefined;
  if (!series) fail(40257, `Rounding granularity not recognized: ${show(name)}`);
  return (v, up) => {
    if (v === 0) return 0;
    const mag = 10 ** Math.floor(Math.log10(v));
    const candidates: number[] = [];
    for (const m of [mag / 10, mag, mag * 10]) for (const s of series) candidates.push(Number((s * m).toPrecision(12)));
    if (up) return candidates.find((c) => c > v) ?? v;
    return [...candidates].reverse().find((c) => c < v) ?? v;
  };
}
