import type { Document } from '../values/types';

/**
 * A stored document and its record id. The rid orders documents in natural (insertion) order and
 * tells apart index entries with equal key values, like mongod's RecordId.
 */
export interface StoredRecord {
  readonly rid: number;
  doc: Document;
  /** Where the `_id` index's hash table holds the record: its home slot in the ObjectId table, or a mark (see IdTable). */
  idSlot: number;
}
