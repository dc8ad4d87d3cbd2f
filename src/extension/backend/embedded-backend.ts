/**
 * The Backend over the embedded engine: one Engine, on a SwitchableClock (virtual by default). In
 * the extension it runs inside the engine host's worker (engine-host/worker-main.ts), one for the
 * window and one per isolated notebook. Everything goes through `runCommand` where a command exists, so a driver backend can
 * do the same; what only an in-process engine can do (move the clock, run a pass now, load a
 * legacy index) uses the engine's own API. No `vscode` import: unit-testable in plain Node.
 */
import {
  Engine,
  findInvalidTTLIndexes,
  forecastExpiry,
  loadLegacyIndexSpec,
  timeseriesExpiryCounts,
  type Document,
  type EngineEvent,
  type Forecast,
  type ForecastRequest,
  type PassRecord,
} from '../../engine';
import { collectionKindOf } from '../logic/collection-description';
import { countReplyN, dueWithinCount, expiredNowCount, type ExpiryTarget } from '../logic/expiry-counts';
import { describeIndex } from '../logic/index-description';
import { readOnlyFolderRefusal } from '../logic/read-only-storage';
import type {
  Backend,
  BackendEvent,
  CatalogSnapshot,
  BackendInfo,
  BackendListener,
  ClockInfo,
  ClockMode,
  ClockMoveResult,
  CollectionInfo,
  DatabaseInfo,
  EngineSettings,
  ExpiryCountResult,
  IndexInfo,
  MonitorInfo,
  PassSummary,
  PlaygroundOptions,
  PlaygroundSession,
  StorageInfo,
} from './backend';
import { notifyListeners } from './backend';
import { EmbeddedPlayground } from './embedded-playground';
import { exportDatabaseText, importDatabaseText } from '../../engine/storage/export';
import type { Durability } from '../../storage/journal';
import type { LockOptions } from '../../storage/lock';
import {
  acknowledgeDamage,
  clearDataFolder,
  readDamageRecord,
  closeStoredEngine,
  compact,
  openStoredEngine,
  ClockWouldRunBackwardsError,
  type OpenedEngine,
} from '../../storage/engine-store';
import { SwitchableClock } from './switchable-clock';
import * as fs from 'node:fs';
import { writeFileAtomic } from '../../storage/atomic-file';

export const DEFAULT_SETTINGS: EngineSettings = { clock: 'virtual', flavor: 'mongodb', serverVersion: '8.0' };

export interface EmbeddedBackendOptions {
  /** Start time of a virtual clock (default: now). */
  startMs?: number;
  /** Artificial delay of every answer, for tests that prove nothing assumes synchronous answers. */
  latencyMs?: number;
  /** Work longer than this (ms) without a turn of the event loop is split (default 50; tests: 0). */
  yieldAfterMs?: number;
  /** Keep the engine in this folder (durable storage); absent: in memory. */
  dataDir?: string;
  durability?: Durability;
  /** Lock ownership when the engine runs in a worker thread (a restarted worker takes over its predecessor's lock). */
  lock?: LockOptions;
  /** Told about background compactions and their failures. */
  onStorageEvent?: (text: string, severity: 'info' | 'error') => void;
  /**
   * With `dataDir`: why the folder is read on purpose without writing to it (`ttl-workbench mcp
   * --read-only`): no lock is taken, nothing is written, and the engine refuses writes (20).
   */
  readOnly?: string;
}

const VERSIONS: Record<string, string> = { '8.0': '8.0.4', '7.0': '7.0.16' };
/** Default cap of expiry counts: beyond it the tree says "at least". */
export const DEFAULT_COUNT_CAP = 10_000;
/** Work longer than this without a turn of the event loop is split (passes, clock moves). */
const YIELD_AFTER_MS = 50;

