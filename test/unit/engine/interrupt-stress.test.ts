/**
 * Operations stopped at random safe points leave the engine consistent. Inserts, multi-document
 * updates and deletes, index builds, TTL passes, aggregations, sorted finds, counts and distincts
 * run on a collection of 10k+ documents under an interrupt source that fires after a seeded random
 * number of checks (deterministic: no wall time). After every run, interrupted or not:
 *   - every index holds exactly the entries its documents call for (no stale entry, none
 *     missing, every key the document's own), its tree is valid, and the `_id` index finds every
 *     document;
 *   - each document was written whole or not at all (an interrupted `$inc` moved a document's
 *     counter by one or by nothing, and its indexed fields agree with it);
 *   - the journal the engine wrote (durable storage), replayed frame by frame into a second
 *     engine, gives the same documents and indexes: what an interrupted write applied was recorded.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BSON } from 'bson';
import { Engine, EngineError, VirtualClock, type Document } from '../../../src/engine';
import type { Collection } from '../../../src/engine/catalog/collection';
import { InterruptAfterChecks, withInterrupts } from '../../../src/engine/interrupt';
import { compareValues } from '../../../src/engine/values/compare';
import { assertIndexesConsistent, IndexWatcher } from '../helpers/index-consistency';
import { prng } from '../helpers/prng';

const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;
const DB = 'app';
const COLL = 'c';

/** The documents of `coll` by `_id`, for comparing two engines. */
function byId(coll: Collection): Map<string, Document> {
  const out = new Map<string, Document>();
  for (const r of coll.records.values()) out.set(String(r.doc._id), r.doc);
  return out;
}

function makeDoc(r: () => number, id: number, now: number): Document {
  const doc: Document = {
    _id: id,
    u: id,
    v: 0,
    name: `n${Math.floor(r() * 300)}`,
    tag: `t${id % 7}`,
    n: Math.floor(r() * 1000),
    tags: [`a${id % 3}`, `b${Math.floor(r() * 5)}`],
    // Dates around now: some expire within the hours the test moves the clock.
    at: new Date(now + Math.floor((r() - 0.1) * 24 * HOUR)),
  };
  if (r() < 0.5) doc.opt = Math.floor(r() * 10);
  return doc;
}

interface Stats {
  runs: number;
  interrupted: number;
  completed: number;
  entriesChecked: number;
  fullIndexChecks?: number;
  timing?: Record<string, number>;
  finalCount?: number;
  replayChecks: number;
  byKind: Record<string, { runs: number; interrupted: number }>;
}

