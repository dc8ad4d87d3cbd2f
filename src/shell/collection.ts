/**
 * `db.<collection>`: mongosh's collection methods, each one engine command (or a cursor over one),
 * with mongosh 2.x's result shapes: insertOne → {acknowledged, insertedId}, createIndex → the
 * index name, updateOne → {acknowledged, insertedId, matchedCount, modifiedCount, upsertedCount},
 * and so on. Write errors are thrown as MongoServerError (MongoBulkWriteError for insertMany).
 */
import { objectIdAt, type Document } from '../engine';
import { runBulkWrite, type BulkWriteResultShape } from './bulk-write';
import { AggregationCursor, FindCursor, type FindSpec } from './cursor';
import { fullDepth, shellDisplay } from './render';
import type { DatabaseLike, ShellRuntime } from './runtime';
import { defaultIndexName } from '../engine/indexes/key-pattern';

/** Internal state under a symbol: invisible to scripts' Object.keys, EJSON and collection names. */
const STATE = Symbol('collectionState');

interface CollectionState {
  rt: ShellRuntime;
  db: DatabaseLike;
  dbName: string;
  name: string;
}

export interface UpdateResultShape {
  acknowledged: true;
  insertedId: unknown;
  matchedCount: number;
  modifiedCount: number;
  upsertedCount: number;
}

/** mongod's maxWriteBatchSize: the most documents one insert command may carry. */
const MAX_WRITE_BATCH = 100_000;

/** The driver's default index name (`a_1_b_-1`) is the engine's, which mongod uses too. */
export { defaultIndexName };

/**
 * The document with an `_id`, made here as the driver does so the result can name it. Like the
 * driver, the id is added to the caller's object (a second insert of it is a duplicate, as in
 * mongosh); a frozen object is copied instead.
 */
function withId(doc: Document, nowMs: number): Document {
  if (doc._id !== undefined) return doc;
  // Timestamped by the engine clock, so ids agree with virtual time.
  const id = objectIdAt(nowMs);
  if (Object.isExtensible(doc)) {
    doc._id = id;
    return doc;
  }
  return { ...doc, _id: id };
}

function hasOperators(doc: Document): boolean {
  for (const key in doc) if (key.startsWith('$')) return true;
  return false;
}

export class ShellCollection {
  declare private readonly [STATE]: CollectionState;

  constructor(rt: ShellRuntime, db: DatabaseLike, name: string) {
    Object.defineProperty(this, STATE, { value: { rt, db, dbName: db.getName(), name } });
  }

  // ---- helpers -----------------------------------------------------------------------------

