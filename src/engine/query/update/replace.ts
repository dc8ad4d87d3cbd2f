/**
 * Whole-document replacement (replacement-style and pipeline-style updates): the new document
 * keeps the old `_id`, first, and may not change it.
 */
import { EngineError, ErrorCode } from '../../errors';
import { cloneValue } from '../../values/clone';
import { compareUnder } from '../../values/compare';
import { formatValue } from '../../values/format';
import type { Document } from '../../values/types';
import { setOwn } from './document-writer';

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * `replacement` in place of `doc`, with doc's `_id` first (or the replacement's when doc has
 * none); changing the `_id` is ImmutableField (66). Top-level `$` fields are refused (52) unless
 * `allowDollarFields` (a pipeline's result may hold them, as on mongod).
 */
export function replaceDocument(doc: Document, replacement: Document, opts: { allowDollarFields: boolean }): Document {
  if (!opts.allowDollarFields) checkTopLevelFields(replacement);
  const out: Document = {};
  const hasOldId = hasOwn.call(doc, '_id') && doc._id !== undefined;
  const hasNewId = hasOwn.call(replacement, '_id') && replacement._id !== undefined;
  if (hasOldId && hasNewId && compareUnder(null, doc._id, replacement._id) !== 0) {
    throw new EngineError(
      ErrorCode.ImmutableField,
      `After applying the update, the (immutable) field '_id' was found to have been altered to _id: ${formatValue(replacement._id)}`,
    );
  }
  if (hasOldId) out._id = doc._id;
  else if (hasNewId) out._id = cloneValue(replacement._id);
  for (const key of Object.keys(replacement)) {
    if (key === '_id') continue;
    setOwn(out, key, cloneValue(replacement[key]));
  }
  return out;
}

export function checkTopLevelFields(replacement: Document): void {
  for (const key of Object.keys(replacement)) {
    if (key.startsWith('$')) {
      throw new EngineError(
        ErrorCode.DollarPrefixedFieldName,
        `The dollar ($) prefixed field '${key}' in '${key}' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.`,
      );
    }
  }
}
