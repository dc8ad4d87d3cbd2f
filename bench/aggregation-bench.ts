/**
 * MongoDB beyond TTL (`--only aggregation`): the workloads issue 26 names, each beside the same
 * work in `mingo` (an in-memory MongoDB query language library) in the same run:
 *   - $lookup of 100k orders to 10k customers, with and without an index on the foreign field;
 *   - a positional update ($) over 100k documents, and the same with $[<id>] and arrayFilters;
 *   - a $group over 1M documents.
 * Both sides get the same plain documents (numbers, strings) and must produce every result:
 * each pipeline ends in a $group that folds the whole output into one document, so neither side
 * can stop early. Median of rounds, main-thread wall-clock time.
 */
import * as os from 'node:os';
import { Aggregator, updateMany } from 'mingo';
import { Engine, type Document } from '../src/engine';

const out = (s: string) => process.stdout.write(`${s}\n`);
const fmt = (n: number, digits = 1) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

const count = (n: number) => (n >= 1e6 ? `${n / 1e6}M` : `${n / 1000}k`);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

/** Median over `rounds` runs after one warm-up; `setup` runs untimed before each. */
function time(rounds: number, fn: () => unknown, setup: () => void = () => {}): number {
  setup();
  fn();
  const ms: number[] = [];
  for (let i = 0; i < rounds; i++) {
    setup();
    const t = performance.now();
    fn();
    ms.push(performance.now() - t);
  }
  return median(ms);
}

function insertAll(engine: Engine, coll: string, docs: Document[]): void {
  for (let i = 0; i < docs.length; i += 10_000)
    engine.runCommand('bench', { insert: coll, documents: docs.slice(i, i + 10_000) });
}

/** Runs an aggregation to the end and answers its only document. */
function aggregateOne(engine: Engine, coll: string, pipeline: Document[]): Document {
  const reply = engine.runCommand('bench', { aggregate: coll, pipeline, cursor: {} });
  const batch = (reply.cursor as Document).firstBatch as Document[];
  if (batch.length !== 1) throw new Error(`expected one result document from ${coll}, got ${batch.length}`);
  return batch[0];
}

function same(label: string, a: unknown, b: unknown): void {
  const sa = JSON.stringify(a);
  const sb = JSON.stringify(b);
  if (sa !== sb) throw new Error(`${label}: the engine answered ${sa}, mingo ${sb}`);
}

interface Row {
  workload: string;
  engineMs: number;
  mingoMs: number;
}

function lookupRows(orders: number, customers: number): Row[] {
  const orderDocs: Document[] = Array.from({ length: orders }, (_, i) => ({
    _id: i,
    customerId: (i * 7919) % customers,
    total: i % 500,
  }));
  const customerDocs: Document[] = Array.from({ length: customers }, (_, i) => ({
    _id: i,
    cid: i,
    name: `customer ${i}`,
    tier: i % 3,
  }));
  const pipeline: Document[] = [
    { $lookup: { from: 'customers', localField: 'customerId', foreignField: 'cid', as: 'customer' } },
    { $group: { _id: null, joined: { $sum: { $size: '$customer' } }, orders: { $sum: 1 } } },
  ];
  const engine = new Engine();
  insertAll(engine, 'orders', orderDocs);
  insertAll(engine, 'customers', customerDocs);
  const mingoRun = () =>
    new Aggregator(pipeline, { collectionResolver: (name) => (name === 'customers' ? customerDocs : []) }).run(
      orderDocs,
    )[0];
  const expected = { _id: null, joined: orders, orders };
  same('$lookup', mingoRun(), expected);

  const rounds = orders >= 100_000 ? 3 : 5;
  const rows: Row[] = [];
  const mingoMs = time(rounds, mingoRun);
  same('$lookup (no index)', aggregateOne(engine, 'orders', pipeline), expected);
  rows.push({
    workload: `$lookup ${count(orders)} orders → ${count(customers)} customers, no index on cid`,
    engineMs: time(rounds, () => aggregateOne(engine, 'orders', pipeline)),
    mingoMs,
  });
  engine.runCommand('bench', { createIndexes: 'customers', indexes: [{ key: { cid: 1 }, name: 'cid_1' }] });
  same('$lookup (index)', aggregateOne(engine, 'orders', pipeline), expected);
  rows.push({
    workload: `$lookup ${count(orders)} orders → ${count(customers)} customers, index {cid: 1}`,
    engineMs: time(rounds, () => aggregateOne(engine, 'orders', pipeline)),
    mingoMs,
  });
  engine.close();
  return rows;
}

