/**
 * The one way the extension reaches data (DESIGN.md): every answer is a promise, whatever the
 * backend. `EmbeddedBackend` implements it over the embedded engine (synchronous underneath) and
 * runs in the engine host's worker; the extension holds `WorkerBackend` (engine-host/client.ts),
 * the same interface over messages. A backend over the official driver can implement it too
 * without any tree or command code changing. Nothing here imports `vscode`.
 */
import type { Document, EngineEvent, Forecast, ForecastRequest, PassRecord, TTLIndexProblem } from '../../engine';
import type { CellOutput } from '../../shell/cell-outputs';
import type { CollectionKind } from '../logic/collection-description';
import type { IndexFacts } from '../logic/index-description';
import type { ServerRole } from './server-role';

export type ClockMode = 'virtual' | 'system';

export interface BackendInfo {
  /** `embedded`: the engine in the engine host; `driver`: a real deployment through the official driver. */
  kind: 'embedded' | 'driver';
  /** What the tree's top node says: `Embedded engine`. */
  label: string;
  flavor: 'mongodb' | 'cosmos';
  serverVersion: '8.0' | '7.0';
  /** The full emulated version, e.g. `8.0.4` (a real server's own, for a driver backend). */
  version: string;
  /** A real deployment: which server the connection reaches and what that allows (server-role.ts). */
  server?: ServerRole;
}

export interface ClockInfo {
  mode: ClockMode;
  now: Date;
  /** On the system clock: how far ahead of the wall clock the engine runs (after virtual moves). */
  aheadMs: number;
  /** Whether `advanceClock` is possible (virtual clock). */
  canAdvance: boolean;
}

export interface DatabaseInfo {
  name: string;
  sizeOnDisk?: number;
}

export interface CollectionInfo {
  db: string;
  name: string;
  /** listCollections `type`. */
  type: string;
  kind: CollectionKind;
  /** listCollections `options`. */
  options: Document;
  /** Document count from metadata (a `count` without query: never a scan). */
  count: number;
}

export interface IndexInfo extends IndexFacts {
  db: string;
  collection: string;
}

export interface ExpiryCounts {
  /** The engine time the counts are for. */
  at: Date;
  /** Documents the next pass deletes. */
  expiredNow: number;
  /** Documents expiring within `windowSeconds` after that. */
  dueWithinWindow: number;
  windowSeconds: number;
  /** The counts stopped at `cap` (there are at least that many). */
  capped: { expiredNow: boolean; dueWithinWindow: boolean };
  cap: number;
}

export type ExpiryCountResult = { ok: true; counts: ExpiryCounts } | { ok: false; reason: string };

export interface MonitorInfo {
  enabled: boolean;
  sleepSecs: number;
  lastPassAt: Date | null;
  nextPassAt: Date | null;
  /** Why the monitor would not delete now, or null. */
  stoppedBecause: string | null;
  passes: number;
  subPasses: number;
  deletedDocuments: number;
  /** What the last pass deleted. */
  lastPassDeleted: number | null;
  /** Documents the monitor deleted since the extension started (across engine resets). */
  deletedSinceActivation: number;
  /** All server parameters of the monitor (getParameter). */
  parameters: Record<string, boolean | number>;
  /** A real replica set: each secondary's lag behind the primary, in words (replication-lag.ts). */
  replication?: string[];
}

export interface PassSummary {
  startedAt: Date;
  deleted: number;
  subPasses: number;
  skipped?: string;
  visits: Array<{ ns: string; target: string; deleted: number; outcome: string; reason?: string }>;
}

export interface ClockMoveResult {
  now: Date;
  /** TTL passes that ran on the way. */
  passes: number;
  /** Documents the monitor deleted on the way. */
  deleted: number;
}

/** Engine events plus what the backend itself changes (clock, passes without deletions, reset). */
export type BackendEvent =
  | EngineEvent
  | { kind: 'clockChanged' }
  | { kind: 'monitorRan' }
  /** What storageInfo says changed (a damage report acknowledged). */
  | { kind: 'storageChanged' }
  | { kind: 'reset' };

