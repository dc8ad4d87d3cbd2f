/**
 * Not a test: the process the crash test kills. It opens a data folder, then performs random
 * writes forever, printing `B <op>` before each and `A <effect>` once it is acknowledged
 * (runCommand returned: in fsync mode the journal is on disk by then). Output is written
 * synchronously, so an acknowledgement the parent reads was really given.
 *   node crash-child.js <dir> <seed>
 */
import * as fs from 'node:fs';
import { VirtualClock, type Document } from '../../../src/engine';
import { compact, openStoredEngine } from '../../../src/storage/engine-store';
import { prng } from '../helpers/prng';

const T0 = Date.UTC(2026, 0, 1);
const say = (line: string) => fs.writeSync(1, `${line}\n`);

async function main(): Promise<void> {
  const [dir, seedText] = process.argv.slice(2);
  const rand = prng(Number(seedText));
  const int = (n: number) => Math.floor(rand() * n);
  const opened = openStoredEngine(dir, { engine: { clock: new VirtualClock(T0) } });
  const { engine, store } = opened;
  const clock = engine.clock as VirtualClock;
  const run = (cmd: Document) => engine.runCommand('app', cmd);
  if (!engine.getCollection('app', 'c'))
    run({ createIndexes: 'c', indexes: [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 }] });
  const ids = (): number[] =>
    (
      (run({ find: 'c', projection: { _id: 1 }, batchSize: 1_000_000 }).cursor as Document).firstBatch as Document[]
    ).map((d) => Number(d._id));
  let live = ids();
  let nextId = live.reduce((a, b) => Math.max(a, b), 0) + 1;
  say(`R ${JSON.stringify({ docs: live.length, now: clock.now() })}`);
  for (;;) {
    const pick = int(100);
    if (pick < 40 || live.length < 5) {
      const docs = Array.from({ length: 1 + int(5) }, () => ({
        _id: nextId++,
        v: int(1000),
        t: new Date(clock.now() + (int(240) - 120) * 60_000),
      }));
      say(`B ${JSON.stringify({ put: docs })}`);
      run({ insert: 'c', documents: docs });
      live.push(...docs.map((d) => d._id));
      say(`A ${JSON.stringify({ put: docs })}`);
    } else if (pick < 60) {
      const id = live[int(live.length)];
      const v = int(1000);
      say(`B ${JSON.stringify({ set: { _id: id, v } })}`);
      run({ update: 'c', updates: [{ q: { _id: id }, u: { $set: { v } } }] });
      say(`A ${JSON.stringify({ set: { _id: id, v } })}`);
    } else if (pick < 75) {
      const id = live[int(live.length)];
      say(`B ${JSON.stringify({ del: [id] })}`);
      run({ delete: 'c', deletes: [{ q: { _id: id }, limit: 1 }] });
      live = live.filter((x) => x !== id);
      say(`A ${JSON.stringify({ del: [id] })}`);
    } else if (pick < 82) {
      const has = engine.getCollection('app', 'c')!.indexes.has('v_1');
      say(`B ${JSON.stringify({ idx: { v_1: !has } })}`);
      run(has ? { dropIndexes: 'c', index: 'v_1' } : { createIndexes: 'c', indexes: [{ key: { v: 1 }, name: 'v_1' }] });
      say(`A ${JSON.stringify({ idx: { v_1: !has } })}`);
    } else if (pick < 88) {
      const eas = [1800, 3600, 7200][int(3)];
      say(`B ${JSON.stringify({ eas })}`);
      run({ collMod: 'c', index: { name: 't_1', expireAfterSeconds: eas } });
      say(`A ${JSON.stringify({ eas })}`);
    } else if (pick < 96) {
      say(`B ${JSON.stringify({ ttl: true })}`);
      const before = new Set(live);
      clock.advance(61_000);
      // As the extension does after a clock move: the time itself is stored too.
      engine.persistClock();
      live = ids();
      const gone = [...before].filter((x) => !live.includes(x));
      say(`A ${JSON.stringify({ ttl: gone, now: clock.now() })}`);
    } else {
      say(`B ${JSON.stringify({ compact: true })}`);
      await compact(engine, store, 1);
      say(`A ${JSON.stringify({ compact: true })}`);
    }
    // Let a pending kill land between operations too.
    if (int(4) === 0) await new Promise((r) => setImmediate(r));
  }
}

if (process.argv.length >= 4) {
  main().catch((err) => {
    process.stderr.write(`crash child failed: ${(err as Error).stack}\n`);
    process.exit(3);
  });
}