export class EmbeddedBackend implements Backend {
  private engine!: Engine;
  private clockImpl!: SwitchableClock;
  private settings: EngineSettings;
  private readonly listeners = new Set<BackendListener>();
  private unsubscribe: () => void = () => undefined;
  /** Documents deleted by the monitors of engines closed by reset. */
  private deletedByEarlierEngines = 0;
  private moving = false;
  private disposed = false;
  /** The data folder the engine lives in (dataDir), while open. */
  private stored: OpenedEngine | undefined;

  constructor(
    settings: Partial<EngineSettings> = {},
    private readonly options: EmbeddedBackendOptions = {},
  ) {
    this.settings = { ...DEFAULT_SETTINGS, ...settings };
    this.start(options.startMs);
  }

  private start(startMs?: number): void {
    // A virtual clock in a data folder resumes at the folder's stored time, even when that is
    // behind the wall clock (it was set to a notebook's `now`, say): it never jumps on reload. It
    // starts at 0 and the store moves it up to the stored time; a folder with no stored time
    // starts at the wall clock's.
    const resume = this.options.dataDir !== undefined && startMs === undefined && this.settings.clock === 'virtual';
    this.clockImpl = new SwitchableClock(this.settings.clock, resume ? 0 : startMs);
    if (this.options.dataDir) {
      // The folder keeps its own flavor and version, and its clock: a virtual clock moves up to it.
      const open = () =>
        openStoredEngine(this.options.dataDir!, {
          durability: this.options.durability ?? 'fsync',
          allowReadOnly: true,
          holder: 'a VS Code window',
          ...(this.options.lock ? { lock: this.options.lock } : {}),
          ...(this.options.readOnly !== undefined
            ? { readOnlyBecause: `${this.options.readOnly}: nothing is written to ${this.options.dataDir}` }
            : {}),
          engine: {
            clock: this.clockImpl,
            flavor: this.settings.flavor,
            serverVersion: this.settings.serverVersion,
            ...(this.options.readOnly !== undefined ? { readOnly: this.options.readOnly } : {}),
          },
          onCompaction: (r) =>
            r instanceof Error
              ? this.options.onStorageEvent?.(
                  `Compacting ${this.options.dataDir} failed: ${r.message}. The journal keeps growing; nothing is lost.`,
                  'error',
                )
              : this.options.onStorageEvent?.(
                  `Compacted ${this.options.dataDir}: ${r.documents.toLocaleString('en-US')} documents in a ${(r.bytes / 1048576).toFixed(1)} MiB snapshot (${r.totalMs.toFixed(0)} ms, writes held ${r.heldMs.toFixed(1)} ms).`,
                  'info',
                ),
        });
      try {
        this.stored = open();
      } catch (err) {
        if (!(err instanceof ClockWouldRunBackwardsError)) throw err;
        // ttlWorkbench.clock "system" on a folder whose virtual clock is ahead: refused, so the
        // engine stays on the folder's virtual clock (at its stored time) and the user is told why.
        this.clockImpl.dispose();
        this.settings = { ...this.settings, clock: 'virtual' };
        this.clockImpl = new SwitchableClock('virtual', 0);
        this.stored = open();
        this.stored.notes.unshift(err.message);
      }
      this.engine = this.stored.engine;
      if (resume && this.stored.storedClockMs === undefined) {
        // No stored time (a new folder): the wall clock's, without the monitor waking on the way.
        this.engine.ttl.suspendSleep();
        this.clockImpl.set(Date.now());
        this.engine.ttl.restartSleep();
      }
      this.settings = {
        ...this.settings,
        flavor: this.stored.meta.flavor,
        serverVersion: this.stored.meta.serverVersion,
      };
    } else {
      this.engine = new Engine({
        clock: this.clockImpl,
        flavor: this.settings.flavor,
        serverVersion: this.settings.serverVersion,
        ...(this.settings.replSet !== undefined ? { replSetName: this.settings.replSet } : {}),
      });
    }
    this.engine.ttl.setPassDriver((steps) => {
      if (!this.moving && this.clockImpl.kind === 'virtual') {
        // Fired by a synchronous move of the virtual clock (a shell `sleep`): its caller reads
        // the pass's deletions right after, so the pass runs whole.
        for (let step = steps.next(); !step.done; step = steps.next());
        this.emit([{ kind: 'monitorRan' }]);
        return undefined;
      }
      // A pass on the system clock, or during advanceClock (which reports its passes once, afterwards).
      return this.drive(steps).then(() => {
        if (!this.moving) this.emit([{ kind: 'monitorRan' }]);
      });
    });
    this.unsubscribe = this.engine.onDidChange((events: readonly EngineEvent[]) => this.emit(events));
  }

