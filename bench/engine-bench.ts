/**
 * Engine benchmark: our embedded engine against @seald-io/nedb, lokijs and a bare sorted-btree +
 * Map baseline, on the same generated documents, in the same process and run.
 *
 * For each size N it measures, per contender:
 *   - inserts/s with 0, 1 and 3 secondary indexes (indexes created before inserting, batches of 1000);
 *   - point-query latency by _id and by an indexed field (createdAt equality);
 *   - 1-hour range-query latency on createdAt with and without an index;
 *   - retained heap bytes per document (global.gc() before and after loading, one contender alive).
 * and prints the ratios engine/nedb, engine/loki, engine/baseline plus the issue's targets.
 *
 * See bench/README.md for what each number means and the fairness rules.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { ObjectId } from 'bson';
import Datastore from '@seald-io/nedb';
import Loki from 'lokijs';
import BTree from 'sorted-btree';
import { Engine } from '../src/engine';
import { prng } from '../test/unit/helpers/prng';

// ---- workload ------------------------------------------------------------------------------------

const SEED = 0x7715eed;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const SPAN_MS = 30 * DAY;
const START_MS = Date.UTC(2025, 0, 1);
const BATCH = 1000;
const TAGS = ['red', 'orange', 'yellow', 'green', 'blue', 'indigo', 'violet', 'black', 'white', 'grey'];
/** nedb inserts roughly 16k docs/s: above this many documents it runs on a prefix sample. */
const NEDB_MAX_DOCS = 200_000;
/** Insert runs are repeated (best of) up to this many times while their total stays under the budget. */
const INSERT_MAX_RUNS = 3;
const INSERT_BUDGET_MS = 6_000;
/** Documents of the untimed warm-up load each contender does before its measured runs. */
const WARMUP_DOCS = 20_000;
/** How many range windows the result-count cross-check runs (indexed / full scan). */
const RETURN_CHECK_WINDOWS = 20;
const RETURN_CHECK_SCAN_WINDOWS = 5;

export type BenchDoc = {
  _id: ObjectId;
  name: string;
  createdAt: Date;
  n: number;
  tag: string;
};

/** The shape given to nedb and lokijs: their native string _id (the ObjectId's hex). */
type StrDoc = {
  _id: string;
  name: string;
  createdAt: Date;
  n: number;
  tag: string;
};

/**
 * Deterministic documents: every call with the same seed yields the same sequence of fresh objects
 * (fresh ObjectIds, strings and Dates, so a memory measurement never shares data with other copies).
 */
export function* generateDocs(count: number, seed = SEED): Generator<BenchDoc> {
  const rng = prng(seed);
  const bytes = new Uint8Array(12);
  for (let i = 0; i < count; i++) {
    const t = START_MS + Math.floor(rng() * SPAN_MS);
    const secs = Math.floor(t / 1000);
    bytes[0] = secs >>> 24;
    bytes[1] = (secs >>> 16) & 0xff;
    bytes[2] = (secs >>> 8) & 0xff;
    bytes[3] = secs & 0xff;
    for (let b = 4; b < 9; b++) bytes[b] = Math.floor(rng() * 256);
    bytes[9] = (i >>> 16) & 0xff;
    bytes[10] = (i >>> 8) & 0xff;
    bytes[11] = i & 0xff;
    yield {
      _id: new ObjectId(bytes),
      name: `user${Math.floor(rng() * 100_000)}`,
      createdAt: new Date(t),
      n: Math.floor(rng() * 1_000_000),
      tag: TAGS[Math.floor(rng() * TAGS.length)],
    };
  }
}

function toStrDoc(d: BenchDoc, hex = d._id.toHexString()): StrDoc {
  return { _id: hex, name: d.name, createdAt: d.createdAt, n: d.n, tag: d.tag };
}

/**
 * The first `count` documents of the data set as fresh objects in a contender's shape, in insert
 * batches. Built before the clock starts; fresh per run, so no contender shares objects with another
 * copy (lokijs keeps and mutates its input; the memory numbers must count everything a store keeps).
 */
function inputBatches(c: Contender, count: number): unknown[][] {
  const out: unknown[][] = [];
  let batch: unknown[] = [];
  for (const d of generateDocs(count)) {
    batch.push(c.shape(d));
    if (batch.length === BATCH) {
      out.push(batch);
      batch = [];
    }
  }
  if (batch.length) out.push(batch);
  return out;
}

// ---- contenders ----------------------------------------------------------------------------------

type Secondary = 'createdAt' | 'n' | 'tag';

/** A loaded store. Methods return a result count (to keep work observable) or a promise of it. */
interface Store {
  insert(batch: unknown[]): unknown;
  /** Work a contender defers to the end of a load (lokijs' index rebuild); timed with the inserts. */
  finishLoad(): void;
  /** `arg` comes from the contender's `idArg`, prepared before timing. */
  pointById(arg: unknown): unknown;
  pointByDate(date: Date): unknown;
  range(lo: Date, hi: Date): number | Promise<number>;
  /** True when the plan really used the createdAt index (sanity check). */
  usesDateIndex?(lo: Date, hi: Date): boolean;
}

