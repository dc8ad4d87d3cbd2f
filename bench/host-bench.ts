/**
 * The engine host issue's numbers: while the engine does heavy work, how long is the extension
 * host's event loop held? The same five operations run twice in one process, on the same data:
 *  - `worker`: the extension's real path, an EngineHost (worker thread) and its WorkerBackend,
 *    driven as the extension drives it (a playground session's run for the cell, Backend calls
 *    for the rest); every request and answer crosses as a message;
 *  - `in-thread`: the old path, an EmbeddedBackend on this thread, with the same calls.
 * Both keep their engine in a data folder (a fresh temp folder, fsync durability: the extension's
 * defaults), so the compaction has a folder to write and the store's own background compactions
 * happen where they would. The probe (stall-probe.ts) runs on this thread during each operation.
 * Next to that: message round trips, the tree's getChildren over N documents, and memory.
 * Targets (worker path): longest stall under 50 ms, p99 under 10 ms, round trip p50 under 1 ms,
 * getChildren under 5 ms.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { getHeapStatistics } from 'node:v8';
import type { Backend, PlaygroundSession } from '../src/extension/backend/backend';
import { EmbeddedBackend } from '../src/extension/backend/embedded-backend';
import { EngineHost } from '../src/extension/engine-host/client';
import type { WorkerHeapStats } from '../src/extension/engine-host/protocol';
import { withStallProbe, type Stalls } from './stall-probe';
import { installVscodeShim, shimReport } from './vscode-shim';

export interface HostBenchOptions {
  /** Repository root (holds out/). */
  root: string;
  documents: number;
  /** Calls per round-trip measurement (default 2000). */
  roundTrips?: number;
  write?: (text: string) => void;
}

const NOW = Date.parse('2030-01-01T00:00:00Z');
/** A statement of the insert cell runs far past the extension's default limit (10 s) at 1M documents. */
const CELL_TIME_LIMIT_MS = 3_600_000;
const MB = 1048576;

interface Contender {
  name: 'worker' | 'in-thread';
  backend: Backend;
  dataDir: string;
  /** The worker's latency probe (the worker path only). */
  ping?: () => Promise<void>;
  workerHeap?: () => Promise<WorkerHeapStats>;
  heapLimitMb?: number;
  /** Background compactions finished so far (the store tells them through its log). */
  compactions: () => number;
  /** Errors the host or the store logged: they fail the run. */
  errors: string[];
  close(): Promise<void>;
}

interface Row {
  label: string;
  stalls: Stalls;
  note: string;
  /** A measured operation of the issue (not a background or extra row): counts toward the targets. */
  target: boolean;
}

interface Memory {
  mainBefore: HeapFigures;
  mainAfter: HeapFigures;
  workerBefore?: HeapFigures;
  workerAfter?: HeapFigures;
  workerAfterImport?: HeapFigures;
}

interface HeapFigures {
  used: number;
  external: number;
}

interface Latency {
  p50: number;
  p99: number;
}

