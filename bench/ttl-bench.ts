/**
 * TTL expiry benchmark (issue: the TTL engine). For N documents of which half are expired:
 *  - one full TTL pass: expired documents deleted per second, with the TTL index alone and with 3
 *    more indexes to maintain;
 *  - an idle pass (nothing expired) at 100k and 1M documents: must stay flat, because the monitor
 *    walks the index range [min date, now − EAS] instead of scanning the collection;
 *  - one 50,000-document visit (mongod's ttlIndexDeleteTargetDocs);
 * next to @seald-io/nedb (TTL checked on reads: a find over everything removes expired documents)
 * and lokijs (its TTL daemon's sweep: a where() over every document, then remove), run on the same
 * data in the same process, each first warmed up on 20k documents (untimed). Ratios are what
 * matters: the machine is shared and noisy.
 */
import Datastore from '@seald-io/nedb';
import Loki from 'lokijs';
import { Engine, VirtualClock, type Document } from '../src/engine';
import { prng } from '../test/unit/helpers/prng';

interface TtlDoc {
  name: string;
  expireAt: Date;
  n: number;
  tag: string;
}

/** Half the documents expired (up to 30 days ago), half expiring in the next 30 days. */
function makeDocs(n: number, now: number): TtlDoc[] {
  const r = prng(n);
  const docs: TtlDoc[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const offset = Math.floor(r() * 30 * 86400_000) + 1000;
    docs[i] = {
      name: `user${i}`,
      expireAt: new Date(i % 2 === 0 ? now - offset : now + offset),
      n: i,
      tag: `t${i % 10}`,
    };
  }
  return docs;
}

/**
 * A full GC before each timed expiry, as the engine bench does before every measurement: otherwise
 * the load's garbage is collected inside the timed pass (a 50k visit measured 18 ms to 320 ms).
 * Then a pause: after a full GC of a 1M-document heap, V8 sweeps its pages on a background thread
 * for a few hundred ms, and on this 2-core machine a pass timed meanwhile ran its first 50k visit
 * ~2x slower (75 ms vs 22-26 ms for the first 16k batch, the same with --no-concurrent-sweeping or
 * after a 300 ms wait). A monitor pass runs a sleep (60 s) after the last one, not on the heels
 * of a forced GC; every contender gets the same pause.
 */
async function settle(ms = SETTLE_MS): Promise<void> {
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((resolve) => setTimeout(resolve, ms));
}
const SETTLE_MS = 1000;
const WARM_UP_DOCS = 20_000;

function ms(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

interface EngineResult {
  expiredPerSec: number;
  expiredPerSecWith3: number;
  idlePassMs: number;
  batch50kMs: number;
  /** Median of the pass's full visits after the first: the same work once the pages are touched. */
  laterVisitMs: number;
}

async function engineRun(
  docs: TtlDoc[],
  now: number,
  extraIndexes: boolean,
  settleMs: number,
): Promise<{
  engine: Engine;
  clock: VirtualClock;
  passMs: number;
  deleted: number;
  firstVisitMs: number;
  laterVisitMs: number;
}> {
  const clock = new VirtualClock(now);
  // The monitor must not fire on its own during the load; passes are run explicitly.
  const engine = new Engine({ clock, parameters: { ttlMonitorEnabled: true } });
  const c = engine.db('bench').collection('ttl');
  c.createIndex({ expireAt: 1 }, { expireAfterSeconds: 0 });
  if (extraIndexes) {
    c.createIndex({ name: 1 });
    c.createIndex({ n: 1 });
    c.createIndex({ tag: 1, n: 1 });
  }
  for (let i = 0; i < docs.length; i += 1000) c.insertMany(docs.slice(i, i + 1000) as unknown as Document[]);
  await settle(settleMs);
  const start = process.hrtime.bigint();
  const report = engine.ttl.runPass();
  const passMs = ms(start);
  const later = report.visits
    .slice(1)
    .filter((v) => v.deleted === report.visits[0].deleted)
    .map((v) => v.millis);
  return {
    engine,
    clock,
    passMs,
    deleted: report.deleted,
    firstVisitMs: report.visits[0]?.millis ?? 0,
    laterVisitMs: later.length ? median(later) : NaN,
  };
}

async function runEngine(docs: TtlDoc[], now: number, settleMs = SETTLE_MS): Promise<EngineResult> {
  const plain = await engineRun(docs, now, false, settleMs);
  // Idle passes: nothing is expired any more; repeat and take the median.
  const idle: number[] = [];
  for (let i = 0; i < 25; i++) {
    const s = process.hrtime.bigint();
    plain.engine.ttl.runPass();
    idle.push(ms(s));
  }
  plain.engine.close();
  const with3 = await engineRun(docs, now, true, settleMs);
  with3.engine.close();
  return {
    expiredPerSec: plain.deleted / (plain.passMs / 1000),
    expiredPerSecWith3: with3.deleted / (with3.passMs / 1000),
    idlePassMs: median(idle),
    batch50kMs: plain.firstVisitMs,
    laterVisitMs: plain.laterVisitMs,
  };
}

async function runNedb(
  docs: TtlDoc[],
  settleMs = SETTLE_MS,
): Promise<{ expiredPerSec: number; idleMs: number; n: number }> {
  const db = new Datastore<TtlDoc>({ inMemoryOnly: true });
  await db.ensureIndexAsync({ fieldName: 'expireAt', expireAfterSeconds: 0 });
  for (let i = 0; i < docs.length; i += 1000) await db.insertAsync(docs.slice(i, i + 1000));
  // nedb removes expired documents when a query meets them: a find over everything expires all.
  await settle(settleMs);
  let s = process.hrtime.bigint();
  await db.findAsync({});
  const expireMs = ms(s);
  const left = await db.countAsync({});
  s = process.hrtime.bigint();
  await db.findAsync({});
  const idleMs = ms(s);
  return { expiredPerSec: (docs.length - left) / (expireMs / 1000), idleMs, n: docs.length };
}

async function runLoki(
  docs: TtlDoc[],
  now: number,
  settleMs = SETTLE_MS,
): Promise<{ expiredPerSec: number; idleMs: number }> {
  const db = new Loki('bench.db');
  const coll = db.addCollection<TtlDoc>('ttl', { indices: ['expireAt'] });
  coll.insert(docs.map((d) => ({ ...d })));
  // What lokijs's TTL daemon does each interval: a where() over every document, then remove.
  // (A lokijs binary index stores dates as numbers, so read either form.)
  const time = (v: Date | number) => (typeof v === 'number' ? v : v.getTime());
  const sweep = () =>
    coll
      .chain()
      .where((d) => time(d.expireAt) <= now)
      .remove();
  await settle(settleMs);
  let s = process.hrtime.bigint();
  sweep();
  const expireMs = ms(s);
  const expired = docs.length - coll.count();
  const idle: number[] = [];
  for (let i = 0; i < 5; i++) {
    s = process.hrtime.bigint();
    sweep();
    idle.push(ms(s));
  }
  return { expiredPerSec: expired / (expireMs / 1000), idleMs: median(idle) };
}

const fmt = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(n >= 1 ? 2 : 4));
/**
 * nedb runs on the whole collection up to 1M documents, as the issue's targets are stated: on a
 * 200k sample it expired ~15% faster per second than on 1M (52k vs 45k docs/s measured), which
 * flattered it. Its load takes ~30-60 s at 1M.
 */
