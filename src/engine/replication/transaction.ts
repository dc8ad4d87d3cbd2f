/**
 * One multi-document transaction. Its commands run on an engine of its own (the scratch engine)
 * that holds each database the transaction touches as it was at the transaction's first
 * operation, so its reads see that snapshot plus its own writes, and no one else sees them. Its
 * writes are checked as they happen: a document that another writer changed after the snapshot,
 * or that another open transaction has written, is a WriteConflict (112). Commit replays the
 * transaction's changes on the engine in order, as one commit: one journal frame, one cluster
 * time shared by its oplog entries; a conflict found then (a non-transactional write went first,
 * or a unique key taken meanwhile) undoes what was replayed and fails the commit.
 */
import { Binary, Long } from 'bson';
import type { Collection } from '../catalog/collection';
import type { EngineContext } from '../engine-context';
import { EngineError, fail } from '../errors';
import type { Document } from '../values/types';
import { documentKey, namespacedKey } from './document-key';
import type { Oplog, OplogEntry } from './oplog';
import { copyDatabaseAt, copyIndexes } from './snapshot-copy';
import { uniqueKeysOf } from './unique-keys';

export interface ScratchEngine {
  readonly engine: EngineContext;
  readonly oplog: Oplog;
  close(): void;
}

export interface TransactionHost {
  readonly main: EngineContext;
  readonly oplog: Oplog;
  newScratch(): ScratchEngine;
  /** Whether another open transaction has written this document (namespacedKey). */
  writtenByOther(tx: Transaction, key: string): boolean;
  /** Whether another open transaction has written this unique index key (uniqueKeysOf). */
  uniqueKeyWrittenByOther(tx: Transaction, key: string): boolean;
}

export const TRANSIENT = { errorLabels: ['TransientTransactionError'] };

/** Commands a transaction may run (mongod 8.0's list, less what needs sharding). */
const ALLOWED = new Set([
  'find',
  'getMore',
  'killCursors',
  'aggregate',
  'distinct',
  'insert',
  'update',
  'delete',
  'findAndModify',
  'bulkWrite',
  'create',
  'createIndexes',
]);

/** Commands that read documents (system.views may not be read in a transaction). */
const READS = new Set(['find', 'aggregate', 'distinct', 'count']);

/** Write batches: in a transaction they stop at their first error. */
const BATCH_WRITES = new Set(['insert', 'update', 'delete']);

/** Stages that read server state rather than the snapshot: mongod refuses them in a transaction. */
const NOT_IN_TRANSACTION_STAGES = [
  '$collStats',
  '$indexStats',
  '$currentOp',
  '$listSessions',
  '$listLocalSessions',
  '$planCacheStats',
  '$changeStream',
  '$out',
  '$merge',
];

function refuseStagesOutsideTransactions(pipeline: unknown): void {
  if (!Array.isArray(pipeline)) return;
  for (const stage of pipeline) {
    const name = stage !== null && typeof stage === 'object' ? Object.keys(stage as Document)[0] : undefined;
    if (name !== undefined && NOT_IN_TRANSACTION_STAGES.includes(name))
      fail(
        'OperationNotSupportedInTransaction',
        `Operation not permitted in transaction :: caused by :: ${name} cannot be used in a transaction: run the aggregation outside it.`,
      );
  }
}

/** Commands that write documents (a capped collection refuses them in a transaction). */
const WRITES = new Set(['insert', 'update', 'delete', 'findAndModify']);

export type TransactionState = 'inProgress' | 'committed' | 'aborted';

/** Why a transaction ended aborted, when the server (not the client) aborted it. */
export type AbortCause = 'expired';

export class Transaction {
  state: TransactionState = 'inProgress';
  /** Oplog position of the snapshot: the changes before it are seen, the ones from it on are not. */
  readonly snapshotSeq: number;
  private scratch: ScratchEngine | undefined;
  private readonly copied = new Set<string>();
  /** Collections that existed at the snapshot (a new index may only go on one created in the transaction). */
  private readonly existing = new Set<string>();
  /** namespacedKey of every document written, to find conflicts. */
  readonly writeSet = new Set<string>();
  /** The unique index keys (uniqueKeysOf) of every document written, to find conflicts on them too. */
  readonly uniqueKeys = new Set<string>();
  /** Namespaces written, for the TTL monitor (rule 7.11 note in sessions.ts). */
  readonly namespaces = new Set<string>();
  /**
   * Collections the transaction has read or written: it holds their intent locks until it ends, so
   * a drop or an index build of one waits for it (sessions.ts, waitForLocks).
   */
  readonly locked = new Set<string>();
  /** Scratch oplog position up to which the writes are checked. */
  private checkedSeq = 1;
  private readonly releaseSnapshot: () => void;
  /** The transaction's cursors under ids of the engine's cursor space (scratch ids would collide). */
  private readonly cursorIds = new Map<string, bigint>();
  private static nextCursorId = 1n << 52n;
  /**
   * When the transaction has lived transactionLifetimeLimitSeconds (read at its start, as mongod
   * sets a transaction's expiry date then), on the engine's clock: a virtual clock moved past it
   * aborts the transaction as mongod's periodic reaper does.
   */
  readonly expiresAt: number;
  private readonly cancelExpiry: () => void;
  /** Set when the server aborted the transaction on its own. */
  abortCause: AbortCause | undefined;