export type BackendListener = (events: readonly BackendEvent[]) => void;

/**
 * Whether an event changes what `catalog()` answers (names, options, index specs): document counts,
 * clock moves, passes and storage notes do not. The engine host, its client and the diagnostics
 * (which read only the catalog) ask the same question.
 */
export function changesCatalog(event: BackendEvent): boolean {
  return (
    !('count' in event) &&
    event.kind !== 'clockChanged' &&
    event.kind !== 'monitorRan' &&
    event.kind !== 'storageChanged'
  );
}

/** Tells every listener; one that throws is logged and the others are still told. */
export function notifyListeners(listeners: Iterable<BackendListener>, events: readonly BackendEvent[]): void {
  for (const l of listeners) {
    try {
      l(events);
    } catch (err) {
      console.error('TTL Workbench: a backend listener threw', err);
    }
  }
}

export interface EngineSettings {
  clock: ClockMode;
  flavor: 'mongodb' | 'cosmos';
  serverVersion: '8.0' | '7.0';
  /** A one-member replica set of this name (a notebook's `replSet` metadata); a standalone without. */
  replSet?: string;
}

export interface PlaygroundOptions {
  /** Time limit of one top-level statement, in milliseconds (default 10000). */
  timeoutMs?: number;
  /** For an engine host: the cell its client sets to interrupt a statement (ShellSessionOptions.interruptCell). */
  interruptCell?: Int32Array;
  /** For an engine host: printed lines as they are printed, instead of `print` events after each statement. */
  onPrint?: (line: string) => void;
}

/**
 * What a playground run reports, in order: lines printed by the running statement (as they are
 * printed, where the backend can stream them), and each statement's end with its value or error.
 */
export type PlaygroundEvent =
  | { kind: 'print'; text: string }
  | {
      kind: 'statement';
      ok: boolean;
      /** Where the statement starts (1-based, plus the run's lineOffset). */
      line: number;
      /** The statement's value or error, as the CLI shows it; printed lines came as `print` events. */
      outputs: CellOutput[];
      millis: number;
    };

/**
 * A mongosh session over the backend (a playground notebook's): its variables and current
 * database persist from one run to the next, like one mongosh window.
 */
export interface PlaygroundSession {
  /**
   * Runs code statement by statement, yielding what each prints and each statement's result; the
   * first failing statement ends the run. When `signal` aborts, the running statement stops at its
   * next engine safe point (Interrupted, 11601) where the backend can reach it mid-statement, and
   * the remaining statements are left unrun: the run returns `complete: false`.
   */
  run(source: string, options?: PlaygroundRunOptions): AsyncGenerator<PlaygroundEvent, { complete: boolean }, void>;
  /** The database `db` is (changes with `use()` in the code). */
  readonly dbName: string;
  /** Set when the backend was reset since the session's last run: the run started a new session. */
  readonly restarted: boolean;
  dispose(): void;
}

export interface PlaygroundRunOptions {
  filename?: string;
  lineOffset?: number;
  signal?: AbortSignal;
}

/** Names and index specs of every collection: what completion and the diagnostics read. */
export interface CatalogSnapshot {
  collections: Array<{ db: string; name: string; type: string; options: Document; indexes: Document[] }>;
}

export interface StorageInfo {
  /** `server`: the data live on a real deployment (driver backend). */
  mode: 'memory' | 'folder' | 'server';
  dir?: string;
  durability?: 'fsync' | 'batched';
  /** Another window writes to the folder: this one reads it and keeps its changes in memory. */
  readOnly: boolean;
  journalBytes: number;
  /** What the last open found (a torn tail cut, damage, a read-only open, a flavor mismatch). */
  notes: string[];
  /** Documents loaded at open. */
  restoredDocuments: number;
  /** Damage recovered (at this or an earlier open) that the user has not acknowledged: the tree shows it until then. */
  damage?: { recoveries: Array<{ at: string; notes: string[]; documents: Record<string, number> }> };
}

