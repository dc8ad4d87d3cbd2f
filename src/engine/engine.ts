/**
 * The embedded engine: databases and collections in memory, one `runCommand` entry point with
 * mongod-shaped replies, batched change events, and the clock everything time-related reads.
 */
import { type Collection, type CollectionHost, type CollectionOptions } from './catalog/collection';
import { CursorStore } from './catalog/cursors';
import { Database } from './catalog/database';
import { EventBuffer, type EngineEvent, type EngineListener } from './catalog/events';
import { validateCollectionName, validateDatabaseName } from './catalog/namespaces';
import { ParameterStore } from './catalog/parameters';
import { SystemClock, type Clock } from './clock';
import { OperationRegistry } from './catalog/operations';
import { systemElapsedTime, type ElapsedTime } from './interrupt';
import { repairInvalidTTLSpecs } from './ttl/legacy';
import { TTLMonitor } from './ttl/monitor';
import { attachCosmosTTL, registerCosmosTTL } from './ttl/cosmos'; // Cosmos flavor TTL (§10)
import { attachTimeseriesBuckets, registerTimeseriesTTL } from './ttl/timeseries-target'; // time-series buckets and TTL (§6)
import { dispatchCommand } from './commands/dispatcher';
import { logStartup } from './commands/process-log';
import { fail } from './errors';
import { IdIndex } from './indexes/id-index';
import type { Document } from './values/types';
import { DatabaseHandle } from './api/handles';
import type { StorageSink } from './storage/journal-records';
import { JournalRecorder } from './storage/recorder';
import { writeOf } from './commands/write-commands';
import { StorageRestorer, type RestoreSummary } from './storage/restore';
import { ReplicaSet } from './replication/replica-set';
import { checkConcerns, checkSnapshotWrite } from './commands/concerns';
import { Oplog } from './replication/oplog';
import type { SessionFields } from './replication/sessions';
import type { ScratchEngine } from './replication/transaction';
import type {
  BatchedDeleteMetrics,
  DocumentMetrics,
  EngineContext,
  Flavor,
  LogLine,
  OpCounters,
  ReplicationRole,
  ServerVersion,
  TTLMetrics,
} from './engine-context';

export interface EngineOptions {
  clock?: Clock;
  /** Which mongod the engine emulates where TTL rules differ (docs/ttl-rules.md). Default 8.0. */
  serverVersion?: ServerVersion;
  flavor?: Flavor;
  role?: ReplicationRole;
  /** Startup values of server parameters (setParameter names). */
  parameters?: Record<string, unknown>;
  /**
   * Durable storage: every command's writes (and every TTL visit's deletes) are handed to it as
   * one frame before the command returns. Without it the engine lives in memory only.
   */
  storage?: StorageSink;
  /**
   * Monotonic milliseconds for time limits (maxTimeMS): real elapsed time, whatever the clock is
   * (a VirtualClock does not move while an operation runs). Default `performance.now`.
   */
  elapsedTime?: ElapsedTime;
  /**
   * Replica-set mode: the engine is the primary of a one-member replica set of this name, with an
   * oplog, sessions, transactions and change streams (replication/replica-set.ts).
   */
  replSetName?: string;
  /** A transaction's scratch engine: its writes are logged here, and it runs no TTL monitor. */
  transactionLog?: Oplog;
  /**
   * Why the engine is read-only (e.g. "opened with --read-only"): commands that would change
   * stored data fail with IllegalOperation (20) before they run, and the TTL monitor does not
   * delete (as in mongod's queryable backup mode).
   */
  readOnly?: string;
}

