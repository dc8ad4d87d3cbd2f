/**
 * The wire endpoint (`--only wire`): the official driver over loopback against the same engine's
 * in-process API, in one process and one run. startServer() serves the engine in the bench's own
 * process, as it does in an application's test suite, so the driver's work and the server's share
 * the main thread, and that thread's CPU time (Linux schedstat, as `--clock thread` elsewhere)
 * is the cost of an operation on an idle machine: the loopback's system calls are in it, time
 * spent waiting for a core is not. Every measurement also reports wall-clock time.
 *
 *   - insertMany of 100,000 small documents: the driver (`collection.insertMany(docs)`), the
 *     embedded shell (ShellSession, `db.c.insertMany(input)` with `input` built by an untimed
 *     statement) and the engine's typed API (`collection.insertMany(docs)`), each into an empty
 *     collection after a full GC; the contenders take turns, median of 5 runs after a warm-up;
 *   - find of 10,000 documents (the whole collection, materialized): driver `find().toArray()`,
 *     shell `db.c.find().toArray()`, typed API `find()`; median of 15 rounds after 3;
 *   - 1,000 point reads by _id (findOne), one after another: per read, the median of 10 rounds of
 *     100 (2,000 for the typed API; CPU time is read per round, as Linux updates it at scheduler
 *     ticks of a few ms), and the wall-clock p50 / p99 of single reads;
 *   - the floors of a point read: the driver's `ping` (the driver's own cost per command), and a
 *     find by _id sent on a raw socket (the server and the loopback without the driver);
 *   - 50 connections (a pool of 50, 50 workers reading by _id at once): reads per second and the
 *     wall-clock p50 / p99 of a read.
 * Targets: the driver's insertMany at least 0.5x the shell's rate; driver point reads p50 under
 * 0.2 ms (on the CPU clock: what a read costs on an idle machine).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { Binary, type ObjectId } from 'bson';
import { MongoClient, type Collection } from 'mongodb';
import { ShellSession } from '../src/shell/session';
import { startServer } from '../src/wire';
import { bson, opMsg, RawClient } from '../test/unit/wire/raw-client';
import { generateDocs, type BenchDoc } from './engine-bench';

const INSERT_DOCS = 100_000;
const INSERT_RUNS = 5;
const FIND_DOCS = 10_000;
const FIND_ROUNDS = 15;
const POINT_ROUNDS = 10;
const POINT_ROUND_READS = 100;
const API_ROUND_READS = 2000;
const CONNECTIONS = 50;
const CONCURRENT_READS = 200; // per connection

const out = (s: string) => process.stdout.write(`${s}\n`);
const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

const SCHEDSTAT = '/proc/thread-self/schedstat';
/** Main-thread CPU time in ms (wall-clock time where Linux's schedstat is missing). */
const cpuNow: () => number = (() => {
  try {
    fs.readFileSync(SCHEDSTAT, 'latin1');
    return () => Number(fs.readFileSync(SCHEDSTAT, 'latin1').split(' ', 1)[0]) / 1e6;
  } catch {
    return () => performance.now();
  }
})();

