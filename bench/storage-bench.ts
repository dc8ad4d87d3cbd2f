/**
 * Durable storage (issue: durable storage). In one process, on the same documents:
 *  - write throughput of single-document inserts in each durability mode (`fsync`: every
 *    acknowledged write is on disk; `batched`: group commit, up to 100 ms at risk), next to the
 *    in-memory engine and nedb's persistent datastore (which appends without fsync);
 *  - recovery time for N documents (target: 1M in under 3 s) from the journal alone and from a
 *    snapshot, and the snapshot's size per document (target: under 150 bytes for a small one),
 *    next to nedb loading its own file of the same documents.
 * Data folders go to the OS temp folder and are removed afterwards.
 */
import Datastore from '@seald-io/nedb';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { ObjectId } from 'bson';
import { Engine, VirtualClock, type Document } from '../src/engine';
import { closeStoredEngine, compact, openStoredEngine } from '../src/storage/engine-store';
import { prng } from '../test/unit/helpers/prng';

const T0 = Date.UTC(2026, 0, 1);

function smallDocs(n: number, seed: number): Document[] {
  const r = prng(seed);
  const out: Document[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const at = T0 + Math.floor(r() * 30 * 86400_000);
    out[i] = { _id: new ObjectId(), name: `user${i}`, createdAt: new Date(at), n: i, tag: `t${i % 10}` };
  }
  return out;
}

const tmp = (label: string) => fs.mkdtempSync(path.join(os.tmpdir(), `ttl-bench-${label}-`));
const rm = (dir: string) => fs.rmSync(dir, { recursive: true, force: true });
const perSec = (n: number, ms: number) => Math.round((n / ms) * 1000);
const fmt = (n: number) => n.toLocaleString('en-US');

function folderBytes(dir: string, re: RegExp): number {
  return fs
    .readdirSync(dir)
    .filter((f) => re.test(f))
    .reduce((s, f) => s + fs.statSync(path.join(dir, f)).size, 0);
}

async function writeThroughput(n: number): Promise<string[]> {
  const docs = smallDocs(n, 1);
  const rows: string[] = [];
  const memory = new Engine({ clock: new VirtualClock(T0) });
  let t = performance.now();
  for (const d of docs) memory.runCommand('bench', { insert: 'c', documents: [d] });
  const memoryRate = perSec(n, performance.now() - t);
  memory.close();
  rows.push(`| in memory (no storage) | ${fmt(memoryRate)} | 1.00x |`);
  for (const durability of ['batched', 'fsync'] as const) {
    // fsync costs a disk flush per write: fewer writes keep the run short, the rate is per second anyway.
    const count = durability === 'fsync' ? Math.min(n, 2000) : n;
    const dir = tmp(durability);
    const o = openStoredEngine(dir, { durability, engine: { clock: new VirtualClock(T0) } });
    t = performance.now();
    for (let i = 0; i < count; i++) o.engine.runCommand('bench', { insert: 'c', documents: [docs[i]] });
    const rate = perSec(count, performance.now() - t);
    closeStoredEngine(o);
    rm(dir);
    rows.push(
      `| ${durability}${count < n ? ` (${fmt(count)} writes)` : ''} | ${fmt(rate)} | ${(rate / memoryRate).toFixed(3)}x |`,
    );
  }
  const nedbDir = tmp('nedb');
  const nedb = new Datastore({ filename: path.join(nedbDir, 'c.db'), autoload: false });
  await nedb.loadDatabaseAsync();
  const nedbDocs = docs.map((d) => ({ ...d, _id: (d._id as ObjectId).toHexString() }));
  t = performance.now();
  for (const d of nedbDocs) await nedb.insertAsync(d);
  const nedbRate = perSec(n, performance.now() - t);
  rm(nedbDir);
  rows.push(`| nedb persistent (appends, no fsync) | ${fmt(nedbRate)} | ${(nedbRate / memoryRate).toFixed(3)}x |`);
  return rows;
}

interface WriteWatch {
  stallMaxMs: number;
  stallP99Ms: number;
  writes: number;
  slowestWriteMs: number;
  longestGcMs: number;
}

