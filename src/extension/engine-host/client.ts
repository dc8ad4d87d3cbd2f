/**
 * The extension host's side of the engine host: starts the worker (worker-main.ts), sends it
 * requests and routes its answers, events and streamed cell output, and restarts it when it dies
 * or must be killed. `WorkerBackend` implements the Backend seam over it, so the tree, commands,
 * notebooks and diagnostics do not know the engine lives on another thread. No `vscode` import:
 * the window's glue (main.ts) supplies the notifications.
 */
import { Worker } from 'node:worker_threads';
import { randomUUID } from 'node:crypto';
import type {
  Backend, BackendEvent, BackendInfo, BackendListener, CatalogSnapshot, ClockInfo, ClockMode, ClockMoveResult, CollectionInfo, DatabaseInfo, EngineSettings,
  ExpiryCountResult, IndexInfo, MonitorInfo, PassSummary, PlaygroundEvent, PlaygroundOptions, PlaygroundRunOptions, PlaygroundSession, StorageInfo,
} from '../backend/backend';
import type { Document, TTLIndexProblem } from '../../engine';
import type { BackendSpec, CallName, FromWorker, ToWorker, WorkerHeapStats } from './protocol';
import { decodeError, decodeValue, encodeValue } from './wire-values';

/** Why the worker was restarted. */
export type RestartReason =
  | { kind: 'unresponsive'; detail: string }
  | { kind: 'outOfMemory'; detail: string }
  | { kind: 'crashed'; detail: string };

export interface EngineHostOptions {
  /** The worker's script: dist/engine-host.js in the extension, the tsc output in unit tests. */
  workerPath: string;
  /** The worker's heap limit (resourceLimits.maxOldGenerationSizeMb). */
  maxHeapMb?: number;
  log?: (text: string, severity: 'info' | 'error') => void;
  /** The worker was restarted (its engines reopened): tell the user. */
  onRestart?: (reason: RestartReason, lostInMemory: boolean) => void;
  /**
   * An interrupted cell still runs after `stopGraceMs`: code that never reaches an engine safe
   * point. Restarting the worker ends it; with an engine in memory its data go, so the user is asked
   * (no answer: keep waiting for the statement's time limit). With a data folder, nothing is lost.
   */
  confirmRestart?: (message: string) => Promise<boolean>;
  /** How long an interrupted statement may take to reach a safe point before the worker is restarted (default 3000 ms). */
  stopGraceMs?: number;
}

/** A request the worker did not answer because it was restarted; `code` 11601 like any interruption. */
export class EngineHostRestartedError extends Error {
  override readonly name = 'EngineHostRestarted';
  readonly code = 11601;
  readonly codeName = 'Interrupted';
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  /** Streamed events of a playground run. */
  onEvents?: (events: PlaygroundEvent[]) => void;
}

const RESTARTS_ALLOWED = 3;
const RESTART_WINDOW_MS = 60_000;

export class EngineHost {
  private worker: Worker | undefined;
  private started!: Promise<void>;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly backends = new Map<number, WorkerBackend>();
  private owner = randomUUID();
  private readonly restarts: number[] = [];
  private failedForGood: string | undefined;
  private disposed = false;
  /** Bumped at each restart: sessions opened on an older worker are gone. */
  generation = 0;
  /** The worker's heap limit, as it reported it. */
  heapLimitMb = 0;

  get stopGraceMs(): number {
    return this.options.stopGraceMs ?? 3000;
  }

  constructor(private readonly options: EngineHostOptions) {
    this.spawn();
  }

