/**
 * Whole-document replacement (replacement-style and pipeline-style updates): the new document
 * has `_id` first, and may not change its value.
 */
import { EngineError, ErrorCode } from '../../errors';
import { cloneValue } from '../../values/clone';
import { compareUnder } from '../../values/compare';
import { formatValue } from '../../values/format';
import type { Document } from '../../values/types';
import { setOwn } from './document-writer';

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * `replacement` in place of `doc`, `_id` first: the replacement's own when it has one (as mongod
 * stores it: an `_id` equal in value but of another type, 1 for NumberInt(1), is the replacement's),
 * else doc's. An `_id` that differs in value is ImmutableField (66). An `_id` given as undefined is
 * null, as everywhere in a stored document (the Node driver's serialization). Top-level `$` fields
 * are refused (52) unless `allowDollarFields` (a pipeline's result may hold them, as on mongod).
 */
export function replaceDocument(doc: Document, replacement: Document, opts: { allowDollarFields: boolean }): Document {
  if (!opts.allowDollarFields) checkTopLevelFields(replacement);
  const replacesId = hasOwn.call(replacement, '_id');
  if (replacesId && hasOwn.call(doc, '_id')) {
    const newId = cloneValue(replacement._id);
    if (compareUnder(null, doc._id, newId) !== 0) {
      throw new EngineError(
        ErrorCode.ImmutableField,
        `After applying the update, the (immutable) field '_id' was found to have been altered to _id: ${formatValue(newId)}`,
      );
    }
  }
  // The placeholder keeps _id first; the loop writes the replacement's value into it.
  const out: Document = replacesId ? { _id: null } : hasOwn.call(doc, '_id') ? { _id: doc._id } : {};
  for (const key of Object.keys(replacement)) setOwn(out, key, cloneValue(replacement[key]));
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