interface PathResult {
  name: Contender['name'];
  rows: Row[];
  memory: Memory;
  roundTrips: Array<{ label: string; idle: Latency; loaded: Latency }>;
  tree: { first: number; median: number; rows: number; dbMedian: number; topMedian: number };
  loadBefore: number[];
  loadAfter: number[];
  heapLimitMb?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const gc = () => (globalThis as { gc?: () => void }).gc?.();

/**
 * After two full GCs with a pause between: V8 frees array buffers on a background sweeper, so the
 * external figure read right after one gc() still counts buffers of received messages.
 */
async function mainHeap(): Promise<HeapFigures> {
  gc();
  await sleep(200);
  gc();
  const h = getHeapStatistics();
  return { used: h.used_heap_size, external: h.external_memory };
}

function quantile(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function latency(calls: number, fn: () => Promise<unknown>): Promise<Latency> {
  for (let i = 0; i < 200; i++) await fn(); // JIT and caches, not counted
  const xs = new Float64Array(calls);
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    await fn();
    xs[i] = performance.now() - t0;
  }
  xs.sort();
  return { p50: quantile(xs, 0.5), p99: quantile(xs, 0.99) };
}

/** The insert cell: one `for` statement, batches of 1000 built in the cell, half of them dated in the past. */
export function insertCell(documents: number): string {
  return [
    `for (let i = 0; i < ${documents}; i += 1000) {`,
    '  const batch = [];',
    `  for (let j = i; j < Math.min(i + 1000, ${documents}); j++) {`,
    // Even n: up to 30 days in the past (expired for the TTL index); odd n: as far in the future.
    `    batch.push({ n: j, tag: 't' + (j % 10), name: 'user' + j, at: new Date(${NOW} + (j % 2 === 0 ? -1 : 1) * (60 + (j * 7919) % 2592000) * 1000) });`,
    '  }',
    '  db.events.insertMany(batch);',
    '}',
  ].join('\n');
}

async function runCell(session: PlaygroundSession, source: string): Promise<void> {
  for await (const event of session.run(source, { filename: 'host-bench.ttlbook' })) {
    if (event.kind === 'statement' && !event.ok) throw new Error(`the cell failed: ${JSON.stringify(event.outputs)}`);
  }
}

/**
 * Whether the data folder is between compactions: a compaction keeps the previous journal until
 * its snapshot is renamed into place (and a .tmp file while writing it).
 */
function folderQuiet(dir: string): boolean {
  const files = fs.readdirSync(dir);
  return files.filter((f) => /^journal-\d+\.ttlj$/.test(f)).length <= 1 && !files.some((f) => f.endsWith('.tmp'));
}

/**
 * The store compacts by itself once its journal passes 64 MiB, right after the command that
 * passed it: that work belongs to no operation's window, and must not run inside the next one.
 * Waits for the folder to be quiet, measured as a row of its own when anything ran.
 */
async function settle(c: Contender, after: string): Promise<Row | undefined> {
  const before = c.compactions();
  const { value: busy, stalls } = await withStallProbe(async () => {
    let seenBusy = false;
    let quiet = 0;
    await sleep(250);
    while (quiet < 2) {
      if (folderQuiet(c.dataDir)) quiet++;
      else {
        seenBusy = true;
        quiet = 0;
      }
      await sleep(100);
    }
    return seenBusy;
  });
  const n = c.compactions() - before;
  if (!busy && n === 0) return undefined;
  return {
    label: `↳ background compaction after ${after} (until the folder is quiet)`,
    stalls,
    note: `${n} compaction${n === 1 ? '' : 's'} finished`,
    target: false,
  };
}

async function openWorker(root: string, dataDir: string, maxHeapMb: number): Promise<Contender> {
  const errors: string[] = [];
  let compactions = 0;
  const host = new EngineHost({
    // The tsc output, as the unit tests start it: the same compiled files the in-thread path runs.
    workerPath: path.join(root, 'out/src/extension/engine-host/worker-main.js'),
    maxHeapMb,
    log: (text, severity) => {
      if (text.startsWith('Compacted ')) compactions++;
      else if (severity === 'error') errors.push(text);
    },
    onRestart: (reason) => errors.push(`the engine host restarted: ${reason.kind}: ${reason.detail}`),
  });
  const backend = host.open(
    { settings: {}, startMs: NOW, dataDir, durability: 'fsync' },
    { onOpenFailed: (err) => errors.push(`the data folder did not open: ${err.message}`) },
  );
  await backend.whenOpened();
  return {
    name: 'worker',
    backend,
    dataDir,
    ping: () => host.ping(),
    // Twice, as for this thread (mainHeap): the second figure is after the background sweeper.
    workerHeap: async () => {
      await host.heapStats({ gc: true });
      await sleep(200);
      return host.heapStats({ gc: true });
    },
    heapLimitMb: host.heapLimitMb,
    compactions: () => compactions,
    errors,
    close: async () => {
      backend.dispose();
      await host.dispose();
    },
  };
}

async function openInThread(dataDir: string): Promise<Contender> {
  const errors: string[] = [];
  let compactions = 0;
  const backend = new EmbeddedBackend(
    {},
    {
      startMs: NOW,
      dataDir,
      durability: 'fsync',
      onStorageEvent: (text, severity) => {
        if (text.startsWith('Compacted ')) compactions++;
        else if (severity === 'error') errors.push(text);
      },
    },
  );
  return {
    name: 'in-thread',
    backend,
    dataDir,
    compactions: () => compactions,
    errors,
    close: async () => backend.dispose(),
  };
}

function workerFigures(s: WorkerHeapStats): HeapFigures {
  return { used: s.usedHeapBytes, external: s.externalBytes };
}

/** A small database for the round trips: what a tree expansion asks about (nothing in it expires). */
async function smallDatabase(b: Backend): Promise<void> {
  for (let i = 0; i < 10; i++) {
    const name = `c${i}`;
    await b.runCommand('small', {
      insert: name,
      documents: Array.from({ length: 100 }, (_, k) => ({ k, at: new Date(NOW + k * 60_000) })),
    });
    await b.runCommand('small', {
      createIndexes: name,
      indexes: [
        { key: { at: 1 }, name: 'at_1', expireAfterSeconds: 3600 },
        { key: { k: 1 }, name: 'k_1' },
      ],
    });
  }
}

async function roundTrips(c: Contender, calls: number): Promise<Map<string, Latency>> {
  const out = new Map<string, Latency>();
  if (c.ping) out.set('host.ping()', await latency(calls, c.ping));
  out.set("listCollections('small') (10 collections)", await latency(calls, () => c.backend.listCollections('small')));
  out.set("listIndexes('small', 'c0') (3 indexes)", await latency(calls, () => c.backend.listIndexes('small', 'c0')));
  return out;
}

async function treeTimes(backend: Backend): Promise<PathResult['tree']> {
  const { DatabasesTreeProvider } = await import('../src/extension/tree/provider');
  const tree = new DatabasesTreeProvider(backend, 0);
  const timed = async <T>(fn: () => Promise<T>) => {
    const t0 = performance.now();
    const value = await fn();
    return { ms: performance.now() - t0, value };
  };
  const median = async (runs: number, fn: () => Promise<unknown>) => {
    const xs: number[] = [];
    for (let i = 0; i < runs; i++) xs.push((await timed(fn)).ms);
    return xs.sort((a, b) => a - b)[Math.floor(runs / 2)];
  };
  try {
    const [engineNode] = await tree.getChildren();
    const dbs = await tree.getChildren(engineNode);
    const db = dbs.find((n) => n.type === 'database' && n.db === 'imported');
    if (!db) throw new Error('the tree shows no database "imported"');
    const colls = await tree.getChildren(db);
    const coll = colls.find((n) => n.type === 'collection' && n.info.name === 'events');
    if (!coll) throw new Error('the tree shows no collection imported.events');
    const first = await timed(() => tree.getChildren(coll));
    return {
      first: first.ms,
      rows: first.value.length,
      median: await median(30, () => tree.getChildren(coll)),
      dbMedian: await median(30, () => tree.getChildren(db)),
      topMedian: await median(30, () => tree.getChildren(engineNode)),
    };
  } finally {
    tree.dispose();
  }
}

/** The whole sequence on one path. */
async function runPath(c: Contender, n: number, calls: number, write: (text: string) => void): Promise<PathResult> {
  const rows: Row[] = [];
  const loadBefore = os.loadavg();
  const mainBefore = await mainHeap();
  const workerBefore = c.workerHeap ? workerFigures(await c.workerHeap()) : undefined;
  const count = (x: number) => x.toLocaleString('en-US');
  const step = async <T>(
    label: string,
    work: () => Promise<T>,
    note: (value: T) => string,
    target = true,
  ): Promise<T> => {
    write(`  ${c.name}: ${label} …\n`);
    const { value, stalls } = await withStallProbe(work);
    rows.push({ label, stalls, note: note(value), target });
    const background = await settle(c, label.split(':')[0]);
    if (background) rows.push(background);
    return value;
  };

  await smallDatabase(c.backend);
  const idle = await roundTrips(c, calls);
  // What the probe reads with nothing to do: the machine's own noise (a shared VM).
  await step(
    '(reference) nothing running, 3 s',
    () => sleep(3000),
    () => 'the noise floor',
    false,
  );

  // 1. The cell.
  const session = await c.backend.openPlayground({ timeoutMs: CELL_TIME_LIMIT_MS });
  await step(
    `1. ${count(n)} inserts from a cell`,
    () => runCell(session, insertCell(n)),
    () => 'one `for` statement, insertMany of 1000',
  );
  session.dispose();
  const mainAfter = await mainHeap();
  const workerAfter = c.workerHeap ? workerFigures(await c.workerHeap()) : undefined;

  // 2. The index build: the TTL index and three others, in one command.
  await step(
    `2. createIndexes: 4 indexes on ${count(n)} docs`,
    () =>
      c.backend.runCommand('test', {
        createIndexes: 'events',
        indexes: [
          { key: { at: 1 }, name: 'at_ttl', expireAfterSeconds: 0 },
          { key: { n: 1 }, name: 'n_1' },
          { key: { tag: 1 }, name: 'tag_1' },
          { key: { name: 1 }, name: 'name_1' },
        ],
      }),
    (reply) => `numIndexesAfter ${String(reply.numIndexesAfter)}`,
  );

  // The import's text: the database as the Export command writes it (N documents, 5 indexes).
  // Not part of the import's window; timed as an extra row, since it is a user command too.
  // Through a file, as the Export and Import commands do: the backend writes and reads it itself.
  const exportFile = path.join(os.tmpdir(), `ttl-host-bench-${process.pid}-${c.name.replace(/\W+/g, '-')}.ejson.json`);
  await step(
    `(extra) exportDatabaseToFile('test'): ${count(n)} docs`,
    () => c.backend.exportDatabaseToFile('test', exportFile),
    (r) => `${(r.bytes / MB).toFixed(0)} MiB of EJSON`,
    false,
  );

  // 3. The TTL pass: half the documents expired, three more indexes to maintain.
  await step(
    `3. runTTLPass(): delete ${count(n / 2)}, 3 other indexes`,
    () => c.backend.runTTLPass(),
    (r) =>
      `deleted ${count(r.deleted)} in ${r.subPasses} sub-pass${r.subPasses === 1 ? '' : 'es'}${r.deleted === n / 2 ? '' : ' (EXPECTED ' + count(n / 2) + ')'}`,
  );

  // 4. The import, into a database of its own (an import refuses existing collections).
  await step(
    `4. importDatabaseFromFile: ${count(n)} docs, EJSON`,
    () => c.backend.importDatabaseFromFile(exportFile, 'imported'),
    (r) => `${count(r.documents)} docs, ${r.indexes} indexes`,
  );
  fs.rmSync(exportFile, { force: true });
  const workerAfterImport = c.workerHeap ? workerFigures(await c.workerHeap()) : undefined;

  // 5. The compaction: everything now in the folder (N/2 + N documents).
  await step(
    '5. compactNow()',
    () => c.backend.compactNow(),
    (r) => `${count(r.documents)} docs, ${(r.bytes / MB).toFixed(0)} MiB, engine held ${r.heldMs.toFixed(0)} ms`,
  );

  write(`  ${c.name}: tree and round trips …\n`);
  const tree = await treeTimes(c.backend);
  const loaded = await roundTrips(c, calls);
  const loadAfter = os.loadavg();
  if (c.errors.length) throw new Error(`the ${c.name} path logged errors:\n${c.errors.join('\n')}`);
  return {
    name: c.name,
    rows,
    memory: {
      mainBefore,
      mainAfter,
      ...(workerBefore ? { workerBefore } : {}),
      ...(workerAfter ? { workerAfter } : {}),
      ...(workerAfterImport ? { workerAfterImport } : {}),
    },
    roundTrips: [...idle].map(([label, lat]) => ({ label, idle: lat, loaded: loaded.get(label)! })),
    tree,
    loadBefore,
    loadAfter,
    ...(c.heapLimitMb ? { heapLimitMb: c.heapLimitMb } : {}),
  };
}

const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);
const mib = (x: number) => `${(x / MB).toFixed(1)} MiB`;
const loads = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' ');
const ratio = (x: number) => `${x >= 10 ? x.toFixed(0) : x.toFixed(1)}x`;