const NEDB_CAP = 1_000_000;

export async function runTTLBench(sizes: number[]): Promise<void> {
  const out = (s: string) => process.stdout.write(`${s}\n`);
  out('\n# TTL expiry (half of N expired; one pass)');
  out(
    `nedb runs on the same N documents (up to ${NEDB_CAP.toLocaleString('en-US')}); its rates are per second, so they compare directly.`,
  );
  // Warm-up, untimed: each contender expires a small collection once, so the first timed size is
  // not also the first run of each one's code (the engine's 100k pass ran ~30% slower cold).
  {
    const now = Date.now();
    const docs = makeDocs(WARM_UP_DOCS, now);
    await runEngine(docs, now, 0);
    await runLoki(docs, now, 0);
    await runNedb(docs, 0);
  }
  const idleBySize: Array<[number, number]> = [];
  for (const n of sizes) {
    const now = Date.now();
    const docs = makeDocs(n, now);
    const engine = await runEngine(docs, now);
    const loki = await runLoki(docs, now);
    const nedb = await runNedb(docs.slice(0, Math.min(n, NEDB_CAP)));
    idleBySize.push([n, engine.idlePassMs]);
    out(`\n## N = ${n.toLocaleString('en-US')}${nedb.n < n ? ` (nedb: ${nedb.n.toLocaleString('en-US')})` : ''}`);
    out('| metric | engine | nedb | lokijs | engine/nedb | engine/loki |');
    out('| --- | ---: | ---: | ---: | ---: | ---: |');
    out(
      `| expired docs/s, TTL index only | ${fmt(engine.expiredPerSec)} | ${fmt(nedb.expiredPerSec)} | ${fmt(loki.expiredPerSec)} | ${(engine.expiredPerSec / nedb.expiredPerSec).toFixed(1)}x | ${(engine.expiredPerSec / loki.expiredPerSec).toFixed(2)}x |`,
    );
    out(`| expired docs/s, + 3 indexes | ${fmt(engine.expiredPerSecWith3)} | | | | |`);
    out(`| idle check / pass (ms) | ${fmt(engine.idlePassMs)} | ${fmt(nedb.idleMs)} | ${fmt(loki.idleMs)} | | |`);
    out(`| one 50,000-doc visit (ms): the first | ${fmt(engine.batch50kMs)} | | | | |`);
    out(
      `| one 50,000-doc visit (ms): median of the later ones | ${Number.isNaN(engine.laterVisitMs) ? 'n/a (one visit)' : fmt(engine.laterVisitMs)} | | | | |`,
    );
    out(
      `targets: expiry >= 30x nedb ${engine.expiredPerSec >= 30 * nedb.expiredPerSec ? 'PASS' : 'MISS'}; >= 0.6x lokijs ${engine.expiredPerSec >= 0.6 * loki.expiredPerSec ? 'PASS' : 'MISS'}; idle pass < 0.1 ms ${engine.idlePassMs < 0.1 ? 'PASS' : 'MISS'}; 50k visit < 50 ms: first ${engine.batch50kMs < 50 ? 'PASS' : 'MISS'}, later ${Number.isNaN(engine.laterVisitMs) ? 'n/a (one visit)' : engine.laterVisitMs < 50 ? 'PASS' : 'MISS'}`,
    );
  }
  if (idleBySize.length > 1) {
    const [first, last] = [idleBySize[0], idleBySize[idleBySize.length - 1]];
    out(
      `\nidle pass ${fmt(first[1])} ms at ${first[0].toLocaleString('en-US')} docs vs ${fmt(last[1])} ms at ${last[0].toLocaleString('en-US')} docs: ratio ${(last[1] / first[1]).toFixed(2)} (flat is ~1; the collection grew ${(last[0] / first[0]).toFixed(0)}x)`,
    );
  }
}

if (require.main === module) {
  const sizes = process.argv.includes('--quick') ? [20_000, 100_000] : [100_000, 1_000_000];
  runTTLBench(sizes).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
