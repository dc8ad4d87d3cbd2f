import type { Document } from '../values/types';

/**
 * A stored document and its record id. The rid orders documents in natural (insertion) order and
 * tells apart index entries with equal key values, like mongod's RecordId.
 */
export interface StoredRecord {
  readonly rid: number;
  doc: Document;
  /** The `_id` index's hash key of the document's `_id`, while a Map of the index holds it (see IdTable). */
  idKey?: string | number;
  /** The ObjectId table's slot of the document's `_id` while it holds it, else -1 (see ObjectIdTable). */
  idSlot: number;
}
