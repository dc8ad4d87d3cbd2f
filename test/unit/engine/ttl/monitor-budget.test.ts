/**
 * What the TTL monitor measures in real time (docs/ttl-rules.md §7.3): a sub-pass ends when its
 * time budget (ttlMonitorSubPassTargetSecs) is spent and the next sub-pass takes the targets left,
 * and the real milliseconds of each visit and pass; also what a skipped visit logs and which
 * collections have a collection-level target.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { VirtualClock } from '../../../../src/engine/clock';
import type { Collection } from '../../../../src/engine/catalog/collection';
import type { TTLTarget, VisitOutcome } from '../../../../src/engine/ttl/targets';

const DB = 'app';
const T0 = Date.UTC(2026, 0, 1);

function engineWithExpired(count: number): Engine {
  const engine = new Engine({ clock: new VirtualClock(T0) });
  const c = engine.db(DB).collection('a');
  c.createIndex({ t: 1 }, { expireAfterSeconds: 60 });
  const docs: Document[] = [];
  for (let i = 0; i < count; i++) docs.push({ _id: i, t: new Date(T0 - 3_600_000) });
  if (count) c.insertMany(docs);
  return engine;
}

const setParameter = (engine: Engine, name: string, value: unknown) =>
  engine.runCommand('admin', { setParameter: 1, [name]: value });

/** Blocks the thread (without spinning) until `ms` real milliseconds have passed. */
function blockFor(ms: number): void {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const start = performance.now();
  for (let left = ms; left > 0; left = ms - (performance.now() - start)) Atomics.wait(cell, 0, 0, left);
}

/** A target on collection `a` whose visits take `visitMs` real milliseconds each; it has work left `rounds - 1` times. */
function slowTarget(engine: Engine, visitMs: number, rounds: number): void {
  engine.ttl.registerTargets((collection: Collection): TTLTarget[] => {
    if (collection.name !== 'a') return [];
    return [
      {
        collection,
        label: 'slow',
        backlog: () => ({ count: 0, atLeast: false }),
        visit(): VisitOutcome {
          blockFor(visitMs);
          return { kind: --rounds > 0 ? 'more' : 'done', deleted: 0 };
        },
      },
    ];
  });
}

describe('TTL monitor: real-time budgets and measurements', () => {
  it('rule 7.3: a sub-pass whose time budget is spent ends, and the targets left go to the next sub-pass', () => {
    const engine = engineWithExpired(0);
    setParameter(engine, 'ttlMonitorSubPassTargetSecs', 1);
    slowTarget(engine, 1000, 2);
    const report = engine.ttl.runPass();
    assert.equal(report.subPasses, 2, 'the second visit of the slow target starts a new sub-pass');
    assert.deepEqual(
      report.visits.map((v) => [v.target, v.outcome]),
      [
        ['index t_1', 'done'],
        ['slow', 'more'],
        ['index t_1', 'done'],
        ['slow', 'done'],
      ],
    );
  });

  it('rule 7.3: revisits within the sub-pass time budget stay in the same sub-pass', () => {
    // The budget is compared with the time since the sub-pass started; once the process has run
    // longer than the budget, any other reading of the time (a sum, an absolute one) would exceed it.
    blockFor(1000 - performance.now());
    const engine = engineWithExpired(3);
    setParameter(engine, 'ttlMonitorSubPassTargetSecs', 1);
    setParameter(engine, 'ttlIndexDeleteTargetDocs', 1);
    const report = engine.ttl.runPass();
    assert.equal(report.deleted, 3);
    assert.ok(report.visits.length >= 3, `a visit per document: ${report.visits.length}`);
    assert.equal(report.subPasses, 1);
  });

  it('rule 7.3: a sub-pass budget of 0 makes every round of revisits its own sub-pass', () => {
    const engine = engineWithExpired(250);
    setParameter(engine, 'ttlMonitorSubPassTargetSecs', 0);
    setParameter(engine, 'ttlIndexDeleteTargetDocs', 100);
    const report = engine.ttl.runPass();
    assert.deepEqual(
      report.visits.map((v) => v.deleted),
      [100, 100, 50],
    );
    assert.equal(report.subPasses, 3);
  });

  it('rule 7.3: a visit and a pass report the real milliseconds they took, a pass to a tenth of one', () => {
    const engine = engineWithExpired(5);
    slowTarget(engine, 25, 1);
    const before = performance.now();
    const report = engine.ttl.runPass();
    const span = performance.now() - before;
    const [pass] = engine.ttl.history();
    const slow = report.visits.find((v) => v.target === 'slow')!;
    assert.ok(slow.millis >= 25 && slow.millis <= span, `slow visit ${slow.millis} ms within [25, ${span}]`);
    for (const v of report.visits) assert.ok(v.millis >= 0 && v.millis <= span, `visit ${v.millis} ms`);
    const visitsTotal = report.visits.reduce((sum, v) => sum + v.millis, 0);
    assert.ok(pass.millis >= visitsTotal - 0.05, `pass ${pass.millis} ms holds its visits' ${visitsTotal} ms`);
    assert.ok(pass.millis <= span + 0.05, `pass ${pass.millis} ms within the ${span} ms the call took`);
    assert.ok(Math.abs(pass.millis * 10 - Math.round(pass.millis * 10)) < 1e-6, `rounded to 0.1 ms: ${pass.millis}`);
  });

  it('rule 7.6: a skipped visit logs the namespace and the target it skipped', () => {
    const engine = engineWithExpired(1);
    engine.db(DB).collection('a').createIndex({ u: 'hashed' }, { expireAfterSeconds: 0 });
    engine.ttl.runPass();
    const lines = (engine.runCommand('admin', { getLog: 'global' }).log as string[]).map((l) => JSON.parse(l));
    const skip = lines.find((l) => l.id === 22541);
    assert.deepEqual(skip?.attr, { ns: 'app.a', target: 'index u_hashed' });
  });

  it('rule 5.4: a clustered collection without expireAfterSeconds has no TTL target', () => {
    const engine = engineWithExpired(0);
    engine.runCommand(DB, { create: 'cl', clusteredIndex: { key: { _id: 1 }, unique: true } });
    engine.runCommand(DB, { insert: 'cl', documents: [{ _id: new Date(0) }] });
    const report = engine.ttl.runPass();
    assert.deepEqual(
      report.visits.map((v) => v.collection),
      ['a'],
    );
    assert.equal(engine.db(DB).collection('cl').countDocuments({}), 1);
  });
});