/** The longest gap split by schedstat (stall-probe.ts): whose fault a stall was. */
function gap(g: Stalls['worstGap']): string {
  if (!g) return '—';
  const other = Math.max(0, g.ms - g.cpuMs - g.waitMs);
  return `${g.ms.toFixed(0)} ms: ${g.cpuMs.toFixed(0)} / ${g.waitMs.toFixed(0)} / ${other.toFixed(0)} ms`;
}

function pathTable(r: PathResult): string[] {
  const lines = [
    `\n### ${r.name === 'worker' ? 'Worker path (EngineHost + WorkerBackend, messages)' : 'In-thread path (EmbeddedBackend on the main thread)'}`,
    `(load average ${loads(r.loadBefore)} before, ${loads(r.loadAfter)} after)`,
    '',
    '| operation | wall | main thread: longest stall | p99 | main-thread CPU | longest gap: on CPU / waiting for a core / other | peak RSS | notes |',
    '|---|---|---|---|---|---|---|---|',
    ...r.rows.map(
      (x) =>
        `| ${x.label} | ${(x.stalls.wallMs / 1000).toFixed(2)} s | ${f1(x.stalls.maxMs)} ms | ${f1(x.stalls.p99Ms)} ms | ${x.stalls.cpuMs === undefined ? '—' : `${x.stalls.cpuMs.toFixed(0)} ms`} | ${gap(x.stalls.worstGap)} | ${(x.stalls.peakRssBytes / MB).toFixed(0)} MiB | ${x.note} |`,
    ),
  ];
  const targets = r.rows.filter((x) => x.target);
  const max = Math.max(...targets.map((x) => x.stalls.maxMs));
  const p99 = Math.max(...targets.map((x) => x.stalls.p99Ms));
  lines.push(
    '',
    `Through operations 1–5: longest stall ${f1(max)} ms, worst p99 ${f1(p99)} ms (the p99 of all their samples together is at most that).`,
  );
  if (r.name === 'worker')
    lines.push(
      `Targets (worker path): longest stall < 50 ms ${max < 50 ? 'MET' : 'MISSED'}; p99 < 10 ms ${p99 < 10 ? 'MET' : 'MISSED'}.`,
    );
  return lines;
}

