/**
 * Aggregation expressions ($project values, $group keys, $expr, ...), compiled once into closures.
 * This index loads every operator family into the compiler's table (through ./operators), and
 * lists the supported and refused operator names for the compatibility table.
 */

export {
  aggError,
  compileExpression,
  isExpressionOperator,
  typeName,
  validateUserVariableName,
  type CompiledExpression,
  type Vars,
} from './core';
export { subtractValues } from './arithmetic';
export { isTruthy } from './logic';
export { addToDate } from './date';
export { type Accumulator } from './accumulators';
export { ACCUMULATORS, ACCUMULATOR_NAMES, accumulatorFactory } from './accumulator-table';
export { type AccumulatorFactory } from './accumulators-ranked';
export { REFUSED_ACCUMULATORS as REFUSED_ACCUMULATOR_OPERATORS, type RefusedOperator } from './refused';
export { EXPRESSION_OPERATORS, REFUSED_EXPRESSION_OPERATORS } from './operators';
export { valueKey } from './value-key';