  /** `clear`: the folder's stored state is removed while this window still holds its lock (a reset). */
  private stop(clear = false): void {
    this.unsubscribe();
    this.deletedByEarlierEngines += this.engine.ttlMetrics.deletedDocuments;
    if (this.stored)
      closeStoredEngine(
        this.stored,
        clear ? () => this.options.dataDir && clearDataFolder(this.options.dataDir) : undefined,
      ); // stores the clock, syncs, frees the folder
    else this.engine.close();
    this.stored = undefined;
    this.clockImpl.dispose();
  }

  private emit(events: readonly BackendEvent[]): void {
    notifyListeners(this.listeners, events);
  }

  /**
   * Runs a pass's steps (one per visit), returning to the event loop whenever a stretch of them
   * took over yieldAfterMs (50 ms), so a pass over many TTL indexes leaves the extension host free in
   * between. One visit still runs in one piece: at most ttlIndexDeleteTargetDocs documents or
   * ttlIndexDeleteTargetTimeMS.
   */
  private async drive<T>(steps: Iterator<void, T>): Promise<T> {
    let slice = performance.now();
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
      if (performance.now() - slice > this.yieldAfterMs) {
        await new Promise((r) => setImmediate(r));
        slice = performance.now();
      }
    }
  }

  private get yieldAfterMs(): number {
    return this.options.yieldAfterMs ?? YIELD_AFTER_MS;
  }

  /** Resolves after the configured latency: answers are never synchronous for callers. */
  private async answer<T>(work: () => T): Promise<T> {
    if (this.options.latencyMs) await new Promise((r) => setTimeout(r, this.options.latencyMs));
    else await Promise.resolve();
    if (this.disposed) throw new Error('The TTL Workbench backend was disposed (the extension is shutting down).');
    return work();
  }

  /**
   * The engine as it is now, for what serves it in the same thread (the local endpoint,
   * engine-host/endpoint.ts); a reset replaces it, so read it at each use.
   */
  get currentEngine(): Engine {
    return this.engine;
  }

  /**
   * Tells listeners of changes made on the engine directly rather than through a Backend call (the
   * local endpoint's `{ttlWorkbench: "advanceClock"}` moves the clock): as the Backend's own calls do.
   */
  announce(events: readonly BackendEvent[]): void {
    if (!this.disposed) this.emit(events);
  }

  /** For tests and the perf script: the engine underneath (never used by tree or commands). */
  get engineForTests(): Engine {
    return this.engine;
  }

  get clockForTests(): SwitchableClock {
    return this.clockImpl;
  }

  get currentSettings(): EngineSettings {
    return { ...this.settings };
  }

  info(): Promise<BackendInfo> {
    return this.answer(() => ({
      kind: 'embedded' as const,
      label: 'Embedded engine',
      flavor: this.engine.flavor,
      serverVersion: this.engine.serverVersion,
      version: VERSIONS[this.engine.serverVersion] ?? this.engine.serverVersion,
    }));
  }

  clock(): Promise<ClockInfo> {
    return this.answer(() => this.clockInfo());
  }

  private clockInfo(): ClockInfo {
    return {
      mode: this.clockImpl.kind,
      now: new Date(this.clockImpl.now()),
      aheadMs: this.clockImpl.aheadMs,
      canAdvance: this.clockImpl.kind === 'virtual',
    };
  }

  runCommand(db: string, command: Document): Promise<Document> {
    return this.answer(() => this.engine.runCommand(db, command));
  }

  /** Every document of a cursor reply, following getMore. */
  private drain(db: string, reply: Document, collection: string): Document[] {
    const cursor = reply.cursor as { firstBatch: Document[]; id: unknown };
    const out = [...cursor.firstBatch];
    let id = cursor.id;
    while (id !== undefined && Number(String(id)) !== 0) {
      const more = this.engine.runCommand(db, { getMore: id, collection }).cursor as {
        nextBatch: Document[];
        id: unknown;
      };
      out.push(...more.nextBatch);
      id = more.id;
    }
    return out;
  }

  listDatabases(): Promise<DatabaseInfo[]> {
    return this.answer(() => {
      const reply = this.engine.runCommand('admin', { listDatabases: 1 });
      return (reply.databases as Document[]).map((d) => ({
        name: String(d.name),
        sizeOnDisk: Number(d.sizeOnDisk ?? 0),
      }));
    });
  }

  listCollections(db: string): Promise<CollectionInfo[]> {
    return this.answer(() => {
      const reply = this.engine.runCommand(db, { listCollections: 1, cursor: { batchSize: 10_000 } });
      return this.drain(db, reply, '$cmd.listCollections').map((c) => {
        const name = String(c.name);
        const options = (c.options ?? {}) as Document;
        // A count without a query is metadata: no scan, whatever the size. A view has no count
        // of its own: counting it would run its pipeline.
        const count = c.type === 'view' ? 0 : countReplyN(this.engine.runCommand(db, { count: name }));
        return {
          db,
          name,
          type: String(c.type ?? 'collection'),
          kind: collectionKindOf(String(c.type), options),
          options,
          count,
        };
      });
    });
  }

  listIndexes(db: string, collection: string): Promise<IndexInfo[]> {
    return this.answer(() => {
      const reply = this.engine.runCommand(db, { listIndexes: collection, cursor: { batchSize: 1000 } });
      const specs = this.drain(db, reply, collection);
      // listIndexes reports invalid stored values as 2147483647 (rule 9.1); the catalog knows better.
      const problems = findInvalidTTLIndexes(this.engine).filter((p) => p.db === db && p.collection === collection);
      return specs.map((spec) => {
        const name = String(spec.name);
        const p = problems.find((x) => x.index === name);
        return {
          db,
          collection,
          name,
          spec,
          ...(p ? { stored: { expireAfterSeconds: p.expireAfterSeconds, problem: p.problem } } : {}),
        };
      });
    });
  }

  expiryCounts(
    index: IndexInfo | { db: string; collection: string; collectionSeconds: number },
    windowSeconds: number,
    cap: number = DEFAULT_COUNT_CAP,
  ): Promise<ExpiryCountResult> {
    return this.answer((): ExpiryCountResult => {
      let target: ExpiryTarget;
      let seconds: number;
      if ('collectionSeconds' in index) {
        const coll = this.engine.getCollection(index.db, index.collection);
        if (coll?.options.timeseries) return this.timeseriesCounts(coll, undefined, windowSeconds, cap);
        target = { collection: index.collection, field: '_id', indexName: '_id_', notBeforeEpoch: true };
        seconds = index.collectionSeconds;
      } else {
        const coll = this.engine.getCollection(index.db, index.collection);
        if (coll?.options.timeseries) return this.timeseriesCounts(coll, index.name, windowSeconds, cap);
        const d = describeIndex(index);
        if (!d.ttlApplies || d.seconds === undefined || !d.field)
          return { ok: false, reason: 'The TTL monitor deletes nothing through this index.' };
        if (d.hidden)
          return {
            ok: false,
            reason:
              'Hidden: the query planner may not use this index, and counting without it would scan the collection. Unhide it to see counts (the monitor deletes through it either way).',
          };
        target = {
          collection: index.collection,
          field: d.field,
          indexName: index.name,
          ...(index.spec.partialFilterExpression
            ? { partialFilterExpression: index.spec.partialFilterExpression as Document }
            : {}),
        };
        seconds = d.seconds;
      }
      const now = this.clockImpl.now();
      const expired = countReplyN(this.engine.runCommand(index.db, expiredNowCount(target, seconds, now, cap)));
      const due = countReplyN(
        this.engine.runCommand(index.db, dueWithinCount(target, seconds, now, windowSeconds, cap)),
      );
      return {
        ok: true,
        counts: {
          at: new Date(now),
          expiredNow: expired,
          dueWithinWindow: due,
          windowSeconds,
          cap,
          capped: { expiredNow: expired >= cap, dueWithinWindow: due >= cap },
        },
      };
    });
  }

  /** Time series: measurements in whole buckets, by the monitor's own bucket rules (6.1–6.4). */
  private timeseriesCounts(
    coll: NonNullable<ReturnType<Engine['getCollection']>>,
    indexName: string | undefined,
    windowSeconds: number,
    cap: number,
  ): ExpiryCountResult {
    const now = this.clockImpl.now();
    const r = timeseriesExpiryCounts(coll, indexName, now, windowSeconds, cap);
    if ('reason' in r) return { ok: false, reason: `The TTL monitor deletes nothing here now: ${r.reason}.` };
    return {
      ok: true,
      counts: {
        at: new Date(now),
        expiredNow: r.expiredNow,
        dueWithinWindow: r.dueWithinWindow,
        windowSeconds,
        cap,
        capped: { expiredNow: r.expiredNow >= cap, dueWithinWindow: r.dueWithinWindow >= cap },
      },
    };
  }

  monitorStatus(): Promise<MonitorInfo> {
    return this.answer(() => this.monitorInfo());
  }

  private monitorInfo(): MonitorInfo {
    const s = this.engine.ttl.status();
    const reply = this.engine.runCommand('admin', { getParameter: '*' });
    const parameters: Record<string, boolean | number> = {};
    for (const [k, v] of Object.entries(reply)) {
      if (k === 'ok') continue;
      const value = typeof v === 'boolean' ? v : Number(v);
      // Only the scalar parameters: logComponentVerbosity is a document, no number.
      if (typeof value === 'number' && Number.isNaN(value)) continue;
      parameters[k] = value;
    }
    return {
      enabled: s.enabled,
      sleepSecs: s.sleepSecs,
      lastPassAt: s.lastPassAt,
      nextPassAt: s.enabled ? s.nextPassAt : null,
      stoppedBecause: s.stoppedBecause,
      passes: s.metrics.passes,
      subPasses: s.metrics.subPasses,
      deletedDocuments: s.metrics.deletedDocuments,
      lastPassDeleted: s.lastPass ? s.lastPass.deleted : null,
      deletedSinceActivation: this.deletedByEarlierEngines + s.metrics.deletedDocuments,
      parameters,
    };
  }

  async runTTLPass(): Promise<PassSummary> {
    const engine = await this.answer(() => this.engine);
    // A timer's pass in progress ends first; this one then runs whole, as "run a pass now" promises.
    await engine.ttl.whenPassEnded();
    const r = await this.drive(engine.ttl.passSteps());
    this.emit([{ kind: 'monitorRan' }]);
    return {
      startedAt: r.startedAt,
      deleted: r.deleted,
      subPasses: r.subPasses,
      ...(r.skipped ? { skipped: r.skipped } : {}),
      visits: r.visits.map((v) => ({
        ns: `${v.db}.${v.collection}`,
        target: v.target,
        deleted: v.deleted,
        outcome: v.outcome,
        ...(v.reason ? { reason: v.reason } : {}),
      })),
    };
  }

  /**
   * Moves the virtual clock timer by timer (VirtualClock.set to each due time, in order), giving
   * the event loop a turn every ~50 ms of work, so a long move ("2d": 2,880 passes) does not hold
   * the extension host for its whole duration. Each pass yields between its visits (drive).
   */
  async advanceClock(ms: number): Promise<ClockMoveResult> {
    await this.answer(() => undefined);
    if (!Number.isFinite(ms) || ms < 0)
      throw new RangeError(`Cannot move the clock by ${ms} ms: time never runs backwards.`);
    const clock = this.clockImpl;
    const engine = this.engine;
    const target = clock.now() + ms;
    clock.advance(0); // refuses on the system clock, before anything moves
    const before = { ...engine.ttlMetrics };
    let slice = performance.now();
    this.moving = true;
    try {
      for (;;) {
        const next = clock.nextTimerAt();
        if (next === undefined || next > target) break;
        clock.set(Math.max(next, clock.now()));
        // The pass that timer started runs through the driver; time moves on once it has ended.
        await engine.ttl.whenPassEnded();
        if (performance.now() - slice > this.yieldAfterMs) {
          await new Promise((r) => setImmediate(r));
          slice = performance.now();
          if (this.disposed || this.engine !== engine || this.clockImpl !== clock || clock.kind !== 'virtual') break;
        }
      }
      if (!this.disposed && this.clockImpl === clock && clock.kind === 'virtual')
        clock.set(Math.max(target, clock.now()));
    } finally {
      this.moving = false;
    }
    // Time itself is stored too: a reopened folder never starts behind what the user saw.
    if (!this.disposed && this.engine === engine) engine.persistClock();
    const m = engine.ttlMetrics;
    const result = {
      now: new Date(clock.now()),
      passes: m.passes - before.passes,
      deleted: m.deletedDocuments - before.deletedDocuments,
    };
    this.emit([{ kind: 'clockChanged' }, ...(result.passes > 0 ? [{ kind: 'monitorRan' as const }] : [])]);
    return result;
  }

  setClockMode(mode: ClockMode): Promise<ClockInfo> {
    return this.answer(() => {
      this.clockImpl.setMode(mode);
      this.settings = { ...this.settings, clock: mode };
      this.emit([{ kind: 'clockChanged' }]);
      return this.clockInfo();
    });
  }

  findInvalidTTLIndexes(): Promise<ReturnType<typeof findInvalidTTLIndexes>> {
    return this.answer(() => findInvalidTTLIndexes(this.engine));
  }

  monitorHistory(): Promise<PassRecord[]> {
    return this.answer(() => this.engine.ttl.history());
  }

  forecast(db: string, collection: string, request: ForecastRequest): Promise<Forecast> {
    return this.answer(() =>
      forecastExpiry(
        this.engine.requireCollection(db, collection),
        request,
        this.engine.clock.now(),
        this.engine.flavor,
      ),
    );
  }

  loadLegacyIndexSpec(db: string, collection: string, spec: Document): Promise<void> {
    return this.answer(() => loadLegacyIndexSpec(this.engine, db, collection, spec));
  }

  reset(settings: Partial<EngineSettings> = {}, options: { startMs?: number } = {}): Promise<EngineSettings> {
    return this.answer(() => {
      const readOnly = this.stored?.store.readOnly === true;
      // A fresh engine: with a data folder, its stored state goes too (not another window's),
      // removed before the lock is let go, so no other window can open it in between.
      this.stop(!readOnly);
      this.settings = { ...this.settings, ...settings };
      this.start(options.startMs);
      this.emit([{ kind: 'reset' }]);
      return { ...this.settings };
    });
  }

  catalog(): Promise<CatalogSnapshot> {
    return this.answer(() => this.catalogNow());
  }

  /** Names, options and index specs, read with catalog commands only (no document is read). */
  catalogNow(): CatalogSnapshot {
    const collections: CatalogSnapshot['collections'] = [];
    const dbs = this.engine.runCommand('admin', { listDatabases: 1, nameOnly: true }).databases as Document[];
    for (const d of dbs) {
      const db = String(d.name);
      const listed = this.drain(
        db,
        this.engine.runCommand(db, { listCollections: 1, cursor: { batchSize: 10_000 } }),
        '$cmd.listCollections',
      );
      for (const c of listed) {
        const name = String(c.name);
        const type = String(c.type ?? 'collection');
        // Time series and views keep no index list of their own here (listIndexes on a view fails).
        const indexes =
          type === 'collection'
            ? this.drain(db, this.engine.runCommand(db, { listIndexes: name, cursor: { batchSize: 1000 } }), name)
            : [];
        collections.push({ db, name, type, options: (c.options ?? {}) as Document, indexes });
      }
    }
    return { collections };
  }

  openPlayground(options: PlaygroundOptions = {}): Promise<PlaygroundSession> {
    return this.answer(
      () =>
        new EmbeddedPlayground({
          engine: () => this.engine,
          timeoutMs: options.timeoutMs,
          emit: (events) => this.emit(events),
          disposed: () => this.disposed,
          ...(options.interruptCell ? { interruptCell: options.interruptCell } : {}),
          ...(options.onPrint ? { onPrint: options.onPrint } : {}),
        }),
    );
  }

  storageInfo(): Promise<StorageInfo> {
    return this.answer((): StorageInfo => {
      const s = this.stored;
      if (!s) return { mode: 'memory', readOnly: false, journalBytes: 0, notes: [], restoredDocuments: 0 };
      return {
        mode: 'folder',
        dir: s.store.dir,
        durability: this.options.durability ?? 'fsync',
        readOnly: s.store.readOnly,
        journalBytes: s.store.journalBytes,
        notes: [...s.notes],
        restoredDocuments: s.documents,
        // Read from the folder each time: the record is the truth (another window may have acknowledged it).
        ...((damage) => (damage ? { damage } : {}))(readDamageRecord(s.store.dir, s.store.io)),
      };
    });
  }

  acknowledgeStorageDamage(): Promise<void> {
    return this.answer(() => {
      const s = this.stored;
      if (!s || !readDamageRecord(s.store.dir, s.store.io)) return;
      if (s.store.readOnly)
        throw readOnlyFolderRefusal(
          s.store.dir,
          'acknowledge its damage report',
          s.store.lockHolder,
          s.store.readOnlyReason,
        );
      acknowledgeDamage(s.store.dir, s.store.io);
      this.emit([{ kind: 'storageChanged' }]);
    });
  }

  async compactNow(): Promise<{ bytes: number; documents: number; heldMs: number; totalMs: number }> {
    const s = await this.answer(() => this.stored);
    if (!s) throw new Error('The engine is in memory (ttlWorkbench.storage is "memory"): there is nothing to compact.');
    if (s.store.readOnly)
      throw readOnlyFolderRefusal(s.store.dir, 'compact it', s.store.lockHolder, s.store.readOnlyReason);
    if (s.store.isCompacting) throw new Error('A compaction is already running; it ends by itself.');
    return compact(s.engine, s.store);
  }

  exportDatabase(db: string): Promise<string> {
    return this.answer(() => exportDatabaseText(this.engine, db));
  }

  importDatabase(
    text: string,
    intoDb?: string,
  ): Promise<{ database: string; collections: number; documents: number; indexes: number }> {
    return this.answer(() => importDatabaseText(this.engine, text, intoDb));
  }

  exportDatabaseToFile(db: string, file: string): Promise<{ bytes: number }> {
    return this.answer(() => ({
      bytes: writeFileAtomic(file, [Buffer.from(exportDatabaseText(this.engine, db), 'utf8')]),
    }));
  }

  importDatabaseFromFile(
    file: string,
    intoDb?: string,
  ): Promise<{ database: string; collections: number; documents: number; indexes: number; bytes: number }> {
    return this.answer(() => {
      const bytes = fs.readFileSync(file);
      return { ...importDatabaseText(this.engine, bytes.toString('utf8'), intoDb), bytes: bytes.length };
    });
  }

  onDidChange(listener: BackendListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.listeners.clear();
    this.stop();
  }
}