export class Engine implements EngineContext {
  readonly clock: Clock;
  /** The monotonic source time limits read (see EngineOptions.elapsedTime); never the clock. */
  readonly elapsedTime: ElapsedTime;
  readonly serverVersion: ServerVersion;
  readonly flavor: Flavor;
  private currentRole: ReplicationRole;
  /** Why writes are refused (undefined: they are not). */
  readonly readOnly: string | undefined;
  readonly parameters: ParameterStore;
  readonly cursors = new CursorStore();
  readonly databases = new Map<string, Database>();
  private readonly openedDatabases = new Set<string>();
  readonly opcounters: OpCounters = { insert: 0, query: 0, update: 0, delete: 0, getmore: 0, command: 0 };
  readonly ttlMetrics: TTLMetrics = { passes: 0, subPasses: 0, deletedDocuments: 0 };
  readonly batchedDeletes: BatchedDeleteMetrics = {
    batches: 0,
    docs: 0,
    stagedSizeBytes: 0,
    timeMillis: 0,
    refetchesDueToYield: 0,
  };
  readonly documentMetrics: DocumentMetrics = { inserted: 0, updated: 0, deleted: 0, returned: 0 };
  readonly operations: OperationRegistry;
  readonly startedAt: number;
  /** The TTL monitor: scheduled on the clock from construction on (rule 7.2). */
  readonly ttl: TTLMonitor;
  private readonly events = new EventBuffer();
  private readonly ownsClock: boolean;
  private closed = false;
  private readonly recorder?: JournalRecorder;
  /** Why durable storage refused a commit; writes fail from then on (reads still work). */
  private storageFailure: Error | undefined;
  /** The replica-set mode's state; undefined on a standalone. */
  readonly replication: ReplicaSet | undefined;
  /** What observes every collection's writes in order: the replica set's oplog, or a transaction's log. */
  private readonly oplog: Oplog | undefined;

  constructor(options: EngineOptions = {}) {
    this.ownsClock = options.clock === undefined;
    this.clock = options.clock ?? new SystemClock();
    this.elapsedTime = options.elapsedTime ?? systemElapsedTime;
    this.serverVersion = options.serverVersion ?? '8.0';
    if (this.serverVersion !== '8.0' && this.serverVersion !== '7.0') {
      fail('BadValue', `serverVersion must be "8.0" or "7.0", got ${JSON.stringify(this.serverVersion)}.`);
    }
    this.flavor = options.flavor ?? 'mongodb';
    this.currentRole = options.role ?? 'primary';
    this.parameters = new ParameterStore(options.parameters);
    if (options.storage) this.recorder = new JournalRecorder(this, options.storage);
    this.readOnly = options.readOnly;
    this.startedAt = this.clock.now();
    this.operations = new OperationRegistry(() => this.now(), this.elapsedTime);
    this.ttl = new TTLMonitor(this);
    if (options.replSetName !== undefined) {
      if (typeof options.replSetName !== 'string' || !/^[^/\s,]+$/.test(options.replSetName))
        fail(
          'BadValue',
          `replSetName must be a name without spaces, "/" or ",", got ${JSON.stringify(options.replSetName)}.`,
        );
      this.replication = new ReplicaSet(options.replSetName, this, () => this.newScratch());
    }
    this.oplog = options.transactionLog ?? this.replication?.oplog;
    registerTimeseriesTTL(this); // time-series TTL: collection-level and partial TTL indexes, by bucket (§6.2–6.4)
    if (this.flavor === 'cosmos') registerCosmosTTL(this); // Cosmos flavor: `_ts` collection TTL + per-document ttl (§10)
    logStartup(this);
  }

  /**
   * Run one command against database `dbName`: `{find: "c", filter: {...}}`. Returns mongod's reply
   * document or throws an EngineError carrying code and codeName. Change events of the command are
   * delivered once it finishes, as one batch.
   */
  runCommand(dbName: string, command: Document): Document {
    this.admit(command);
    this.opcounters.command++;
    try {
      const reply = this.dispatch(dbName, command);
      this.commitWrites();
      return reply;
    } catch (err) {
      // A failed command may have written part of its work (an ordered insert stopped by a
      // duplicate key, a multi-document write stopped by its time limit or an interrupt at a safe
      // point): that part is stored too.
      this.commitWrites();
      throw err;
    } finally {
      this.events.flush();
    }
  }

  /** What every command meets first, with or without a session: a closed engine, a read-only one. */
  private admit(command: Document, inTransaction = false): void {
    if (this.closed) fail('IllegalOperation', 'The engine is closed; create a new Engine to continue.');
    checkConcerns(command, this.replication !== undefined);
    checkSnapshotWrite(command, inTransaction);
    const write = this.readOnly !== undefined ? writeOf(command) : undefined;
    if (write !== undefined)
      fail(
        'IllegalOperation',
        `Cannot run ${write}: the engine is read-only (${this.readOnly}). Reads work; to write, open the data folder without --read-only once no other process holds it.`,
      );
  }