function report(results: PathResult[], n: number, calls: number): string {
  const count = n.toLocaleString('en-US');
  const worker = results.find((r) => r.name === 'worker')!;
  const inThread = results.find((r) => r.name === 'in-thread')!;
  const lines = [
    `\n## Engine host: the main thread while the engine works (N = ${count}; ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores)`,
  ];
  for (const r of results) lines.push(...pathTable(r));

  lines.push(
    '',
    '### Longest main-thread stall, worker vs in-thread',
    '',
    '| operation | worker | in-thread | in-thread / worker |',
    '|---|---|---|---|',
  );
  for (const row of worker.rows.filter((x) => x.target || x.label.startsWith('(extra)'))) {
    const other = inThread.rows.find((x) => x.label === row.label);
    if (!other) continue;
    lines.push(
      `| ${row.label} | ${f1(row.stalls.maxMs)} ms | ${f1(other.stalls.maxMs)} ms | ${ratio(other.stalls.maxMs / row.stalls.maxMs)} |`,
    );
  }

  lines.push(
    '',
    `### Message round trips (${calls.toLocaleString('en-US')} calls each, after 200 uncounted; target p50 < 1 ms on the worker path)`,
    '',
  );
  lines.push(
    '| call | path | p50 idle | p99 idle | p50 with the data loaded | p99 with the data loaded |',
    '|---|---|---|---|---|---|',
  );
  for (const r of results)
    for (const t of r.roundTrips)
      lines.push(
        `| ${t.label} | ${r.name} | ${f2(t.idle.p50)} ms | ${f2(t.idle.p99)} ms | ${f2(t.loaded.p50)} ms | ${f2(t.loaded.p99)} ms |`,
      );
  const workerP50 = Math.max(...worker.roundTrips.map((t) => Math.max(t.idle.p50, t.loaded.p50)));
  lines.push('', `Target p50 < 1 ms ${workerP50 < 1 ? 'MET' : 'MISSED'} (worst worker p50 ${f2(workerP50)} ms).`);

  lines.push(
    '',
    `### The Databases tree over imported.events (${count} documents, ${worker.tree.rows} index rows; target getChildren < 5 ms)`,
    '',
  );
  lines.push(
    '| path | getChildren(collection) first | median of 30 | getChildren(database) median | getChildren(engine) median |',
    '|---|---|---|---|---|',
  );
  for (const r of results)
    lines.push(
      `| ${r.name} | ${f2(r.tree.first)} ms | ${f2(r.tree.median)} ms | ${f2(r.tree.dbMedian)} ms | ${f2(r.tree.topMedian)} ms |`,
    );
  lines.push(
    '',
    `Target ${worker.tree.first < 5 && worker.tree.median < 5 ? 'MET' : 'MISSED'} on the worker path (first ${f2(worker.tree.first)} ms, median ${f2(worker.tree.median)} ms).`,
  );

  lines.push(
    '',
    `### Memory (V8 heap after a full GC: used (external); ${count} documents from the cell, no secondary index yet)`,
    '',
  );
  lines.push(
    '| path | main thread before | main thread after N inserts | main thread growth / doc | worker before | worker after N inserts | worker growth / doc | worker after the import (N/2 + N docs, indexes) |',
    '|---|---|---|---|---|---|---|---|',
  );
  for (const r of results) {
    const m = r.memory;
    const fig = (h?: HeapFigures) => (h ? `${mib(h.used)} (${mib(h.external)})` : '—');
    const perDoc = (a?: HeapFigures, b?: HeapFigures) =>
      a && b ? `${((b.used + b.external - a.used - a.external) / n).toFixed(0)} B` : '—';
    lines.push(
      `| ${r.name} | ${fig(m.mainBefore)} | ${fig(m.mainAfter)} | ${perDoc(m.mainBefore, m.mainAfter)} | ${fig(m.workerBefore)} | ${fig(m.workerAfter)} | ${perDoc(m.workerBefore, m.workerAfter)} | ${fig(m.workerAfterImport)} |`,
    );
  }
  if (worker.heapLimitMb) lines.push('', `The worker's heap limit as it reported it: ${worker.heapLimitMb} MiB.`);
  lines.push('');
  return lines.join('\n');
}

