/**
 * `db.c.bulkWrite([...ops], {ordered})` as mongosh runs it through the Node driver: the operations
 * (insertOne, updateOne, updateMany, replaceOne, deleteOne, deleteMany) are checked, grouped into
 * insert / update / delete commands, and the replies folded into mongosh's BulkWriteResult. Ordered
 * (the default), consecutive operations of one kind make one command and the first error stops
 * everything after it; unordered, all inserts run, then all updates, then all deletes, and every
 * operation is tried. Write errors carry the index of the operation in the caller's list.
 */
import type { Document } from '../engine';

export interface BulkWriteResultShape {
  acknowledged: true;
  insertedCount: number;
  insertedIds: Record<string, unknown>;
  matchedCount: number;
  modifiedCount: number;
  deletedCount: number;
  upsertedCount: number;
  upsertedIds: Record<string, unknown>;
}

type Kind = 'insert' | 'update' | 'delete';

interface PlannedOp {
  /** Position in the caller's list. */
  index: number;
  kind: Kind;
  /** The insert's document, the update statement {q, u, ...} or the delete statement {q, limit}. */
  statement: Document;
}

/** What the bulk write needs from the collection it runs on. */
export interface BulkWriteHost {
  collection: string;
  run(command: Document): Document;
  /** The document with an `_id` (made as the driver does). */
  withId(doc: Document): Document;
  invalidArgument(message: string): Error;
  bulkWriteError(writeErrors: Document[], result: BulkWriteResultShape): Error;
}

const hasOwn = Object.prototype.hasOwnProperty;

