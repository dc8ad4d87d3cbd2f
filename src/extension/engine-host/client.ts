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
  Backend,
  BackendEvent,
  BackendInfo,
  BackendListener,
  CatalogSnapshot,
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
  PlaygroundEvent,
  PlaygroundOptions,
  PlaygroundRunOptions,
  PlaygroundSession,
  StorageInfo,
} from '../backend/backend';
import { changesCatalog, notifyListeners } from '../backend/backend';
import type { Document, Forecast, ForecastRequest, PassRecord, TTLIndexProblem } from '../../engine';
import type { EndpointAddress } from './endpoint';
import type { BackendSpec, CallName, FromWorker, ToWorker, WorkerHeapStats } from './protocol';
import { decodeError, decodeValue, encodeValue } from './wire-values';

/** Why the worker was restarted. */
export type RestartReason =
  | { kind: 'requested'; detail: string }
  | { kind: 'unresponsive'; detail: string }
  | { kind: 'outOfMemory'; detail: string }
  | { kind: 'crashed'; detail: string };

/**
 * What happened to the local endpoint: started or stopped on request, or, after the worker was
 * restarted, listening again on its port (`resumed`) or not (`lost`: the port was taken meanwhile,
 * the engine could not be opened, or the engine host gave up restarting).
 */
export type EndpointChange =
  | { kind: 'started'; address: EndpointAddress }
  | { kind: 'stopped' }
  | { kind: 'resumed'; address: EndpointAddress; reason: RestartReason }
  | { kind: 'lost'; address: EndpointAddress; reason: RestartReason; error: Error };

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
const HEAP_WATCH_MS = 50;
/** Node's own heap limit, as a multiple of maxHeapMb, where the heap watch enforces maxHeapMb itself. */
const HARD_HEAP_FACTOR = 1.5;

/** The limit Node enforces: maxHeapMb itself where the heap cannot be watched, else a backstop above it. */
function hardHeapLimitMb(maxHeapMb: number): number {
  return typeof (Worker.prototype as { getHeapStatistics?: unknown }).getHeapStatistics === 'function'
    ? Math.round(maxHeapMb * HARD_HEAP_FACTOR)
    : maxHeapMb;
}
const RESTART_WINDOW_MS = 60_000;

export class EngineHost {
  private worker: Worker | undefined;
  private started!: Promise<void>;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly backends = new Map<number, WorkerBackend>();
  private owner = randomUUID();
  /** Every lock token this host gave a worker: a new worker may take over any of their locks. */
  private readonly owners: string[] = [this.owner];
  private readonly restarts: number[] = [];
  private failedForGood: string | undefined;
  private disposed = false;
  private disposing = false;
  /** One restart at a time: a second cause joins the one under way. */
  private restarting: Promise<void> | undefined;
  /** Ends the current worker's `started` wait when it is terminated before it said `ready`. */
  private abandonStart: ((err: Error) => void) | undefined;
  /** Bumped at each restart: sessions opened on an older worker are gone. */
  generation = 0;
  /** The worker's heap limit, as it reported it. */
  heapLimitMb = 0;
  /** The local endpoint while it runs: the backend it serves and where it listens. */
  private endpointState: { backend: WorkerBackend; address: EndpointAddress } | undefined;
  /** Starts, stops and resumptions of the endpoint, one at a time. */
  private endpointQueue: Promise<unknown> = Promise.resolve();
  private endpointResuming: Promise<void> | undefined;
  private readonly endpointListeners = new Set<(change: EndpointChange) => void>();

  /** The heap limit the current worker was started with (undefined: Node's default). */
  get maxHeapMb(): number | undefined {
    return this.options.maxHeapMb;
  }

  get stopGraceMs(): number {
    return this.options.stopGraceMs ?? 3000;
  }

  constructor(private readonly options: EngineHostOptions) {
    this.spawn();
  }

