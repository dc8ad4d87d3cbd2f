/**
 * $densify: adds the documents missing from a sequence of numbers or dates, one per `step` (with a
 * `unit` for dates), within `bounds`: "full" (the smallest to the largest value of the input, for
 * every partition), "partition" (each partition's own smallest to largest) or [lower, upper) (the
 * upper bound excluded). Generated documents hold only the field and the partition fields.
 *
 * As on mongod, the input is sorted first (by the partition fields unless the bounds are "full",
 * then by the field); the generated values of a partition lie on its grid (the lower bound, the
 * partition's first value or the input's first value, plus whole steps) and a value some document
 * already has is not generated again. Documents whose field is null or missing pass through.
 */
import { compareValues } from '../../values/compare';
import { toDouble } from '../../values/numbers';
import { bsonTypeOf, isNumeric, isPlainObject, type Document } from '../../values/types';
import { addToDate, valueKey } from '../expressions';
import { compileSort } from '../sort';
import { fail, fieldPathParts, getPath, hasOwn, setPath, typeName } from './shared';
import type { StageParser } from './types';

const UNITS = new Set(['millisecond', 'second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year']);

/** mongod's internalQueryMaxAllowedDensifyDocs default. */
const MAX_GENERATED = 500_000;

type Bounds = { kind: 'full' } | { kind: 'partition' } | { kind: 'explicit'; lower: unknown; upper: unknown };

interface Range {
  step: number;
  unit?: string;
  bounds: Bounds;
}

function unknownField(path: string): never {
  fail(40415, `BSON field '${path}' is an unknown field.`);
}

function missingField(path: string): never {
  fail(40414, `BSON field '${path}' is missing but a required field`);
}

function wrongType(path: string, v: unknown, expected: string): never {
  fail(14, `BSON field '${path}' is the wrong type '${typeName(v)}', expected type '${expected}'`);
}

function parseRange(spec: unknown): Range {
  if (!isPlainObject(spec)) wrongType('$densify.range', spec, 'object');
  for (const k of Object.keys(spec)) if (!['step', 'unit', 'bounds'].includes(k)) unknownField(`$densify.range.${k}`);
  if (!hasOwn.call(spec, 'step')) missingField('$densify.range.step');
  if (!hasOwn.call(spec, 'bounds')) missingField('$densify.range.bounds');
  const rawStep = spec.step;
  if (!isNumeric(rawStep) || !(toDouble(rawStep) > 0))
    fail(5733401, 'The step parameter in a range statement must be a strictly positive numeric value');
  const step = toDouble(rawStep);
  let unit: string | undefined;
  if (spec.unit !== undefined) {
    if (typeof spec.unit !== 'string') wrongType('$densify.range.unit', spec.unit, 'string');
    if (!Number.isInteger(step))
      fail(6586400, 'The step parameter in a range statement must be a whole number when densifying a date range');
    if (!UNITS.has(spec.unit)) fail(9, `unknown time unit value: ${spec.unit}`);
    unit = spec.unit;
  }
  return { step, unit, bounds: parseBounds(spec.bounds, rawStep, unit) };
}

function parseBounds(bounds: unknown, rawStep: unknown, unit: string | undefined): Bounds {
  if (typeof bounds === 'string') {
    if (bounds === 'full') return { kind: 'full' };
    if (bounds === 'partition') return { kind: 'partition' };
    fail(5946802, "Bounds string must either be 'full' or 'partition'");
  }
  if (!Array.isArray(bounds))
    fail(
      5733404,
      "The bounds in a range statement must be the string 'full', 'partition', or an ascending array of two numbers or two dates",
    );
  if (bounds.length !== 2) fail(5733403, 'A bounding array in a range statement must have exactly two elements');
  const [lower, upper] = bounds as unknown[];
  if (compareValues(lower, upper) > 0)
    fail(5733402, 'A bounding array must be an ascending array of either two dates or two numbers');
  if (isNumeric(lower)) {
    if (unit) fail(5733409, 'Numeric bounds may not have unit parameter');
    if (!isNumeric(upper)) fail(5733406, 'A bounding array must contain either both dates or both numeric types');
    if (bsonTypeOf(lower) !== bsonTypeOf(upper) || bsonTypeOf(lower) !== bsonTypeOf(rawStep))
      fail(5876900, 'Upper bound, lower bound, and step must all have the same type');
    return { kind: 'explicit', lower: toDouble(lower), upper: toDouble(upper) };
  }
  if (lower instanceof Date) {
    if (!(upper instanceof Date))
      fail(5733405, 'A bounding array must contain either both dates or both numeric types');
    if (!unit) fail(5733410, 'A bounding array of dates must specify a unit');
    return { kind: 'explicit', lower, upper };
  }
  fail(5946800, 'Explicit bounds must be numeric or dates');
}

/** Where the generated values of one partition stand: the next value on its grid. */
interface PartitionState {
  /** The partition fields of the partition (what generated documents carry). */
  fields: Document;
  next: unknown;
}

