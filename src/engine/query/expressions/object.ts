/** Object operators: $mergeObjects. */
import { variadic, type OperatorParser } from './core';
import { MergeObjectsAccumulator } from './accumulators';

function opMergeObjects(vals: unknown[]): unknown {
  const acc = new MergeObjectsAccumulator();
  for (const v of vals) acc.add(v);
  return acc.result();
}

export const OBJECT_OPERATORS: Readonly<Record<string, OperatorParser>> = {
  $mergeObjects: variadic(opMergeObjects),
};