export interface Backend {
  info(): Promise<BackendInfo>;
  clock(): Promise<ClockInfo>;
  listDatabases(): Promise<DatabaseInfo[]>;
  listCollections(db: string): Promise<CollectionInfo[]>;
  listIndexes(db: string, collection: string): Promise<IndexInfo[]>;
  /** Any command with mongod's reply; rejects with an error carrying `code` and `codeName`. */
  runCommand(db: string, command: Document): Promise<Document>;
  /**
   * Documents expired now and due within the window through one TTL index (or a clustered
   * collection's own TTL: index `_id_`), counted over the index range, never by a collection scan.
   */
  expiryCounts(
    index: IndexInfo | { db: string; collection: string; collectionSeconds: number },
    windowSeconds: number,
    cap?: number,
  ): Promise<ExpiryCountResult>;
  /**
   * What a TTL rule of the collection (an index, or a what-if value) makes eligible per time bucket
   * from now to the horizon (`ttl.forecast`); rejects with the engine's code on a bad request.
   */
  forecast(db: string, collection: string, request: ForecastRequest): Promise<Forecast>;
  monitorStatus(): Promise<MonitorInfo>;
  /** The monitor's last passes, oldest first (a bounded ring the engine keeps). */
  monitorHistory(): Promise<PassRecord[]>;
  runTTLPass(): Promise<PassSummary>;
  /** Virtual clock only: move forward, running the passes that fall due. */
  advanceClock(ms: number): Promise<ClockMoveResult>;
  setClockMode(mode: ClockMode): Promise<ClockInfo>;
  /** TTL indexes whose stored expireAfterSeconds the monitor cannot use (NaN first of all). */
  findInvalidTTLIndexes(): Promise<TTLIndexProblem[]>;
  /** Put an index into the catalog as an old server left it (for trying the NaN audit). */
  loadLegacyIndexSpec(db: string, collection: string, spec: Document): Promise<void>;
  /**
   * Drop everything and start a new engine with these settings; `startMs` is where a virtual
   * clock starts (default: now; on the system clock, how far ahead of the wall clock to run).
   */
  reset(settings?: Partial<EngineSettings>, options?: { startMs?: number }): Promise<EngineSettings>;
  /**
   * Every collection's name, options and index specs, as of every event delivered so far. With
   * `allowStale`, a backend on another thread answers from the last snapshot it was sent, at once,
   * even while its engine is busy with a long statement (completion never waits).
   */
  catalog(options?: { allowStale?: boolean }): Promise<CatalogSnapshot>;
  /** A new playground session (mongosh over this backend's data). */
  openPlayground(options?: PlaygroundOptions): Promise<PlaygroundSession>;
  /** Where the data live (memory, or a data folder) and what the last open found. */
  storageInfo(): Promise<StorageInfo>;
  /** The user has read the damage report: the tree stops showing it (the damaged files kept aside stay). */
  acknowledgeStorageDamage(): Promise<void>;
  /** Compact the data folder now (snapshot + a new journal). */
  compactNow(): Promise<{ bytes: number; documents: number; heldMs: number; totalMs: number }>;
  /** A database as canonical EJSON text (exact BSON types; Import reads it back). */
  exportDatabase(db: string): Promise<string>;
  /** Load an export, into `intoDb` or its own database name; refuses existing collections (48). */
  importDatabase(
    text: string,
    intoDb?: string,
  ): Promise<{ database: string; collections: number; documents: number; indexes: number }>;
  /**
   * The export written to a local file by the backend itself (atomically), so a large database's
   * text never crosses to the caller's thread. Resolves with the bytes written.
   */
  exportDatabaseToFile(db: string, file: string): Promise<{ bytes: number }>;
  /** An export read from a local file by the backend itself; as importDatabase. */
  importDatabaseFromFile(
    file: string,
    intoDb?: string,
  ): Promise<{ database: string; collections: number; documents: number; indexes: number; bytes: number }>;
  onDidChange(listener: BackendListener): () => void;
  /** Stop every timer; nothing keeps running afterwards. */
  dispose(): void;
}
