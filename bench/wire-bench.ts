/**
 * The wire endpoint (`--only wire`): the official driver over loopback against the same engine's
 * in-process API, in one process and one run. startServer() serves the engine in the bench's own
 * process, as it does in an application's test suite, so the driver's work and the server's share
 * the main thread; the times are wall-clock (the waiting on the socket is part of the cost).
 *
 *   - insertMany of 100,000 small documents: the driver (`collection.insertMany(docs)`), the
 *     embedded shell (ShellSession, `db.c.insertMany(docs)` with docs built by an untimed
 *     statement) and the engine's typed API (`collection.insertMany(docs)`), each run into an
 *     empty collection; the contenders take turns, median of the runs;
 *   - find of 10,000 documents (the whole collection, materialized): driver `find().toArray()`,
 *     shell `db.c.find().toArray()`, typed API `find()`; median of rounds;
 *   - 1,000 point reads by _id (findOne), one after another: per-read latency p50 / p99 for the
 *     driver and the typed API;
 *   - 50 connections (a pool of 50, 50 workers reading by _id at once): reads per second and the
 *     p50 / p99 latency of a read.
 * A full GC runs before each timed insert run and before the find rounds.
 * Targets: the driver's insertMany at least 0.5x the shell's rate; driver point reads p50 under
 * 0.2 ms.
 */
import * as os from 'node:os';
import type { ObjectId } from 'bson';
import { MongoClient, type Collection } from 'mongodb';
import type { Document } from '../src/engine';
import { ShellSession } from '../src/shell/session';
import { startServer } from '../src/wire';
import { generateDocs, type BenchDoc } from './engine-bench';

const INSERT_DOCS = 100_000;
const INSERT_RUNS = 5;
const FIND_DOCS = 10_000;
const FIND_ROUNDS = 15;
const POINT_READS = 1000;
const CONNECTIONS = 50;
const CONCURRENT_READS = 200; // per connection

const out = (s: string) => process.stdout.write(`${s}\n`);
const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

function loadAverage(): string {
  return os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ');
}

