/**
 * The typed convenience API, `engine.db("app").collection("events").insertOne(...)`: a thin layer
 * that builds commands and reads their replies, so it behaves exactly like runCommand (and so like
 * the shell, the tree and a wire client). Results are shaped like the Node driver's.
 */
import type { EngineContext } from '../engine-context';
import { EngineError } from '../errors';
import { defaultIndexName } from '../indexes/key-pattern';
import { toDouble } from '../values/numbers';
import { objectIdAt, type Document } from '../values/types';

export interface FindOptions {
  projection?: Document;
  sort?: Document;
  skip?: number;
  limit?: number;
  hint?: string | Document;
  batchSize?: number;
  singleBatch?: boolean;
}

export interface UpdateResult {
  matchedCount: number;
  modifiedCount: number;
  upsertedCount: number;
  upsertedId: unknown;
}

/** Throw the first write error of a reply the way the driver does for single-statement writes. */
function throwWriteErrors(reply: Document): void {
  const errors = reply.writeErrors as Document[] | undefined;
  if (!errors || errors.length === 0) return;
  const first = errors[0];
  const { index: _index, code, errmsg, codeName: _codeName, ...info } = first;
  throw new EngineError(code as number, errmsg as string, { ...info, writeErrors: errors, nInserted: reply.n });
}

export class CollectionHandle {
  constructor(
    private readonly engine: EngineContext,
    readonly dbName: string,
    readonly name: string,
  ) {}

  private run(cmd: Document): Document {
    return this.engine.runCommand(this.dbName, cmd);
  }

  /** Drain a cursor reply (first batch plus getMore) into an array. */
  private drain(reply: Document): Document[] {
    const cursor = reply.cursor as Document;
    const out = [...(cursor.firstBatch as Document[])];
    let id = cursor.id;
    while (id && toDouble(id) !== 0) {
      const more = this.run({ getMore: id, collection: this.name }).cursor as Document;
      out.push(...(more.nextBatch as Document[]));
      id = more.id;
    }
    return out;
  }

  /** Like the driver, the handle assigns a missing _id itself so it can return insertedId. */
  insertOne(doc: Document): { acknowledged: true; insertedId: unknown } {
    const withId = doc._id === undefined ? { _id: objectIdAt(this.engine.clock.now()), ...doc } : doc;
    const reply = this.run({ insert: this.name, documents: [withId] });
    throwWriteErrors(reply);
    return { acknowledged: true, insertedId: withId._id };
  }

  insertMany(docs: Document[], options: { ordered?: boolean } = {}): { acknowledged: true; insertedCount: number } {
    const reply = this.run({ insert: this.name, documents: docs, ordered: options.ordered ?? true });
    throwWriteErrors(reply);
    return { acknowledged: true, insertedCount: reply.n as number };
  }

  find(filter: Document = {}, options: FindOptions = {}): Document[] {
    return this.drain(this.run({ find: this.name, filter, ...options }));
  }

  findOne(filter: Document = {}, options: FindOptions = {}): Document | null {
    const [doc] = this.find(filter, { ...options, limit: 1, singleBatch: true });
    return doc ?? null;
  }

  countDocuments(filter: Document = {}): number {
    return this.run({ count: this.name, query: filter }).n as number;
  }

  distinct(key: string, filter: Document = {}): unknown[] {
    return this.run({ distinct: this.name, key, query: filter }).values as unknown[];
  }

  aggregate(pipeline: Document[]): Document[] {
    return this.drain(this.run({ aggregate: this.name, pipeline, cursor: {} }));
  }

  private updateCmd(q: Document, u: unknown, multi: boolean, upsert: boolean): UpdateResult {
    const reply = this.run({ update: this.name, updates: [{ q, u, multi, upsert }] });
    throwWriteErrors(reply);
    const upserted = reply.upserted as Document[] | undefined;
    return {
      matchedCount: upserted ? 0 : (reply.n as number),
      modifiedCount: reply.nModified as number,
      upsertedCount: upserted ? upserted.length : 0,
      upsertedId: upserted ? upserted[0]._id : null,
    };
  }