/** One write per timer tick while the event loop's delay and the GC pauses are recorded. */
function startWriteWatch(write: () => void): { stop(): WriteWatch } {
  const stall = monitorEventLoopDelay({ resolution: 1 });
  let writes = 0;
  let slowestWriteMs = 0;
  let longestGcMs = 0;
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) longestGcMs = Math.max(longestGcMs, e.duration);
  });
  gc.observe({ entryTypes: ['gc'] });
  const timer = setInterval(() => {
    const t0 = performance.now();
    write();
    writes++;
    slowestWriteMs = Math.max(slowestWriteMs, performance.now() - t0);
  }, 1);
  stall.enable();
  return {
    stop() {
      stall.disable();
      clearInterval(timer);
      gc.disconnect();
      return {
        stallMaxMs: stall.max / 1e6,
        stallP99Ms: stall.percentile(99) / 1e6,
        writes,
        slowestWriteMs,
        longestGcMs,
      };
    },
  };
}

function describeWatch(w: WriteWatch): string {
  return `longest event-loop stall ${w.stallMaxMs.toFixed(1)} ms, p99 ${w.stallP99Ms.toFixed(1)} ms; longest GC pause ${w.longestGcMs.toFixed(1)} ms; ${fmt(w.writes)} inserts, slowest ${w.slowestWriteMs.toFixed(1)} ms`;
}

/** Recovery as after a restart: a fresh process opens the folder (bench/recovery-child.ts). CPU ms include GC threads. */
interface Recovered {
  ms: number;
  cpuMs: number;
  threadMs?: number;
  maxRssMb?: number;
  count: number;
}

