/**
 * Every $group accumulator by name: the ones fed a value per document (ACCUMULATORS) and the ones
 * whose argument is a specification (n, sortBy, p …), built through `accumulatorFactory`.
 */
import { ACCUMULATORS as BASIC_ACCUMULATORS, type Accumulator } from './accumulators';
import { RANKED_ACCUMULATORS, type AccumulatorFactory } from './accumulators-ranked';
import { QUANTILE_ACCUMULATORS, STDDEV_ACCUMULATORS } from './accumulators-stats';
import { fail, hasOwn } from './core';
import { REFUSED_ACCUMULATORS } from './refused';

/** Accumulators fed one value per document. `$count` is rewritten to `$sum: 1` by the stages. */
export const ACCUMULATORS: Readonly<Record<string, () => Accumulator>> = {
  ...BASIC_ACCUMULATORS,
  ...STDDEV_ACCUMULATORS,
};

const SPECIFIED: Readonly<Record<string, (arg: unknown, name: string) => AccumulatorFactory>> = {
  ...RANKED_ACCUMULATORS,
  ...QUANTILE_ACCUMULATORS,
};

/**
 * The factory of an accumulator that takes a specification ($topN, $percentile …), undefined for
 * the ones in ACCUMULATORS; a refused one ($accumulator) throws its error.
 */
export function accumulatorFactory(op: string, arg: unknown): AccumulatorFactory | undefined {
  const refused = REFUSED_ACCUMULATORS.find((r) => r.name === op);
  if (refused) fail(refused.code, refused.reason);
  return hasOwn.call(SPECIFIED, op) ? SPECIFIED[op](arg, op) : undefined;
}

/** Names of the accumulators $group, $bucket and $bucketAuto accept, sorted. */
export const ACCUMULATOR_NAMES: readonly string[] = [
  ...new Set([...Object.keys(ACCUMULATORS), ...Object.keys(SPECIFIED), '$count']),
].sort();
