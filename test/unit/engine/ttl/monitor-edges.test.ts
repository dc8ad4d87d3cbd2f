/**
 * The TTL monitor's edges (docs/ttl-rules.md §7.2–7.5): a pass refused while another runs, a
 * driven pass stopped part-way, events flushed per visit, a pass due exactly at its deadline, a
 * secondary's counters and a dropped collection's visit.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document, type EngineEvent } from '../../../../src/engine';
import { VirtualClock, type CancelTimer, type Clock } from '../../../../src/engine/clock';

const DB = 'app';
const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;

function engineWith(names: string[], clock: Clock = new VirtualClock(T0)): Engine {
  const engine = new Engine({ clock });
  for (const name of names) {
    const c = engine.db(DB).collection(name);
    c.createIndex({ t: 1 }, { expireAfterSeconds: 60 });
    const docs: Document[] = [];
    for (let i = 0; i < 4; i++) docs.push({ _id: i, t: new Date(T0 - 10 * HOUR) });
    c.insertMany(docs);
  }
  return engine;
}

const counts = (engine: Engine, names: string[]) => names.map((n) => engine.db(DB).collection(n).countDocuments({}));

/** A pass handed to a driver that holds it: the test takes its steps. */
function heldPass(engine: Engine, clock: VirtualClock): { steps: Iterator<void, unknown>; finish: () => void } {
  let steps: Iterator<void, unknown> | undefined;
  let finish: () => void = () => undefined;
  engine.ttl.setPassDriver((s) => {
    steps = s;
    return new Promise<void>((resolve) => (finish = resolve));
  });
  clock.advance(60_000);
  assert.ok(steps, 'the timer handed the pass to the driver');
  return { steps, finish: () => finish() };
}

/** A clock whose timers never fire by themselves: a thread held by a synchronous sleep. */
class HeldClock implements Clock {
  readonly kind = 'system' as const;
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
  setTimer(_atMs: number, _fn: () => void): CancelTimer {
    return () => undefined;
  }
  dispose(): void {}
}