  constructor(
    private readonly host: TransactionHost,
    readonly lsid: Document,
    readonly txnNumber: number,
  ) {
    this.snapshotSeq = host.oplog.nextSeq;
    this.releaseSnapshot = host.oplog.pin(this.snapshotSeq);
    const clock = host.main.clock;
    this.expiresAt = clock.now() + host.main.parameters.getNumber('transactionLifetimeLimitSeconds') * 1000;
    this.cancelExpiry = clock.setTimer(this.expiresAt, () => this.expireIfDue());
  }

  /** Abort the transaction as mongod's reaper does once its lifetime is over. */
  expire(): void {
    if (this.state !== 'inProgress') return;
    this.abort();
    this.abortCause = 'expired';
  }

  /** Abort the transaction when its lifetime is over (the timer, or a statement arriving after it). */
  expireIfDue(): void {
    if (this.state === 'inProgress' && this.host.main.clock.now() >= this.expiresAt) {
      this.abort();
      this.abortCause = 'expired';
    }
  }

  /** Run one command of the transaction; a statement that fails aborts it, as on mongod. */
  run(dbName: string, command: Document): Document {
    try {
      return this.runStatement(dbName, command);
    } catch (err) {
      this.abort();
      throw err;
    }
  }

  private runStatement(dbName: string, command: Document): Document {
    const name = Object.keys(command)[0];
    if (!ALLOWED.has(name))
      fail('OperationNotSupportedInTransaction', `Cannot run '${name}' in a multi-document transaction.`);
    if (dbName === 'config' || dbName === 'admin' || dbName === 'local')
      fail(
        'OperationNotSupportedInTransaction',
        `Cannot run command against the '${dbName}' database in a transaction. Use a database of your own.`,
      );
    const target = command[name];
    if (target === 'system.views' && READS.has(name))
      fail(
        51071,
        `Cannot run ${name} on ${dbName}.system.views within a transaction: read the views with listCollections outside it.`,
      );
    if (READS.has(name) && this.isSystemViewsUuid(dbName, target))
      fail(
        51070,
        `Cannot run ${name} by UUID on ${dbName}.system.views within a transaction: read the views with listCollections outside it.`,
      );
    if (name === 'aggregate') refuseStagesOutsideTransactions(command.pipeline);
    if (typeof target === 'string' && target.startsWith('system.'))
      fail(
        'OperationNotSupportedInTransaction',
        `Cannot write to system collection ${dbName}.${target} within a transaction.`,
      );
    if (WRITES.has(name) && typeof target === 'string' && this.host.main.getCollection(dbName, target)?.isCapped)
      fail(
        'OperationNotSupportedInTransaction',
        `Collection '${dbName}.${target}' is a capped collection. Writes in transactions are not allowed on capped collections: write to it outside the transaction.`,
      );
    const scratch = this.scratchFor(dbName);
    if (typeof target === 'string') this.locked.add(`${dbName}.${target}`);
    if (name === 'createIndexes' && typeof target === 'string' && this.existing.has(`${dbName}.${target}`))
      fail(
        'OperationNotSupportedInTransaction',
        `Cannot create new indexes on existing collection ${dbName}.${target} in a multi-document transaction. Create the index outside the transaction.`,
      );
    if (name === 'getMore' || name === 'killCursors') return this.runOnCursors(scratch, dbName, name, command);
    let reply: Document;
    // A write batch in a transaction stops at its first error, ordered or not (the error aborts it).
    const statement = withoutTransactionFields(command);
    if (BATCH_WRITES.has(name)) statement.ordered = true;
    try {
      reply = scratch.engine.runCommand(dbName, statement);
    } finally {
      this.checkWrites();
    }
    const writeErrors = reply.writeErrors as Document[] | undefined;
    // A write error aborts the transaction on mongod (the statement failed inside it).
    if (writeErrors?.length) this.abort();
    return this.publicCursor(reply);
  }

