/**
 * A find on a view runs as an aggregate, and mongod refuses the find options an aggregate has no
 * way to honour (InvalidPipelineOperator, 168) before it reads anything.
 */
import { ErrorCode, fail } from '../errors';
import { toDouble } from '../values/numbers';
import { isNumeric, isPlainObject, type Document } from '../values/types';

/** Options that only a find on a collection can take: set (true, or a non-empty document), they are refused. */
const FIND_ONLY = [
  'min',
  'max',
  'returnKey',
  'showRecordId',
  'noCursorTimeout',
  'allowPartialResults',
  'readOnce',
  'allowSpeculativeMajorityRead',
  '$_requestResumeToken',
  '$_resumeAfter',
];

function isSet(v: unknown): boolean {
  if (isPlainObject(v)) return Object.keys(v).length > 0;
  return v === true || (isNumeric(v) && toDouble(v) !== 0);
}

export function refuseFindOnlyOptionsOnView(cmd: Document): void {
  const refuse = (what: string): never =>
    fail(
      ErrorCode.InvalidPipelineOperator,
      `${what} not supported in aggregation: a find on a view runs as an aggregate; drop the option, or find on the collection the view reads.`,
    );
  for (const option of FIND_ONLY) if (isSet(cmd[option])) refuse(`Option ${option}`);
  if (isSet(cmd.tailable)) refuse('Tailable cursors are');
  // One exception: singleBatch with limit 1 (a findOne) is a $limit of 1.
  const limit = isNumeric(cmd.limit) ? toDouble(cmd.limit) : 0;
  if (isSet(cmd.singleBatch) && limit !== 1) refuse('Option singleBatch');
}