  private spawn(): void {
    const worker = new Worker(this.options.workerPath, {
      ...(this.options.maxHeapMb ? { resourceLimits: { maxOldGenerationSizeMb: this.options.maxHeapMb } } : {}),
      stdout: false,
      stderr: false,
    });
    this.worker = worker;
    let lastError: Error | undefined;
    this.started = new Promise<void>((resolve, reject) => {
      const onReady = (m: FromWorker) => {
        if (m.t !== 'ready') return;
        this.heapLimitMb = m.heapLimitMb;
        worker.off('message', onReady);
        resolve();
      };
      worker.on('message', onReady);
      worker.once('exit', () => reject(new Error(`The engine host did not start${lastError ? `: ${lastError.message}` : ''}.`)));
    });
    this.started.catch(() => undefined);
    worker.on('message', (m: FromWorker) => this.receive(m));
    worker.on('error', (err) => {
      lastError = err;
      this.options.log?.(`Engine host: ${err.stack ?? err.message}`, 'error');
    });
    worker.on('exit', (code) => {
      if (this.worker !== worker) return; // replaced on purpose
      this.worker = undefined;
      if (this.disposed) return;
      const oom = (lastError as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
      const detail = lastError ? lastError.message : `it exited with code ${code}`;
      void this.restart(oom ? { kind: 'outOfMemory', detail } : { kind: 'crashed', detail });
    });
  }

  private receive(m: FromWorker): void {
    switch (m.t) {
      case 'reply': {
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        // An answer that cannot be read fails its request; thrown here, it would end the extension host.
        try {
          if (m.ok) p.resolve(m.value ? decodeValue(m.value) : undefined);
          else p.reject(decodeError(m.error));
        } catch (err) {
          p.reject(err as Error);
        }
        return;
      }
      case 'run':
        this.pending.get(m.id)?.onEvents?.(m.events);
        return;
      case 'events':
        this.backends.get(m.backend)?.deliver(m.events);
        return;
      case 'catalog':
        try {
          this.backends.get(m.backend)?.setCatalog(decodeValue(m.catalog) as CatalogSnapshot);
        } catch (err) {
          this.options.log?.(`Could not read the engine host's catalog snapshot: ${(err as Error).message}`, 'error');
        }
        return;
      case 'log':
        this.options.log?.(m.text, m.severity);
        return;
      case 'ready':
        return;
    }
  }

  /** Sends a request and resolves with its decoded answer. */
  async request(message: ToWorker & { id: number }, onEvents?: (events: PlaygroundEvent[]) => void): Promise<unknown> {
    if (this.failedForGood) throw new Error(this.failedForGood);
    if (this.disposed) throw new Error('The TTL Workbench engine host was shut down (the extension is shutting down).');
    await this.started;
    const worker = this.worker;
    if (!worker) throw new EngineHostRestartedError('The engine host is restarting; try again in a moment.');
    return new Promise((resolve, reject) => {
      this.pending.set(message.id, { resolve, reject, ...(onEvents ? { onEvents } : {}) });
      worker.postMessage(message);
    });
  }

  /** Posts without waiting for an answer (stop, dispose of a session). */
  send(message: ToWorker): void {
    this.worker?.postMessage(message);
  }

  id(): number {
    return this.nextId++;
  }

  /** A backend in the worker: the window's shared engine, or an isolated notebook's. */
  open(spec: BackendSpec, onOpenFailed?: (err: Error) => void): WorkerBackend {
    const backend = new WorkerBackend(this, this.id(), spec, onOpenFailed);
    this.backends.set(backend.backendId, backend);
    return backend;
  }

  /** Used by a backend to (re)open itself on the current worker. */
  openOn(backend: WorkerBackend, spec: BackendSpec, takeOverFrom?: string): Promise<unknown> {
    return this.request({ t: 'open', id: this.id(), backend: backend.backendId, spec, lock: { owner: this.owner, ...(takeOverFrom ? { takeOverFrom } : {}) } });
  }

  forget(backend: WorkerBackend): void {
    this.backends.delete(backend.backendId);
  }

  /** Round trip of a message the worker answers at once (between statements if it is busy). */
  async ping(): Promise<void> {
    await this.request({ t: 'ping', id: this.id() });
  }

  /**
   * The worker's heap, which no figure of this thread includes; `gc` collects first when the
   * process runs with --expose-gc (the bench), otherwise it is ignored. Answered between statements.
   */
  async heapStats(options: { gc?: boolean } = {}): Promise<WorkerHeapStats> {
    return (await this.request({ t: 'stats', id: this.id(), ...(options.gc ? { gc: true } : {}) })) as WorkerHeapStats;
  }

  /** Whether any engine lives in memory only (its data go with the worker). */
  get holdsMemoryData(): boolean {
    return [...this.backends.values()].some((b) => b.inMemory);
  }

  /**
   * An interrupted run did not stop: its statement never reaches a safe point. Ask where data
   * would be lost, then end the worker and start a new one.
   */
  async unresponsive(detail: string): Promise<boolean> {
    if (this.holdsMemoryData && this.options.confirmRestart) {
      const ok = await this.options.confirmRestart(
        'The interrupted cell does not stop: its code never calls the engine, so it cannot be stopped at a safe point. Restart the engine host to end it? The in-memory engine (ttlWorkbench.storage is "memory") loses its data.',
      );
      if (!ok) return false;
    }
    await this.restart({ kind: 'unresponsive', detail });
    return true;
  }

  private async restart(reason: RestartReason): Promise<void> {
    const old = this.worker;
    this.worker = undefined;
    const lostInMemory = this.holdsMemoryData;
    if (old) {
      old.removeAllListeners('exit');
      await old.terminate().catch(() => undefined);
    }
    const message = restartMessage(reason, lostInMemory);
    for (const [id, p] of [...this.pending]) {
      this.pending.delete(id);
      p.reject(new EngineHostRestartedError(message));
    }
    const now = Date.now();
    this.restarts.push(now);
    while (this.restarts.length && now - this.restarts[0] > RESTART_WINDOW_MS) this.restarts.shift();
    if (this.disposed) return;
    if (this.restarts.length > RESTARTS_ALLOWED) {
      this.failedForGood = `The engine host failed ${this.restarts.length} times within a minute (last: ${reason.detail}); it is not restarted again. Reload the window (Developer: Reload Window) to start it, and see the TTL Workbench log.`;
      this.options.log?.(this.failedForGood, 'error');
      this.options.onRestart?.(reason, lostInMemory);
      return;
    }
    this.options.log?.(`Engine host restarted: ${message}`, 'error');
    const previous = this.owner;
    this.owner = randomUUID();
    this.generation++;
    this.spawn();
    for (const b of [...this.backends.values()].sort((x, y) => x.backendId - y.backendId)) b.reopen(previous);
    this.options.onRestart?.(reason, lostInMemory);
  }

  /** Closes every engine in the worker (data folders synced, locks released), then ends it. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    const worker = this.worker;
    try {
      if (worker && !this.failedForGood) await Promise.race([this.request({ t: 'shutdown', id: this.id() }), new Promise((r) => setTimeout(r, 5000))]);
    } catch {
      // A worker that cannot shut down is terminated; what it acknowledged is on disk.
    }
    this.disposed = true;
    for (const p of this.pending.values()) p.reject(new Error('The TTL Workbench engine host was shut down.'));
    this.pending.clear();
    this.worker = undefined;
    if (worker) await worker.terminate().catch(() => undefined);
  }
}

function restartMessage(reason: RestartReason, lostInMemory: boolean): string {
  const what =
    reason.kind === 'unresponsive'
      ? 'The interrupted code never reached a point where the engine could stop it (plain JavaScript that never calls the database, such as an endless loop), so TTL Workbench restarted the engine host.'
      : reason.kind === 'outOfMemory'
        ? `The engine host ran out of memory (${reason.detail}); TTL Workbench restarted it. Raise ttlWorkbench.engineHost.maxHeapMb, or work with fewer or smaller documents.`
        : `The engine host stopped (${reason.detail}); TTL Workbench restarted it.`;
  const data = lostInMemory
    ? ' The in-memory engine started empty: its data are gone (set ttlWorkbench.storage to "workspace" or "global" to keep them).'
    : ' The engine was reopened from its data folder as of the last acknowledged write.';
  return `${what}${data} Notebook variables are gone: run the cells they come from again.`;
}

/** The Backend over the engine host: every call is a message; events and the catalog are pushed. */
export class WorkerBackend implements Backend {
  private readonly listeners = new Set<BackendListener>();
  private opened: Promise<unknown>;
  private snapshot: CatalogSnapshot | undefined;
  private closed = false;
  /** The backend's engine lives in memory only. */
  inMemory: boolean;

  constructor(
    private readonly host: EngineHost,
    readonly backendId: number,
    private spec: BackendSpec,
    private readonly onOpenFailed?: (err: Error) => void,
  ) {
    this.inMemory = spec.dataDir === undefined;
    this.opened = this.openWith();
  }

  private openWith(takeOverFrom?: string): Promise<unknown> {
    const opening = this.host.openOn(this, this.spec, takeOverFrom).catch((err: Error) => {
      if (this.spec.dataDir === undefined || err instanceof EngineHostRestartedError) throw err;
      // A folder that cannot be opened leaves the window with an in-memory engine, and says why.
      this.onOpenFailed?.(err);
      const { dataDir: _dir, durability: _d, ...memory } = this.spec;
      this.spec = memory;
      this.inMemory = true;
      return this.host.openOn(this, this.spec);
    });
    opening.catch(() => undefined);
    return opening;
  }

  /** After a restart: open again on the new worker, then tell listeners everything changed. */
  reopen(previousOwner: string): void {
    this.snapshot = undefined;
    this.opened = this.openWith(previousOwner);
    void this.opened.then(
      () => this.deliver([{ kind: 'reset' }]),
      () => undefined,
    );
  }

  deliver(events: BackendEvent[]): void {
    for (const l of this.listeners) {
      try {
        l(events);
      } catch (err) {
        console.error('TTL Workbench: a backend listener threw', err);
      }
    }
  }

  setCatalog(catalog: CatalogSnapshot): void {
    this.snapshot = catalog;
  }

  private async call<T>(method: CallName, ...args: unknown[]): Promise<T> {
    if (this.closed) throw new Error('The TTL Workbench backend was disposed (the extension is shutting down).');
    await this.opened;
    return (await this.host.request({ t: 'call', id: this.host.id(), backend: this.backendId, method, args: encodeValue(args) })) as T;
  }

  info(): Promise<BackendInfo> {
    return this.call('info');
  }
  clock(): Promise<ClockInfo> {
    return this.call('clock');
  }
  listDatabases(): Promise<DatabaseInfo[]> {
    return this.call('listDatabases');
  }
  listCollections(db: string): Promise<CollectionInfo[]> {
    return this.call('listCollections', db);
  }
  listIndexes(db: string, collection: string): Promise<IndexInfo[]> {
    return this.call('listIndexes', db, collection);
  }
  runCommand(db: string, command: Document): Promise<Document> {
    return this.call('runCommand', db, command);
  }
  expiryCounts(index: IndexInfo | { db: string; collection: string; collectionSeconds: number }, windowSeconds: number, cap?: number): Promise<ExpiryCountResult> {
    return cap === undefined ? this.call('expiryCounts', index, windowSeconds) : this.call('expiryCounts', index, windowSeconds, cap);
  }
  monitorStatus(): Promise<MonitorInfo> {
    return this.call('monitorStatus');
  }
  runTTLPass(): Promise<PassSummary> {
    return this.call('runTTLPass');
  }
  advanceClock(ms: number): Promise<ClockMoveResult> {
    return this.call('advanceClock', ms);
  }
  setClockMode(mode: ClockMode): Promise<ClockInfo> {
    return this.call('setClockMode', mode);
  }
  findInvalidTTLIndexes(): Promise<TTLIndexProblem[]> {
    return this.call('findInvalidTTLIndexes');
  }
  loadLegacyIndexSpec(db: string, collection: string, spec: Document): Promise<void> {
    return this.call('loadLegacyIndexSpec', db, collection, spec);
  }
  reset(settings?: Partial<EngineSettings>, options?: { startMs?: number }): Promise<EngineSettings> {
    return this.call('reset', settings ?? {}, options ?? {});
  }
  storageInfo(): Promise<StorageInfo> {
    return this.call('storageInfo');
  }
  acknowledgeStorageDamage(): Promise<void> {
    return this.call('acknowledgeStorageDamage');
  }
  compactNow(): Promise<{ bytes: number; documents: number; heldMs: number; totalMs: number }> {
    return this.call('compactNow');
  }
  exportDatabase(db: string): Promise<string> {
    return this.call('exportDatabase', db);
  }
  importDatabase(text: string, intoDb?: string): Promise<{ database: string; collections: number; documents: number; indexes: number }> {
    return intoDb === undefined ? this.call('importDatabase', text) : this.call('importDatabase', text, intoDb);
  }

  /** The last snapshot the worker pushed, at once (a busy engine does not delay completion); asked for only before the first. */
  async catalog(): Promise<CatalogSnapshot> {
    return this.snapshot ?? (this.snapshot = await this.call<CatalogSnapshot>('catalog'));
  }

  async openPlayground(options: PlaygroundOptions = {}): Promise<PlaygroundSession> {
    await this.opened;
    const session = new WorkerPlayground(this.host, this, options.timeoutMs);
    await session.open();
    return session;
  }

  whenOpened(): Promise<unknown> {
    return this.opened;
  }

  onDidChange(listener: BackendListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.host.forget(this);
    void this.host.request({ t: 'close', id: this.host.id(), backend: this.backendId }).catch(() => undefined);
  }
}

/** A playground session in the worker; interrupts reach a running statement through shared memory. */
export class WorkerPlayground implements PlaygroundSession {
  private sessionId = 0;
  private generation = -1;
  private readonly cell = new Int32Array(new SharedArrayBuffer(4));
  private closed = false;
  dbName = 'test';
  restarted = false;

  constructor(
    private readonly host: EngineHost,
    private readonly backend: WorkerBackend,
    private readonly timeoutMs: number | undefined,
  ) {}

  /** Opens the session on the current worker (again after a restart: variables are gone). */
  async open(): Promise<void> {
    await this.backend.whenOpened();
    if (this.generation !== -1) this.host.send({ t: 'session.dispose', session: this.sessionId });
    this.sessionId = this.host.id();
    this.generation = this.host.generation;
    await this.host.request({
      t: 'session.open',
      id: this.host.id(),
      backend: this.backend.backendId,
      session: this.sessionId,
      ...(this.timeoutMs !== undefined ? { timeoutMs: this.timeoutMs } : {}),
      interrupt: this.cell.buffer as SharedArrayBuffer,
    });
  }

  async *run(source: string, options: PlaygroundRunOptions = {}): AsyncGenerator<PlaygroundEvent, { complete: boolean }, void> {
    if (this.closed) throw new Error('The playground session was closed (its notebook or the extension is shutting down).');
    let reopened = false;
    if (this.generation !== this.host.generation) {
      await this.open();
      reopened = true;
    }
    const queue: PlaygroundEvent[] = [];
    let read = 0;
    let wake: (() => void) | undefined;
    let end: { value: { complete: boolean; dbName: string; restarted: boolean } } | { error: Error } | undefined;
    Atomics.store(this.cell, 0, 0);
    const runId = this.host.id();
    let escalation: NodeJS.Timeout | undefined;
    const onAbort = () => {
      // Reaches the statement that runs now at its next engine safe point (11601)...
      Atomics.store(this.cell, 0, 1);
      // ...and leaves the rest of the cell unrun.
      this.host.send({ t: 'session.stop', run: runId });
      escalation = setTimeout(() => {
        if (!end) void this.host.unresponsive(`a statement of ${options.filename ?? 'the cell'} ignored the interrupt for ${this.host.stopGraceMs} ms`);
      }, this.host.stopGraceMs);
    };
    const request = this.host.request(
      { t: 'session.run', id: runId, session: this.sessionId, source, ...(options.filename ? { filename: options.filename } : {}), ...(options.lineOffset ? { lineOffset: options.lineOffset } : {}) },
      (events) => {
        queue.push(...events);
        wake?.();
      },
    );
    request.then(
      (value) => {
        end = { value: value as { complete: boolean; dbName: string; restarted: boolean } };
        wake?.();
      },
      (error: Error) => {
        end = { error };
        wake?.();
      },
    );
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        while (read < queue.length) yield queue[read++];
        if (end) {
          if ('error' in end) throw end.error;
          this.dbName = end.value.dbName;
          this.restarted = reopened || end.value.restarted;
          return { complete: end.value.complete };
        }
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      if (escalation) clearTimeout(escalation);
      // The caller stopped reading early: the rest of the cell does not run.
      if (!end) this.host.send({ t: 'session.stop', run: runId });
    }
  }

  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    this.host.send({ t: 'session.dispose', session: this.sessionId });
  }
}