  /** Whether a command names its collection by the UUID of the database's system.views. */
  private isSystemViewsUuid(dbName: string, target: unknown): boolean {
    if (!(target instanceof Binary) || target.sub_type !== Binary.SUBTYPE_UUID) return false;
    const views = this.host.main.getCollection(dbName, 'system.views');
    return views !== undefined && views.uuid.toHexString(false) === target.toString('hex');
  }

  /** The scratch engine, with `dbName` copied at the snapshot on first use. */
  private scratchFor(dbName: string): ScratchEngine {
    if (!this.scratch) this.scratch = this.host.newScratch();
    const scratch = this.scratch;
    if (!this.copied.has(dbName)) {
      scratch.oplog.paused = true;
      try {
        copyDatabaseAt(this.host.main, scratch.engine, this.host.oplog, dbName, this.snapshotSeq);
      } finally {
        scratch.oplog.paused = false;
      }
      this.copied.add(dbName);
      for (const name of scratch.engine.getDatabase(dbName)?.collections.keys() ?? [])
        this.existing.add(`${dbName}.${name}`);
      this.checkedSeq = scratch.oplog.nextSeq;
    }
    return scratch;
  }

  /** Every write since the last check: a conflict aborts the transaction with WriteConflict. */
  private checkWrites(): void {
    const scratch = this.scratch;
    if (!scratch) return;
    const fresh = scratch.oplog.since(this.checkedSeq) ?? [];
    this.checkedSeq = scratch.oplog.nextSeq;
    for (const e of fresh) {
      if (e.id === undefined || e.coll === undefined) continue;
      const ns = `${e.db}.${e.coll}`;
      const key = namespacedKey(ns, e.id);
      if (!this.writeSet.has(key) && (this.changedSinceSnapshot(ns, e.id) || this.host.writtenByOther(this, key)))
        this.conflict();
      this.writeSet.add(key);
      this.namespaces.add(ns);
      const coll = e.after ? scratch.engine.getCollection(e.db, e.coll) : undefined;
      if (!coll || !e.after) continue;
      for (const uniqueKey of uniqueKeysOf(coll, e.after)) {
        if (this.uniqueKeys.has(uniqueKey)) continue;
        if (this.host.uniqueKeyWrittenByOther(this, uniqueKey) || this.uniqueKeyWrittenSinceSnapshot(ns, uniqueKey))
          this.conflict();
        this.uniqueKeys.add(uniqueKey);
      }
    }
  }

  private conflict(): never {
    this.abort();
    fail(
      'WriteConflict',
      'Caused by :: Write conflict during plan execution and yielding is disabled. :: Please retry your operation or multi-document transaction.',
      TRANSIENT,
    );
  }

  /** Whether a write outside the transaction, after its snapshot, put a document under this unique key. */
  private uniqueKeyWrittenSinceSnapshot(ns: string, uniqueKey: string): boolean {
    const main = this.host.main;
    for (const e of this.host.oplog.since(this.snapshotSeq) ?? []) {
      if (!e.after || e.coll === undefined || `${e.db}.${e.coll}` !== ns) continue;
      const coll = main.getCollection(e.db, e.coll);
      if (coll && uniqueKeysOf(coll, e.after).includes(uniqueKey)) return true;
    }
    return false;
  }

  private changedSinceSnapshot(ns: string, id: unknown): boolean {
    const key = documentKey(id);
    for (const e of this.host.oplog.since(this.snapshotSeq) ?? []) {
      if (e.id !== undefined && `${e.db}.${e.coll}` === ns && documentKey(e.id) === key) return true;
    }
    return false;
  }

  /**
   * Replay the transaction's changes on the engine, in order, inside `atomically` (one commit).
   * Fails with WriteConflict, having changed nothing, when another writer got there first.
   */
  commit(): void {
    if (this.state !== 'inProgress') return;
    const changes = this.scratch?.oplog.since(1) ?? [];
    const writes = changes.filter((e) => e.id !== undefined);
    if (writes.length === 0) {
      this.host.oplog.tick();
      this.finish('committed');
      return;
    }
    for (const key of this.writeSet) {
      const [ns, id] = splitKey(key, writes);
      if (id !== undefined && this.changedSinceSnapshot(ns, id)) {
        this.abort();
        fail(
          'WriteConflict',
          `Caused by :: a write outside the transaction changed a document it wrote (${ns}) after its snapshot. Retry the transaction.`,
          TRANSIENT,
        );
      }
    }
    const main = this.host.main;
    const undo: Array<() => void> = [];
    const firstSeq = this.host.oplog.nextSeq;
    try {
      this.host.oplog.asTransaction(this.lsid, this.txnNumber, () => {
        for (const e of writes) undo.push(this.replay(main, e));
      });
    } catch (err) {
      this.host.oplog.paused = true;
      try {
        for (let i = undo.length - 1; i >= 0; i--) undo[i]();
      } finally {
        this.host.oplog.paused = false;
      }
      this.host.oplog.rollbackTo(firstSeq);
      this.abort();
      if (err instanceof EngineError && err.code === 11000)
        fail(
          'WriteConflict',
          `Caused by :: ${err.message} (a write outside the transaction took the key first). Retry the transaction.`,
          TRANSIENT,
        );
      throw err;
    }
    this.finish('committed');
  }

