/**
 * Not a test (node --test only runs *.test.js): measures the tree's data side on large data.
 *   node out/test/unit/extension-logic/tree-perf.js run [documents=1000000] [indexes=20] [collections=1000]
 * (without `run` it does nothing, so a test runner that loads every file under test/ stays quick).
 * Prints the time of getChildren (TreeModel.children, the provider's getChildren without the
 * TreeItem mapping) for a collection of N documents with K indexes, for its database, for a
 * database of C collections, and of the expiry counts of its TTL index.
 */
import { EmbeddedBackend } from '../../../src/extension/backend/embedded-backend';
import { TreeModel } from '../../../src/extension/tree/model';
import type { TreeNode } from '../../../src/extension/tree/nodes';
import { presentCollection, presentIndex } from '../../../src/extension/tree/presentation';

async function timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const r = await fn();
  console.log(`${label}: ${(performance.now() - t0).toFixed(1)} ms`);
  return r;
}

async function main(): Promise<void> {
  const [docs = 1_000_000, indexes = 20, collections = 1000] = process.argv.slice(3).map(Number);
  const now = Date.parse('2030-01-01T00:00:00Z');
  const backend = new EmbeddedBackend({}, { startMs: now });
  const fields = Array.from({ length: indexes - 2 }, (_, i) => `f${i}`);
  await timed(`create ${indexes} indexes on big (empty)`, async () => {
    await backend.runCommand('perf', { create: 'big' });
    await backend.runCommand('perf', {
      createIndexes: 'big',
      indexes: [
        { key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 },
        ...fields.map((f) => ({ key: { [f]: 1 }, name: `${f}_1` })),
      ],
    });
  });
  await timed(`insert ${docs.toLocaleString('en-US')} documents`, async () => {
    const batch = 50_000;
    for (let i = 0; i < docs; i += batch) {
      const chunk = [];
      for (let j = i; j < Math.min(docs, i + batch); j++) {
        const d: Record<string, unknown> = { t: new Date(now + ((j % 10_000) - 5000) * 60_000) };
        for (let k = 0; k < fields.length; k++) d[fields[k]] = (j * (k + 7)) % 1000;
        chunk.push(d);
      }
      await backend.runCommand('perf', { insert: 'big', documents: chunk, ordered: false });
    }
  });
  await timed(`create ${collections} collections in db many`, async () => {
    for (let i = 0; i < collections; i++)
      await backend.runCommand('many', { create: `c${String(i).padStart(4, '0')}` });
  });
  const model = new TreeModel(backend);
  const [engine] = await model.children();
  const top = await timed('getChildren(engine)', () => model.children(engine));
  const perfDb = top.find((n) => n.type === 'database' && n.db === 'perf')!;
  const manyDb = top.find((n) => n.type === 'database' && n.db === 'many')!;
  const colls = await timed('getChildren(database perf) [1 collection, metadata count]', () => model.children(perfDb));
  const many = await timed(`getChildren(database many) [${collections} collections]`, () => model.children(manyDb));
  await timed(`presentCollection × ${many.length}`, async () =>
    many.forEach((n) => n.type === 'collection' && presentCollection(n.info)),
  );
  const big = colls[0];
  const ixNodes: TreeNode[] = await timed(
    `getChildren(collection big) [${docs.toLocaleString('en-US')} docs, ${indexes} indexes]`,
    () => model.children(big),
  );
  await timed(`getChildren(collection big) again`, () => model.children(big));
  await timed(`presentIndex × ${ixNodes.length}`, async () =>
    ixNodes.forEach((n) => n.type === 'index' && presentIndex(n.info, n.collectionInfo)),
  );
  const ttl = ixNodes.find((n) => n.type === 'index' && n.info.name === 't_1');
  if (ttl?.type === 'index') {
    const r = await timed('expiryCounts(t_1) (tooltip, capped at 10,000)', () => backend.expiryCounts(ttl.info, 3600));
    console.log(
      '  ',
      JSON.stringify(
        r.ok ? { expiredNow: r.counts.expiredNow, due: r.counts.dueWithinWindow, capped: r.counts.capped } : r,
      ),
    );
  }
  const pass = await timed('advance 61 s (one TTL pass)', () => backend.advanceClock(61_000));
  console.log('  ', JSON.stringify(pass));
  await timed('getChildren(database perf) after the pass', () => model.children(perfDb));
  console.log(`heap used: ${(process.memoryUsage().heapUsed / 1048576).toFixed(0)} MiB`);
  backend.dispose();
}

if (process.argv[2] === 'run') void main();