interface Contender {
  key: 'engine' | 'nedb' | 'loki' | 'baseline';
  /** Methods return promises that must be awaited (nedb). */
  async: boolean;
  create(indexes: Secondary[]): Promise<Store>;
  /** A generated document in the shape this contender is given. */
  shape(d: BenchDoc): unknown;
  /** The _id argument of a point query for document d. */
  idArg(d: BenchDoc): unknown;
  /** How many documents of N this contender loads (nedb samples large sizes). */
  loadedCount(n: number): number;
}

const engineContender: Contender = {
  key: 'engine',
  async: false,
  async create(indexes) {
    const engine = new Engine();
    const c = engine.db('bench').collection('docs');
    engine.db('bench').createCollection('docs');
    for (const f of indexes) c.createIndex({ [f]: 1 });
    return {
      insert: (batch) => c.insertMany(batch as BenchDoc[]),
      finishLoad: () => undefined,
      pointById: (id) => c.findOne({ _id: id }),
      pointByDate: (date) => c.findOne({ createdAt: date }),
      range: (lo, hi) => c.find({ createdAt: { $gte: lo, $lt: hi } }).length,
      usesDateIndex: (lo, hi) =>
        JSON.stringify(c.explain({ createdAt: { $gte: lo, $lt: hi } }, {}, 'queryPlanner')).includes('"IXSCAN"'),
    };
  },
  shape: (d) => d,
  idArg: (d) => d._id,
  loadedCount: (n) => n,
};

const nedbContender: Contender = {
  key: 'nedb',
  async: true,
  async create(indexes) {
    const db = new Datastore<StrDoc>({ inMemoryOnly: true });
    for (const f of indexes) await db.ensureIndexAsync({ fieldName: f });
    return {
      insert: (batch) => db.insertAsync(batch as StrDoc[]),
      finishLoad: () => undefined,
      pointById: (id) => db.findOneAsync({ _id: id as string }),
      pointByDate: (date) => db.findOneAsync({ createdAt: date }),
      range: async (lo, hi) => (await db.findAsync({ createdAt: { $gte: lo, $lt: hi } })).length,
    };
  },
  shape: (d) => toStrDoc(d),
  idArg: (d) => d._id.toHexString(),
  loadedCount: (n) => Math.min(n, NEDB_MAX_DOCS),
};

const lokiContender: Contender = {
  key: 'loki',
  async: false,
  async create(indexes) {
    const db = new Loki('bench.db');
    // adaptiveBinaryIndices splices every insert into a sorted array (O(n) each; ~160 s for 1M random
    // dates), so the index is rebuilt once after the load instead; that rebuild is timed.
    const coll = db.addCollection<StrDoc>('docs', { unique: ['_id'], indices: indexes, adaptiveBinaryIndices: false });
    return {
      insert: (batch) => coll.insert(batch as StrDoc[]),
      finishLoad: () => {
        for (const f of indexes) coll.ensureIndex(f, true);
      },
      pointById: (id) => coll.by('_id', id as string),
      pointByDate: (date) => coll.findOne({ createdAt: { $dteq: date } }),
      // $between is inclusive; dates have millisecond resolution, so hi - 1 ms makes it [lo, hi).
      range: (lo, hi) => coll.find({ createdAt: { $between: [lo, new Date(hi.getTime() - 1)] } }).length,
    };
  },
  shape: (d) => toStrDoc(d),
  idArg: (d) => d._id.toHexString(),
  loadedCount: (n) => n,
};

type BKey = [number | string, string];
// One comparator per key type (number for createdAt/n, string for tag), as a hand-written store
// would have: a shared comparator seeing both types gets slower for every tree.
function compareNumKey(a: BKey, b: BKey): number {
  const x = a[0] as number;
  const y = b[0] as number;
  if (x !== y) return x < y ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}
function compareStrKey(a: BKey, b: BKey): number {
  const x = a[0] as string;
  const y = b[0] as string;
  if (x !== y) return x < y ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}

/** The copy the baseline stores and returns (the same contract as the engine: callers never alias stored data). */
function copyDoc(doc: BenchDoc): BenchDoc {
  const out: Record<string, unknown> = {};
  for (const k in doc) {
    const v = (doc as unknown as Record<string, unknown>)[k];
    out[k] = v instanceof Date ? new Date(v.getTime()) : v;
  }
  return out as unknown as BenchDoc;
}

function keyOf(doc: BenchDoc, field: Secondary): number | string {
  return field === 'createdAt' ? doc.createdAt.getTime() : doc[field];
}

/** Bare baseline: a Map of documents by _id plus one sorted-btree per secondary index, keyed [value, id]. */
class Baseline {
  readonly byId = new Map<string, BenchDoc>();
  readonly trees: Array<{ field: Secondary; tree: BTree<BKey, BenchDoc> }>;

  constructor(indexes: Secondary[]) {
    this.trees = indexes.map((field) => ({
      field,
      tree: new BTree<BKey, BenchDoc>(undefined, field === 'tag' ? compareStrKey : compareNumKey),
    }));
  }