  #run(command: Document): Document {
    const s = this[STATE];
    return s.rt.run(s.dbName, command);
  }

  #doc(value: unknown, what: string, method: string): Document {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw this[STATE].rt.errors.typeError(
        `${method}() needs ${what} as an object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}.`,
      );
    }
    return this[STATE].rt.in(value as Document);
  }

  #optionalDoc(value: unknown, what: string, method: string): Document | undefined {
    return value === undefined || value === null ? undefined : this.#doc(value, what, method);
  }

  #throwWriteErrors(reply: Document): void {
    const errors = reply.writeErrors as Document[] | undefined;
    if (errors && errors.length > 0) throw this[STATE].rt.errors.writeError(this[STATE].rt.out(errors[0]));
  }

  #invalidArgument(message: string): Error {
    return this[STATE].rt.errors.error(message, 'MongoInvalidArgumentError');
  }

  // ---- identity ----------------------------------------------------------------------------

  getName(): string {
    return this[STATE].name;
  }

  getFullName(): string {
    return `${this[STATE].dbName}.${this[STATE].name}`;
  }

  getDB(): DatabaseLike {
    return this[STATE].db;
  }

  toString(): string {
    return this.getFullName();
  }

  [shellDisplay](): string {
    return this.getFullName();
  }

  // ---- writes ------------------------------------------------------------------------------

  insertOne(doc: unknown, _options?: unknown): { acknowledged: true; insertedId: unknown } {
    const s = this[STATE];
    const d = withId(this.#doc(doc, 'a document', 'insertOne'), s.rt.engine.clock.now());
    const reply = s.rt.run(s.dbName, { insert: s.name, documents: [d] });
    if (reply.writeErrors !== undefined) this.#throwWriteErrors(reply);
    return { acknowledged: true, insertedId: d._id };
  }

  insertMany(docs: unknown, options?: unknown): { acknowledged: true; insertedIds: Record<string, unknown> } {
    if (!Array.isArray(docs)) throw this[STATE].rt.errors.typeError('insertMany() needs an array of documents.');
    if (docs.length === 0)
      throw this[STATE].rt.errors.error(
        'Invalid BulkOperation, Batch cannot be empty: pass insertMany() at least one document.',
        'MongoInvalidArgumentError',
      );
    const opts = this.#optionalDoc(options, 'options', 'insertMany') ?? {};
    const nowMs = this[STATE].rt.engine.clock.now();
    const prepared = docs.map((doc) => withId(this.#doc(doc, 'documents', 'insertMany'), nowMs));
    const ordered = opts.ordered !== false;
    // The driver splits a large insertMany into batches the server takes (maxWriteBatchSize), and
    // so does the shell: the error indexes stay those of the whole array.
    let insertedCount = 0;
    const writeErrors: Document[] = [];
    for (let start = 0; start === 0 || start < prepared.length; start += MAX_WRITE_BATCH) {
      const documents = prepared.length > MAX_WRITE_BATCH ? prepared.slice(start, start + MAX_WRITE_BATCH) : prepared;
      const reply = this.#run({ insert: this[STATE].name, documents, ordered, ...timeLimitOf(opts) });
      insertedCount += reply.n as number;
      const errors = (reply.writeErrors as Document[] | undefined) ?? [];
      for (const e of errors) writeErrors.push(start === 0 ? e : { ...e, index: (e.index as number) + start });
      if (ordered && errors.length > 0) break;
    }
    if (writeErrors.length > 0) {
      const failed = new Set(writeErrors.map((e) => e.index as number));
      const last = ordered ? (writeErrors[0].index as number) : prepared.length;
      const insertedIds: Record<string, unknown> = {};
      for (let i = 0; i < last; i++) if (!failed.has(i)) insertedIds[String(i)] = prepared[i]._id;
      throw this[STATE].rt.errors.bulkWriteError(this[STATE].rt.out(writeErrors), {
        insertedCount,
        insertedIds,
      });
    }
    const insertedIds: Record<string, unknown> = {};
    prepared.forEach((d, i) => (insertedIds[String(i)] = d._id));
    return { acknowledged: true, insertedIds };
  }

  #update(
    method: string,
    filter: unknown,
    update: unknown,
    options: unknown,
    multi: boolean,
    replacement: boolean,
  ): UpdateResultShape {
    const q = this.#doc(filter, 'a filter', method);
    let u: unknown;
    if (Array.isArray(update) && !replacement) {
      u = this[STATE].rt.in(update); // a pipeline update: the engine answers for it
    } else {
      const d = this.#doc(update, replacement ? 'a replacement document' : 'an update', method);
      if (replacement && hasOperators(d))
        throw this.#invalidArgument(
          'Replacement document must not contain atomic operators: use updateOne() to apply update operators.',
        );
      if (!replacement && !hasOperators(d))
        throw this.#invalidArgument(
          'Update document requires atomic operators such as $set: use replaceOne() to replace the whole document.',
        );
      u = d;
    }
    const opts = this.#optionalDoc(options, 'options', method) ?? {};
    const statement: Document = { q, u, multi, upsert: opts.upsert === true };
    if (opts.hint !== undefined) statement.hint = opts.hint;
    if (opts.arrayFilters !== undefined) statement.arrayFilters = opts.arrayFilters;
    if (opts.collation !== undefined) statement.collation = opts.collation;
    const reply = this.#run({ update: this[STATE].name, updates: [statement], ...timeLimitOf(opts) });
    this.#throwWriteErrors(reply);
    const upserted = reply.upserted as Document[] | undefined;
    return {
      acknowledged: true,
      insertedId: upserted && upserted.length ? this[STATE].rt.out(upserted[0]._id) : null,
      matchedCount: upserted && upserted.length ? 0 : (reply.n as number),
      modifiedCount: reply.nModified as number,
      upsertedCount: upserted ? upserted.length : 0,
    };
  }

  updateOne(filter: unknown, update: unknown, options?: unknown): UpdateResultShape {
    return this.#update('updateOne', filter, update, options, false, false);
  }

  updateMany(filter: unknown, update: unknown, options?: unknown): UpdateResultShape {
    return this.#update('updateMany', filter, update, options, true, false);
  }

  replaceOne(filter: unknown, replacement: unknown, options?: unknown): UpdateResultShape {
    return this.#update('replaceOne', filter, replacement, options, false, true);
  }

  #remove(
    method: string,
    filter: unknown,
    options: unknown,
    limit: 0 | 1,
  ): { acknowledged: true; deletedCount: number } {
    const q = this.#doc(filter ?? {}, 'a filter', method);
    const opts = this.#optionalDoc(options, 'options', method) ?? {};
    const statement: Document = { q, limit };
    if (opts.hint !== undefined) statement.hint = opts.hint;
    if (opts.collation !== undefined) statement.collation = opts.collation;
    const reply = this.#run({ delete: this[STATE].name, deletes: [statement], ...timeLimitOf(opts) });
    this.#throwWriteErrors(reply);
    return { acknowledged: true, deletedCount: reply.n as number };
  }

  deleteOne(filter: unknown, options?: unknown): { acknowledged: true; deletedCount: number } {
    return this.#remove('deleteOne', filter, options, 1);
  }

  deleteMany(filter: unknown, options?: unknown): { acknowledged: true; deletedCount: number } {
    return this.#remove('deleteMany', filter, options, 0);
  }

  /**
   * bulkWrite([{insertOne: {document}}, {updateOne: {filter, update}}, ...], {ordered}): mongosh's
   * BulkWriteResult, or a MongoBulkWriteError whose writeErrors carry each operation's index.
   */
  bulkWrite(operations: unknown, options?: unknown): BulkWriteResultShape {
    const s = this[STATE];
    const opts = this.#optionalDoc(options, 'options', 'bulkWrite') ?? {};
    const nowMs = s.rt.engine.clock.now();
    const result = runBulkWrite(
      {
        collection: s.name,
        run: (command) => s.rt.run(s.dbName, command),
        withId: (doc) => withId(doc, nowMs),
        invalidArgument: (message) => this.#invalidArgument(message),
        bulkWriteError: (writeErrors, partial) =>
          s.rt.errors.bulkWriteError(s.rt.out(writeErrors), s.rt.out(partial as unknown as Document)),
      },
      Array.isArray(operations) ? s.rt.in(operations) : operations,
      opts,
    );
    return s.rt.out(result);
  }

  /** Legacy insert(doc | docs), kept because older snippets use it. */
  insert(docs: unknown, options?: unknown): { acknowledged: true; insertedIds: Record<string, unknown> } {
    this[STATE].rt.deprecated('Collection.insert', 'insertOne, insertMany, or bulkWrite');
    return this.insertMany(Array.isArray(docs) ? docs : [docs], options);
  }

  /** Legacy update(filter, update, { upsert, multi }). */
  update(filter: unknown, update: unknown, options?: unknown): UpdateResultShape {
    this[STATE].rt.deprecated('Collection.update', 'updateOne, updateMany, or bulkWrite');
    const opts = this.#optionalDoc(options, 'options', 'update') ?? {};
    const replacement =
      !Array.isArray(update) && update !== null && typeof update === 'object' && !hasOperators(update as Document);
    return this.#update('update', filter, update, opts, opts.multi === true, replacement);
  }

  /** Legacy remove(filter, justOne | { justOne }). */
  remove(filter: unknown, justOne?: unknown): { acknowledged: true; deletedCount: number } {
    this[STATE].rt.deprecated('Collection.remove', 'deleteOne, deleteMany, findOneAndDelete, or bulkWrite');
    const one =
      justOne === true || (justOne !== null && typeof justOne === 'object' && (justOne as Document).justOne === true);
    return this.#remove('remove', filter, undefined, one ? 1 : 0);
  }

  #findAndModify(method: string, filter: unknown, options: unknown, change: Document): unknown {
    const query = this.#doc(filter ?? {}, 'a filter', method);
    const opts = this.#optionalDoc(options, 'options', method) ?? {};
    const cmd: Document = { findAndModify: this[STATE].name, query, ...change };
    if (opts.sort !== undefined) cmd.sort = opts.sort;
    if (opts.projection !== undefined) cmd.fields = opts.projection;
    if (opts.hint !== undefined) cmd.hint = opts.hint;
    if (opts.collation !== undefined) cmd.collation = opts.collation;
    if (opts.arrayFilters !== undefined && !change.remove) cmd.arrayFilters = opts.arrayFilters;
    Object.assign(cmd, timeLimitOf(opts));
    if (!change.remove) {
      cmd.upsert = opts.upsert === true;
      cmd.new = opts.returnDocument === 'after' || opts.returnNewDocument === true;
    }
    const reply = this.#run(cmd);
    return reply.value === undefined || reply.value === null ? null : this[STATE].rt.out(reply.value);
  }

  findOneAndUpdate(filter: unknown, update: unknown, options?: unknown): unknown {
    let u: unknown;
    if (Array.isArray(update)) u = this[STATE].rt.in(update);
    else {
      const d = this.#doc(update, 'an update', 'findOneAndUpdate');
      if (!hasOperators(d))
        throw this.#invalidArgument(
          'Update document requires atomic operators such as $set: use findOneAndReplace() to replace the whole document.',
        );
      u = d;
    }
    return this.#findAndModify('findOneAndUpdate', filter, options, { update: u });
  }

  findOneAndReplace(filter: unknown, replacement: unknown, options?: unknown): unknown {
    const d = this.#doc(replacement, 'a replacement document', 'findOneAndReplace');
    if (hasOperators(d))
      throw this.#invalidArgument(
        'Replacement document must not contain atomic operators: use findOneAndUpdate() to apply update operators.',
      );
    return this.#findAndModify('findOneAndReplace', filter, options, { update: d });
  }

  findOneAndDelete(filter: unknown, options?: unknown): unknown {
    return this.#findAndModify('findOneAndDelete', filter, options, { remove: true });
  }

  // ---- reads -------------------------------------------------------------------------------

  find(filter?: unknown, projection?: unknown, options?: unknown): FindCursor {
    const s = this[STATE];
    const opts = this.#optionalDoc(options, 'options', 'find') ?? {};
    const spec: FindSpec = { filter: this.#optionalDoc(filter, 'a filter', 'find') ?? {} };
    const proj = this.#optionalDoc(projection, 'a projection', 'find') ?? (opts.projection as Document | undefined);
    if (proj !== undefined) spec.projection = proj;
    if (opts.sort !== undefined) spec.sort = opts.sort as Document;
    if (typeof opts.skip === 'number') spec.skip = opts.skip;
    if (typeof opts.limit === 'number') spec.limit = opts.limit;
    if (opts.hint !== undefined) spec.hint = opts.hint;
    const cursor = new FindCursor(s.rt, s.dbName, s.name, spec);
    if (typeof opts.batchSize === 'number') cursor.batchSize(opts.batchSize);
    if (opts.collation !== undefined) cursor.collation(opts.collation);
    if (opts.maxTimeMS !== undefined) cursor.maxTimeMS(opts.maxTimeMS);
    return cursor;
  }

  findOne(filter?: unknown, projection?: unknown, options?: unknown): unknown {
    const opts = this.#optionalDoc(options, 'options', 'findOne') ?? {};
    const cmd: Document = {
      find: this[STATE].name,
      filter: this.#optionalDoc(filter, 'a filter', 'findOne') ?? {},
      limit: 1,
      singleBatch: true,
    };
    const proj = this.#optionalDoc(projection, 'a projection', 'findOne') ?? opts.projection;
    if (proj !== undefined) cmd.projection = proj;
    if (opts.sort !== undefined) cmd.sort = opts.sort;
    if (typeof opts.skip === 'number') cmd.skip = opts.skip;
    if (opts.hint !== undefined) cmd.hint = opts.hint;
    if (opts.collation !== undefined) cmd.collation = opts.collation;
    Object.assign(cmd, timeLimitOf(opts));
    const batch = (this.#run(cmd).cursor as Document).firstBatch as Document[];
    return batch.length ? this[STATE].rt.out(batch[0]) : null;
  }

  /**
   * The driver's countDocuments: an aggregation ($match, $skip, $limit, $group), not the count
   * command, so it works inside a transaction (where mongod refuses count) as in mongosh.
   */
  countDocuments(filter?: unknown, options?: unknown): number {
    const opts = this.#optionalDoc(options, 'options', 'countDocuments') ?? {};
    const pipeline: Document[] = [{ $match: this.#optionalDoc(filter, 'a filter', 'countDocuments') ?? {} }];
    if (opts.skip !== undefined) pipeline.push({ $skip: opts.skip });
    if (opts.limit !== undefined) pipeline.push({ $limit: opts.limit });
    pipeline.push({ $group: { _id: 1, n: { $sum: 1 } } });
    const cmd: Document = { aggregate: this[STATE].name, pipeline, cursor: {} };
    if (opts.hint !== undefined) cmd.hint = opts.hint;
    if (opts.collation !== undefined) cmd.collation = opts.collation;
    Object.assign(cmd, timeLimitOf(opts));
    const first = ((this.#run(cmd).cursor as Document).firstBatch as Document[])[0];
    return first === undefined ? 0 : Number(first.n);
  }

  /** The collection's document count from metadata (the count command without a query). */
  estimatedDocumentCount(_options?: unknown): number {
    return this.#run({ count: this[STATE].name }).n as number;
  }

  /** The deprecated count(): like countDocuments. */
  count(filter?: unknown, options?: unknown): number {
    this[STATE].rt.deprecated('Collection.count', 'countDocuments or estimatedDocumentCount');
    return this.countDocuments(filter, options);
  }

  distinct(key: unknown, filter?: unknown, options?: unknown): unknown[] {
    if (typeof key !== 'string')
      throw this[STATE].rt.errors.typeError('distinct() needs a field name, e.g. distinct("status").');
    const opts = this.#optionalDoc(options, 'options', 'distinct') ?? {};
    const reply = this.#run({
      distinct: this[STATE].name,
      key,
      query: this.#optionalDoc(filter, 'a filter', 'distinct') ?? {},
      ...(opts.collation !== undefined ? { collation: opts.collation } : {}),
      ...timeLimitOf(opts),
    });
    return this[STATE].rt.out(reply.values as unknown[]);
  }

  /** aggregate([stages], options) or aggregate(stage1, stage2, …). */
  aggregate(...args: unknown[]): AggregationCursor | Document {
    const s = this[STATE];
    let pipeline: unknown[];
    let options: Document = {};
    if (Array.isArray(args[0])) {
      pipeline = args[0];
      options = this.#optionalDoc(args[1], 'options', 'aggregate') ?? {};
    } else {
      pipeline = args;
    }
    const stages = pipeline.map((stage) => this.#doc(stage, 'each pipeline stage', 'aggregate'));
    if (options.explain) {
      const { explain: _explain, ...rest } = options;
      const reply = s.rt.out(
        this.#run({ explain: { aggregate: s.name, pipeline: stages, cursor: {}, ...rest }, verbosity: 'queryPlanner' }),
      );
      fullDepth.add(reply);
      return reply;
    }
    return new AggregationCursor(s.rt, s.dbName, s.name, stages, options);
  }

  /** mongosh's latencyStats(options): the $collStats latencyStats of this collection or view, as a cursor. */
  latencyStats(options?: unknown): AggregationCursor | Document {
    const latencyStats = this.#optionalDoc(options, 'options', 'latencyStats') ?? {};
    return this.aggregate([{ $collStats: { latencyStats } }]);
  }

  // ---- indexes -----------------------------------------------------------------------------

  /** Creates one index; returns its name, as mongosh does. */
  createIndex(keys: unknown, options?: unknown, _commitQuorum?: unknown): string {
    const key = this.#doc(keys, 'an index key pattern', 'createIndex');
    const opts = this.#optionalDoc(options, 'options', 'createIndex') ?? {};
    const name = typeof opts.name === 'string' ? opts.name : defaultIndexName(key);
    this.#run({ createIndexes: this[STATE].name, indexes: [{ key, name, ...opts }] });
    return name;
  }

  /** mongosh's createIndexes: key patterns (not full specs), options applied to each; returns the names. */
  createIndexes(keyPatterns: unknown, options?: unknown, _commitQuorum?: unknown): string[] {
    if (!Array.isArray(keyPatterns))
      throw this[STATE].rt.errors.typeError(
        'createIndexes() needs an array of key patterns, e.g. createIndexes([{ a: 1 }, { b: -1 }]).',
      );
    const opts = this.#optionalDoc(options, 'options', 'createIndexes') ?? {};
    const specs = keyPatterns.map((k) => {
      const key = this.#doc(k, 'key patterns', 'createIndexes');
      return { key, name: defaultIndexName(key), ...opts };
    });
    this.#run({ createIndexes: this[STATE].name, indexes: specs });
    return specs.map((s) => s.name);
  }

  getIndexes(): Document[] {
    const s = this[STATE];
    const reply = this.#run({ listIndexes: s.name, cursor: {} });
    const cursor = reply.cursor as Document;
    const out = [...(cursor.firstBatch as Document[])];
    let id = cursor.id;
    while (id && !(id as { isZero?: () => boolean }).isZero?.()) {
      const more = this.#run({ getMore: id, collection: s.name }).cursor as Document;
      out.push(...(more.nextBatch as Document[]));
      id = more.id;
    }
    return s.rt.out(out);
  }

  getIndexSpecs(): Document[] {
    return this.getIndexes();
  }

  getIndexKeys(): Document[] {
    return this.getIndexes().map((i) => i.key as Document);
  }

  /** Hides an index from the query planner (it stays maintained, and a TTL index keeps expiring). */
  hideIndex(index: unknown): Document {
    return this.#setHidden('hideIndex', index, true);
  }

  unhideIndex(index: unknown): Document {
    return this.#setHidden('unhideIndex', index, false);
  }

  /** mongosh's (un)hideIndex: collMod by name or key pattern; the reply says hidden_old and hidden_new. */
  #setHidden(method: string, index: unknown, hidden: boolean): Document {
    const which =
      typeof index === 'string'
        ? { name: index }
        : { keyPattern: this.#doc(index, 'an index name or key pattern', method) };
    return this[STATE].rt.out(this.#run({ collMod: this[STATE].name, index: { ...which, hidden } }));
  }

  dropIndex(index: unknown): Document {
    if (index === '*')
      throw this.#invalidArgument(
        "To drop every index except _id, use dropIndexes(); dropIndex('*') is refused as in mongosh.",
      );
    if (Array.isArray(index))
      throw this.#invalidArgument('dropIndex() drops one index: use dropIndexes([...names]) for several.');
    if (typeof index !== 'string') this.#doc(index, 'an index name or key pattern', 'dropIndex');
    return this[STATE].rt.out(this.#run({ dropIndexes: this[STATE].name, index: this[STATE].rt.in(index) }));
  }

  dropIndexes(indexes: unknown = '*'): Document {
    return this[STATE].rt.out(this.#run({ dropIndexes: this[STATE].name, index: this[STATE].rt.in(indexes) }));
  }

  // ---- collection ----------------------------------------------------------------------------

  /** true once the collection is gone (mongod 7.0+ drops a missing collection without error). */
  drop(): boolean {
    return this.#run({ drop: this[STATE].name }).ok === 1;
  }

  stats(options?: unknown): Document {
    const opts = this.#optionalDoc(options, 'options', 'stats') ?? {};
    // mongosh reads stats through $collStats, which fails on a missing collection (26, what it
    // prints); the collStats command answers zeroes there, as mongod's does.
    if (!this.exists())
      this.#run({ aggregate: this[STATE].name, pipeline: [{ $collStats: { storageStats: {} } }], cursor: {} });
    return this[STATE].rt.out(this.#run({ collStats: this[STATE].name, ...opts }));
  }

  /** mongosh's validate({full}) (a boolean is the legacy form of `full`). */
  validate(options?: unknown): Document {
    const opts =
      typeof options === 'boolean' ? { full: options } : (this.#optionalDoc(options, 'options', 'validate') ?? {});
    return this[STATE].rt.out(this.#run({ validate: this[STATE].name, ...opts }));
  }

  renameCollection(newName: unknown, dropTarget?: unknown): Document {
    const s = this[STATE];
    if (typeof newName !== 'string') throw s.rt.errors.typeError('renameCollection() needs the new name as a string.');
    return s.rt.out(
      s.rt.run('admin', {
        renameCollection: `${s.dbName}.${s.name}`,
        to: `${s.dbName}.${newName}`,
        dropTarget: dropTarget === true,
      }),
    );
  }

  isCapped(): boolean {
    const options = this.exists()?.options as Document | undefined;
    return options?.capped === true;
  }

  exists(): Document | null {
    const s = this[STATE];
    const reply = this.#run({ listCollections: 1, filter: { name: s.name }, cursor: {} });
    const batch = (reply.cursor as Document).firstBatch as Document[];
    return batch.length ? s.rt.out(batch[0]) : null;
  }
}

/** A command's `maxTimeMS` from mongosh-style options (the engine validates the value). */
function timeLimitOf(opts: Document): Document {
  return opts.maxTimeMS === undefined ? {} : { maxTimeMS: opts.maxTimeMS };
}