  /**
   * Run a command that carries session fields (lsid, txnNumber, autocommit, startTransaction): a
   * transaction's statement, its commit or abort, or a retryable write. Only a replica-set member
   * takes transaction numbers. Like runCommand, the writes are one commit.
   */
  runInSession(dbName: string, command: Document, fields: SessionFields): Document {
    const replication = this.replication;
    if (!replication) {
      if (fields.txnNumber !== undefined || fields.autocommit !== undefined || fields.startTransaction !== undefined)
        fail(
          'IllegalOperation',
          'Transaction numbers are only allowed on a replica set member or mongos: this engine is a standalone. Start it in replica-set mode (--replSet NAME) for transactions and retryable writes.',
        );
      return this.runCommand(dbName, command);
    }
    this.admit(command, fields.autocommit === false);
    this.opcounters.command++;
    try {
      const reply = replication.sessions.run(dbName, command, fields, (cmd) => this.dispatch(dbName, cmd));
      this.commitWrites();
      return reply;
    } catch (err) {
      this.commitWrites();
      throw err;
    } finally {
      this.events.flush();
    }
  }

  /** The command, through the change streams first in replica-set mode. */
  private dispatch(dbName: string, command: Document): Document {
    const oplog = this.oplog;
    if (!oplog) return dispatchCommand(this, dbName, command);
    const stream = this.replication?.changeStreams.tryRun(dbName, command);
    if (stream) return stream;
    oplog.updateKind = replacesDocuments(command) ? 'replace' : 'update';
    return dispatchCommand(this, dbName, command);
  }

  /** A transaction's engine: the same clock read, no timers (no TTL monitor), no storage, its writes logged. */
  private newScratch(): ScratchEngine {
    const main = this.clock;
    const log = new Oplog(() => main.now());
    const engine = new Engine({
      clock: { kind: main.kind, now: () => main.now(), setTimer: () => () => {}, dispose: () => {} },
      serverVersion: this.serverVersion,
      flavor: this.flavor,
      parameters: Object.fromEntries(this.parameters.names().map((n) => [n, this.parameters.get(n)])),
      transactionLog: log,
    });
    return { engine, oplog: log, close: () => engine.close() };
  }

  idleTransactions(): Document[] {
    return this.replication?.sessions.idleTransactions() ?? [];
  }

  /** Whether an open transaction has written this document (a write outside it waits: replication/sessions.ts). */
  documentHeldByTransaction(ns: string, id: unknown): boolean {
    return this.replication?.sessions.holdsDocument(ns, id) ?? false;
  }

  /** Waits for the open transactions that used `ns` before a drop or index build of it (replication/sessions.ts). */
  waitForTransactionLocks(ns: string, maxTimeMS: number | undefined): void {
    this.replication?.sessions.waitForLocks(ns, maxTimeMS);
  }

  /** Whether an open transaction has written documents of `ns` (its TTL visits wait: replication/sessions.ts). */
  heldByTransaction(ns: string): boolean {
    return this.replication?.sessions.holdsWrites(ns) ?? false;
  }

  /** Hand the pending writes to durable storage as one commit (before they are acknowledged). */
  private commitWrites(clockOnly = false): void {
    const recorder = this.recorder;
    if (!recorder || (!recorder.hasPending && !clockOnly)) return;
    if (this.storageFailure) {
      recorder.discard();
      fail(
        'InternalError',
        `Durable storage failed earlier (${this.storageFailure.message}): this write is in memory only. Export the data and reopen the data folder.`,
      );
    }
    try {
      recorder.commit(clockOnly);
    } catch (err) {
      recorder.discard();
      this.storageFailure = err as Error;
      fail(
        'InternalError',
        `The write was applied in memory but could not be made durable: ${(err as Error).message}. Later writes will fail too; export the data and reopen the data folder.`,
      );
    }
  }

  /** Store the clock's current time (a clock move without writes), so time never runs backwards across a reopen. */
  persistClock(): void {
    this.commitWrites(true);
  }

  /**
   * Load stored state: `read` passes every snapshot record and journal frame, in order, to the
   * restorer. Nothing is recorded while it runs. Returns what was loaded, and the newest clock
   * time stored (the host moves its clock there if it is behind).
   */
  restoreFromStorage(read: (restorer: StorageRestorer) => void): RestoreSummary {
    const restorer = new StorageRestorer(this);
    if (this.recorder) this.recorder.paused = true;
    if (this.oplog) this.oplog.paused = true;
    try {
      read(restorer);
      return restorer.finish();
    } finally {
      if (this.recorder) this.recorder.paused = false;
      if (this.oplog) this.oplog.paused = false;
      this.events.flush();
    }
  }