function recoverInFreshProcess(dir: string): Recovered {
  const child = spawnSync(process.execPath, [path.join(__dirname, 'recovery-child.js'), dir, 'bench', 'c'], {
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(`recovery child failed: ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').pop()!) as Recovered;
}

function recoveryTimes(r: Recovered): string {
  return `${r.ms.toFixed(0)} ms wall (main thread CPU ${r.threadMs === undefined ? 'n/a' : `${r.threadMs.toFixed(0)} ms`}, process CPU ${r.cpuMs.toFixed(0)} ms)`;
}

const verdict = (ms: number) => (ms < 3000 ? 'MET' : 'MISSED');

async function recovery(n: number): Promise<string[]> {
  const docs = smallDocs(n, 2);
  const dir = tmp('recovery');
  // Load in commands of 10,000 documents (one journal frame each), batched durability for speed.
  let o = openStoredEngine(dir, { durability: 'batched', engine: { clock: new VirtualClock(T0) } });
  o.engine.runCommand('bench', {
    createIndexes: 'c',
    indexes: [{ key: { createdAt: 1 }, name: 'createdAt_1', expireAfterSeconds: 86400 }],
  });
  for (let i = 0; i < n; i += 10_000)
    o.engine.runCommand('bench', { insert: 'c', documents: docs.slice(i, i + 10_000), ordered: false });
  const journalBytes = folderBytes(dir, /^journal-/);
  closeStoredEngine(o);

  const fromJournal = recoverInFreshProcess(dir);
  const ok1 = fromJournal.count === n;
  o = openStoredEngine(dir, { durability: 'batched', engine: { clock: new VirtualClock(T0) } });
  // While compaction runs, a writer inserts one document per timer tick: its longest wait is how
  // long compaction held the event loop (what a user's write would wait for). The same writer then
  // runs as long again with no compaction: the stalls the heap's GC and the machine cause anyway.
  const opened = o;
  let written = 0;
  const watch = startWriteWatch(() =>
    opened.engine.runCommand('bench', {
      insert: 'c',
      documents: [{ _id: `during${written++}`, createdAt: new Date(T0) }],
    }),
  );
  const c = await compact(o.engine, o.store);
  const during = watch.stop();
  const idleWatch = startWriteWatch(() =>
    opened.engine.runCommand('bench', {
      insert: 'c',
      documents: [{ _id: `during${written++}`, createdAt: new Date(T0) }],
    }),
  );
  await new Promise((resolve) => setTimeout(resolve, c.totalMs));
  const without = idleWatch.stop();
  o.engine.runCommand('bench', { delete: 'c', deletes: [{ q: { _id: { $regex: '^during' } }, limit: 0 }] });
  closeStoredEngine(o);
  const snapshotBytes = folderBytes(dir, /^snapshot-/);

  const fromSnapshot = recoverInFreshProcess(dir);
  const fromSnapshotMs = fromSnapshot.ms;
  const ok2 = fromSnapshot.count === n;
  rm(dir);

  const nedbDir = tmp('nedb-load');
  const file = path.join(nedbDir, 'c.db');
  fs.writeFileSync(
    file,
    docs
      .map((d) =>
        JSON.stringify({
          ...d,
          _id: (d._id as ObjectId).toHexString(),
          createdAt: { $$date: (d.createdAt as Date).getTime() },
        }),
      )
      .join('\n') + '\n',
  );
  const nedbBytes = fs.statSync(file).size;
  const nedb = new Datastore({ filename: file, autoload: false });
  const t = performance.now();
  await nedb.loadDatabaseAsync();
  await nedb.ensureIndexAsync({ fieldName: 'createdAt' });
  const nedbMs = performance.now() - t;
  const ok3 = (await nedb.countAsync({})) === n;
  rm(nedbDir);

  return [
    `| recovery from the journal (${fmt(n / 10_000)} frames) | ${recoveryTimes(fromJournal)} | ${(journalBytes / n).toFixed(0)} B/doc journal | ${ok1 ? 'all documents back' : 'COUNT MISMATCH'} |`,
    `| recovery from a snapshot | ${recoveryTimes(fromSnapshot)} | **${(snapshotBytes / n).toFixed(0)} B/doc** snapshot (target < 150) | ${ok2 ? 'all documents back' : 'COUNT MISMATCH'} |`,
    `| compaction that wrote it | ${c.totalMs.toFixed(0)} ms: capture held the engine ${c.heldMs.toFixed(1)} ms; ${describeWatch(during)} | | |`,
    `| the same writer, no compaction, as long | ${describeWatch(without)} | | |`,
    `| nedb: load its file + index createdAt | ${nedbMs.toFixed(0)} ms | ${(nedbBytes / n).toFixed(0)} B/doc file | ${ok3 ? 'all documents back' : 'COUNT MISMATCH'} |`,
    '',
    `Recovery target (1M documents under 3 s), from the snapshot: ${n >= 1_000_000 ? '' : '(measured at a smaller size) '}wall ${fromSnapshotMs.toFixed(0)} ms ${verdict(fromSnapshotMs)}, main-thread CPU ${fromSnapshot.threadMs === undefined ? 'n/a' : `${fromSnapshot.threadMs.toFixed(0)} ms ${verdict(fromSnapshot.threadMs)}`}; ratio to nedb's load ${(fromSnapshotMs / nedbMs).toFixed(2)}x.`,
  ];
}

/**
 * Opening a journal followed by junk (issue: storage integrity): 16 MiB of random bytes (damage,
 * searched once for a record to resume at) and a zero-filled tail (torn), in a fresh process.
 * The tail is a sparse extension, so `zeroMiB` costs no disk. Peak memory is the child's maxRSS.
 */
function junkTails(zeroMiB: number): string[] {
  const rows: string[] = [];
  for (const [what, mib] of [
    ['random bytes', 16],
    ['zero-filled (sparse)', zeroMiB],
  ] as Array<[string, number]>) {
    const dir = tmp('junk');
    const o = openStoredEngine(dir, { engine: { clock: new VirtualClock(T0) }, autoCompact: false });
    for (let i = 0; i < 100; i++) o.engine.runCommand('bench', { insert: 'c', documents: [{ _id: i }] });
    closeStoredEngine(o);
    const journal = path.join(dir, 'journal-0.ttlj');
    if (what === 'random bytes') {
      const junk = Buffer.alloc(mib * 1024 * 1024);
      let x = 1;
      for (let i = 0; i < junk.length; i++) {
        x = (Math.imul(x, 1103515245) + 12345) >>> 0;
        junk[i] = x >>> 24;
      }
      fs.appendFileSync(journal, junk);
    } else fs.truncateSync(journal, fs.statSync(journal).size + mib * 1024 * 1024);
    const r = recoverInFreshProcess(dir);
    rows.push(
      `| ${fmt(mib)} MiB of ${what} after the last record | ${recoveryTimes(r)} | max RSS ${r.maxRssMb?.toFixed(0) ?? 'n/a'} MB | ${r.count === 100 ? 'the 100 documents back' : 'COUNT MISMATCH'} |`,
    );
    rm(dir);
  }
  return rows;
}

export async function runStorageBench(n: number): Promise<void> {
  process.stdout.write(
    `\n# Durable storage (${fmt(n)} small documents)\n\n## Write throughput, single-document inserts\n\n| mode | inserts/s | vs in memory |\n|---|---|---|\n`,
  );
  process.stdout.write(`${(await writeThroughput(Math.min(n, 50_000))).join('\n')}\n`);
  process.stdout.write(`\n## Recovery and snapshot size\n\n| what | time | size | check |\n|---|---|---|---|\n`);
  process.stdout.write(`${(await recovery(n)).join('\n')}\n`);
  process.stdout.write(
    `\n## Opening a journal with junk after its last record\n\n| what | time | memory | check |\n|---|---|---|---|\n`,
  );
  process.stdout.write(`${junkTails(n >= 1_000_000 ? 1024 : 256).join('\n')}\n`);
}