  updateOne(filter: Document, update: Document, options: { upsert?: boolean } = {}): UpdateResult {
    return this.updateCmd(filter, update, false, options.upsert ?? false);
  }

  updateMany(filter: Document, update: Document, options: { upsert?: boolean } = {}): UpdateResult {
    return this.updateCmd(filter, update, true, options.upsert ?? false);
  }

  replaceOne(filter: Document, replacement: Document, options: { upsert?: boolean } = {}): UpdateResult {
    return this.updateCmd(filter, replacement, false, options.upsert ?? false);
  }

  deleteOne(filter: Document): { acknowledged: true; deletedCount: number } {
    const reply = this.run({ delete: this.name, deletes: [{ q: filter, limit: 1 }] });
    throwWriteErrors(reply);
    return { acknowledged: true, deletedCount: reply.n as number };
  }

  deleteMany(filter: Document): { acknowledged: true; deletedCount: number } {
    const reply = this.run({ delete: this.name, deletes: [{ q: filter, limit: 0 }] });
    throwWriteErrors(reply);
    return { acknowledged: true, deletedCount: reply.n as number };
  }

  findOneAndUpdate(
    filter: Document,
    update: Document,
    options: { sort?: Document; upsert?: boolean; returnDocument?: 'before' | 'after'; projection?: Document } = {},
  ): Document | null {
    const reply = this.run({
      findAndModify: this.name,
      query: filter,
      update,
      sort: options.sort,
      upsert: options.upsert ?? false,
      new: options.returnDocument === 'after',
      fields: options.projection,
    });
    return (reply.value as Document | null) ?? null;
  }

  findOneAndDelete(filter: Document, options: { sort?: Document } = {}): Document | null {
    return (
      (this.run({ findAndModify: this.name, query: filter, remove: true, sort: options.sort })
        .value as Document | null) ?? null
    );
  }

  /** Creates one index; returns its name, like the driver and mongosh. */
  createIndex(key: Document, options: Document = {}): string {
    const spec = { key, name: options.name ?? defaultIndexName(key), ...options };
    this.run({ createIndexes: this.name, indexes: [spec] });
    return spec.name as string;
  }

  createIndexes(specs: Document[]): string[] {
    const full = specs.map((s) => ({ ...s, name: s.name ?? defaultIndexName(s.key as Document) }));
    this.run({ createIndexes: this.name, indexes: full });
    return full.map((s) => s.name as string);
  }

  listIndexes(): Document[] {
    return this.drain(this.run({ listIndexes: this.name, cursor: {} }));
  }

  dropIndex(nameOrKey: string | Document): Document {
    return this.run({ dropIndexes: this.name, index: nameOrKey });
  }

  dropIndexes(): Document {
    return this.run({ dropIndexes: this.name, index: '*' });
  }

  drop(): boolean {
    const existed = this.engine.getCollection(this.dbName, this.name) !== undefined;
    this.run({ drop: this.name });
    return existed;
  }

  explain(filter: Document = {}, options: FindOptions = {}, verbosity = 'executionStats'): Document {
    return this.run({ explain: { find: this.name, filter, ...options }, verbosity });
  }
}

export class DatabaseHandle {
  constructor(
    private readonly engine: EngineContext,
    readonly name: string,
  ) {}

  collection(name: string): CollectionHandle {
    return new CollectionHandle(this.engine, this.name, name);
  }

  runCommand(cmd: Document): Document {
    return this.engine.runCommand(this.name, cmd);
  }

  createCollection(name: string, options: Document = {}): CollectionHandle {
    this.runCommand({ create: name, ...options });
    return this.collection(name);
  }

  listCollections(filter: Document = {}): Document[] {
    const reply = this.runCommand({ listCollections: 1, filter, cursor: {} });
    return (reply.cursor as Document).firstBatch as Document[];
  }

  collectionNames(): string[] {
    return this.listCollections().map((c) => c.name as string);
  }

  dropDatabase(): Document {
    return this.runCommand({ dropDatabase: 1 });
  }
}