  get role(): ReplicationRole {
    return this.currentRole;
  }

  /**
   * Change the replication role. Becoming primary is mongod's step-up: invalid TTL values left by
   * older servers are rewritten (rule 4.2).
   */
  setRole(role: ReplicationRole): void {
    const wasPrimary = this.currentRole === 'primary';
    this.currentRole = role;
    if (role === 'primary' && !wasPrimary) repairInvalidTTLSpecs(this);
  }

  /** The engine's log, newest last (what getLog returns). */
  readonly logLines: LogLine[] = [];

  logLinesWritten = 0;

  log(id: number, msg: string, attr?: Record<string, unknown>, where?: Pick<LogLine, 's' | 'c' | 'ctx'>): void {
    this.logLines.push({ t: this.now(), id, msg, attr, ...where });
    this.logLinesWritten++;
    if (this.logLines.length > 1000) this.logLines.shift();
  }

  /** Typed access to a database: `engine.db("app").collection("events").insertOne(...)`. */
  db(name: string): DatabaseHandle {
    return new DatabaseHandle(this, validateDatabaseName(name));
  }

  /** Subscribe to batched change events; returns the unsubscribe function. */
  onDidChange(listener: EngineListener): () => void {
    return this.events.subscribe(listener);
  }

  /** Record an event for the current batch (commands and the TTL monitor call this). */
  recordEvent(event: EngineEvent): void {
    this.recorder?.noteEvent(event);
    this.events.record(event);
  }

  /**
   * Commit pending writes and deliver pending events now (for work outside runCommand, such as a
   * TTL visit: its deletes are stored as one commit).
   */
  flushEvents(): void {
    try {
      this.commitWrites();
    } finally {
      this.events.flush();
    }
  }

  /**
   * A host that can interrupt engine code without unwinding it (a `node:vm` time limit skips
   * `finally` blocks) calls this afterwards, so the clock and the TTL monitor accept work again.
   * The write that was interrupted may be partly applied; the message of the interruption says so.
   */
  recoverFromInterruption(): void {
    (this.clock as { recoverFromInterruption?: () => void }).recoverFromInterruption?.();
    this.ttl.recoverFromInterruption();
    this.events.flush();
  }

  /** Stop the monitor and its timer; nothing of the engine keeps running afterwards. */
  close(): void {
    this.closed = true;
    this.ttl.stop();
    if (this.ownsClock) this.clock.dispose();
  }

  get isClosed(): boolean {
    return this.closed;
  }
  /** Whether writes reach durable storage (serverStatus's storageEngine.persistent). */
  get persistent(): boolean {
    return this.recorder !== undefined;
  }

  now(): Date {
    return new Date(this.clock.now());
  }

  // ---- catalog -------------------------------------------------------------------------------

  /**
   * Whether the database was opened (a collection created in it) and not dropped since: mongod
   * keeps a database open after its last collection is dropped, until dropDatabase, though
   * listDatabases no longer shows it.
   */
  databaseIsOpen(name: string): boolean {
    return this.databases.has(name) || this.openedDatabases.has(name);
  }

  getDatabase(name: string): Database | undefined {
    return this.databases.get(name);
  }

  getCollection(dbName: string, name: string): Collection | undefined {
    return this.databases.get(dbName)?.collections.get(name);
  }

  requireCollection(dbName: string, name: string): Collection {
    const coll = this.getCollection(dbName, name);
    if (!coll)
      fail(
        'NamespaceNotFound',
        `ns does not exist: ${dbName}.${name}. Create it first (db.createCollection("${name}")) or insert a document.`,
      );
    return coll;
  }

  /** The collection, created with default options when missing (implicit creation on write). */
  ensureCollection(dbName: string, name: string): { collection: Collection; created: boolean } {
    const existing = this.getCollection(dbName, name);
    if (existing) return { collection: existing, created: false };
    return { collection: this.createCollection(dbName, name, {}), created: true };
  }