  private spawn(): void {
    const worker = new Worker(this.options.workerPath, {
      ...(this.options.maxHeapMb
        ? { resourceLimits: { maxOldGenerationSizeMb: hardHeapLimitMb(this.options.maxHeapMb) } }
        : {}),
      stdout: false,
      stderr: false,
    });
    this.worker = worker;
    this.watchHeap(worker);
    let lastError: Error | undefined;
    this.started = new Promise<void>((resolve, reject) => {
      this.abandonStart = reject;
      const onReady = (m: FromWorker) => {
        if (m.t !== 'ready') return;
        this.heapLimitMb = m.heapLimitMb;
        worker.off('message', onReady);
        resolve();
      };
      worker.on('message', onReady);
      worker.once('exit', () =>
        reject(new Error(`The engine host did not start${lastError ? `: ${lastError.message}` : ''}.`)),
      );
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
      if (this.disposed || this.disposing) return;
      const oom = (lastError as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
      const detail = lastError ? lastError.message : `it exited with code ${code}`;
      void this.restart(oom ? { kind: 'outOfMemory', detail } : { kind: 'crashed', detail });
    });
  }

  /**
   * Node ends a worker at its heap limit only on a best effort: an allocation that fails inside
   * V8 (one array grown by push() in a loop, measured: 5 runs of 6) aborts the whole process, and
   * that process is the extension host. So where Node can read a worker's heap from outside
   * (Worker.getHeapStatistics, Node 22.16+/24; V8 answers it even while the worker runs JavaScript,
   * though not inside a long GC), maxHeapMb is this soft limit: the worker is ended as out of
   * memory at the first reading above it, and Node's own limit sits HARD_HEAP_FACTOR higher as a
   * backstop. A reading can arrive late (a mark-compact holds it): with the backstop at the limit
   * itself, 1 run of 8 still aborted; with the margin, none did (see the note of issue 16).
   */
  private watchHeap(worker: Worker): void {
    const read = (
      worker as Worker & { getHeapStatistics?: () => Promise<{ used_heap_size: number; heap_size_limit: number }> }
    ).getHeapStatistics;
    if (typeof read !== 'function' || !this.options.maxHeapMb) return;
    const limit = this.options.maxHeapMb * 1048576;
    let timer: NodeJS.Timeout | undefined;
    const stop = () => {
      if (timer) clearInterval(timer);
      timer = undefined;
    };
    const tick = () => {
      // An app's traffic over the local endpoint sends no request: the watch runs while it listens.
      if (this.worker !== worker || (this.pending.size === 0 && !this.endpointState)) return stop();
      read.call(worker).then((h) => {
        if (this.worker !== worker || !timer) return;
        if (h.used_heap_size <= limit) return;
        stop();
        const mb = (n: number) => Math.round(n / 1048576);
        this.options.log?.(
          `Engine host: its heap grew to ${mb(h.used_heap_size)} MB, past its ${mb(limit)} MB limit; ending it before Node's own limit can abort the extension host.`,
          'error',
        );
        void this.restart({
          kind: 'outOfMemory',
          detail: `its heap grew to ${mb(h.used_heap_size)} MB, past its ${mb(limit)} MB limit`,
        });
      }, stop);
    };
    // Read only while a request is in flight (a cell, an import, a command) or the local endpoint
    // listens: an idle window does not wake every 50 ms, and an idle worker's heap does not grow
    // (its timers only delete).
    this.watchWhileBusy = () => {
      if (timer || this.worker !== worker) return;
      timer = setInterval(tick, HEAP_WATCH_MS);
      timer.unref();
    };
    worker.once('exit', stop);
  }

  /** Starts the heap watch when a request goes out (set by watchHeap where Node can read a worker's heap). */
  private watchWhileBusy: () => void = () => undefined;

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
          p.reject(new Error(`The engine host's answer could not be read: ${(err as Error).message}`));
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

  /** Resolves once no restart is under way (requests made meanwhile go to the new worker). */
  async settled(): Promise<void> {
    while (this.restarting) await this.restarting;
  }

  /** Sends a request and resolves with its decoded answer. */
  async request(message: ToWorker & { id: number }, onEvents?: (events: PlaygroundEvent[]) => void): Promise<unknown> {
    if (this.failedForGood) throw new Error(this.failedForGood);
    if (this.disposed) throw new Error('The TTL Workbench engine host was shut down (the extension is shutting down).');
    await this.settled();
    await this.started;
    const worker = this.worker;
    if (!worker) throw new EngineHostRestartedError('The engine host is restarting; try again in a moment.');
    return new Promise((resolve, reject) => {
      this.pending.set(message.id, { resolve, reject, ...(onEvents ? { onEvents } : {}) });
      this.watchWhileBusy();
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
  open(spec: BackendSpec, options: { onOpenFailed?: (err: Error) => void; scratch?: boolean } = {}): WorkerBackend {
    const backend = new WorkerBackend(this, this.id(), spec, options.onOpenFailed, options.scratch === true);
    this.backends.set(backend.backendId, backend);
    return backend;
  }

  /** Used by a backend to (re)open itself on the current worker; after a restart it may take over a dead worker's lock. */
  openOn(backend: WorkerBackend, spec: BackendSpec, afterRestart = false): Promise<unknown> {
    const takeOverFrom = afterRestart ? this.owners.filter((o) => o !== this.owner) : [];
    return this.request({
      t: 'open',
      id: this.id(),
      backend: backend.backendId,
      spec,
      lock: { owner: this.owner, ...(takeOverFrom.length ? { takeOverFrom } : {}) },
    });
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

  /** Where the local endpoint listens, while it runs. */
  get endpoint(): EndpointAddress | undefined {
    return this.endpointState && { ...this.endpointState.address };
  }

  /** Told when the local endpoint starts, stops, or comes back (or does not) after a restart. */
  onEndpointChange(listener: (change: EndpointChange) => void): () => void {
    this.endpointListeners.add(listener);
    return () => this.endpointListeners.delete(listener);
  }

  private endpointChanged(change: EndpointChange): void {
    for (const listener of [...this.endpointListeners]) {
      try {
        listener(change);
      } catch (err) {
        this.options.log?.(`A local endpoint listener failed: ${(err as Error).message}`, 'error');
      }
    }
  }

  /** One endpoint operation at a time, in the order asked. */
  private endpointStep<T>(step: () => Promise<T>): Promise<T> {
    const next = this.endpointQueue.then(step, step);
    this.endpointQueue = next.catch(() => undefined);
    return next;
  }

  /**
   * Serves `backend`'s engine over the MongoDB wire protocol from the worker, on `host:port` (port
   * 0: any free one). One endpoint per host: a running one is replaced. A port that cannot be had
   * fails with the worker's EndpointListenError (its `listenCode` says why: EADDRINUSE, EACCES).
   */
  startEndpoint(backend: WorkerBackend, options: { port: number; host: string }): Promise<EndpointAddress> {
    return this.endpointStep(async () => {
      await backend.whenOpened();
      const address = (await this.request({
        t: 'endpoint.start',
        id: this.id(),
        backend: backend.backendId,
        port: options.port,
        host: options.host,
      })) as EndpointAddress;
      this.endpointState = { backend, address };
      this.watchWhileBusy();
      this.endpointChanged({ kind: 'started', address: { ...address } });
      return address;
    });
  }

  /** Stops the endpoint (every connection closed); false when none ran. */
  stopEndpoint(): Promise<boolean> {
    return this.endpointStep(async () => {
      if (!this.endpointState) return false;
      this.endpointState = undefined;
      try {
        await this.request({ t: 'endpoint.stop', id: this.id() });
      } catch (err) {
        // A worker restarted meanwhile took the endpoint with it; one that is gone for good too.
        if (!(err instanceof EngineHostRestartedError) && !this.failedForGood && !this.disposed) throw err;
      }
      this.endpointChanged({ kind: 'stopped' });
      return true;
    });
  }

  /**
   * After a restart: the endpoint listens again on the port it had, so the app's connection string
   * stays valid (its driver reconnects). A port taken meanwhile, or an engine that did not reopen,
   * ends it (`lost`).
   */
  private resumeEndpoint(reason: RestartReason): Promise<void> {
    return this.endpointStep(async () => {
      const state = this.endpointState;
      if (!state) return;
      try {
        await state.backend.whenOpened();
        const address = (await this.request({
          t: 'endpoint.start',
          id: this.id(),
          backend: state.backend.backendId,
          port: state.address.port,
          host: state.address.host,
        })) as EndpointAddress;
        this.endpointState = { backend: state.backend, address };
        this.watchWhileBusy();
        this.endpointChanged({ kind: 'resumed', address: { ...address }, reason });
      } catch (err) {
        // Another restart came first: it resumes the endpoint in turn.
        if (err instanceof EngineHostRestartedError && !this.failedForGood && !this.disposed) return;
        this.endpointLost(reason, err as Error);
      }
    });
  }

  private endpointLost(reason: RestartReason, error: Error): void {
    const state = this.endpointState;
    if (!state) return;
    this.endpointState = undefined;
    this.endpointChanged({ kind: 'lost', address: { ...state.address }, reason, error });
  }

  /**
   * Whether the window's engine lives in memory only (its data go with the worker). An isolated
   * notebook's engine is a scratch engine its notebook rebuilds: it does not count.
   */
  get holdsMemoryData(): boolean {
    return [...this.backends.values()].some((b) => b.inMemory && !b.scratch);
  }

  /**
   * An interrupted run did not stop: its statement never reaches a safe point. Ask where data
   * would be lost, then end the worker and start a new one.
   */
  async unresponsive(detail: string, stillStuck: () => boolean): Promise<boolean> {
    if (this.holdsMemoryData && this.options.confirmRestart) {
      const ok = await this.options.confirmRestart(
        'The interrupted cell does not stop: its code never calls the engine, so it cannot be stopped at a safe point. Restart the engine host to end it? The in-memory engine (ttlWorkbench.storage is "memory") loses its data.',
      );
      // The statement may have ended while the question was open: then nothing needs ending.
      if (!ok || !stillStuck()) return false;
    }
    await this.restart({ kind: 'unresponsive', detail });
    return true;
  }

  /**
   * Restart on request (the Restart Engine Host command), with a new heap limit if given: engines
   * with a data folder come back as they are; in-memory ones start empty. Resolves once every
   * backend is open again.
   */
  async restartNow(maxHeapMb?: number): Promise<{ heapLimitMb: number }> {
    if (maxHeapMb !== undefined) this.options.maxHeapMb = maxHeapMb;
    this.failedForGood = undefined;
    this.restarts.length = 0;
    await this.restart({ kind: 'requested', detail: 'restarted on request' });
    await this.started;
    await Promise.all([...this.backends.values()].map((b) => b.whenOpened().catch(() => undefined)));
    await this.endpointResuming;
    // The limit the user set (Node's own sits higher where the heap watch enforces this one).
    return { heapLimitMb: this.options.maxHeapMb ?? this.heapLimitMb };
  }

  private restart(reason: RestartReason): Promise<void> {
    this.restarting ??= this.restartOnce(reason).finally(() => (this.restarting = undefined));
    return this.restarting;
  }

  private async restartOnce(reason: RestartReason): Promise<void> {
    const old = this.worker;
    this.worker = undefined;
    const lostInMemory = this.holdsMemoryData;
    const scratch = [...this.backends.values()].some((b) => b.scratch);
    if (old) {
      old.removeAllListeners('exit');
      this.abandonStart?.(new EngineHostRestartedError('The engine host was restarted before it was ready.'));
      await old.terminate().catch(() => undefined);
    }
    const message = restartMessage(reason, lostInMemory, scratch);
    for (const [id, p] of [...this.pending]) {
      this.pending.delete(id);
      p.reject(new EngineHostRestartedError(message));
    }
    // Failures count towards giving up; restarts the user asked for (Interrupt, the command) do not.
    const now = Date.now();
    if (reason.kind === 'crashed' || reason.kind === 'outOfMemory') this.restarts.push(now);
    while (this.restarts.length && now - this.restarts[0] > RESTART_WINDOW_MS) this.restarts.shift();
    if (this.disposed || this.disposing) return;
    if (this.restarts.length > RESTARTS_ALLOWED) {
      this.failedForGood = `The engine host failed ${this.restarts.length} times within a minute (last: ${reason.detail}); it is not restarted again. Reload the window (Developer: Reload Window) to start it, and see the TTL Workbench log.`;
      this.options.log?.(this.failedForGood, 'error');
      this.endpointLost(reason, new Error(this.failedForGood));
      this.options.onRestart?.(reason, lostInMemory);
      return;
    }
    this.options.log?.(`Engine host restarted: ${message}`, reason.kind === 'requested' ? 'info' : 'error');
    this.owner = randomUUID();
    this.owners.push(this.owner);
    this.generation++;
    this.spawn();
    for (const b of [...this.backends.values()].sort((x, y) => x.backendId - y.backendId)) b.reopen();
    if (this.endpointState) {
      const resuming: Promise<void> = this.resumeEndpoint(reason).finally(() => {
        if (this.endpointResuming === resuming) this.endpointResuming = undefined;
      });
      this.endpointResuming = resuming;
    }
    this.options.onRestart?.(reason, lostInMemory);
  }

  /** Closes every engine in the worker (data folders synced, locks released), then ends it. */
  async dispose(): Promise<void> {
    if (this.disposed || this.disposing) return;
    // From here on nothing restarts: a worker started now would take the folder's lock.
    this.disposing = true;
    await this.restarting;
    const worker = this.worker;
    let timer: NodeJS.Timeout | undefined;
    try {
      if (worker && !this.failedForGood)
        await Promise.race([
          this.request({ t: 'shutdown', id: this.id() }),
          new Promise((r) => (timer = setTimeout(r, 5000))),
        ]);
    } catch {
      // A worker that cannot shut down is terminated; what it acknowledged is on disk.
    } finally {
      // Not left pending: it would hold a process that has nothing else to do for 5 s.
      clearTimeout(timer);
    }
    this.disposed = true;
    this.endpointState = undefined; // the worker's shutdown stopped it
    for (const p of this.pending.values()) p.reject(new Error('The TTL Workbench engine host was shut down.'));
    this.pending.clear();
    this.worker = undefined;
    if (worker) await worker.terminate().catch(() => undefined);
  }
}

function restartMessage(reason: RestartReason, lostInMemory: boolean, scratch: boolean): string {
  const what =
    reason.kind === 'requested'
      ? 'The engine host was restarted on request.'
      : reason.kind === 'unresponsive'
        ? 'The interrupted code never reached a point where the engine could stop it (plain JavaScript that never calls the database, such as an endless loop), so TTL Workbench restarted the engine host.'
        : reason.kind === 'outOfMemory'
          ? `The engine host ran out of memory (${reason.detail}); TTL Workbench restarted it. Raise ttlWorkbench.engineHost.maxHeapMb, or work with fewer or smaller documents.`
          : `The engine host stopped (${reason.detail}); TTL Workbench restarted it.`;
  const data = lostInMemory
    ? ' The in-memory engine started empty: its data are gone (set ttlWorkbench.storage to "workspace" or "global" to keep them).'
    : ' The engine was reopened from its data folder as of the last acknowledged write.';
  const isolated = scratch ? ' Isolated notebook engines start empty.' : '';
  return `${what}${data}${isolated} Notebook variables are gone: run the cells they come from again.`;
}

/** The Backend over the engine host: every call is a message; events and the catalog are pushed. */
export class WorkerBackend implements Backend {
  private readonly listeners = new Set<BackendListener>();
  private opened: Promise<unknown>;
  private snapshot: CatalogSnapshot | undefined;
  /** Events changed the catalog after the last snapshot: the worker's next push is the one to read. */
  private snapshotStale = false;
  private nextSnapshot: Array<(catalog: CatalogSnapshot) => void> = [];
  private closed = false;
  /** The backend's engine lives in memory only. */
  inMemory: boolean;

  constructor(
    private readonly host: EngineHost,
    readonly backendId: number,
    private spec: BackendSpec,
    private readonly onOpenFailed?: (err: Error) => void,
    /** An isolated notebook's engine: in memory by design, rebuilt by running its notebook. */
    readonly scratch = false,
  ) {
    this.inMemory = spec.dataDir === undefined;
    this.opened = this.openWith();
  }

  private openWith(afterRestart = false): Promise<unknown> {
    const opening = this.host.openOn(this, this.spec, afterRestart).catch((err: Error) => {
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
  reopen(afterRestart = true): void {
    // Whoever waits for a snapshot gets the one the new worker pushes once the backend is open.
    this.snapshotStale = true;
    this.opened = this.openWith(afterRestart);
    void this.opened.then(
      () => this.deliver([{ kind: 'reset' }]),
      () => undefined,
    );
  }

  /**
   * Opens this backend anew on `spec` (a data folder where it ran in memory): the worker closes
   * the old engine, and listeners hear `reset`. Resolves once the new engine is open (on a folder
   * that cannot be opened, in memory again, as at the first open).
   */
  async reopenOn(spec: BackendSpec): Promise<void> {
    this.spec = spec;
    this.inMemory = spec.dataDir === undefined;
    this.reopen(false);
    await this.opened;
  }

  deliver(events: BackendEvent[]): void {
    // The worker sends the snapshot after such events (it reads the catalog between engine calls).
    if (events.some(changesCatalog)) this.snapshotStale = true;
    notifyListeners(this.listeners, events);
  }

  setCatalog(catalog: CatalogSnapshot): void {
    this.snapshot = catalog;
    this.snapshotStale = false;
    const waiting = this.nextSnapshot;
    this.nextSnapshot = [];
    for (const resolve of waiting) resolve(catalog);
  }

  private async call<T>(method: CallName, ...args: unknown[]): Promise<T> {
    if (this.closed) throw new Error('The TTL Workbench backend was disposed (the extension is shutting down).');
    await this.whenOpened();
    return (await this.host.request({
      t: 'call',
      id: this.host.id(),
      backend: this.backendId,
      method,
      args: encodeValue(args),
    })) as T;
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
  expiryCounts(
    index: IndexInfo | { db: string; collection: string; collectionSeconds: number },
    windowSeconds: number,
    cap?: number,
  ): Promise<ExpiryCountResult> {
    return cap === undefined
      ? this.call('expiryCounts', index, windowSeconds)
      : this.call('expiryCounts', index, windowSeconds, cap);
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
  monitorHistory(): Promise<PassRecord[]> {
    return this.call('monitorHistory');
  }
  forecast(db: string, collection: string, request: ForecastRequest): Promise<Forecast> {
    return this.call('forecast', db, collection, request);
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
  importDatabase(
    text: string,
    intoDb?: string,
  ): Promise<{ database: string; collections: number; documents: number; indexes: number }> {
    return intoDb === undefined ? this.call('importDatabase', text) : this.call('importDatabase', text, intoDb);
  }
  exportDatabaseToFile(db: string, file: string): Promise<{ bytes: number }> {
    return this.call('exportDatabaseToFile', db, file);
  }
  importDatabaseFromFile(
    file: string,
    intoDb?: string,
  ): Promise<{ database: string; collections: number; documents: number; indexes: number; bytes: number }> {
    return intoDb === undefined
      ? this.call('importDatabaseFromFile', file)
      : this.call('importDatabaseFromFile', file, intoDb);
  }

  /**
   * The last snapshot the worker pushed; after catalog events, the one the worker pushes next
   * (`allowStale`: the last one at once, so completion never waits on a busy engine).
   */
  async catalog(options: { allowStale?: boolean } = {}): Promise<CatalogSnapshot> {
    if (this.snapshot && (!this.snapshotStale || options.allowStale)) return this.snapshot;
    if (this.snapshot) {
      // A busy engine pushes it when the statement ends; a lost push must not leave anyone waiting.
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          this.call<CatalogSnapshot>('catalog').then((c) => (this.setCatalog(c), resolve(c)), reject);
        }, 5000);
        this.nextSnapshot.push((catalog) => {
          clearTimeout(timer);
          resolve(catalog);
        });
      });
    }
    return (this.snapshot = await this.call<CatalogSnapshot>('catalog'));
  }

  async openPlayground(options: PlaygroundOptions = {}): Promise<PlaygroundSession> {
    await this.whenOpened();
    const session = new WorkerPlayground(this.host, this, options.timeoutMs);
    await session.open();
    return session;
  }

  /** Resolves once the backend is open on the current worker (after a restart it is opened again first). */
  async whenOpened(): Promise<void> {
    await this.host.settled();
    for (let opened = this.opened; ; opened = this.opened) {
      await opened;
      if (opened === this.opened) return;
    }
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
  /** [0] interrupt request, [1] a statement of this session executes, [2] statements begun (protocol.ts). */
  private readonly cell = new Int32Array(new SharedArrayBuffer(12));
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
      interrupt: this.cell.buffer,
    });
  }

  async *run(
    source: string,
    options: PlaygroundRunOptions = {},
  ): AsyncGenerator<PlaygroundEvent, { complete: boolean }, void> {
    if (this.closed)
      throw new Error('The playground session was closed (its notebook or the extension is shutting down).');
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
      // Only a statement of this session that is still the same one, still running, a grace period
      // later is stuck; a run waiting behind another notebook's work is not (it stops when it starts).
      let seen = Atomics.load(this.cell, 2);
      const stuck = (seq: number) => !end && Atomics.load(this.cell, 1) === 1 && Atomics.load(this.cell, 2) === seq;
      const check = () => {
        if (end) return;
        if (stuck(seen)) {
          const seq = seen;
          void this.host.unresponsive(
            `a statement of ${options.filename ?? 'the cell'} ignored the interrupt for ${this.host.stopGraceMs} ms`,
            () => stuck(seq),
          );
          return;
        }
        seen = Atomics.load(this.cell, 2);
        escalation = setTimeout(check, this.host.stopGraceMs);
      };
      escalation = setTimeout(check, this.host.stopGraceMs);
    };
    const request = this.host.request(
      {
        t: 'session.run',
        id: runId,
        session: this.sessionId,
        source,
        ...(options.filename ? { filename: options.filename } : {}),
        ...(options.lineOffset ? { lineOffset: options.lineOffset } : {}),
      },
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
