/** One output field of $group, $bucket or $bucketAuto: `{field: {<accumulator>: <expression>}}`. */
import { Int32 } from 'bson';
import { isPlainObject } from '../../values/types';
import { ACCUMULATORS, compileExpression, type Accumulator, type CompiledExpression } from '../expressions';
import { fail, hasOwn } from './shared';

export interface AccumulatorSpec {
  field: string;
  make: () => Accumulator;
  input: CompiledExpression;
}

export const ONE = new Int32(1);

export function parseAccumulator(field: string, spec: unknown): AccumulatorSpec {
  if (field.includes('.')) fail(40235, `The field name '${field}' cannot contain '.'`);
  if (field.startsWith('$')) fail(40236, `The field name '${field}' cannot be an operator name`);
  if (!isPlainObject(spec)) fail(40234, `The field '${field}' must be an accumulator object`);
  const keys = Object.keys(spec);
  if (keys.length !== 1) fail(40238, `The field '${field}' must specify one accumulator`);
  const op = keys[0];
  const arg = spec[op];
  if (op === '$count') {
    if (!isPlainObject(arg) || Object.keys(arg).length !== 0) fail(40180, '$count takes no arguments, i.e. $count:{}');
    // mongod rewrites {$count: {}} to {$sum: NumberInt(1)}: the count is an int.
    return { field, make: ACCUMULATORS.$sum, input: () => ONE };
  }
  if (!hasOwn.call(ACCUMULATORS, op)) fail(15952, `unknown group operator '${op}'`);
  if (Array.isArray(arg)) fail(40237, `The ${op} accumulator is a unary operator`);
  return { field, make: ACCUMULATORS[op], input: compileExpression(arg) };
}