interface Time {
  wall: number;
  cpu: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function medianTime(ts: Time[]): Time {
  return { wall: median(ts.map((t) => t.wall)), cpu: median(ts.map((t) => t.cpu)) };
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

/** The shell statement that defines docs(), the same documents made inside the shell (untimed). */
function shellDocsSource(count: number): string {
  const sample = docs(count);
  const ids = JSON.stringify(sample.map((d) => d._id.toHexString()));
  const rest = JSON.stringify(sample.map((d) => [d.name, d.createdAt.getTime(), d.n, d.tag]));
  return `const ids = ${ids}; const rest = ${rest};
    var docs = () => ids.map((id, i) => ({ _id: ObjectId(id), name: rest[i][0], createdAt: new Date(rest[i][1]), n: rest[i][2], tag: rest[i][3] }));`;
}

async function timeAsync(fn: () => Promise<unknown>): Promise<Time> {
  const c = cpuNow();
  const t = performance.now();
  await fn();
  return { wall: performance.now() - t, cpu: cpuNow() - c };
}

function timeSync(fn: () => unknown): Time {
  const c = cpuNow();
  const t = performance.now();
  fn();
  return { wall: performance.now() - t, cpu: cpuNow() - c };
}

export interface WireBenchResult {
  /** Documents per second (CPU, wall). */
  insert: Record<'wire' | 'shell' | 'api', Time>;
  /** ms per find of 10,000. */
  find: Record<'wire' | 'shell' | 'api', Time>;
  /** ms per read. */
  point: { wire: Time & { p50: number; p99: number }; api: Time & { p50: number; p99: number } };
  concurrent: { perSecond: Time; p50: number; p99: number };
  floors: { ping: Time & { p50: number }; rawFind: Time & { p50: number } };
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
    const runs = { wire: [] as Time[], shell: [] as Time[], api: [] as Time[] };
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
      const apiTime = timeSync(() => api.collection('c').insertMany(apiInput));
      shell.evaluate('db.c.drop(); var input = docs()');
      collect();
      const shellTime = timeSync(() => {
        const r = shell.evaluate('db.c.insertMany(input)');
        if (!r.ok) throw new Error(`shell insertMany failed: ${r.statements.at(-1)?.error?.message}`);
      });
      if (round === 0) continue;
      runs.wire.push(wire);
      runs.api.push(apiTime);
      runs.shell.push(shellTime);
    }
    const rate = (t: Time): Time => ({ wall: (INSERT_DOCS / t.wall) * 1000, cpu: (INSERT_DOCS / t.cpu) * 1000 });
    const insert = {
      wire: rate(medianTime(runs.wire)),
      shell: rate(medianTime(runs.shell)),
      api: rate(medianTime(runs.api)),
    };

    // ---- find of 10,000 ------------------------------------------------------------------------
    const findInput = docs(FIND_DOCS);
    await wireDb
      .collection('f')
      .drop()
      .catch(() => undefined);
    await wireDb.collection('f').insertMany(findInput.map((d) => ({ ...d })));
    api.collection('f').drop();
    api.collection('f').insertMany(findInput.map((d) => ({ ...d })));
    shell.evaluate('db.f.drop(); db.f.insertMany(docs().slice(0, 10000))');
    const wireColl: Collection<BenchDoc> = wireDb.collection<BenchDoc>('f');
    const finds = { wire: [] as Time[], shell: [] as Time[], api: [] as Time[] };
    collect();
    for (let round = 0; round < FIND_ROUNDS + 3; round++) {
      let n = 0;
      const wire = await timeAsync(async () => (n = (await wireColl.find({}).toArray()).length));
      const apiTime = timeSync(() => (n += api.collection('f').find({}).length));
      const shellTime = timeSync(() => {
        const r = shell.evaluate('db.f.find().toArray().length');
        n += r.ok ? 0 : NaN;
      });
      if (n !== 2 * FIND_DOCS) throw new Error(`find returned ${n} documents, not ${2 * FIND_DOCS}`);
      if (round < 3) continue; // warm-up rounds
      finds.wire.push(wire);
      finds.api.push(apiTime);
      finds.shell.push(shellTime);
    }
    const find = { wire: medianTime(finds.wire), shell: medianTime(finds.shell), api: medianTime(finds.api) };

    // ---- point reads -------------------------------------------------------------------------------
    const ids: ObjectId[] = findInput.map((d) => d._id);
    const idAt = (i: number) => ids[(((i * 7919) % ids.length) + ids.length) % ids.length];
    const single = { wire: [] as number[], api: [] as number[] };
    const rounds = { wire: [] as Time[], api: [] as Time[] };
    for (let round = -2; round < POINT_ROUNDS; round++) {
      const wire = await timeAsync(async () => {
        for (let i = 0; i < POINT_ROUND_READS; i++) {
          const t = performance.now();
          const d = await wireColl.findOne({ _id: idAt(round * POINT_ROUND_READS + i) });
          single.wire.push(performance.now() - t);
          if (!d) throw new Error('point read found nothing');
        }
      });
      // The typed API's rounds are longer: 100 of its reads take less than one scheduler tick.
      const apiTime = timeSync(() => {
        for (let i = 0; i < API_ROUND_READS; i++) {
          const t = performance.now();
          const d = api.collection('f').findOne({ _id: idAt(round * API_ROUND_READS + i) });
          single.api.push(performance.now() - t);
          if (!d) throw new Error('point read found nothing');
        }
      });
      if (round < 0) {
        single.wire.length = 0;
        single.api.length = 0;
        continue; // warm-up rounds
      }
      rounds.wire.push(wire);
      rounds.api.push(apiTime);
    }
    const perRead = (t: Time, n: number): Time => ({ wall: t.wall / n, cpu: t.cpu / n });
    const point = {
      wire: {
        ...perRead(medianTime(rounds.wire), POINT_ROUND_READS),
        p50: median(single.wire),
        p99: percentile(single.wire, 99),
      },
      api: {
        ...perRead(medianTime(rounds.api), API_ROUND_READS),
        p50: median(single.api),
        p99: percentile(single.api, 99),
      },
    };

    // ---- the floors: the driver with (almost) nothing to do, the server without the driver -------
    const floor = async (fn: (i: number) => Promise<unknown>): Promise<Time & { p50: number }> => {
      for (let i = 0; i < 200; i++) await fn(i);
      const lat: number[] = [];
      const t = await timeAsync(async () => {
        for (let i = 0; i < POINT_ROUNDS * POINT_ROUND_READS; i++) {
          const s = performance.now();
          await fn(i);
          lat.push(performance.now() - s);
        }
      });
      const n = POINT_ROUNDS * POINT_ROUND_READS;
      return { wall: t.wall / n, cpu: t.cpu / n, p50: median(lat) };
    };
    const ping = await floor(() => client.db('admin').command({ ping: 1 }));
    const raw = await RawClient.connect(server.port);
    let requestID = 1;
    const lsid = { id: new Binary(Buffer.alloc(16, 1), Binary.SUBTYPE_UUID) };
    const rawFind = await floor((i) =>
      raw.request(
        opMsg({
          requestID: requestID++,
          body: bson({ find: 'f', filter: { _id: idAt(i) }, limit: 1, singleBatch: true, lsid, $db: 'wirebench' }),
        }),
      ),
    );
    raw.destroy();

    // ---- 50 connections ---------------------------------------------------------------------------
    const latencies: number[] = [];
    const worker = async (w: number, record: boolean) => {
      for (let i = 0; i < CONCURRENT_READS; i++) {
        const t = performance.now();
        await wireColl.findOne({ _id: idAt(w * 104729 + i) });
        if (record) latencies.push(performance.now() - t);
      }
    };
    // Warm-up: opens the pool's 50 connections.
    await Promise.all(Array.from({ length: CONNECTIONS }, (_, w) => worker(w, false)));
    const connections = server.connections;
    collect();
    const elapsed = await timeAsync(() => Promise.all(Array.from({ length: CONNECTIONS }, (_, w) => worker(w, true))));
    const reads = CONNECTIONS * CONCURRENT_READS;
    const concurrent = {
      perSecond: { wall: (reads * 1000) / elapsed.wall, cpu: (reads * 1000) / elapsed.cpu },
      p50: median(latencies),
      p99: percentile(latencies, 99),
    };

    // ---- report ---------------------------------------------------------------------------------------
    out('Each cell: main-thread CPU time (what it takes on an idle machine), then wall-clock time in parentheses.');
    out('\n| operation | driver over loopback | embedded shell | typed API | driver / shell | driver / typed API |');
    out('| --- | ---: | ---: | ---: | ---: | ---: |');
    const pair = (t: Time, digits = 0) => `${fmt(t.cpu, digits)} (${fmt(t.wall, digits)})`;
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
    const ratios = (a: Time, b: Time, inverse = false) =>
      inverse
        ? `${ratio(b.cpu, a.cpu)} (${ratio(b.wall, a.wall)})`
        : `${ratio(a.cpu, b.cpu)} (${ratio(a.wall, b.wall)})`;
    out(
      `| insertMany ${fmt(INSERT_DOCS)} docs, docs/s | ${pair(insert.wire)} | ${pair(insert.shell)} | ${pair(insert.api)} | ${ratios(insert.wire, insert.shell)} | ${ratios(insert.wire, insert.api)} |`,
    );
    out(
      `| find ${fmt(FIND_DOCS)} docs, ms | ${pair(find.wire, 1)} | ${pair(find.shell, 1)} | ${pair(find.api, 1)} | ${ratios(find.wire, find.shell, true)} | ${ratios(find.wire, find.api, true)} |`,
    );
    out(
      `| findOne by _id, ms per read | ${pair(point.wire, 3)} | | ${pair(point.api, 3)} | | ${ratios(point.wire, point.api, true)} |`,
    );
    out('(ratios: the driver path relative to the other, as a rate; under 1x it is slower)');
    out(
      `\nfindOne by _id, wall clock of single reads: driver p50 ${fmt(point.wire.p50, 3)} ms, p99 ${fmt(point.wire.p99, 3)} ms; typed API p50 ${fmt(point.api.p50, 4)} ms, p99 ${fmt(point.api.p99, 4)} ms`,
    );
    out(
      `the floors, per call: driver ping ${fmt(ping.cpu, 3)} ms of CPU (wall p50 ${fmt(ping.p50, 3)} ms), the driver's own cost with nothing to find; ` +
        `find by _id on a raw socket (no driver: the server, the loopback and a minimal client) ${fmt(rawFind.cpu, 3)} ms (wall p50 ${fmt(rawFind.p50, 3)} ms)`,
    );
    out(
      `\n${CONNECTIONS} connections (${connections} open on the server: the pool's and the monitor's), ${fmt(reads)} findOne by _id at once:`,
    );
    out('| reads/s | wall-clock p50 (ms) | wall-clock p99 (ms) | one connection, one read at a time: reads/s |');
    out('| ---: | ---: | ---: | ---: |');
    out(
      `| ${pair(concurrent.perSecond)} | ${fmt(concurrent.p50, 2)} | ${fmt(concurrent.p99, 2)} | ${fmt(1000 / point.wire.cpu)} (${fmt(1000 / point.wire.wall)}) |`,
    );
    const insertRatio = insert.wire.cpu / insert.shell.cpu;
    out(
      `target: driver insertMany >= 0.5x the shell's rate: ${insertRatio.toFixed(2)}x (wall ${(insert.wire.wall / insert.shell.wall).toFixed(2)}x) ${insertRatio >= 0.5 ? 'PASS' : 'MISS'}`,
    );
    out(
      `target: driver point reads p50 < 0.2 ms: ${point.wire.cpu.toFixed(3)} ms of CPU per read (wall p50 ${point.wire.p50.toFixed(3)} ms) ${point.wire.cpu < 0.2 ? 'PASS' : 'MISS'}`,
    );
    out(`(load average after: ${loadAverage()})`);
    return { insert, find, point, concurrent, floors: { ping, rawFind } };
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
