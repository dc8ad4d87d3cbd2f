/**
 * Per-namespace usage: the `top` command and $collStats latencyStats count every command that
 * names a collection or a view (failed ones too), by kind, as mongod's do.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Long } from 'bson';
import { Engine, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';
import { harness } from '../../shell/helpers';

const DB = 'db';

function latency(engine: Engine, coll: string): Document {
  const reply = engine.runCommand(DB, {
    aggregate: coll,
    pipeline: [{ $collStats: { latencyStats: {} } }],
    cursor: {},
  });
  return ((reply.cursor as Document).firstBatch as Document[])[0];
}

function ops(stats: Document): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [kind, v] of Object.entries(stats.latencyStats as Document)) out[kind] = Number((v as Document).ops);
  return out;
}

describe('latencyStats and top', () => {
  it('reads, writes and other commands on a collection count under their own kind', () => {
    const engine = new Engine();
    engine.runCommand(DB, { insert: 'c', documents: [{ _id: 1 }] });
    engine.runCommand(DB, { find: 'c' });
    engine.runCommand(DB, { count: 'c' });
    engine.runCommand(DB, { update: 'c', updates: [{ q: {}, u: { $set: { a: 1 } } }] });
    engine.runCommand(DB, { createIndexes: 'c', indexes: [{ key: { a: 1 }, name: 'a_1' }] });
    const stats = latency(engine, 'c');
    assert.equal(stats.ns, 'db.c');
    // The $collStats aggregate itself is counted once it has finished: not in its own answer.
    assert.deepEqual(ops(stats), { reads: 2, writes: 2, commands: 1, transactions: 0 });
    assert.ok(Long.isLong(((stats.latencyStats as Document).reads as Document).latency));
  });

  it('a failed write on a view counts as a write of the view, and leaves the collection under it alone', () => {
    const engine = new Engine();
    engine.runCommand(DB, { create: 'v', viewOn: 'c', pipeline: [] });
    expectError(() => engine.runCommand(DB, { insert: 'v', documents: [{}] }), 166);
    engine.runCommand(DB, { aggregate: 'v', pipeline: [{ $match: {} }], cursor: {} });
    assert.deepEqual(ops(latency(engine, 'v')), { reads: 1, writes: 1, commands: 1, transactions: 0 });
    assert.deepEqual(ops(latency(engine, 'c')), { reads: 0, writes: 0, commands: 0, transactions: 0 });
  });

  it('top answers on admin only, with time and count per namespace under total, lock and kind', () => {
    const engine = new Engine();
    engine.runCommand(DB, { insert: 'c', documents: [{ _id: 1 }] });
    engine.runCommand(DB, { find: 'c' });
    engine.runCommand(DB, { delete: 'c', deletes: [{ q: {}, limit: 0 }] });
    engine.runCommand(DB, { aggregate: 'c', pipeline: [], cursor: {} });
    const entry = (engine.runCommand('admin', { top: 1 }).totals as Document)['db.c'] as Document;
    const count = (field: string) => (entry[field] as Document).count;
    assert.deepEqual(
      ['total', 'readLock', 'writeLock', 'queries', 'insert', 'remove', 'commands', 'update'].map(count),
      [4, 2, 2, 1, 1, 1, 1, 0],
    );
    expectError(() => engine.runCommand(DB, { top: 1 }), 13, /admin database/);
  });

  it('$collStats on a view reports the view; in a view pipeline it reports the namespace the view is defined on', () => {
    const engine = new Engine();
    engine.runCommand(DB, { create: 'plain', viewOn: 'c', pipeline: [] });
    engine.runCommand(DB, { create: 'stats', viewOn: 'plain', pipeline: [{ $collStats: { latencyStats: {} } }] });
    assert.equal(latency(engine, 'plain').ns, 'db.plain');
    const reply = engine.runCommand(DB, { aggregate: 'stats', pipeline: [], cursor: {} });
    assert.equal(((reply.cursor as Document).firstBatch as Document[])[0].ns, 'db.plain');
    for (const spec of [{ storageStats: {} }, { count: {} }])
      expectError(
        () => engine.runCommand(DB, { aggregate: 'plain', pipeline: [{ $collStats: spec }], cursor: {} }),
        166,
        /is a view/,
      );
  });

  it('histograms are not kept: histograms: true is refused, false is the default', () => {
    const engine = new Engine();
    const run = (opts: Document) =>
      engine.runCommand(DB, { aggregate: 'c', pipeline: [{ $collStats: { latencyStats: opts } }], cursor: {} });
    run({ histograms: false });
    expectError(() => run({ histograms: true }), 238, /histograms/);
    expectError(() => run({ other: 1 }), 40415);
  });

  it("the shell's latencyStats() is the $collStats latencyStats of the collection", () => {
    const h = harness();
    h.run('db.c.insertOne({ _id: 1 })');
    assert.equal(h.value('db.c.latencyStats().next().latencyStats.writes.ops.toNumber()'), 1);
  });
});
