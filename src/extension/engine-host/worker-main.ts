/**
 * The engine host: the worker thread that runs the window's engines (the shared one, and one per
 * isolated notebook), their data folders, TTL monitors and playground sessions, so that no engine
 * work ever holds the extension host's thread. It serves the Backend methods over messages
 * (protocol.ts). No `vscode` import; started by client.ts with the bundle dist/engine-host.js.
 */
import { parentPort } from 'node:worker_threads';
import { getHeapStatistics } from 'node:v8';
import { changesCatalog, type BackendEvent, type PlaygroundSession } from '../backend/backend';
import { EmbeddedBackend } from '../backend/embedded-backend';
import type { WireServer } from '../../wire/server';
import { listen, serveBackend } from './endpoint';
import type { FromWorker, ToWorker, WorkerHeapStats } from './protocol';
import { decodeValue, encodeError, encodeValue } from './wire-values';

const port = parentPort;
if (!port) throw new Error('engine-host/worker-main runs as a worker thread (new Worker), not as a script.');

/**
 * How often, at most, events and printed lines cross while the engine is busy: a loop of single
 * inserts would otherwise send a message per insert; an idle engine sends at once.
 */
const FLUSH_EVERY_MS = 25;

function post(message: FromWorker): void {
  port!.postMessage(message);
}

/** Engine events for one backend, coalesced, sent at most every FLUSH_EVERY_MS; a catalog snapshot follows catalog changes. */
class EventPump {
  private pending: BackendEvent[] = [];
  private counts = new Map<string, number>();
  private lastSent = 0;
  private timer: NodeJS.Timeout | undefined;
  private catalogTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly id: number,
    private readonly backend: EmbeddedBackend,
  ) {}

  push(events: readonly BackendEvent[]): void {
    let catalogChanged = false;
    for (const e of events) {
      if ('count' in e) {
        const key = `${e.kind}\u0000${e.db}\u0000${e.collection}\u0000${e.cause}`;
        const at = this.counts.get(key);
        if (at !== undefined) {
          const prev = this.pending[at] as typeof e;
          this.pending[at] = { ...prev, count: prev.count + e.count };
          continue;
        }
        this.counts.set(key, this.pending.length);
      } else if (changesCatalog(e)) {
        catalogChanged = true;
      }
      this.pending.push(e);
    }
    if (catalogChanged) this.catalogSoon();
    // Called synchronously from inside engine work (a long statement): send now when it is time,
    // since a timer would wait for the statement's end.
    if (performance.now() - this.lastSent >= FLUSH_EVERY_MS) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_EVERY_MS);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    post({ t: 'events', backend: this.id, events: this.pending });
    this.pending = [];
    this.counts = new Map();
    this.lastSent = performance.now();
  }

  /** The catalog is read by commands, never inside an engine listener: on the next turn of the loop. */
  catalogSoon(): void {
    this.catalogTimer ??= setTimeout(() => {
      this.catalogTimer = undefined;
      // The events that changed the catalog go first: the client waits for the snapshot after them.
      this.flush();
      try {
        post({ t: 'catalog', backend: this.id, catalog: encodeValue(this.backend.catalogNow()) });
      } catch (err) {
        post({ t: 'log', text: `Could not send the catalog snapshot: ${(err as Error).message}`, severity: 'error' });
      }
    }, 0);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.catalogTimer) clearTimeout(this.catalogTimer);
  }
}

/** Printed lines of one run, sent as they are printed (at most every FLUSH_EVERY_MS while printing fast). */
class PrintPump {
  private lines: string[] = [];
  private lastSent = 0;
  run: number | undefined;

  line(text: string): void {
    this.lines.push(text);
    if (performance.now() - this.lastSent >= FLUSH_EVERY_MS) this.flush();
  }

  flush(): void {
    if (this.lines.length === 0 || this.run === undefined) return;
    post({ t: 'run', id: this.run, events: [{ kind: 'print', text: this.lines.join('\n') }] });
    this.lines = [];
    this.lastSent = performance.now();
  }
}

interface HostedBackend {
  backend: EmbeddedBackend;
  pump: EventPump;
  unsubscribe: () => void;
}

interface HostedSession {
  backend: number;
  session: PlaygroundSession;
  prints: PrintPump;
  cell: Int32Array;
}

const backends = new Map<number, HostedBackend>();
const sessions = new Map<number, HostedSession>();
const runs = new Map<number, AbortController>();
/** Stops that arrived before their run (the client posts a stop at once, a run once the worker is ready). */
const stoppedEarly = new Set<number>();

/** The local endpoint, when it runs: the wire server and the backend whose engine it serves. */
let endpoint: { backend: number; server: WireServer } | undefined;

async function stopEndpoint(): Promise<void> {
  const running = endpoint;
  endpoint = undefined;
  await running?.server.stop();
}

function hosted(id: number): HostedBackend {
  const h = backends.get(id);
  if (!h) throw new Error(`The engine host has no backend ${id} (it was closed).`);
  return h;
}

function reply(id: number, value?: unknown): void {
  // Events of the work this answers go first: a caller sees its own changes in what follows.
  for (const h of backends.values()) h.pump.flush();
  post({ t: 'reply', id, ok: true, ...(value !== undefined ? { value: encodeValue(value) } : {}) });
}

function fail(id: number, err: unknown): void {
  post({ t: 'reply', id, ok: false, error: encodeError(err) });
}