function positionalRows(size: number): Row[] {
  const fresh = (): Document[] =>
    Array.from({ length: size }, (_, i) => ({
      _id: i,
      items: [
        { sku: 'a', qty: 1 },
        { sku: 'b', qty: i % 7 },
        { sku: 'c', qty: 3 },
      ],
    }));
  const rows: Row[] = [];
  const cases: { label: string; q: Document; u: Document; arrayFilters?: Document[] }[] = [
    { label: 'positional $ update', q: { 'items.sku': 'b' }, u: { $inc: { 'items.$.qty': 1 } } },
    {
      label: '$[<id>] update with arrayFilters',
      q: {},
      u: { $inc: { 'items.$[it].qty': 1 } },
      arrayFilters: [{ 'it.sku': { $in: ['a', 'c'] } }],
    },
  ];
  for (const c of cases) {
    let engine: Engine | undefined;
    let docs: Document[] = [];
    const engineSetup = () => {
      engine?.close();
      engine = new Engine();
      insertAll(engine, 'carts', fresh());
    };
    const engineRun = () => {
      const reply = engine!.runCommand('bench', {
        update: 'carts',
        updates: [{ q: c.q, u: c.u, multi: true, ...(c.arrayFilters ? { arrayFilters: c.arrayFilters } : {}) }],
      });
      if (reply.nModified !== size) throw new Error(`${c.label}: modified ${String(reply.nModified)} of ${size}`);
    };
    const mingoSetup = () => {
      docs = fresh();
    };
    const mingoRun = () => {
      const r = updateMany(docs, c.q, c.u as never, c.arrayFilters ? { arrayFilters: c.arrayFilters } : {});
      if (r.modifiedCount !== size) throw new Error(`${c.label} (mingo): modified ${r.modifiedCount} of ${size}`);
    };
    rows.push({
      workload: `${c.label} over ${count(size)} documents (updateMany)`,
      engineMs: time(3, engineRun, engineSetup),
      mingoMs: time(3, mingoRun, mingoSetup),
    });
    engine?.close();
  }
  return rows;
}

function groupRows(size: number): Row[] {
  const docs: Document[] = Array.from({ length: size }, (_, i) => ({ _id: i, k: i % 1000, v: i % 97 }));
  const pipeline: Document[] = [
    { $group: { _id: '$k', total: { $sum: '$v' }, n: { $sum: 1 } } },
    { $group: { _id: null, groups: { $sum: 1 }, n: { $sum: '$n' } } },
  ];
  const engine = new Engine();
  insertAll(engine, 'events', docs);
  const expected = { _id: null, groups: 1000, n: size };
  same('$group', aggregateOne(engine, 'events', pipeline), expected);
  const mingoRun = () => new Aggregator(pipeline).run(docs)[0];
  same('$group (mingo)', mingoRun(), expected);
  const row = {
    workload: `$group of ${count(size)} documents into 1,000 groups ($sum ×2)`,
    engineMs: time(3, () => aggregateOne(engine, 'events', pipeline)),
    mingoMs: time(3, mingoRun),
  };
  engine.close();
  return [row];
}

export function runAggregationBench(options: { quick?: boolean } = {}): void {
  const q = options.quick === true;
  out(`\n# MongoDB beyond TTL: joins, positional updates, $group (vs mingo)`);
  out(`(${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)}; main-thread wall-clock ms, median)`);
  const rows = [
    ...lookupRows(q ? 10_000 : 100_000, q ? 1_000 : 10_000),
    ...positionalRows(q ? 10_000 : 100_000),
    ...groupRows(q ? 100_000 : 1_000_000),
  ];
  out('');
  out('| workload | engine ms | mingo ms | engine / mingo |');
  out('| --- | ---: | ---: | ---: |');
  for (const r of rows)
    out(`| ${r.workload} | ${fmt(r.engineMs)} | ${fmt(r.mingoMs)} | ${fmt(r.engineMs / r.mingoMs, 2)}x |`);
}

if (require.main === module) runAggregationBench({ quick: process.argv.includes('--quick') });