describe('TTL monitor: edges', () => {
  it('rule 7.2: a pass asked for while a driven pass runs is refused, deletes nothing and counts no pass', async () => {
    const clock = new VirtualClock(T0);
    const engine = engineWith(['a', 'b'], clock);
    const { steps, finish } = heldPass(engine, clock);
    steps.next();
    const report = engine.ttl.runPass();
    assert.equal(report.skipped, 'a pass is already running');
    assert.deepEqual([report.subPasses, report.deleted, report.visits], [0, 0, []]);
    assert.deepEqual(counts(engine, ['a', 'b']), [0, 4], 'the refused pass deleted nothing');
    assert.equal(engine.ttl.status().metrics.passes, 0);
    while (!steps.next().done);
    finish();
    await engine.ttl.whenPassEnded();
    assert.deepEqual(counts(engine, ['a', 'b']), [0, 0]);
    assert.equal(engine.ttl.status().metrics.passes, 1);
  });

  it('rule 7.3: stopping the monitor during a driven pass ends it after the visit in progress', async () => {
    const clock = new VirtualClock(T0);
    const names = ['a', 'b', 'c'];
    const engine = engineWith(names, clock);
    const { steps, finish } = heldPass(engine, clock);
    assert.equal(steps.next().done, false);
    engine.ttl.stop();
    assert.equal(steps.next().done, true, 'no further visit after stop');
    assert.deepEqual(counts(engine, names), [0, 4, 4]);
    assert.deepEqual(
      engine.ttl.status().lastPass!.visits.map((v) => v.collection),
      ['a'],
    );
    finish();
    await engine.ttl.whenPassEnded();
  });

  it('rule 7.3: closing the engine during a driven pass ends it after the visit in progress', async () => {
    const clock = new VirtualClock(T0);
    const names = ['a', 'b', 'c'];
    const engine = engineWith(names, clock);
    const { steps, finish } = heldPass(engine, clock);
    steps.next();
    engine.close();
    assert.equal(steps.next().done, true);
    assert.deepEqual(
      engine.ttl.status().lastPass!.visits.map((v) => [v.collection, v.deleted]),
      [['a', 4]],
    );
    finish();
    await engine.ttl.whenPassEnded();
  });

  it('events: each visit reaches listeners as soon as it ends, not at the end of the pass', () => {
    const clock = new VirtualClock(T0);
    const engine = engineWith(['a', 'b'], clock);
    const seen: EngineEvent[][] = [];
    engine.onDidChange((events) => seen.push([...events]));
    const { steps } = heldPass(engine, clock);
    steps.next();
    const first = seen.flat().filter((e) => (e as { cause?: string }).cause === 'ttl');
    assert.ok(first.length > 0, 'the first visit was flushed before the second step');
    assert.ok(
      first.every((e) => JSON.stringify(e).includes('"a"')),
      `only collection a so far: ${JSON.stringify(first)}`,
    );
    while (!steps.next().done);
  });

  it('rule 7.2: a pass whose deadline is exactly now is due (a held thread runs it when it wakes)', () => {
    const clock = new HeldClock(T0);
    const engine = engineWith(['a'], clock);
    clock.t = T0 + 59_999;
    assert.equal(engine.ttl.runDuePasses(), 0);
    clock.t = T0 + 60_000;
    assert.equal(engine.ttl.runDuePasses(), 1);
    assert.deepEqual(counts(engine, ['a']), [0]);
    assert.equal(engine.ttl.status().nextPassAt?.getTime(), T0 + 120_000);
    clock.t = T0 + 240_000;
    assert.equal(engine.ttl.runDuePasses(), 1, 'the next sleep starts after the pass: one pass, not three');
  });

  it('rule 7.2: a stopped monitor runs no due pass', () => {
    const clock = new HeldClock(T0);
    const engine = engineWith(['a'], clock);
    engine.ttl.stop();
    clock.t = T0 + 10 * 60_000;
    assert.equal(engine.ttl.runDuePasses(), 0);
    assert.deepEqual(counts(engine, ['a']), [4]);
  });

  it("rule 7.4: a secondary's pass counts one pass and one sub-pass, and deletes nothing", () => {
    const clock = new VirtualClock(T0);
    const engine = engineWith(['a'], clock);
    engine.setRole('secondary');
    const report = engine.ttl.runPass();
    assert.equal(report.subPasses, 1);
    assert.equal(report.deleted, 0);
    assert.equal(report.skipped, 'this node is a secondary: deletes replicate from the primary (rule 7.4)');
    assert.deepEqual(engine.ttl.status().metrics, { passes: 1, subPasses: 1, deletedDocuments: 0 });
    assert.deepEqual(counts(engine, ['a']), [4]);
  });

  it('rule 7.5: a collection dropped during a pass is skipped as "collection dropped", without a log line', () => {
    const clock = new VirtualClock(T0);
    const engine = engineWith(['a', 'b'], clock);
    const logLines = () => (engine.runCommand('admin', { getLog: 'global' }).log as string[]).length;
    const before = logLines();
    const { steps } = heldPass(engine, clock);
    steps.next();
    engine.runCommand(DB, { drop: 'b' });
    while (!steps.next().done);
    const visit = engine.ttl.status().lastPass!.visits.find((v) => v.collection === 'b');
    assert.deepEqual(visit && [visit.outcome, visit.reason, visit.deleted], ['skipped', 'collection dropped', 0]);
    const ids = (engine.runCommand('admin', { getLog: 'global' }).log as string[])
      .slice(before)
      .map((l) => JSON.parse(l).id as number);
    assert.ok(!ids.includes(0), `no log entry for the dropped collection: ${JSON.stringify(ids)}`);
    assert.ok(logLines() >= before);
  });

  it('rule 7.2: a pass counts its deletions in the metrics and the report, visit by visit', () => {
    const clock = new VirtualClock(T0);
    const engine = engineWith(['a', 'b'], clock);
    const report = engine.ttl.runPass();
    assert.equal(report.deleted, 8);
    assert.deepEqual(
      report.visits.map((v) => [v.collection, v.target, v.deleted, v.outcome, 'reason' in v]),
      [
        ['a', 'index t_1', 4, 'done', false],
        ['b', 'index t_1', 4, 'done', false],
      ],
    );
    assert.equal(engine.ttl.status().metrics.deletedDocuments, 8);
    assert.equal(engine.ttl.status().lastPassAt?.getTime(), T0);
  });
});