  createCollection(dbName: string, name: string, options: CollectionOptions): Collection {
    validateDatabaseName(dbName);
    validateCollectionName(dbName, name);
    if (this.getCollection(dbName, name)) fail('NamespaceExists', `Collection ${dbName}.${name} already exists.`);
    const coll = this.databaseFor(dbName).createCollection(name, options);
    if (this.flavor === 'cosmos') attachCosmosTTL(this, coll); // Cosmos flavor: stamp `_ts` on every write (§10.1)
    if (options.timeseries) attachTimeseriesBuckets(coll); // time-series: keep the bucket layout TTL deletes by (§6.2)
    // Time series keep their _id in buckets; a view keeps nothing at all.
    if (!options.timeseries && options.viewOn === undefined)
      coll.addIndex(new IdIndex({ v: 2, key: { _id: 1 }, name: '_id_' }));
    this.recorder?.observe(coll); // after the Cosmos observer: a stored write carries its `_ts`
    this.oplog?.observe(coll);
    this.recordEvent({ kind: 'collectionCreated', db: dbName, collection: name });
    return coll;
  }

  dropCollection(dbName: string, name: string): boolean {
    const db = this.databases.get(dbName);
    const coll = db?.collections.get(name);
    if (!db || !coll || !db.collections.delete(name)) return false;
    this.cursors.killNamespace(`${dbName}.${name}`);
    this.oplog?.catalog('drop', dbName, name, coll.uuid);
    this.recordEvent({ kind: 'collectionDropped', db: dbName, collection: name });
    if (db.collections.size === 0) this.removeDatabase(dbName);
    return true;
  }

  dropDatabase(dbName: string): boolean {
    const db = this.databases.get(dbName);
    this.openedDatabases.delete(dbName);
    if (!db) return false;
    for (const name of [...db.collections.keys()]) this.dropCollection(dbName, name);
    this.removeDatabase(dbName);
    this.oplog?.catalog('dropDatabase', dbName);
    return true;
  }

  private readonly onDocuments: CollectionHost['onDocuments'] = (coll, kind, count, cause) =>
    this.events.record({ kind, db: coll.dbName, collection: coll.name, count, cause });

  /** The database, created (databases exist from their first collection on) when missing. */
  private databaseFor(dbName: string): Database {
    let db = this.databases.get(dbName);
    if (!db) {
      // mongod keeps one database per case-folded name: on case-insensitive file systems the two
      // would share their files.
      const lower = dbName.toLowerCase();
      for (const existing of this.databases.keys()) {
        if (existing.toLowerCase() === lower)
          fail(
            'DatabaseDifferCase',
            `db already exists with different case already have: [${existing}] trying to create [${dbName}]. Use the database "${existing}", or drop it first.`,
          );
      }
      db = new Database(dbName, this.onDocuments);
      this.databases.set(dbName, db);
      this.openedDatabases.add(dbName);
      this.events.record({ kind: 'databaseCreated', db: dbName });
    }
    return db;
  }

  private removeDatabase(dbName: string): void {
    if (this.databases.delete(dbName)) {
      this.cursors.killNamespace(dbName);
      this.events.record({ kind: 'databaseDropped', db: dbName });
    }
  }

  /** Move a collection to a new namespace (renameCollection); the target must not exist. */
  renameCollection(fromDb: string, from: string, toDb: string, to: string): void {
    const coll = this.requireCollection(fromDb, from);
    validateDatabaseName(toDb);
    validateCollectionName(toDb, to);
    if (this.getCollection(toDb, to))
      fail('NamespaceExists', `target namespace exists: ${toDb}.${to}. Pass dropTarget: true to replace it.`);
    this.databases.get(fromDb)!.collections.delete(from);
    this.cursors.killNamespace(`${fromDb}.${from}`, 'collection renamed');
    const target = this.databaseFor(toDb);
    coll.rehome({ dbName: toDb, onDocuments: this.onDocuments }, to);
    target.collections.set(to, coll);
    this.recordEvent({ kind: 'collectionRenamed', db: fromDb, collection: from, toDb, toCollection: to });
    this.oplog?.catalog('rename', fromDb, from, coll.uuid, { db: toDb, coll: to });
    if (this.databases.get(fromDb)!.collections.size === 0) this.removeDatabase(fromDb);
  }
}

/** An update command whose statements all replace whole documents (their change events are "replace"). */
function replacesDocuments(command: Document): boolean {
  const name = Object.keys(command)[0];
  const isReplacement = (u: unknown) =>
    u !== null && typeof u === 'object' && !Array.isArray(u) && Object.keys(u).every((k) => !k.startsWith('$'));
  if (name === 'update' && Array.isArray(command.updates))
    return command.updates.length > 0 && command.updates.every((s) => isReplacement((s as Document | null)?.u));
  if (name === 'findAndModify' || name === 'findandmodify')
    return command.update !== undefined && isReplacement(command.update);
  return false;
}