  insert(batch: BenchDoc[]): void {
    for (const input of batch) {
      const doc = copyDoc(input);
      const id = doc._id.toHexString();
      if (this.byId.has(id)) throw new Error(`duplicate _id ${id}`);
      this.byId.set(id, doc);
      for (const { field, tree } of this.trees) tree.set([keyOf(doc, field), id], doc);
    }
  }

  dateTree(): BTree<BKey, BenchDoc> | undefined {
    return this.trees.find((t) => t.field === 'createdAt')?.tree;
  }

  pointById(id: ObjectId): BenchDoc | undefined {
    const doc = this.byId.get(id.toHexString());
    return doc && copyDoc(doc);
  }

  pointByDate(date: Date): BenchDoc | undefined {
    const t = date.getTime();
    const tree = this.dateTree();
    if (!tree) {
      for (const doc of this.byId.values()) if (doc.createdAt.getTime() === t) return copyDoc(doc);
      return undefined;
    }
    const pair = tree.getPairOrNextHigher([t, '']);
    return pair && pair[0][0] === t ? copyDoc(pair[1]) : undefined;
  }

  range(lo: Date, hi: Date): BenchDoc[] {
    const a = lo.getTime();
    const b = hi.getTime();
    const out: BenchDoc[] = [];
    const tree = this.dateTree();
    if (tree) {
      tree.forRange([a, ''], [b, ''], false, (_k, doc) => {
        out.push(copyDoc(doc));
      });
    } else {
      for (const doc of this.byId.values()) {
        const t = doc.createdAt.getTime();
        if (t >= a && t < b) out.push(copyDoc(doc));
      }
    }
    return out;
  }
}

const baselineContender: Contender = {
  key: 'baseline',
  async: false,
  async create(indexes) {
    const b = new Baseline(indexes);
    return {
      insert: (batch) => b.insert(batch as BenchDoc[]),
      finishLoad: () => undefined,
      pointById: (id) => b.pointById(id as ObjectId),
      pointByDate: (date) => b.pointByDate(date),
      range: (lo, hi) => b.range(lo, hi).length,
    };
  },
  shape: (d) => d,
  idArg: (d) => d._id,
  loadedCount: (n) => n,
};

const CONTENDERS: Contender[] = [engineContender, nedbContender, lokiContender, baselineContender];
type Key = Contender['key'];

// ---- measurement helpers -------------------------------------------------------------------------

let gcFn: (() => void) | undefined;

function getGc(): () => void {
  if (gcFn) return gcFn;
  const g = (globalThis as { gc?: () => void }).gc;
  if (typeof g === 'function') {
    gcFn = g;
  } else {
    // Not started with --expose-gc: enable it at runtime (works on V8 for a fresh context's gc).
    v8.setFlagsFromString('--expose-gc');
    gcFn = vm.runInNewContext('gc') as () => void;
  }
  return gcFn;
}

