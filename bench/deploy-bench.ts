/**
 * Real deployments over the driver (`--only deploy`, issue 21): the Databases view's first
 * expansion of a database with 200 collections and 2,000 indexes, through DriverBackend and the
 * tree's own model, against the wire endpoint in this process (startServer on loopback). Each
 * round connects a new backend (untimed) and times, in wall-clock milliseconds:
 *   - the database row's expansion: listCollections plus 200 estimatedDocumentCount commands;
 *   - every collection row's expansion after it: 200 listIndexes (2,000 index rows).
 * Median of 5 rounds after a warm-up. Target: the database's expansion under 300 ms.
 * Also: the eligibility preview's count on 200,000 unindexed documents that all match, once with
 * a 100 ms maxTimeMS, which must come back near its budget with "more than N", never after a full
 * count, and once with time to finish, which must give the exact count.
 */
import * as os from 'node:os';
import { DriverBackend } from '../src/extension/backend/driver-backend';
import { TreeModel } from '../src/extension/tree/model';
import type { TreeNode } from '../src/extension/tree/nodes';
import { startServer, type RunningServer } from '../src/wire';

const COLLECTIONS = 200;
const INDEXES_PER_COLLECTION = 10; // _id_ and 9 more: 2,000 in all
const ROUNDS = 5;

export interface PreviewCountRun {
  maxTimeMS: number;
  ms: number;
  /** The count (finished), or the bounded count's words when its budget ran out. */
  said: string;
  ranOut: boolean;
}

/**
 * The eligibility preview's count over the driver, as Create TTL Index runs it (a `count` with a
 * query, bounded by maxTimeMS: DriverBackend turns it into growing countDocuments steps), on
 * `documents` unindexed documents that all match, once per budget in `budgets`.
 */
export async function previewCounts(
  server: RunningServer,
  documents: number,
  budgets: readonly number[],
): Promise<PreviewCountRun[]> {
  const coll = server.engine.db('big').collection('c');
  for (let i = 0; i < documents; i += 100_000)
    coll.insertMany(Array.from({ length: Math.min(100_000, documents - i) }, (_, k) => ({ i: i + k, v: `x${i + k}` })));
  const backend = new DriverBackend({ uri: server.uri, label: 'bench', redact: (s) => s, monitorRefreshMs: 0 });
  await backend.connect();
  try {
    const runs: PreviewCountRun[] = [];
    for (const maxTimeMS of budgets) {
      const t = performance.now();
      let said: string;
      let ranOut = false;
      try {
        const reply = await backend.runCommand('big', { count: 'c', query: { v: { $regex: '^x' } }, maxTimeMS });
        said = String(reply.n);
      } catch (err) {
        if ((err as { code?: unknown }).code !== 50) throw err;
        said = (err as Error).message;
        ranOut = true;
      }
      runs.push({ maxTimeMS, ms: performance.now() - t, said, ranOut });
    }
    return runs;
  } finally {
    backend.dispose();
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export async function runDeployBench(): Promise<void> {
  const server = await startServer();
  try {
    const db = server.engine.db('bench');
    for (let c = 0; c < COLLECTIONS; c++) {
      const coll = db.collection(`c${String(c).padStart(3, '0')}`);
      coll.insertMany(Array.from({ length: 20 }, (_, i) => ({ i, at: new Date(), f: i })));
      const indexes = Array.from({ length: INDEXES_PER_COLLECTION - 1 }, (_, k) =>
        k === 0
          ? { key: { at: 1 }, name: 'at_ttl', expireAfterSeconds: 3600 + c }
          : { key: { [`f${k}`]: 1 }, name: `f${k}_1` },
      );
      server.engine.runCommand('bench', { createIndexes: coll.name, indexes });
    }
    const dbTimes: number[] = [];
    const allTimes: number[] = [];
    const dbCpu: number[] = [];
    const listOnly: number[] = [];
    for (let round = -1; round < ROUNDS; round++) {
      const backend = new DriverBackend({ uri: server.uri, label: 'bench', redact: (s) => s, monitorRefreshMs: 0 });
      await backend.connect();
      const model = new TreeModel(backend, 'bench');
      const [top] = await model.children();
      const dbNode = (await model.children(top)).find((n) => n.type === 'database' && n.db === 'bench') as TreeNode;
      const l0 = performance.now();
      await backend.runCommand('bench', { listCollections: 1 });
      const l1 = performance.now();
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const colls = await model.children(dbNode);
      const t1 = performance.now();
      const c1 = process.cpuUsage(c0);
      const rows = await Promise.all(colls.map((c) => model.children(c)));
      const t2 = performance.now();
      if (colls.length !== COLLECTIONS || rows.flat().length !== COLLECTIONS * INDEXES_PER_COLLECTION)
        throw new Error(`expected ${COLLECTIONS} collections and ${COLLECTIONS * INDEXES_PER_COLLECTION} index rows`);
      if (round >= 0) {
        dbTimes.push(t1 - t0);
        dbCpu.push((c1.user + c1.system) / 1000);
        listOnly.push(l1 - l0);
        allTimes.push(t2 - t1);
      }
      backend.dispose();
    }
    const dbMs = median(dbTimes);
    console.log(
      `deploy: first expansion of a database with ${COLLECTIONS} collections over the driver: ${dbMs.toFixed(1)} ms (target < 300 ms: ${dbMs < 300 ? 'met' : 'NOT met'}); then all ${COLLECTIONS} collections' ${COLLECTIONS * INDEXES_PER_COLLECTION} index rows: ${median(allTimes).toFixed(1)} ms (medians of ${ROUNDS}, wall clock). The database's expansion used ${median(dbCpu).toFixed(1)} ms of CPU (driver and server together, this process); its listCollections alone took ${median(listOnly).toFixed(1)} ms; load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores.`,
    );

    for (const run of await previewCounts(server, 200_000, [100, 60_000]))
      console.log(
        `deploy: a preview count on 200,000 unindexed matching documents with maxTimeMS ${run.maxTimeMS} came back in ${run.ms.toFixed(0)} ms: ${run.ranOut ? run.said : `finished, ${run.said}`}`,
      );
  } finally {
    await server.stop();
  }
}