export const parseDensify: StageParser = (spec) => {
  if (!isPlainObject(spec)) fail(9, `The $densify stage specification must be an object, found ${typeName(spec)}`);
  for (const k of Object.keys(spec))
    if (!['field', 'partitionByFields', 'range'].includes(k)) unknownField(`$densify.${k}`);
  if (!hasOwn.call(spec, 'field')) missingField('$densify.field');
  if (!hasOwn.call(spec, 'range')) missingField('$densify.range');
  if (typeof spec.field !== 'string') wrongType('$densify.field', spec.field, 'string');
  const range = parseRange(spec.range);
  const partitionPaths: string[][] = [];
  if (spec.partitionByFields !== undefined) {
    if (!Array.isArray(spec.partitionByFields))
      wrongType('$densify.partitionByFields', spec.partitionByFields, 'array');
    for (const [i, f] of (spec.partitionByFields as unknown[]).entries()) {
      if (typeof f !== 'string') wrongType(`$densify.partitionByFields.${i}`, f, 'string');
      partitionPaths.push(fieldPathParts(f));
    }
  }
  const field = spec.field;
  const fieldParts = fieldPathParts(field);
  if (range.bounds.kind === 'partition' && partitionPaths.length === 0)
    fail(
      5733408,
      "One cannot specify the bounds as 'partition' without specifying a non-empty array of partitionByFields. You may have meant to specify 'full' bounds.",
    );
  const sortSpec: Document = {};
  if (range.bounds.kind !== 'full') for (const p of partitionPaths) sortSpec[p.join('.')] = 1;
  sortSpec[field] = 1;
  const byPartitionThenField = compileSort(sortSpec);
  return (input) => densify(Array.from(input).sort(byPartitionThenField), fieldParts, partitionPaths, range);
};

function* densify(
  sorted: Document[],
  fieldParts: string[],
  partitionPaths: string[][],
  range: Range,
): Iterable<Document> {
  const { bounds } = range;
  const step = (v: unknown): unknown => increment(v, range);
  const partitions = new Map<string, PartitionState>();
  let generated = 0;
  const make = (state: PartitionState, value: unknown): Document => {
    if (++generated > MAX_GENERATED)
      fail(
        5897900,
        `Generated ${generated} documents in $densify, which is over the limit of ${MAX_GENERATED}. Increase the 'internalQueryMaxAllowedDensifyDocs' parameter to allow more generated documents`,
      );
    return setPath(state.fields, fieldParts, value);
  };
  let globalMin: unknown;
  let globalMax: unknown;
  // A partition with no value yet starts at the lower bound, or (full) at the input's first value.
  const start = (): unknown => (bounds.kind === 'explicit' ? bounds.lower : globalMin);
  if (bounds.kind === 'explicit' && partitionPaths.length === 0) partitions.set('', { fields: {}, next: start() });

  for (const doc of sorted) {
    const raw = getPath(doc, fieldParts);
    if (raw === undefined || raw === null) {
      yield doc;
      continue;
    }
    const value = densifyValue(raw, range);
    if (globalMin === undefined) globalMin = value;
    globalMax = value;
    const fields = partitionFields(doc, partitionPaths);
    const key = partitionPaths.length === 0 ? '' : valueKey(fields);
    let state = partitions.get(key);
    if (!state) {
      state = { fields, next: bounds.kind === 'partition' ? value : start() };
      partitions.set(key, state);
    }
    const upper = bounds.kind === 'explicit' ? bounds.upper : undefined;
    while (compareValues(state.next, value) < 0 && (upper === undefined || compareValues(state.next, upper) < 0)) {
      yield make(state, state.next);
      state.next = step(state.next);
    }
    if (compareValues(state.next, value) === 0) state.next = step(state.next);
    yield doc;
  }

  // What is left after the last document: explicit bounds fill up to the upper bound; full bounds
  // bring every partition up to the input's largest value.
  let last: ((v: unknown) => boolean) | undefined;
  if (bounds.kind === 'explicit') last = (v) => compareValues(v, bounds.upper) < 0;
  else if (bounds.kind === 'full' && partitionPaths.length > 0 && globalMax !== undefined) {
    const max = globalMax;
    last = (v) => compareValues(v, max) <= 0;
  }
  if (!last) return;
  for (const state of partitions.values()) {
    while (state.next !== undefined && last(state.next)) {
      yield make(state, state.next);
      state.next = step(state.next);
    }
  }
}

/** The field's value checked against the range's kind (numbers without a unit, dates with one). */
function densifyValue(raw: unknown, range: Range): unknown {
  const isDate = raw instanceof Date;
  if (!isNumeric(raw) && !isDate) fail(5733201, 'Densify field type must be numeric or a date');
  if (isDate !== (range.unit !== undefined))
    fail(
      6053600,
      isDate
        ? 'Encountered date densify value in collection when step does not have a date unit.'
        : 'Encountered numeric densify value in collection when step has a date unit.',
    );
  return isDate ? raw : toDouble(raw);
}

function increment(v: unknown, range: Range): unknown {
  if (v instanceof Date) return new Date(addToDate(v.getTime(), range.unit as string, range.step));
  return (v as number) + range.step;
}

/** The partition fields of a document, at their paths (a missing one stays missing). */
function partitionFields(doc: Document, paths: string[][]): Document {
  let out: Document = {};
  for (const parts of paths) {
    const v = getPath(doc, parts);
    if (v !== undefined) out = setPath(out, parts, v);
  }
  return out;
}