/** Full GCs, so a measurement starts from a quiet heap; heap readings use two (weak references, finalizers). */
async function settle(passes = 1): Promise<void> {
  const gc = getGc();
  for (let i = 0; i < passes; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * The JS heap plus ArrayBuffer backing stores, which V8 keeps off the heap: typed arrays (the
 * engine's `_id` table) are memory a contender holds as much as its objects are.
 */
function heapUsed(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** Wall-clock milliseconds, for progress lines. */
const wallNow = (): number => performance.now();
/** Process CPU milliseconds (user + system of all threads: the main thread plus V8's GC helpers). */
const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
/**
 * CPU milliseconds of the calling (main) thread, from Linux's schedstat (nanoseconds on CPU). Node 20
 * has no per-thread CPU clock; reading the file costs ~35 µs, and it is read only at round boundaries.
 */
const SCHEDSTAT = '/proc/thread-self/schedstat';
const threadNow = (): number => Number(fs.readFileSync(SCHEDSTAT, 'latin1').split(' ', 1)[0]) / 1e6;

export type BenchClock = 'thread' | 'process' | 'wall';

/** The main-thread clock where the OS offers it (Linux), else wall-clock time. */
export function defaultClock(): BenchClock {
  try {
    return Number.isFinite(threadNow()) ? 'thread' : 'wall';
  } catch {
    return 'wall';
  }
}

let clockKind: BenchClock = 'wall';
/** The clock every measurement uses (see --clock). */
const now = (): number => (clockKind === 'thread' ? threadNow() : clockKind === 'process' ? cpuNow() : wallNow());

const CLOCK_DESCRIPTIONS: Record<BenchClock, string> = {
  thread:
    'main-thread CPU time (Linux schedstat): what a run would take on an idle machine, without the time other\n' +
    '  processes take the cores away (work V8 does on GC helper threads in parallel is not counted, as it costs no wall time there).\n' +
    '  "/s" = per CPU-second of the main thread. --clock wall for wall-clock time, --clock process for CPU time of all threads.',
  process:
    'process CPU time (user + system of all threads, so V8\'s parallel GC helper threads count too): "/s" = per CPU-second.\n' +
    '  Allocation-heavy code looks slower than in wall-clock time on an idle machine.',
  wall: 'wall-clock time (performance.now()): meaningful only on an otherwise idle machine (see the load averages).',
};

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

let sink = 0;
function consume(r: unknown): void {
  if (typeof r === 'number') sink += r;
  else if (r) sink++;
}

interface Latency {
  usPerOp: number;
  rounds: number;
  opsPerRound: number;
}

/** Warm-up: at least this long and this many operations (V8 needs thousands of calls to optimize a deep call path)... */
const WARMUP_MIN_MS = 400;
const WARMUP_MIN_OPS = 10_000;
/** ...then until a ~50 ms round is no longer >10% faster than the one before, within this total. */
const WARMUP_MAX_MS = 1500;

/**
 * µs per operation. A warm-up runs ~50 ms rounds for at least 0.4 s and 10,000 operations, then until
 * they stop getting faster (the engine's deep call path needs thousands of calls before V8 has
 * optimized all of it; measured without this, its first rounds are 5x slower than its steady
 * state). The result is the median of 5 rounds of ~100 ms (3 rounds when one operation takes over 20 ms).
 */
async function measureLatency(fn: (i: number) => unknown, isAsync: boolean): Promise<Latency> {
  let i = 0;
  const runSync = (count: number): void => {
    for (let k = 0; k < count; k++) consume(fn(i++));
  };
  const runAsync = async (count: number): Promise<void> => {
    for (let k = 0; k < count; k++) consume(await fn(i++));
  };
  const run = (count: number): void | Promise<void> => (isAsync ? runAsync(count) : runSync(count));
  // The thread clock ticks in steps of a few ms (Linux updates schedstat at scheduler ticks), so its
  // rounds are longer; a round too short to see a tick reads as 0 and must not make `count` infinite.
  const coarse = clockKind === 'thread';
  const warmRoundMs = coarse ? 100 : 50;
  const roundMs = coarse ? 200 : 100;
  const timed = async (count: number): Promise<number> => {
    const t0 = now();
    await run(count);
    return Math.max(now() - t0, 0.001) / count;
  };
  const countFor = (ms: number, perOp: number) => Math.max(1, Math.min(1_000_000, Math.round(ms / perOp)));
  // Size the rounds: double a batch until it takes at least 20 ms.
  let per = 0;
  for (let count = 1; ; count *= 2) {
    const t0 = now();
    await run(count);
    const elapsed = now() - t0;
    per = Math.max(elapsed, 0.001) / count;
    if (elapsed >= 20 || count >= 1_000_000) break;
  }
  const w0 = now();
  let warmRounds = 0;
  let warmOps = 1;
  let prev = Infinity;
  while (now() - w0 < WARMUP_MAX_MS) {
    const count = countFor(warmRoundMs, per);
    per = await timed(count);
    warmRounds++;
    warmOps += count;
    // Slow operations (scans) warm up inside each call: for them a second of warm-up is enough.
    const minimumDone = now() - w0 >= WARMUP_MIN_MS && (warmOps >= WARMUP_MIN_OPS || now() - w0 >= 2 * WARMUP_MIN_MS);
    if (minimumDone && per > prev * 0.9) break;
    prev = per;
  }
  const opsPerRound = Math.max(2, countFor(roundMs, per));
  const rounds = per > 20 ? 3 : 5;
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) samples.push((await timed(opsPerRound)) * 1000);
  if (process.env.BENCH_DEBUG) {
    debug(
      `    [latency] ${warmRounds} warm-up rounds (${(now() - w0).toFixed(0)} ms); ${rounds} rounds of ${opsPerRound} ops: ${samples.map((x) => x.toFixed(2)).join(' ')} µs`,
    );
  }
  return { usPerOp: median(samples), rounds, opsPerRound };
}

interface InsertRun {
  ms: number;
  store: Store;
  /** Retained heap per document, when measured. */
  bytesPerDoc?: number;
}

/**
 * One timed load of `count` documents into a fresh store. With `memory`, the heap is read after a
 * full GC before the input is built and again after the load once the input is dropped, so the
 * difference is everything the store retains (document copies, indexes, metadata, key strings).
 */
async function loadOnce(c: Contender, count: number, indexes: Secondary[], memory: boolean): Promise<InsertRun> {
  const w = wallNow();
  await settle(memory ? 2 : 1);
  const before = heapUsed();
  const g = wallNow();
  let batches: unknown[][] | undefined = inputBatches(c, count);
  const store = await c.create(indexes);
  debug(`    gc ${(g - w).toFixed(0)} ms, input ${(wallNow() - g).toFixed(0)} ms (wall)`);
  const t0 = now();
  if (c.async) {
    for (const b of batches) await store.insert(b);
  } else {
    for (const b of batches) store.insert(b);
  }
  store.finishLoad();
  const ms = now() - t0;
  batches = undefined;
  if (!memory) return { ms, store };
  await settle(2);
  return { ms, store, bytesPerDoc: (heapUsed() - before) / count };
}

interface InsertResult {
  docsPerSec: number;
  runs: number;
  bytesPerDoc?: number;
  /** The last run's store (the caller queries it, then drops it). */
  store?: Store;
}

/** Best of up to 3 runs (fewer when the runs' total would pass ~6 s); each run starts on a fresh store after a full GC. */
async function measureInserts(
  c: Contender,
  count: number,
  indexes: Secondary[],
  memory: boolean,
): Promise<InsertResult> {
  let best = Infinity;
  let total = 0;
  const bytes: number[] = [];
  const result: InsertResult = { docsPerSec: 0, runs: 0 };
  while (result.runs < INSERT_MAX_RUNS && (result.runs === 0 || total + best < INSERT_BUDGET_MS)) {
    result.store = undefined; // the previous run's store must be garbage before the next heap reading
    const run = await loadOnce(c, count, indexes, memory);
    result.store = run.store;
    best = Math.min(best, run.ms);
    total += run.ms;
    if (run.bytesPerDoc !== undefined) bytes.push(run.bytesPerDoc);
    result.runs++;
  }
  result.docsPerSec = count / (best / 1000);
  if (bytes.length) result.bytesPerDoc = median(bytes);
  return result;
}

// ---- formatting ----------------------------------------------------------------------------------

function fmtInt(x: number): string {
  return Math.round(x).toLocaleString('en-US');
}

function fmtUs(x: number): string {
  if (x >= 100_000) return `${fmtInt(x / 1000)} ms`;
  if (x >= 10_000) return `${(x / 1000).toFixed(1)} ms`;
  if (x >= 100) return `${x.toFixed(0)} µs`;
  if (x >= 10) return `${x.toFixed(1)} µs`;
  return `${x.toFixed(2)} µs`;
}

function fmtRatio(x: number): string {
  if (!Number.isFinite(x)) return 'n/a';
  if (x >= 100) return `${x.toFixed(0)}x`;
  if (x >= 10) return `${x.toFixed(1)}x`;
  return `${x.toFixed(2)}x`;
}

function fmtSize(n: number): string {
  if (n >= 1_000_000 && n % 1_000_000 === 0) return `${n / 1_000_000}M`;
  if (n >= 1000 && n % 1000 === 0) return `${n / 1000}k`;
  return fmtInt(n);
}

function table(headers: string[], rows: string[][], alignLeft = 1): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < alignLeft ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

// ---- the run ---------------------------------------------------------------------------------------

interface SizeResult {
  n: number;
  contenders: Key[];
  nedbLoaded: number;
  inserts: Record<string, Partial<Record<Key, { docsPerSec: number; runs: number }>>>;
  latency: Record<QueryKey, Partial<Record<Key, number>>>;
  returned: Record<'rangeIx' | 'rangeScan', Partial<Record<Key, number>>>;
  bytes: Partial<Record<Key, number>>;
}

/** In this order; the 1-index runs also measure memory and serve the indexed queries, the 0-index runs the scans. */
const INDEX_CONFIGS: Array<{ label: string; indexes: Secondary[] }> = [
  { label: '1 (createdAt)', indexes: ['createdAt'] },
  { label: '0 (only _id)', indexes: [] },
  { label: '3 (createdAt, n, tag)', indexes: ['createdAt', 'n', 'tag'] },
];
const HEADLINE = INDEX_CONFIGS[0].label;

const QUERY_KINDS = [
  { key: 'pointId', label: 'point by _id' },
  { key: 'pointDate', label: 'point by createdAt (indexed)' },
  { key: 'rangeIx', label: 'range 1h on createdAt, indexed' },
  { key: 'rangeScan', label: 'range 1h on createdAt, no index' },
] as const;
type QueryKey = (typeof QUERY_KINDS)[number]['key'];

function log(msg: string): void {
  process.stdout.write(`${msg}\n`);
}

/** Progress details, printed with BENCH_DEBUG=1. */
function debug(msg: string): void {
  if (process.env.BENCH_DEBUG) log(msg);
}

function secs(since: number): string {
  return `${((wallNow() - since) / 1000).toFixed(1)} s`;
}

/** Documents at the given positions of the data set (one generation pass). */
function docsAt(positions: number[]): Map<number, BenchDoc> {
  const wanted = new Set(positions);
  const max = Math.max(...positions);
  const out = new Map<number, BenchDoc>();
  let i = 0;
  for (const d of generateDocs(max + 1)) {
    if (wanted.has(i)) out.set(i, d);
    i++;
  }
  return out;
}

function loadAverage(): string {
  return os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ');
}

async function runSize(n: number, contenders: Contender[]): Promise<SizeResult> {
  const t0 = wallNow();
  log(`\n=== N = ${fmtInt(n)} documents ===`);
  log(`load average (1 / 5 / 15 min) before: ${loadAverage()} on ${os.cpus().length} CPUs`);

  // Query parameters, shared by all contenders: 1000 positions (scaled to the documents each contender
  // loaded) and 200 window starts.
  const pick = prng(SEED ^ 0x9e3779b9);
  const picks = Array.from({ length: 1000 }, () => pick());
  // Windows start early enough that the widest one (a sampled contender's, see below) fits the span.
  const widest = HOUR * (n / Math.min(...contenders.map((c) => c.loadedCount(n))));
  const windows = Array.from({ length: 200 }, () => START_MS + Math.floor(pick() * (SPAN_MS - widest)));
  const loadedCounts = [...new Set(contenders.map((c) => c.loadedCount(n)))];
  const pickedDocs = docsAt(loadedCounts.flatMap((loaded) => picks.map((p) => Math.floor(p * loaded))));

  const result: SizeResult = {
    n,
    contenders: contenders.map((c) => c.key),
    nedbLoaded: nedbContender.loadedCount(n),
    inserts: {},
    latency: { pointId: {}, pointDate: {}, rangeIx: {}, rangeScan: {} },
    returned: { rangeIx: {}, rangeScan: {} },
    bytes: {},
  };
  for (const cfg of INDEX_CONFIGS) result.inserts[cfg.label] = {};

  for (const c of contenders) {
    const ct = wallNow();
    const loaded = c.loadedCount(n);
    const docsOf = picks.map((p) => pickedDocs.get(Math.floor(p * loaded))!);
    const idArgs = docsOf.map((d) => c.idArg(d));
    const dateArgs = docsOf.map((d) => new Date(d.createdAt.getTime()));
    // A sampled store holds loaded/n of the documents: widen its window so a query returns as many.
    const windowMs = HOUR * (n / loaded);
    const ranges = windows.map((w) => [new Date(w), new Date(w + windowMs)] as [Date, Date]);
    const countReturned = async (s: Store, count: number): Promise<number> => {
      let total = 0;
      for (const [lo, hi] of ranges.slice(0, count)) total += await s.range(lo, hi);
      return total / count;
    };

    // An untimed warm-up load, so the first measured configuration does not pay for V8's JIT tiering.
    await loadOnce(c, Math.min(loaded, WARMUP_DOCS), ['createdAt', 'n', 'tag'], false);

    // One store alive at a time: each configuration's last store serves its queries, then goes.
    for (const cfg of INDEX_CONFIGS) {
      const headline = cfg.label === HEADLINE;
      const pt = wallNow();
      const r = await measureInserts(c, loaded, cfg.indexes, headline);
      debug(`  ${c.key} ${cfg.label}: ${r.runs} insert run(s), ${fmtInt(r.docsPerSec)}/s, phase took ${secs(pt)} wall`);
      const qt = wallNow();
      result.inserts[cfg.label][c.key] = { docsPerSec: r.docsPerSec, runs: r.runs };
      const store = r.store!;
      r.store = undefined;
      if (headline) {
        result.bytes[c.key] = r.bytesPerDoc;
        if (store.usesDateIndex && !store.usesDateIndex(...ranges[0]))
          log(`WARNING: ${c.key} did not plan an IXSCAN for the createdAt range query`);
        result.returned.rangeIx[c.key] = await countReturned(store, RETURN_CHECK_WINDOWS);
        await settle();
        result.latency.pointId[c.key] = (
          await measureLatency((i) => store.pointById(idArgs[i % idArgs.length]), c.async)
        ).usPerOp;
        result.latency.pointDate[c.key] = (
          await measureLatency((i) => store.pointByDate(dateArgs[i % dateArgs.length]), c.async)
        ).usPerOp;
        result.latency.rangeIx[c.key] = (
          await measureLatency((i) => store.range(...ranges[i % ranges.length]), c.async)
        ).usPerOp;
      } else if (cfg.indexes.length === 0) {
        if (store.usesDateIndex && store.usesDateIndex(...ranges[0]))
          log(`WARNING: ${c.key} planned an IXSCAN without a createdAt index`);
        result.returned.rangeScan[c.key] = await countReturned(store, RETURN_CHECK_SCAN_WINDOWS);
        await settle();
        // A scan costs ~N per query: a sampled store scans `loaded` documents, so scale to N (labelled estimate).
        const scan = await measureLatency((i) => store.range(...ranges[i % ranges.length]), c.async);
        result.latency.rangeScan[c.key] = scan.usPerOp * (n / loaded);
      }
      debug(`  ${c.key} ${cfg.label}: queries took ${secs(qt)} wall`);
    }
    log(
      `  ${c.key.padEnd(8)} done in ${secs(ct)}${loaded < n ? ` (${fmtInt(loaded)}-document sample)` : ''}; load average now ${loadAverage()}`,
    );
  }
  await settle();
  printSize(result);
  log(`(N = ${fmtInt(n)} took ${secs(t0)})`);
  return result;
}

const ALL_KEYS: Key[] = ['engine', 'nedb', 'loki', 'baseline'];
const OTHERS: Key[] = ['nedb', 'loki', 'baseline'];
const HEADERS = ['engine', 'nedb', 'loki', 'baseline', 'eng/nedb', 'eng/loki', 'eng/base'];

/** Raw cells for the four contenders, then the three engine-vs-other ratios. */
function rowCells(
  values: Partial<Record<Key, number>>,
  show: (v: number, k: Key) => string,
  ratio: (engine: number, other: number) => number,
): string[] {
  const e = values.engine;
  return [
    ...ALL_KEYS.map((k) => (values[k] === undefined ? '-' : show(values[k], k))),
    ...OTHERS.map((k) => (e === undefined || values[k] === undefined ? '-' : fmtRatio(ratio(e, values[k])))),
  ];
}

function printSize(r: SizeResult): void {
  const sampled = r.nedbLoaded < r.n && r.contenders.includes('nedb');
  log(`\n--- Results, N = ${fmtInt(r.n)} ---`);

  const cpu = clockKind !== 'wall';
  log(
    `\nInserts per ${cpu ? 'CPU-' : ''}second (engine insertMany, nedb insertAsync(array), loki insert(array), baseline loop; batches of ${BATCH};`,
  );
  log(
    `indexes created before inserting; after an untimed ${fmtInt(WARMUP_DOCS)}-document warm-up load; best of up to ${INSERT_MAX_RUNS} runs, fewer when`,
  );
  log(`the runs pass ~${INSERT_BUDGET_MS / 1000} s: runs taken in parentheses).`);
  log('Ratio = engine inserts/s / other inserts/s (higher is better for the engine).');
  const insertRows = INDEX_CONFIGS.map((cfg) => {
    const row = r.inserts[cfg.label];
    const rates: Partial<Record<Key, number>> = {};
    for (const k of ALL_KEYS) if (row[k]) rates[k] = row[k].docsPerSec;
    return [
      cfg.label,
      ...rowCells(
        rates,
        (v, k) => `${fmtInt(v)}${k === 'nedb' && sampled ? '*' : ''} (${row[k]!.runs})`,
        (e, o) => e / o,
      ),
    ];
  });
  log(table(['secondary indexes', ...HEADERS], insertRows));

  const [warmMs, roundMs] = clockKind === 'thread' ? [100, 200] : [50, 100];
  log(
    `\nQuery latency, ${cpu ? 'CPU-' : ''}µs per operation: median of 5 rounds of ~${roundMs} ms (3 when one op takes > 20 ms), after a warm-up`,
  );
  log(
    `of at least 0.4 s and 10,000 ops (or 0.8 s) that then lasts until ~${warmMs} ms rounds stop getting faster (at most 1.5 s).`,
  );
  log(
    'Ratio = other latency / engine latency = how many times faster the engine is (higher is better for the engine).',
  );
  const marks: Record<QueryKey, string> = { pointId: '*', pointDate: '*', rangeIx: '†', rangeScan: '**' };
  const qRows = QUERY_KINDS.map((q) => [
    q.label,
    ...rowCells(
      r.latency[q.key],
      (v, k) => fmtUs(v) + (k === 'nedb' && sampled ? marks[q.key] : ''),
      (e, o) => o / e,
    ),
  ]);
  log(table(['query', ...HEADERS], qRows));
  const ret = (k: 'rangeIx' | 'rangeScan') =>
    r.contenders.map((c) => `${c} ${r.returned[k][c]!.toFixed(1)}`).join(', ');
  log(
    `Docs returned per range query (cross-check): indexed, avg of the first ${RETURN_CHECK_WINDOWS} windows: ${ret('rangeIx')};`,
  );
  log(`  no index, avg of the first ${RETURN_CHECK_SCAN_WINDOWS} windows: ${ret('rangeScan')}.`);
  for (const k of ['rangeIx', 'rangeScan'] as const) {
    const reference = r.returned[k][r.contenders[0]];
    for (const c of r.contenders) {
      if (c === 'nedb' && sampled) continue;
      if (r.returned[k][c] !== reference)
        log(`WARNING: ${c} returned ${r.returned[k][c]} documents per ${k} query, ${r.contenders[0]} ${reference}`);
    }
  }

  log(
    '\nMemory: retained heap bytes per document with _id + createdAt indexes, measured in the 1-index insert runs (median over them):',
  );
  log(
    'heapUsed + arrayBuffers after the load, once its input is dropped, minus the same before the input was generated, each after global.gc();',
  );
  log('only that one store alive. Ratio = engine bytes / other bytes (lower is better for the engine).');
  log(
    table(
      ['', ...HEADERS],
      [
        [
          'bytes/doc',
          ...rowCells(
            r.bytes,
            (v, k) => fmtInt(v) + (k === 'nedb' && sampled ? '*' : ''),
            (e, o) => e / o,
          ),
        ],
      ],
    ),
  );

  if (sampled) {
    const f = r.n / r.nedbLoaded;
    log(
      `\n  * nedb ran on a ${fmtInt(r.nedbLoaded)}-document sample (the first ${fmtInt(r.nedbLoaded)} documents of the same data set), to keep`,
    );
    log(
      '    the run short: its inserts/s, point latencies and bytes/doc are as measured there (slightly flattering nedb: smaller trees).',
    );
    log(
      `  † nedb indexed range: measured on the sample with a ${f}-hour window, so each query returns as many documents as 1 hour over N.`,
    );
    log(
      `  ** nedb unindexed range: measured on the sample (${f}-hour window) and multiplied by ${f}, since a scan costs ~N: an estimate.`,
    );
  }
  log(
    'Notes: nedb and lokijs get string _ids (the ObjectId hex: their native _id type); the engine and the baseline get ObjectIds.',
  );
  log(
    '  lokijs: adaptiveBinaryIndices=false plus one ensureIndex(field, true) rebuild after loading, timed with the inserts (adaptive',
  );
  log(
    '  indexes splice every insert into a sorted array: O(n) each); by("_id") for _id lookups, {$dteq} and {$between: [lo, hi - 1 ms]}',
  );
  log('  for dates; lokijs returns its stored objects (no copies), nedb and the engine return copies.');
  log(
    "  baseline: copies documents in and out (the engine's contract), Map by _id hex + one sorted-btree per secondary index keyed [value, _id].",
  );

  printTargets([r]);
}

function printTargets(results: SizeResult[]): void {
  log('\nTargets (from the issue):');
  const rows: string[][] = [];
  const check = (n: number, label: string, value: number | undefined, ok: (v: number) => boolean) =>
    rows.push([
      fmtSize(n),
      label,
      value === undefined || !Number.isFinite(value) ? 'n/a' : fmtRatio(value),
      value === undefined ? '' : ok(value) ? 'PASS' : 'MISS',
    ]);
  const div = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined ? undefined : a / b;
  for (const r of results) {
    const ins = r.inserts[HEADLINE];
    const sample = r.nedbLoaded < r.n ? ' (nedb on sample)' : '';
    check(
      r.n,
      'inserts/s, 1 secondary index: engine >= 12x nedb' + sample,
      div(ins.engine?.docsPerSec, ins.nedb?.docsPerSec),
      (v) => v >= 12,
    );
    check(
      r.n,
      'inserts/s, 1 secondary index: engine >= 0.8x baseline',
      div(ins.engine?.docsPerSec, ins.baseline?.docsPerSec),
      (v) => v >= 0.8,
    );
    check(
      r.n,
      'indexed 1h date range: engine >= 20x faster than nedb' + sample,
      div(r.latency.rangeIx.nedb, r.latency.rangeIx.engine),
      (v) => v >= 20,
    );
    check(r.n, 'bytes/doc: engine <= lokijs (ratio <= 1)', div(r.bytes.engine, r.bytes.loki), (v) => v <= 1);
  }
  log(table(['N', 'target', 'actual', ''], rows, 2));
}

function environment(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `node ${process.version}, ${os.platform()} ${os.arch()}, ${os.cpus().length} x ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM`;
}

export interface EngineBenchOptions {
  /** Subset of contenders to run (default all): engine, nedb, loki, baseline. */
  contenders?: string[];
  /**
   * What the measurements time (default: 'thread' on Linux, else 'wall'). 'thread' = CPU time of the
   * main thread, which other processes competing for the cores do not inflate; 'process' = CPU time of
   * all threads; 'wall' = wall-clock time, meaningful only on an otherwise idle machine.
   */
  clock?: BenchClock;
}

/** Runs the whole benchmark for each size and prints the tables (and a final target summary). */
export async function runEngineBench(sizes: number[], options: EngineBenchOptions = {}): Promise<void> {
  const started = wallNow();
  const cpuStarted = cpuNow();
  clockKind = options.clock ?? defaultClock();
  if (clockKind === 'thread' && defaultClock() !== 'thread')
    throw new Error(`--clock thread needs ${SCHEDSTAT} (Linux)`);
  const wanted = options.contenders ?? ALL_KEYS;
  for (const w of wanted)
    if (!ALL_KEYS.includes(w as Key)) throw new Error(`unknown contender "${w}": use ${ALL_KEYS.join(', ')}`);
  const contenders = CONTENDERS.filter((c) => wanted.includes(c.key));
  getGc();
  log('# TTL Workbench engine benchmark');
  log(environment());
  log(
    'contenders: engine (this repo, typed API), @seald-io/nedb (in-memory Datastore, async API awaited), lokijs (in-memory),',
  );
  log(
    '  baseline (sorted-btree BTree + Map, no engine): all in this process, measured one after another in that order.',
  );
  log(
    `documents: {_id: ObjectId, name: "user<k>", createdAt: Date uniform over 30 days (random order), n: int, tag: one of ${TAGS.length}},`,
  );
  log(
    `  generated from a seeded PRNG (seed 0x${SEED.toString(16)}): the same sequence for every run and contender, fresh objects each run.`,
  );
  log(`clock: ${CLOCK_DESCRIPTIONS[clockKind]}`);
  const results: SizeResult[] = [];
  for (const n of sizes) results.push(await runSize(n, contenders));
  if (results.length > 1) {
    log('\n=== Summary ===');
    printTargets(results);
  }
  log(
    `\nTotal benchmark time ${secs(started)} wall clock, ${((cpuNow() - cpuStarted) / 1000).toFixed(1)} s process CPU (all threads); load average now ${loadAverage()}.`,
  );
  if (sink === -1) log('');
}