  /** Apply one change of the transaction to `main`; returns how to undo it. */
  private replay(main: EngineContext, e: OplogEntry): () => void {
    const coll = this.mainCollection(main, e.db, e.coll!);
    const current = coll.findById(e.id);
    this.host.oplog.updateKind = e.op === 'replace' ? 'replace' : 'update';
    if (e.op === 'insert') {
      const record = coll.insert(e.after!);
      return () => coll.remove(record);
    }
    if (!current) return () => {};
    const before = current.doc;
    if (e.op === 'delete') {
      coll.remove(current);
      return () => coll.insert(before);
    }
    coll.replace(current, e.after!);
    return () => {
      const now = coll.findById(e.id);
      if (now) coll.replace(now, before);
    };
  }

  /** The engine's collection; one created in the transaction is created there now, with its indexes. */
  private mainCollection(main: EngineContext, db: string, name: string): Collection {
    const existing = main.getCollection(db, name);
    if (existing) return existing;
    const source = this.scratch!.engine.requireCollection(db, name);
    const created = main.createCollection(db, name, { ...source.options });
    const names = copyIndexes(source, created);
    if (names.length) main.recordEvent({ kind: 'indexesCreated', db, collection: name, names });
    return created;
  }

  abort(): void {
    if (this.state === 'inProgress') this.finish('aborted');
  }

  private finish(state: TransactionState): void {
    this.state = state;
    this.cancelExpiry();
    this.releaseSnapshot();
    this.scratch?.close();
    this.scratch = undefined;
    this.cursorIds.clear();
  }

  private publicCursor(reply: Document): Document {
    const cursor = reply.cursor as Document | undefined;
    if (!cursor || cursor.id === undefined || String(cursor.id) === '0') return reply;
    const id = Transaction.nextCursorId++;
    this.cursorIds.set(id.toString(), BigInt(String(cursor.id)));
    return { ...reply, cursor: { ...cursor, id: longOf(id) } };
  }

  /** Whether a cursor id is one of this transaction's. */
  ownsCursor(id: string): boolean {
    return this.cursorIds.has(id);
  }

  private runOnCursors(scratch: ScratchEngine, dbName: string, name: string, command: Document): Document {
    if (name === 'getMore') {
      const ours = String(command.getMore);
      const inner = this.cursorIds.get(ours);
      if (inner === undefined) fail('CursorNotFound', `cursor id ${ours} not found in this transaction.`);
      const reply = scratch.engine.runCommand(dbName, { ...withoutTransactionFields(command), getMore: longOf(inner) });
      const cursor = reply.cursor as Document;
      if (String(cursor.id) === '0') this.cursorIds.delete(ours);
      return { ...reply, cursor: { ...cursor, id: String(cursor.id) === '0' ? cursor.id : command.getMore } };
    }
    const ids = Array.isArray(command.cursors) ? (command.cursors as unknown[]) : [];
    const inner = ids.map((id) => this.cursorIds.get(String(id))).filter((x): x is bigint => x !== undefined);
    scratch.engine.runCommand(dbName, { killCursors: command.killCursors, cursors: inner.map(longOf) });
    for (const id of ids) this.cursorIds.delete(String(id));
    return { cursorsKilled: ids, cursorsNotFound: [], cursorsAlive: [], cursorsUnknown: [], ok: 1 };
  }
}

function longOf(id: bigint): Long {
  return Long.fromBigInt(id);
}

/** Fields of a transaction's statements the scratch engine's handlers do not take. */
const TRANSACTION_FIELDS = [
  'txnNumber',
  'autocommit',
  'startTransaction',
  'readConcern',
  'writeConcern',
  'stmtId',
  'stmtIds',
];

export function withoutTransactionFields(command: Document): Document {
  const out: Document = {};
  for (const key of Object.keys(command)) if (!TRANSACTION_FIELDS.includes(key)) out[key] = command[key];
  return out;
}

/** The namespace and `_id` of a write-set key, the `_id` read back from the change that wrote it. */
function splitKey(key: string, writes: readonly OplogEntry[]): [string, unknown] {
  const ns = key.slice(0, key.indexOf('\u0000'));
  for (const e of writes) if (`${e.db}.${e.coll}` === ns && namespacedKey(ns, e.id) === key) return [ns, e.id];
  return [ns, undefined];
}