function closeBackend(id: number): void {
  const h = backends.get(id);
  if (!h) return;
  backends.delete(id);
  // Its engine goes: so does the endpoint that serves it (every connection closed).
  if (endpoint?.backend === id) void stopEndpoint();
  h.unsubscribe();
  h.pump.dispose();
  h.backend.dispose();
  for (const [sid, hs] of sessions) if (hs.backend === id) sessions.delete(sid);
}

async function handle(m: ToWorker): Promise<void> {
  switch (m.t) {
    case 'ping':
      return reply(m.id);
    case 'stats': {
      // Without a collection the figure includes the garbage of the last load, which varies by 2x.
      if (m.gc) (globalThis as { gc?: () => void }).gc?.();
      const h = getHeapStatistics();
      const stats: WorkerHeapStats = {
        usedHeapBytes: h.used_heap_size,
        externalBytes: h.external_memory,
        heapLimitBytes: h.heap_size_limit,
      };
      return reply(m.id, stats);
    }
    case 'open': {
      const { spec } = m;
      closeBackend(m.backend); // a repeated open replaces, never leaks, the engine and its folder's lock
      const backend = new EmbeddedBackend(spec.settings, {
        ...(spec.startMs !== undefined ? { startMs: spec.startMs } : {}),
        ...(spec.dataDir !== undefined
          ? { dataDir: spec.dataDir, durability: spec.durability ?? 'fsync', lock: m.lock }
          : {}),
        ...(spec.yieldAfterMs !== undefined ? { yieldAfterMs: spec.yieldAfterMs } : {}),
        onStorageEvent: (text, severity) => post({ t: 'log', text, severity }),
      });
      const pump = new EventPump(m.backend, backend);
      const unsubscribe = backend.onDidChange((events) => pump.push(events));
      backends.set(m.backend, { backend, pump, unsubscribe });
      pump.catalogSoon();
      return reply(m.id, backend.currentSettings);
    }
    case 'call': {
      const { backend } = hosted(m.backend);
      const args = decodeValue(m.args) as unknown[];
      const method = backend[m.method] as (...a: unknown[]) => Promise<unknown>;
      const value = await method.apply(backend, args);
      return reply(m.id, value);
    }
    case 'close':
      closeBackend(m.backend);
      return reply(m.id);
    case 'session.open': {
      const { backend } = hosted(m.backend);
      const prints = new PrintPump();
      const cell = new Int32Array(m.interrupt);
      const session = await backend.openPlayground({
        ...(m.timeoutMs !== undefined ? { timeoutMs: m.timeoutMs } : {}),
        interruptCell: cell,
        onPrint: (line) => prints.line(line),
      });
      sessions.set(m.session, { backend: m.backend, session, prints, cell });
      return reply(m.id);
    }
    case 'session.run':
      return runSession(m);
    case 'session.stop': {
      const run = runs.get(m.run);
      if (run) run.abort();
      else if (stoppedEarly.size < 1000) stoppedEarly.add(m.run);
      return;
    }
    case 'session.dispose': {
      sessions.get(m.session)?.session.dispose();
      sessions.delete(m.session);
      return;
    }
    case 'endpoint.start': {
      const { backend } = hosted(m.backend);
      await stopEndpoint();
      const server = serveBackend(backend, {
        port: m.port,
        host: m.host,
        log: (line) => post({ t: 'log', text: `Local endpoint: ${line}`, severity: 'info' }),
      });
      const address = await listen(server, m.port, m.host);
      endpoint = { backend: m.backend, server };
      return reply(m.id, address);
    }
    case 'endpoint.stop':
      await stopEndpoint();
      return reply(m.id);
    case 'shutdown': {
      await stopEndpoint();
      for (const [id, h] of backends) {
        backends.delete(id);
        h.unsubscribe();
        h.pump.flush();
        h.pump.dispose();
        h.backend.dispose(); // closes the data folder: synced, lock released
      }
      reply(m.id);
      return;
    }
  }
}

async function runSession(m: Extract<ToWorker, { t: 'session.run' }>): Promise<void> {
  const hostedSession = sessions.get(m.session);
  if (!hostedSession) throw new Error('The playground session was closed.');
  const { session, prints } = hostedSession;
  const stop = new AbortController();
  if (stoppedEarly.delete(m.id)) stop.abort();
  runs.set(m.id, stop);
  prints.run = m.id;
  const pump = backends.get(hostedSession.backend)?.pump;
  try {
    const run = session.run(m.source, {
      ...(m.filename ? { filename: m.filename } : {}),
      ...(m.lineOffset ? { lineOffset: m.lineOffset } : {}),
      signal: stop.signal,
    });
    for (;;) {
      const step = await run.next();
      // Printed lines and engine events first: they happened before the statement ended.
      prints.flush();
      pump?.flush();
      if (step.done) return reply(m.id, { ...step.value, dbName: session.dbName, restarted: session.restarted });
      post({ t: 'run', id: m.id, events: [step.value] });
    }
  } finally {
    // Lines printed by a statement that ended the run by throwing belong to this run, not the next.
    prints.flush();
    runs.delete(m.id);
    prints.run = undefined;
  }
}

port.on('message', (m: ToWorker) => {
  handle(m).catch((err) => {
    if ('id' in m) fail(m.id, err);
    else
      post({
        t: 'log',
        text: `The engine host could not handle "${m.t}": ${(err as Error).message}`,
        severity: 'error',
      });
  });
});

post({ t: 'ready', heapLimitMb: Math.round(getHeapStatistics().heap_size_limit / 1048576) });
