/** One output field of $group, $bucket or $bucketAuto: `{field: {<accumulator>: <expression>}}`. */
import { Int32 } from 'bson';
import { isPlainObject } from '../../values/types';
import {
  ACCUMULATORS,
  accumulatorFactory,
  compileExpression,
  type Accumulator,
  type CompiledExpression,
  type Vars,
} from '../expressions';
import { fail, hasOwn } from './shared';

export interface AccumulatorSpec {
  field: string;
  /** `groupKey` and `vars` let `n` of $topN & co read the group's _id and the stage's variables. */
  make: (groupKey?: unknown, vars?: Vars) => Accumulator;
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
  if (Array.isArray(arg)) fail(40237, `The ${op} accumulator is a unary operator`);
  const factory = accumulatorFactory(op, arg);
  if (factory) return { field, make: factory.make, input: factory.input };
  if (!hasOwn.call(ACCUMULATORS, op)) fail(15952, `unknown group operator '${op}'`);
  return { field, make: ACCUMULATORS[op], input: compileExpression(arg) };
}
