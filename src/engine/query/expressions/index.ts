/**
 * Aggregation expressions ($project values, $group keys, $expr, ...), compiled once into closures.
 * Importing this index loads every operator family into the compiler's table.
 */
import './operators';

export {
  aggError,
  compileExpression,
  isExpressionOperator,
  typeName,
  type CompiledExpression,
  type Vars,
} from './core';
export { subtractValues } from './arithmetic';
export { isTruthy } from './logic';
export { addToDate } from './date';
export { ACCUMULATORS, type Accumulator } from './accumulators';
export { valueKey } from './value-key';
