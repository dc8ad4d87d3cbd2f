/**
 * find's `$natural` sort and hint: a collection scan in natural order, forwards (1) or backwards
 * (-1). mongod's find parser accepts `$natural` only alone and only as 1 or -1, and a `$natural`
 * sort only beside no hint or the same-direction `$natural` hint; the checks and messages here
 * follow it. A `$natural` sort becomes the equivalent hint, so the planner has one way in.
 */
import { EngineError, ErrorCode } from '../errors';
import { toDouble } from '../values/numbers';
import { isNumeric, isPlainObject, type Document } from '../values/types';

export type NaturalDirection = 1 | -1;

/** The direction of a `{$natural: ±1}` document; undefined when it has no `$natural`; throws when it is malformed. */
function naturalOf(spec: unknown, what: 'sort' | 'hint'): NaturalDirection | undefined {
  if (!isPlainObject(spec) || !Object.prototype.hasOwnProperty.call(spec, '$natural')) return undefined;
  const value = spec.$natural;
  const n = isNumeric(value) ? toDouble(value) : NaN;
  if (Object.keys(spec).length !== 1 || (n !== 1 && n !== -1))
    throw new EngineError(ErrorCode.BadValue, `$natural ${what} cannot be set to a value other than -1 or 1.`);
  return n;
}

/** The scan direction a `$natural` hint asks for (undefined: no such hint). */
export function naturalHintDirection(hint: unknown): NaturalDirection | undefined {
  return naturalOf(hint, 'hint');
}

/**
 * The request with a `$natural` sort turned into its hint (and no sort), after mongod's checks;
 * unchanged when neither names `$natural`.
 */
export function resolveNaturalOrder<R extends { sort?: Document; hint?: unknown }>(request: R): R {
  const hinted = naturalOf(request.hint, 'hint');
  const sorted = naturalOf(request.sort, 'sort');
  if (sorted === undefined) return request;
  const hint = request.hint;
  const emptyHint = hint === undefined || (isPlainObject(hint) && Object.keys(hint).length === 0);
  if (!emptyHint && hinted === undefined)
    throw new EngineError(ErrorCode.BadValue, 'index hint not allowed with $natural sort order');
  if (hinted !== undefined && hinted !== sorted)
    throw new EngineError(ErrorCode.BadValue, '$natural hint must be in the same direction as $natural sort order');
  return { ...request, sort: undefined, hint: { $natural: sorted } };
}