function stress(seed: number, batches: number, RUNS: number): Stats {
  {
    const r = prng(seed);
    const clock = new VirtualClock(T0);
    const frames: Uint8Array[] = [];
    const engine = new Engine({ clock, storage: { commit: (frame) => void frames.push(BSON.serialize(frame)) } });
    // The replica: the journal applied frame by frame, as a reopen would.
    const replica = new Engine({ clock: new VirtualClock(T0) });
    let applied = 0;
    const replay = () => {
      replica.restoreFromStorage((restorer) => {
        for (; applied < frames.length; applied++)
          restorer.journalRecord(BSON.deserialize(frames[applied], { promoteValues: false }));
      });
    };

    engine.runCommand(DB, {
      createIndexes: COLL,
      indexes: [
        { key: { at: 1 }, name: 'at_1', expireAfterSeconds: 3600 },
        { key: { name: 1 }, name: 'name_1' },
        { key: { tag: 1, n: -1 }, name: 'tag_1_n_-1' },
        { key: { tags: 1 }, name: 'tags_1' },
        { key: { opt: 1 }, name: 'opt_1', sparse: true },
        { key: { n: 1 }, name: 'n_1', partialFilterExpression: { n: { $gt: 500 } } },
        { key: { u: 1 }, name: 'u_1', unique: true },
      ],
    });
    let nextId = 0;
    const fresh = (count: number) => Array.from({ length: count }, () => makeDoc(r, nextId++, clock.now()));
    for (let i = 0; i < batches; i++) engine.runCommand(DB, { insert: COLL, documents: fresh(1000) });
    const coll: Collection = engine.getCollection(DB, COLL)!;
    const floor = batches * 1000 - 2000;
    const timing: Record<string, number> = {};
    const timed = <T>(what: string, fn: () => T): T => {
      const t = performance.now();
      try {
        return fn();
      } finally {
        timing[what] = (timing[what] ?? 0) + performance.now() - t;
      }
    };

    const watcher = new IndexWatcher(coll, 50);
    let lastNames = [...coll.indexes.keys()].join();
    const stats: Stats = { runs: 0, interrupted: 0, completed: 0, entriesChecked: 0, replayChecks: 0, byKind: {} };
    /** Run `op` under a source that fires at a random check in [1, span]; returns whether it was interrupted. */
    const attempt = (kind: string, span: number, op: () => void): boolean => {
      const source = new InterruptAfterChecks(1 + Math.floor(r() * span), r() < 0.5 ? 50 : 11601);
      let stopped = false;
      try {
        withInterrupts(source, op);
      } catch (err) {
        assert.ok(err instanceof EngineError, `${kind}: ${String(err)}`);
        assert.ok(err.code === 50 || err.code === 11601, `${kind}: unexpected ${err.code} ${err.message}`);
        assert.ok(source.fired, `${kind}: stopped by its own source`);
        stopped = true;
      }
      const k = (stats.byKind[kind] ??= { runs: 0, interrupted: 0 });
      k.runs++;
      stats.runs++;
      if (stopped) {
        k.interrupted++;
        stats.interrupted++;
      } else stats.completed++;
      return stopped;
    };

    const kinds = [
      'insert',
      'updateMany',
      'deleteMany',
      'createIndex',
      'ttl',
      'aggregate',
      'find',
      'count',
      'distinct',
    ];
    for (let run = 0; run < RUNS; run++) {
      const kind = kinds[run % kinds.length];
      const where = `run ${run} (${kind})`;
      const before =
        kind === 'updateMany'
          ? new Map([...coll.records.values()].map((rec) => [rec.rid, rec.doc.v as number]))
          : undefined;
      const countBefore: number = coll.count;
      switch (kind) {
        case 'insert': {
          // Keep the collection at its size: top up what deletes and TTL took, and some more.
          const docs = fresh(Math.max(0, batches * 1000 - coll.count) + Math.floor(r() * batches * 8));
          attempt(kind, docs.length + 5, () => engine.runCommand(DB, { insert: COLL, documents: docs }));
          const inserted: number = coll.count - countBefore;
          // An ordered insert stopped between documents wrote a prefix of them.
          for (let i = 0; i < docs.length; i++)
            if ((coll.findById(docs[i]._id) !== undefined) !== i < inserted)
              assert.fail(`${where}: document ${i} of the batch`);
          break;
        }
        case 'updateMany': {
          const tag = `t${Math.floor(r() * 7)}`;
          const filter = r() < 0.5 ? { tag } : { n: { $gte: Math.floor(r() * 1000) } };
          const stopped = attempt(kind, batches * 350, () =>
            engine.runCommand(DB, {
              update: COLL,
              updates: [
                {
                  q: filter,
                  u: {
                    $inc: { v: 1, n: 7 },
                    $set: { name: `m${run}`, tags: [`a${run % 3}`, `p${run % 5}`, `a${run % 3}`] },
                  },
                  multi: true,
                },
              ],
            }),
          );
          let changed = 0;
          for (const rec of coll.records.values()) {
            const was = before!.get(rec.rid)!;
            const now = rec.doc.v as number;
            if (now !== was && now !== was + 1) assert.fail(`${where}: v moved by ${now - was}`);
            if (now === was + 1) {
              changed++;
              // The whole update or nothing: its other fields (and so their index keys) came with it.
              if (rec.doc.name !== `m${run}`) assert.fail(`${where}: a half-applied update`);
            }
          }
          if (!stopped) assert.equal(changed, engine.runCommand(DB, { count: COLL, query: { name: `m${run}` } }).n);
          break;
        }
        case 'deleteMany': {
          const filter = { tag: `t${Math.floor(r() * 7)}`, n: { $lt: Math.floor(r() * 400) } };
          attempt(kind, batches * 40, () =>
            engine.runCommand(DB, { delete: COLL, deletes: [{ q: filter, limit: 0 }] }),
          );
          break;
        }
        case 'createIndex': {
          const unique = r() < 0.3;
          const spec = unique
            ? { key: { u: 1, tag: 1 }, name: 'u_tag', unique: true }
            : { key: { n: 1, name: 1 }, name: 'n_name' };
          const indexesBefore = [...coll.indexes.keys()];
          const stopped = attempt(kind, coll.count + 50, () =>
            engine.runCommand(DB, { createIndexes: COLL, indexes: [spec] }),
          );
          if (stopped)
            assert.deepEqual(
              [...coll.indexes.keys()],
              indexesBefore,
              `${where}: a stopped build leaves the catalog as it was`,
            );
          else assert.ok(coll.indexes.has(spec.name));
          break;
        }
        case 'ttl': {
          // Small visits: a pass is several visits, each a batch, with a safe point before each.
          const params = { setParameter: 1, ttlIndexDeleteTargetDocs: 20 + Math.floor(r() * 100) };
          engine.runCommand('admin', params);
          replica.runCommand('admin', params);
          if (run % 2 === 0) {
            // The passes a clock move runs (the monitor sleeps 60 s): stopped, the move ends there.
            const target = clock.now() + Math.floor(1 + r() * 20) * 60_000;
            const stopped = attempt(kind, 8, () => clock.advance(target - clock.now()));
            if (!stopped) assert.equal(clock.now(), target);
          } else {
            attempt(kind, 4, () => engine.ttl.runPass());
          }
          break;
        }
        case 'aggregate': {
          const pipeline = [
            { $match: { n: { $gte: Math.floor(r() * 500) } } },
            { $group: { _id: '$tag', total: { $sum: '$n' }, c: { $sum: 1 } } },
            { $sort: { total: -1 } },
          ];
          attempt(kind, batches * 700, () => engine.runCommand(DB, { aggregate: COLL, pipeline, cursor: {} }));
          assert.equal(coll.count, countBefore);
          break;
        }
        case 'find': {
          attempt(kind, batches * 3000, () =>
            engine.runCommand(DB, { find: COLL, filter: { v: { $gte: 0 } }, sort: { n: 1, u: -1 }, batchSize: 10 }),
          );
          assert.equal(coll.count, countBefore);
          break;
        }
        case 'count': {
          attempt(kind, batches * 700, () =>
            engine.runCommand(DB, { count: COLL, query: { name: { $gte: 'n1' }, n: { $lt: 900 } } }),
          );
          assert.equal(coll.count, countBefore);
          break;
        }
        case 'distinct': {
          attempt(kind, batches * 1500, () =>
            engine.runCommand(DB, { distinct: COLL, key: 'tags', query: { n: { $lt: 800 } } }),
          );
          assert.equal(coll.count, countBefore);
          break;
        }
      }
      // Drop a built extra index now and then, so later builds start from a full collection again.
      if (kind === 'createIndex' && (coll.indexes.has('n_name') || coll.indexes.has('u_tag')) && r() < 0.7) {
        for (const name of ['n_name', 'u_tag'])
          if (coll.indexes.has(name)) engine.runCommand(DB, { dropIndexes: COLL, index: name });
      }
      assert.ok(coll.count >= floor, `${where}: the collection keeps ${floor}+ documents (${coll.count})`);
      // A new index set is checked whole (the watcher knows only the documents' changes).
      const names = [...coll.indexes.keys()].join();
      timed('indexes', () => watcher.check(where, names !== lastNames));
      lastNames = names;

      // The journal holds exactly what was applied, interrupted writes included.
      timed('replay', replay);
      const rc = replica.getCollection(DB, COLL)!;
      assert.equal(rc.count, coll.count, `${where}: the replayed journal holds as many documents`);
      assert.deepEqual(
        [...rc.indexes.keys()],
        [...coll.indexes.keys()],
        `${where}: the replayed journal has the same indexes`,
      );
      if (run % 10 === 0 || run === RUNS - 1) {
        timed('compare', () => {
          const mine = byId(coll);
          const theirs = byId(rc);
          for (const [id, doc] of mine)
            if (compareValues(doc, theirs.get(id)) !== 0) assert.fail(`${where}: document ${id} replays differently`);
        });
        stats.replayChecks++;
      }
    }
    // The replica's own indexes are consistent too, and its TTL metrics match.
    assertIndexesConsistent(replica.getCollection(DB, COLL)!, 'replica', true);
    assertIndexesConsistent(coll, 'the end', true);
    stats.entriesChecked = watcher.entriesChecked;
    stats.fullIndexChecks = watcher.fullChecks;
    // (A pass that deletes nothing writes no frame, so only the deletions are compared.)
    assert.equal(replica.ttlMetrics.deletedDocuments, engine.ttlMetrics.deletedDocuments);

    stats.timing = timing;
    stats.finalCount = coll.count;
    // Stopped runs of every kind, and some that ran to the end.
    for (const kind of kinds) {
      const k = stats.byKind[kind];
      assert.ok(k.interrupted > k.runs / 5, `${kind}: ${k.interrupted} of ${k.runs} runs interrupted`);
    }
    assert.ok(stats.completed > 0);
    return stats;
  }
}

describe('interrupted operations keep the engine consistent (random safe points)', () => {
  it('runs on 10k+ documents stopped after a seeded random number of checks: indexes exact, writes whole, journal replays to the same state', () => {
    const stats = stress(20260115, 12, Number(process.env.STRESS_RUNS ?? 270));
    console.log(`interrupt stress, 10k+ documents: ${JSON.stringify(stats)}`);
  });

  it('thousands of runs on 2k+ documents, same checks', () => {
    const stats = stress(7, 4, Number(process.env.STRESS_RUNS ?? 1500));
    console.log(`interrupt stress, 2k+ documents: ${JSON.stringify(stats)}`);
  });
});
