/**
 * $fill: sets null and missing fields, per output field either to a value (an expression, as
 * `$ifNull`) or by a method over the documents in `sortBy` order within each partition: "locf" (the
 * last value seen) or "linear" (interpolated between the neighbours). Like mongod, it is compiled
 * into $setWindowFields ($locf / $linearFill) followed by $addFields, so the window stage's rules
 * and errors apply.
 */
import { isPlainObject, type Document } from '../../values/types';
import { fail, hasOwn, put, typeName } from './shared';
import type { StageParser } from './types';

const SPEC_FIELDS = ['sortBy', 'partitionBy', 'partitionByFields', 'output'];

function wrongType(path: string, v: unknown, expected: string): never {
  fail(14, `BSON field '${path}' is the wrong type '${typeName(v)}', expected type '${expected}'`);
}

export const parseFill: StageParser = (spec, env) => {
  if (!isPlainObject(spec)) fail(9, `The $fill stage specification must be an object, found ${typeName(spec)}`);
  for (const k of Object.keys(spec))
    if (!SPEC_FIELDS.includes(k)) fail(40415, `BSON field '$fill.${k}' is an unknown field.`);
  if (!hasOwn.call(spec, 'output')) fail(40414, "BSON field '$fill.output' is missing but a required field");
  const output = spec.output;
  if (!isPlainObject(output)) wrongType('$fill.output', output, 'object');
  if (Object.keys(output).length === 0)
    fail(6050203, "The output field in '$fill' must contain an object with at least one element");
  if (spec.sortBy !== undefined && !isPlainObject(spec.sortBy)) wrongType('$fill.sortBy', spec.sortBy, 'object');

  const windowOutput: Document = {};
  const addFields: Document = {};
  for (const [field, fieldSpec] of Object.entries(output)) {
    if (!isPlainObject(fieldSpec))
      fail(6050200, 'Each fill output specification must be an object with exactly one field');
    for (const k of Object.keys(fieldSpec))
      if (k !== 'method' && k !== 'value') fail(40415, `BSON field '$fill.${k}' is an unknown field.`);
    if (hasOwn.call(fieldSpec, 'method')) {
      const method = fieldSpec.method;
      if (typeof method !== 'string') wrongType('$fill.method', method, 'string');
      if (hasOwn.call(fieldSpec, 'value'))
        fail(6050201, "Each fill output specification must have exactly one of 'method' or 'value' fields, not both");
      if (method !== 'locf' && method !== 'linear') fail(6050202, 'Method must be either locf or linear');
      put(windowOutput, field, { [method === 'linear' ? '$linearFill' : '$locf']: `$${field}` });
    }
    if (hasOwn.call(fieldSpec, 'value')) put(addFields, field, { $ifNull: [`$${field}`, fieldSpec.value] });
  }

  const windowSpec: Document = { output: windowOutput };
  if (spec.sortBy !== undefined) windowSpec.sortBy = spec.sortBy;
  if (spec.partitionBy !== undefined) {
    if (spec.partitionByFields !== undefined)
      fail(6050204, "Maximum one of 'partitionBy' and 'partitionByFields can be specified in '$fill'");
    if (typeof spec.partitionBy !== 'string' && !isPlainObject(spec.partitionBy))
      wrongType('$fill.partitionBy', spec.partitionBy, 'string or object');
    windowSpec.partitionBy = spec.partitionBy;
  }
  if (spec.partitionByFields !== undefined) {
    if (!Array.isArray(spec.partitionByFields)) wrongType('$fill.partitionByFields', spec.partitionByFields, 'array');
    const partitionBy: Document = {};
    for (const [i, f] of (spec.partitionByFields as unknown[]).entries()) {
      if (typeof f !== 'string') wrongType(`$fill.partitionByFields.${i}`, f, 'string');
      put(partitionBy, f, `$${f}`);
    }
    windowSpec.partitionBy = partitionBy;
  }

  const stages: Document[] = [];
  if (Object.keys(windowOutput).length > 0) stages.push({ $setWindowFields: windowSpec });
  if (Object.keys(addFields).length > 0) stages.push({ $addFields: addFields });
  return env.compile(stages, env);
};
