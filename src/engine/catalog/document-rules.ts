/**
 * What a stored document must satisfy: an `_id` (added as a new ObjectId when absent, always the
 * first field), `_id` not an array, regex or undefined (nor holding `$` fields), at most 180 levels
 * of nesting, and at most 16 MiB of BSON.
 */
import { calculateObjectSize } from 'bson';
import { fail } from '../errors';
import { cloneForStorage, cloneSpreadForStorage } from '../values/clone';
import { checkStorageDepth } from '../values/depth';
import { bsonTypeOf, isPlainObject, objectIdAt, type Document } from '../values/types';

export const MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024;

export function validateIdValue(id: unknown): void {
  const t = bsonTypeOf(id);
  if (t === 'array' || t === 'regex' || t === 'undefined') {
    fail(
      'InvalidIdField',
      `The '_id' value cannot be of type ${t}: use a scalar such as an ObjectId, string, number or date.`,
    );
  }
  if (t === 'object') {
    for (const key of Object.keys(id as Document)) {
      if (key.startsWith('$'))
        fail(
          'DollarPrefixedFieldName',
          `_id fields may not contain '$'-prefixed fields: ${key} is not valid for storage.`,
        );
    }
  }
}

/** Copy a user document into its stored form, or throw what mongod would answer. */
export function prepareForInsert(input: unknown, options: { generateId: boolean; nowMs?: number }): Document {
  if (!isPlainObject(input)) fail('TypeMismatch', `Documents to insert must be objects, got ${bsonTypeOf(input)}.`);
  // Since 5.0, `$`-prefixed field names are allowed in inserted documents (not in _id).
  // _id always comes first: a generated one, or the given one moved to the front.
  const hasId = input._id !== undefined;
  if (hasId) validateIdValue(input._id);
  // An `_id` given as undefined is none: an id is generated, rather than the copy turning undefined
  // into a stored null. (The Node driver generates one for null too, before it sends the document;
  // a null that reaches the engine was sent on purpose, and is stored, as mongod stores it.)
  const fields = !hasId && Object.prototype.hasOwnProperty.call(input, '_id') ? withoutId(input) : input;
  const { doc: stored, sizeBound } =
    hasId && startsWithId(input)
      ? cloneSpreadForStorage(input)
      : cloneForStorage(
          fields,
          hasId ? { _id: null } : options.generateId ? { _id: objectIdAt(options.nowMs ?? Date.now()) } : {},
        );
  if (sizeBound > MAX_BSON_OBJECT_SIZE) {
    const size = calculateObjectSize(stored);
    if (size > MAX_BSON_OBJECT_SIZE) {
      fail(
        'BadValue',
        `object to insert too large. size in bytes: ${size}, max size: ${MAX_BSON_OBJECT_SIZE}. Split the document or move large values out of it.`,
      );
    }
  }
  return stored;
}

function withoutId(input: Document): Document {
  // Spread defines own properties, so even a "__proto__" field is copied as data.
  const rest: Document = { ...input };
  delete rest._id;
  return rest;
}

/** `_id` is the first field for-in meets, and no symbol keys would ride along in a spread. */
function startsWithId(doc: Document): boolean {
  for (const key in doc) {
    if (key !== '_id') return false;
    break;
  }
  return Object.getOwnPropertySymbols(doc).length === 0;
}

/** The size check for a document produced by an update (mongod: code 17419). */
export function checkUpdatedSize(doc: Document): void {
  // First: the size walk below recurses, and an update path can make a document of any depth.
  checkStorageDepth(doc, 'update');
  // An exact size costs about what a bound would (no copy is needed here).
  const size = calculateObjectSize(doc);
  if (size > MAX_BSON_OBJECT_SIZE) {
    fail(17419, `Resulting document after update is larger than ${MAX_BSON_OBJECT_SIZE} (${size} bytes).`);
  }
}