function isDocument(v: unknown): v is Document {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function hasOperators(doc: Document): boolean {
  for (const key in doc) if (key.startsWith('$')) return true;
  return false;
}

/** Check one operation and turn it into its command statement, as the driver does before sending. */
function planOp(op: unknown, index: number, host: BulkWriteHost): PlannedOp {
  if (!isDocument(op) || Object.keys(op).length !== 1) {
    throw host.invalidArgument(
      `Invalid BulkWriteModel at index ${index}: each operation is one of {insertOne: {document}}, {updateOne: {filter, update}}, {updateMany: ...}, {replaceOne: {filter, replacement}}, {deleteOne: {filter}}, {deleteMany: {filter}}.`,
    );
  }
  const name = Object.keys(op)[0];
  const spec = op[name];
  if (!isDocument(spec)) throw host.invalidArgument(`${name} at index ${index} needs a document.`);
  const filterOf = (): Document => {
    const f = spec.filter ?? spec.q;
    if (!isDocument(f)) throw host.invalidArgument(`${name} at index ${index} needs a filter document.`);
    return f;
  };
  switch (name) {
    case 'insertOne': {
      // {insertOne: {document}}; the driver also takes {insertOne: <document>} (legacy form).
      const doc = hasOwn.call(spec, 'document') ? spec.document : spec;
      if (!isDocument(doc)) throw host.invalidArgument(`insertOne at index ${index} needs a document.`);
      return { index, kind: 'insert', statement: host.withId(doc) };
    }
    case 'updateOne':
    case 'updateMany': {
      const u = spec.update;
      if (Array.isArray(u)) {
        // a pipeline update: the engine answers for it
      } else if (!isDocument(u) || !hasOperators(u)) {
        throw host.invalidArgument('Update document requires atomic operators');
      }
      const statement: Document = { q: filterOf(), u, multi: name === 'updateMany', upsert: spec.upsert === true };
      for (const key of ['arrayFilters', 'hint', 'collation']) if (spec[key] !== undefined) statement[key] = spec[key];
      return { index, kind: 'update', statement };
    }
    case 'replaceOne': {
      const u = spec.replacement;
      if (!isDocument(u) || hasOperators(u))
        throw host.invalidArgument('Replacement document must not contain atomic operators');
      const statement: Document = { q: filterOf(), u, multi: false, upsert: spec.upsert === true };
      for (const key of ['hint', 'collation']) if (spec[key] !== undefined) statement[key] = spec[key];
      return { index, kind: 'update', statement };
    }
    case 'deleteOne':
    case 'deleteMany': {
      const statement: Document = { q: filterOf(), limit: name === 'deleteOne' ? 1 : 0 };
      for (const key of ['hint', 'collation']) if (spec[key] !== undefined) statement[key] = spec[key];
      return { index, kind: 'delete', statement };
    }
  }
  throw host.invalidArgument(`Invalid BulkWriteModel at index ${index}: unknown operation '${name}'.`);
}

/** Consecutive operations of one kind (ordered), or every operation of each kind (unordered). */
function batches(ops: PlannedOp[], ordered: boolean): PlannedOp[][] {
  if (!ordered) {
    const kinds: Kind[] = ['insert', 'update', 'delete'];
    return kinds.map((k) => ops.filter((op) => op.kind === k)).filter((b) => b.length > 0);
  }
  const out: PlannedOp[][] = [];
  for (const op of ops) {
    const last = out[out.length - 1];
    if (last && last[0].kind === op.kind) last.push(op);
    else out.push([op]);
  }
  return out;
}

function command(host: BulkWriteHost, batch: PlannedOp[], ordered: boolean, extra: Document): Document {
  const statements = batch.map((op) => op.statement);
  switch (batch[0].kind) {
    case 'insert':
      return { insert: host.collection, documents: statements, ordered, ...extra };
    case 'update':
      return { update: host.collection, updates: statements, ordered, ...extra };
    case 'delete':
      return { delete: host.collection, deletes: statements, ordered, ...extra };
  }
}

/** Run the bulk write; throws the host's MongoBulkWriteError when any operation failed. */
export function runBulkWrite(host: BulkWriteHost, operations: unknown, options: Document): BulkWriteResultShape {
  if (!Array.isArray(operations)) throw host.invalidArgument('bulkWrite() needs an array of operations.');
  if (operations.length === 0) throw host.invalidArgument('Invalid BulkOperation, Batch cannot be empty');
  const ordered = options.ordered !== false;
  const extra: Document = {};
  if (options.maxTimeMS !== undefined) extra.maxTimeMS = options.maxTimeMS;
  if (options.let !== undefined) extra.let = options.let;
  const planned = operations.map((op, i) => planOp(op, i, host));
  const result: BulkWriteResultShape = {
    acknowledged: true,
    insertedCount: 0,
    insertedIds: {},
    matchedCount: 0,
    modifiedCount: 0,
    deletedCount: 0,
    upsertedCount: 0,
    upsertedIds: {},
  };
  const writeErrors: Document[] = [];
  for (const batch of batches(planned, ordered)) {
    const reply = host.run(command(host, batch, ordered, extra));
    const errors = (reply.writeErrors as Document[] | undefined) ?? [];
    const failed = new Set(errors.map((e) => e.index as number));
    for (const e of errors) writeErrors.push({ ...e, index: batch[e.index as number].index });
    // Ordered, nothing after the first error ran.
    const ran = ordered && errors.length > 0 ? (errors[0].index as number) : batch.length;
    switch (batch[0].kind) {
      case 'insert':
        result.insertedCount += reply.n as number;
        for (let i = 0; i < ran; i++) {
          if (!failed.has(i)) result.insertedIds[String(batch[i].index)] = batch[i].statement._id;
        }
        break;
      case 'update': {
        const upserted = (reply.upserted as Document[] | undefined) ?? [];
        result.matchedCount += (reply.n as number) - upserted.length;
        result.modifiedCount += reply.nModified as number;
        result.upsertedCount += upserted.length;
        for (const u of upserted) result.upsertedIds[String(batch[u.index as number].index)] = u._id;
        break;
      }
      case 'delete':
        result.deletedCount += reply.n as number;
        break;
    }
    if (ordered && errors.length > 0) break;
  }
  if (writeErrors.length > 0) {
    writeErrors.sort((a, b) => (a.index as number) - (b.index as number));
    throw host.bulkWriteError(writeErrors, result);
  }
  return result;
}