/** A full GC before a timed run (scripts/bench.js passes --expose-gc), so no run pays for another's garbage. */
function collect(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function docs(count: number): BenchDoc[] {
  return [...generateDocs(count)];
}

/** The shell statement that builds the same documents inside the shell (untimed). */
function shellDocsSource(count: number): string {
  const sample = docs(count);
  const ids = JSON.stringify(sample.map((d) => d._id.toHexString()));
  const rest = JSON.stringify(sample.map((d) => [d.name, d.createdAt.getTime(), d.n, d.tag]));
  return `const ids = ${ids}; const rest = ${rest};
    var docs = () => ids.map((id, i) => ({ _id: ObjectId(id), name: rest[i][0], createdAt: new Date(rest[i][1]), n: rest[i][2], tag: rest[i][3] }));`;
}

async function timeAsync(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

function timeSync(fn: () => unknown): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

export interface WireBenchResult {
  insert: { wire: number; shell: number; api: number };
  find: { wire: number; shell: number; api: number };
  point: { wire: { p50: number; p99: number }; api: { p50: number; p99: number } };
  concurrent: { opsPerSecond: number; p50: number; p99: number; oneConnectionOpsPerSecond: number };
}

export async function runWireBench(): Promise<WireBenchResult> {
  out(`\n# Wire endpoint: the driver over loopback vs the in-process API (load average ${loadAverage()})`);
  const server = await startServer();
  const client = new MongoClient(server.uri, { maxPoolSize: CONNECTIONS, minPoolSize: 1 });
  await client.connect();
  const shell = new ShellSession({ engine: server.engine, dbName: 'shellbench', timeoutMs: 600_000 });
  const api = server.engine.db('apibench');
  const wireDb = client.db('wirebench');
  try {
    // ---- insertMany ------------------------------------------------------------------------------
    const prepared = shell.evaluate(shellDocsSource(INSERT_DOCS));
    if (!prepared.ok) throw new Error(`shell bench setup failed: ${prepared.statements.at(-1)?.error?.message}`);
    const runs = { wire: [] as number[], shell: [] as number[], api: [] as number[] };
    // One untimed warm-up round of each, then INSERT_RUNS rounds taking turns.
    for (let round = 0; round <= INSERT_RUNS; round++) {
      const input = docs(INSERT_DOCS);
      await wireDb
        .collection('c')
        .drop()
        .catch(() => undefined);
      collect();
      const wire = await timeAsync(() => wireDb.collection('c').insertMany(input));
      const apiInput = docs(INSERT_DOCS);
      api.collection('c').drop();
      collect();
      const apiMs = timeSync(() => api.collection('c').insertMany(apiInput as unknown as Document[]));
      shell.evaluate('db.c.drop(); var input = docs()');
      collect();
      const shellMs = timeSync(() => {
        const r = shell.evaluate('db.c.insertMany(input)');
        if (!r.ok) throw new Error(`shell insertMany failed: ${r.statements.at(-1)?.error?.message}`);
      });
      if (round === 0) continue;
      runs.wire.push(wire);
      runs.api.push(apiMs);
      runs.shell.push(shellMs);
    }
    const rate = (ms: number) => (INSERT_DOCS / ms) * 1000;
    const insert = {
      wire: rate(median(runs.wire)),
      shell: rate(median(runs.shell)),
      api: rate(median(runs.api)),
    };

    // ---- find of 10,000 ------------------------------------------------------------------------
    const findInput = docs(FIND_DOCS);
    await wireDb
      .collection('f')
      .drop()
      .catch(() => undefined);
    await wireDb.collection('f').insertMany(findInput.map((d) => ({ ...d })));
    api.collection('f').drop();
    api.collection('f').insertMany(findInput.map((d) => ({ ...d })) as unknown as Document[]);
    shell.evaluate('db.f.drop(); db.f.insertMany(docs().slice(0, 10000))');
    const wireColl: Collection<BenchDoc> = wireDb.collection<BenchDoc>('f');
    const finds = { wire: [] as number[], shell: [] as number[], api: [] as number[] };
    collect();
    for (let round = 0; round < FIND_ROUNDS + 3; round++) {
      let n = 0;
      const wire = await timeAsync(async () => (n = (await wireColl.find({}).toArray()).length));
      const apiMs = timeSync(() => (n += api.collection('f').find({}).length));
      const shellMs = timeSync(() => {
        const r = shell.evaluate('db.f.find().toArray().length');
        n += r.ok ? 0 : NaN;
      });
      if (n !== 2 * FIND_DOCS) throw new Error(`find returned ${n} documents, not ${2 * FIND_DOCS}`);
      if (round < 3) continue; // warm-up rounds
      finds.wire.push(wire);
      finds.api.push(apiMs);
      finds.shell.push(shellMs);
    }
    const find = { wire: median(finds.wire), shell: median(finds.shell), api: median(finds.api) };

    // ---- point reads -------------------------------------------------------------------------------
    const ids: ObjectId[] = findInput.map((d) => d._id);
    const pointWire: number[] = [];
    const pointApi: number[] = [];
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < POINT_READS; i++) {
        const _id = ids[(i * 7919) % ids.length];
        const t = performance.now();
        const d = await wireColl.findOne({ _id });
        const ms = performance.now() - t;
        if (!d) throw new Error('point read found nothing');
        if (round) pointWire.push(ms);
      }
      for (let i = 0; i < POINT_READS; i++) {
        const _id = ids[(i * 7919) % ids.length];
        const t = performance.now();
        const d = api.collection('f').findOne({ _id });
        const ms = performance.now() - t;
        if (!d) throw new Error('point read found nothing');
        if (round) pointApi.push(ms);
      }
    }
    const point = {
      wire: { p50: median(pointWire), p99: percentile(pointWire, 99) },
      api: { p50: median(pointApi), p99: percentile(pointApi, 99) },
    };
    const oneConnectionOpsPerSecond = 1000 / (pointWire.reduce((a, b) => a + b, 0) / pointWire.length);

    // ---- 50 connections ---------------------------------------------------------------------------
    const latencies: number[] = [];
    const worker = async (w: number, record: boolean) => {
      for (let i = 0; i < CONCURRENT_READS; i++) {
        const _id = ids[(w * 104729 + i * 7919) % ids.length];
        const t = performance.now();
        await wireColl.findOne({ _id });
        if (record) latencies.push(performance.now() - t);
      }
    };
    // Warm-up: opens the pool's 50 connections.
    await Promise.all(Array.from({ length: CONNECTIONS }, (_, w) => worker(w, false)));
    const connections = server.connections;
    const elapsed = await timeAsync(() => Promise.all(Array.from({ length: CONNECTIONS }, (_, w) => worker(w, true))));
    const concurrent = {
      opsPerSecond: (CONNECTIONS * CONCURRENT_READS * 1000) / elapsed,
      p50: median(latencies),
      p99: percentile(latencies, 99),
      oneConnectionOpsPerSecond,
    };

    // ---- report ---------------------------------------------------------------------------------------
    out(
      `(wall clock; insert: median of ${INSERT_RUNS} runs after one warm-up, contenders in turn; find: median of ${FIND_ROUNDS} rounds)`,
    );
    out('\n| operation | driver over loopback | embedded shell | typed API | driver / shell | driver / typed API |');
    out('| --- | ---: | ---: | ---: | ---: | ---: |');
    out(
      `| insertMany ${fmt(INSERT_DOCS)} docs (docs/s) | ${fmt(insert.wire)} | ${fmt(insert.shell)} | ${fmt(insert.api)} | ${(insert.wire / insert.shell).toFixed(2)}x | ${(insert.wire / insert.api).toFixed(2)}x |`,
    );
    out(
      `| find ${fmt(FIND_DOCS)} docs (ms) | ${fmt(find.wire, 1)} | ${fmt(find.shell, 1)} | ${fmt(find.api, 1)} | ${(find.shell / find.wire).toFixed(2)}x | ${(find.api / find.wire).toFixed(2)}x |`,
    );
    out(
      `| findOne by _id, p50 (ms) | ${fmt(point.wire.p50, 3)} | | ${fmt(point.api.p50, 3)} | | ${(point.api.p50 / point.wire.p50).toFixed(2)}x |`,
    );
    out(
      `| findOne by _id, p99 (ms) | ${fmt(point.wire.p99, 3)} | | ${fmt(point.api.p99, 3)} | | ${(point.api.p99 / point.wire.p99).toFixed(2)}x |`,
    );
    out('(ratios: how fast the driver path is relative to the other; under 1x it is slower)');
    out(
      `\n${CONNECTIONS} connections (${connections} open on the server: the pool and the monitor's), ${fmt(CONNECTIONS * CONCURRENT_READS)} findOne by _id:`,
    );
    out('| reads/s | p50 (ms) | p99 (ms) | reads/s on one connection, one at a time |');
    out('| ---: | ---: | ---: | ---: |');
    out(
      `| ${fmt(concurrent.opsPerSecond)} | ${fmt(concurrent.p50, 2)} | ${fmt(concurrent.p99, 2)} | ${fmt(oneConnectionOpsPerSecond)} |`,
    );
    const insertRatio = insert.wire / insert.shell;
    out(
      `target: driver insertMany >= 0.5x the shell's rate: ${insertRatio.toFixed(2)}x ${insertRatio >= 0.5 ? 'PASS' : 'MISS'}`,
    );
    out(
      `target: driver point reads p50 < 0.2 ms: ${point.wire.p50.toFixed(3)} ms ${point.wire.p50 < 0.2 ? 'PASS' : 'MISS'}`,
    );
    out(`(load average after: ${loadAverage()})`);
    return { insert, find, point, concurrent };
  } finally {
    await client.close();
    await server.stop();
  }
}

if (require.main === module)
  runWireBench().catch((err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exit(1);
  });
