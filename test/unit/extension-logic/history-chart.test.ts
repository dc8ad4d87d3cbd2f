/**
 * The TTL Monitor History panel's model (logic/history-chart.ts), fed with what a real engine's
 * monitor recorded: per pass the deleted, time, sub-passes and backlog, over every rule or one
 * collection or one rule, the last N passes, and the words it adds.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine } from '../../../src/engine';
import { VirtualClock } from '../../../src/engine/clock';
import {
  buildHistoryModel,
  isHistorySize,
  pointOf,
  type HistoryMonitor,
} from '../../../src/extension/logic/history-chart';

const T0 = Date.UTC(2026, 0, 1);
const MIN = 60_000;
const MONITOR: HistoryMonitor = { enabled: true, sleepSecs: 60, nextPassAt: T0 + 10 * MIN, stoppedBecause: null };

/** Two collections: `a` with a TTL index at 60 s, `b` a clustered collection at 60 s; a document of each falls due every minute. */
function twoRules(minutes: number): { engine: Engine; clock: VirtualClock } {
  const clock = new VirtualClock(T0);
  const engine = new Engine({ clock });
  engine.runCommand('app', { create: 'b', clusteredIndex: { key: { _id: 1 }, unique: true }, expireAfterSeconds: 60 });
  engine.runCommand('app', { createIndexes: 'a', indexes: [{ key: { at: 1 }, name: 'at_1', expireAfterSeconds: 60 }] });
  for (let i = 0; i < minutes; i++) {
    engine.runCommand('app', {
      insert: 'a',
      documents: [{ at: new Date(T0 + i * MIN) }, { at: new Date(T0 + i * MIN) }],
    });
    engine.runCommand('app', { insert: 'b', documents: [{ _id: new Date(T0 + i * MIN) }] });
  }
  return { engine, clock };
}

describe('TTL Monitor History model', () => {
  it('every rule: one point per pass with what the engine recorded, the table in the same figures', () => {
    const { engine, clock } = twoRules(5);
    clock.advance(6 * MIN);
    const passes = engine.ttl.history();
    assert.ok(passes.length >= 5);
    const model = buildHistoryModel({ passes, scope: {}, size: 50, monitor: MONITOR });
    assert.deepEqual(
      model.points.map((p) => [p.startedAt, p.deleted, p.subPasses, p.backlog]),
      passes.map((p) => [p.startedAt.getTime(), p.deleted, p.subPasses, p.backlog]),
    );
    assert.equal(
      model.points.reduce((a, p) => a + p.deleted, 0),
      15,
      'all 10 of a and 5 of b went',
    );
    assert.deepEqual(model.table.headers, [
      'Pass started (UTC)',
      'Deleted',
      'Time taken (ms)',
      'Sub-passes',
      'Backlog after',
      'Note',
    ]);
    assert.deepEqual(
      model.table.rows.map((r) => [r[0], Number(r[1]), Number(r[3]), Number(r[4])]),
      passes.map((p) => [p.startedAt.toISOString().slice(0, 19).replace('T', ' '), p.deleted, p.subPasses, p.backlog]),
    );
    assert.equal(model.summary.find((s) => s.label === 'Deleted')?.value, '15');
    assert.match(model.title, /every TTL rule/);
    assert.match(model.cadence, /every 1 min/);
  });

  it('one collection or one rule: only its share of each pass (deleted, visits, backlog)', () => {
    const { engine, clock } = twoRules(3);
    clock.advance(4 * MIN);
    const passes = engine.ttl.history();
    const a = buildHistoryModel({ passes, scope: { db: 'app', collection: 'a' }, size: 50, monitor: MONITOR });
    const b = buildHistoryModel({
      passes,
      scope: { db: 'app', collection: 'b', target: 'collection' },
      size: 50,
      monitor: MONITOR,
    });
    assert.deepEqual(
      a.points.map((p) => p.deleted),
      passes.map((p) => p.targets.filter((t) => t.collection === 'a').reduce((n, t) => n + t.deleted, 0)),
    );
    assert.equal(
      a.points.reduce((n, p) => n + p.deleted, 0),
      6,
    );
    assert.equal(
      b.points.reduce((n, p) => n + p.deleted, 0),
      3,
    );
    assert.ok(a.table.headers.includes('Visits'), 'a narrowed view counts its rules’ visits');
    assert.match(b.title, /app\.b, the collection TTL/);
    const index = pointOf(
      passes.find((p) => p.deleted > 0)!,
      { db: 'app', collection: 'a', target: 'index at_1' },
    );
    assert.equal(index.deleted, 2);
    assert.equal(index.visits, 1);
  });

  it('the last N passes of the ring; sizes are 20, 50 and 200', () => {
    const { engine, clock } = twoRules(0);
    clock.advance(30 * MIN);
    const passes = engine.ttl.history();
    assert.equal(passes.length, 30);
    const model = buildHistoryModel({ passes, scope: {}, size: 20, monitor: MONITOR });
    assert.equal(model.points.length, 20);
    assert.equal(model.points[0].startedAt, passes[10].startedAt.getTime());
    assert.equal(model.summary[0].value, '20 of 30');
    assert.deepEqual([20, 50, 200, 30, '50'].map(isHistorySize), [true, true, true, false, false]);
  });

  it('rule 7.4: a growing backlog (a secondary) is said in words, with the reason the passes deleted nothing', () => {
    const { engine, clock } = twoRules(6);
    engine.setRole('secondary');
    clock.advance(6 * MIN);
    const passes = engine.ttl.history();
    const model = buildHistoryModel({
      passes,
      scope: {},
      size: 50,
      monitor: { ...MONITOR, stoppedBecause: null },
    });
    const backlogs = model.points.map((p) => p.backlog);
    assert.deepEqual(backlogs, [3, 6, 9, 12, 15, 18], 'each minute two of a and one of b fall due');
    assert.ok(
      model.warnings.some((w) => /grew over the last 3 passes \(9 → 12 → 15 → 18\)/.test(w)),
      model.warnings.join('\n'),
    );
    assert.ok(model.points.every((p) => /secondary/.test(p.note)));
    assert.equal(model.summary.find((s) => s.label === 'Backlog now')?.value, '18');
  });

  it('no pass yet: says how to get one', () => {
    const model = buildHistoryModel({ passes: [], scope: {}, size: 50, monitor: { ...MONITOR, enabled: false } });
    assert.equal(model.points.length, 0);
    assert.match(model.subtitle, /No pass has run yet/);
    assert.match(model.cadence, /ttlMonitorEnabled: false/);
  });
});