export async function runHostBench(options: HostBenchOptions): Promise<void> {
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  const n = options.documents;
  if (n % 2000 !== 0)
    throw new Error(
      `the host bench needs a multiple of 2,000 documents (half of them expired, batches of 1000), not ${n}`,
    );
  const calls = options.roundTrips ?? 2000;
  // The tree provider imports `vscode`; the extension's heap default lives next to the settings.
  installVscodeShim();
  const { DEFAULT_ENGINE_HOST_HEAP_MB } = await import('../src/extension/settings');
  write(`\n# Engine host (N = ${n.toLocaleString('en-US')}; worker path first, then in-thread)\n`);
  const results: PathResult[] = [];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-host-bench-'));
  try {
    for (const open of [(dir: string) => openWorker(options.root, dir, DEFAULT_ENGINE_HOST_HEAP_MB), openInThread]) {
      const dir = fs.mkdtempSync(path.join(tmp, 'data-'));
      const c = await open(dir);
      try {
        results.push(await runPath(c, n, calls, write));
      } finally {
        await c.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
      // The next path starts on a collected heap and a quiet disk.
      gc();
      await sleep(1000);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const { errors } = shimReport();
  if (errors.length) throw new Error(`the tree logged or showed errors:\n${errors.join('\n')}`);
  write(report(results, n, calls));
}
