/**
 * What the engine's parts ask of the engine: command handlers, the TTL monitor and its target
 * kinds, durable-storage recording and restore, and the typed API depend on this interface, never
 * on engine.ts. engine.ts imports those parts to wire them together, so any import back from them
 * (a type-only one included) would close a circle. Types only: nothing here runs.
 */
import type { Collection, CollectionOptions } from './catalog/collection';
import type { CursorStore } from './catalog/cursors';
import type { Database } from './catalog/database';
import type { OperationRegistry } from './catalog/operations';
import type { EngineEvent } from './catalog/events';
import type { ParameterStore } from './catalog/parameters';
import type { Clock } from './clock';
import type { ElapsedTime } from './interrupt';
import type { TargetFactory } from './ttl/targets';
import type { Document } from './values/types';

export type ServerVersion = '8.0' | '7.0';
export type Flavor = 'mongodb' | 'cosmos';
export type ReplicationRole = 'primary' | 'secondary';

/** serverStatus().opcounters. */
export interface OpCounters {
  insert: number;
  query: number;
  update: number;
  delete: number;
  getmore: number;
  command: number;
}

/** serverStatus().metrics.ttl; the TTL monitor counts here. */
export interface TTLMetrics {
  passes: number;
  subPasses: number;
  deletedDocuments: number;
}

/** serverStatus().batchedDeletes: TTL deletes in batched mode (rule 7.12). */
export interface BatchedDeleteMetrics {
  batches: number;
  docs: number;
  stagedSizeBytes: number;
  timeMillis: number;
  refetchesDueToYield: number;
}

/** serverStatus().metrics.document. */
export interface DocumentMetrics {
  inserted: number;
  updated: number;
  deleted: number;
  returned: number;
}

/** One line of the engine's log (what getLog returns): a mongod log id with its message. */
export interface LogLine {
  t: Date;
  id: number;
  msg: string;
  attr?: Record<string, unknown>;
  /** mongod's severity and component, and the thread's name (ctx); W, INDEX and conn when left out. */
  s?: 'I' | 'W' | 'E';
  c?: string;
  ctx?: string;
}

/**
 * The part of the TTL monitor its extra target kinds (time series, Cosmos) see: they register
 * with it while the engine is built, and the engine's other parts need no more of the monitor.
 */
export interface TTLTargetRegistry {
  registerTargets(factory: TargetFactory): void;
}

export interface EngineContext {
  readonly clock: Clock;
  /** The monotonic source time limits read; never the clock (a VirtualClock stands still). */
  readonly elapsedTime: ElapsedTime;
  readonly serverVersion: ServerVersion;
  readonly flavor: Flavor;
  readonly role: ReplicationRole;
  /** Why writes are refused (a read-only engine), or undefined. */
  readonly readOnly?: string;
  readonly parameters: ParameterStore;
  readonly cursors: CursorStore;
  /** Read-only here: databases come and go only through the catalog operations below. */
  readonly databases: ReadonlyMap<string, Database>;
  readonly opcounters: OpCounters;
  readonly ttlMetrics: TTLMetrics;
  readonly batchedDeletes: BatchedDeleteMetrics;
  readonly documentMetrics: DocumentMetrics;
  /** The commands and TTL passes in progress ($currentOp). */
  readonly operations: OperationRegistry;
  /** Clock time (ms) the engine started at, for serverStatus().uptime. */
  readonly startedAt: number;
  readonly ttl: TTLTargetRegistry;
  readonly logLines: readonly LogLine[];
  /** Every line ever logged, also those the bounded logLines no longer holds (getLog's totalLinesWritten). */
  readonly logLinesWritten: number;
  readonly isClosed: boolean;
  /** Whether writes reach durable storage (a journal); false for a purely in-memory engine. */
  readonly persistent?: boolean;

  /** Whether an open transaction has written documents of `ns`: its TTL visits wait for the end (replication/sessions.ts). */
  heldByTransaction?(ns: string): boolean;
  /** Waits for the open transactions that used `ns` before a drop or index build of it (replication/sessions.ts). */
  waitForTransactionLocks?(ns: string, maxTimeMS: number | undefined): void;
  /** Whether an open transaction has written the document `id` of `ns` and not yet committed it. */
  documentHeldByTransaction?(ns: string, id: unknown): boolean;
  /** The open transactions between statements, as $currentOp lists them (replica-set mode). */
  idleTransactions?(): Document[];
  /** The one entry point for commands; the typed API builds commands and comes through here. */
  runCommand(dbName: string, command: Document): Document;
  log(id: number, msg: string, attr?: Record<string, unknown>, where?: Pick<LogLine, 's' | 'c' | 'ctx'>): void;
  now(): Date;
  /** Record an event for the current batch; it is delivered (and stored) when the batch ends. */
  recordEvent(event: EngineEvent): void;
  /** End the current batch outside runCommand (a TTL visit, a legacy spec load). */
  flushEvents(): void;

  getDatabase(name: string): Database | undefined;
  /** Opened and not dropped since, even with no collection left (mongod's open database). */
  databaseIsOpen(name: string): boolean;
  getCollection(dbName: string, name: string): Collection | undefined;
  requireCollection(dbName: string, name: string): Collection;
  ensureCollection(dbName: string, name: string): { collection: Collection; created: boolean };
  createCollection(dbName: string, name: string, options: CollectionOptions): Collection;
  dropCollection(dbName: string, name: string): boolean;
  dropDatabase(dbName: string): boolean;
  renameCollection(fromDb: string, from: string, toDb: string, to: string): void;
}
