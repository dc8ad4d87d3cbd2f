/**
 * The TTL monitor (docs/ttl-rules.md §7.1–7.9, 7.12, 5.4): parameters, cadence on the virtual clock,
 * passes / sub-passes / visit budgets, which documents expire, roles, events and metrics.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Int32, Long, ObjectId, Timestamp } from 'bson';
import {
  Engine,
  findInvalidTTLIndexes,
  loadLegacyIndexSpec,
  type Document,
  type EngineEvent,
  type EngineOptions,
} from '../../../../src/engine';
import { VirtualClock } from '../../../../src/engine/clock';
import { expectError } from '../../helpers/expect-error';

// ---- helpers ----------------------------------------------------------------------------------

const DB = 'app';
const T0 = Date.UTC(2026, 0, 1);
const MIN = 60_000;
const HOUR = 3_600_000;

function setup(options: Partial<EngineOptions> = {}): { engine: Engine; clock: VirtualClock } {
  const clock = new VirtualClock(T0);
  const engine = new Engine({ clock, ...options });
  return { engine, clock };
}

function admin(engine: Engine, cmd: Document): Document {
  return engine.runCommand('admin', cmd);
}

function setParameter(engine: Engine, name: string, value: unknown): Document {
  return admin(engine, { setParameter: 1, [name]: value });
}

function passes(engine: Engine): number {
  return engine.ttl.status().metrics.passes;
}

/** Rule 7.12 / JS-UTIL: advance in 1 s steps until `n` more passes have run. */
function waitForPasses(engine: Engine, clock: VirtualClock, n = 2): void {
  const target = passes(engine) + n;
  for (let i = 0; i < 10_000 && passes(engine) < target; i++) clock.advance(1000);
  assert.ok(passes(engine) >= target, `${n} more passes ran`);
}

function logIds(engine: Engine): number[] {
  const reply = admin(engine, { getLog: 'global' });
  return (reply.log as string[]).map((line) => JSON.parse(line).id as number);
}

function coll(engine: Engine, name = 'c') {
  return engine.db(DB).collection(name);
}

function ids(engine: Engine, name = 'c'): unknown[] {
  return coll(engine, name)
    .find({}, { sort: { _id: 1 } })
    .map((d) => d._id);
}

function count(engine: Engine, name = 'c'): number {
  return coll(engine, name).countDocuments({});
}

/** `n` documents with dates `ageMs` before T0 (so expired under any EAS < ageMs / 1000). */
function insertExpired(engine: Engine, n: number, ageMs = 10 * HOUR, name = 'c'): void {
  const date = new Date(T0 - ageMs);
  const docs: Document[] = [];
  for (let i = 0; i < n; i++) docs.push({ _id: i, t: date });
  for (let i = 0; i < docs.length; i += 50_000) coll(engine, name).insertMany(docs.slice(i, i + 50_000));
}

// ---- 7.1 ---------------------------------------------------------------------------------------

describe('TTL monitor: rule 7.1 (parameters)', () => {
  it('rule 7.1: default parameters', () => {
    const { engine } = setup();
    const reply = admin(engine, {
      getParameter: 1,
      ttlMonitorEnabled: 1,
      ttlMonitorSleepSecs: 1,
      ttlMonitorBatchDeletes: 1,
      ttlIndexDeleteTargetDocs: 1,
      ttlIndexDeleteTargetTimeMS: 1,
      ttlMonitorSubPassTargetSecs: 1,
    });
    assert.equal(reply.ttlMonitorEnabled, true);
    assert.equal(Number(reply.ttlMonitorSleepSecs), 60);
    assert.equal(reply.ttlMonitorBatchDeletes, true);
    assert.equal(Number(reply.ttlIndexDeleteTargetDocs), 50000);
    assert.equal(Number(reply.ttlIndexDeleteTargetTimeMS), 1000);
    assert.equal(Number(reply.ttlMonitorSubPassTargetSecs), 60);
    const status = engine.ttl.status();
    assert.equal(status.enabled, true);
    assert.equal(status.sleepSecs, 60);
    assert.equal(status.running, true);
  });

  it('rule 7.1: ttlMonitorSleepSecs 0 or negative → 2 BadValue', () => {
    const { engine } = setup();
    expectError(() => setParameter(engine, 'ttlMonitorSleepSecs', 0), 2);
    expectError(() => setParameter(engine, 'ttlMonitorSleepSecs', -5), 2);
    assert.equal(engine.ttl.status().sleepSecs, 60);
  });

  it('rule 7.1: negative delete targets are refused', () => {
    const { engine } = setup();
    expectError(() => setParameter(engine, 'ttlIndexDeleteTargetDocs', -1), 2);
    expectError(() => setParameter(engine, 'ttlIndexDeleteTargetTimeMS', -1), 2);
    expectError(() => setParameter(engine, 'ttlMonitorSubPassTargetSecs', -1), 2);
  });

  it('rule 7.1: setParameter replies the previous value as `was`', () => {
    const { engine } = setup();
    assert.equal(Number(setParameter(engine, 'ttlMonitorSleepSecs', 5).was), 60);
    assert.equal(Number(setParameter(engine, 'ttlMonitorSleepSecs', 7).was), 5);
  });

  it('rule 7.1: startup parameters apply from the start', () => {
    const { engine, clock } = setup({ parameters: { ttlMonitorSleepSecs: 10 } });
    clock.advance(30_000);
    assert.equal(passes(engine), 3);
  });
});

// ---- 7.2 ---------------------------------------------------------------------------------------

describe('TTL monitor: rule 7.2 (the loop on the virtual clock)', () => {
  it('rule 7.2: a pass runs every 60 s; advance(60_000) → passes 1', () => {
    const { engine, clock } = setup();
    assert.equal(clock.nextTimerAt(), T0 + MIN, 'the first pass is due 60 s after start');
    clock.advance(59_999);
    assert.equal(passes(engine), 0);
    clock.advance(1);
    assert.equal(passes(engine), 1);
    assert.equal(engine.ttl.status().lastPassAt?.getTime(), T0 + MIN);
    clock.advance(MIN);
    assert.equal(passes(engine), 2);
    clock.advance(10 * MIN);
    assert.equal(passes(engine), 12);
    assert.equal(engine.ttl.status().lastPassAt?.getTime(), T0 + 12 * MIN);
  });

  it('rule 7.2: a pass with nothing to delete still counts one pass and one sub-pass', () => {
    const { engine, clock } = setup();
    clock.advance(MIN);
    const m = engine.ttl.status().metrics;
    assert.equal(m.passes, 1);
    assert.equal(m.subPasses, 1);
    assert.equal(m.deletedDocuments, 0);
  });

  it('rule 7.2: one large advance runs every pass that falls due, each at its own time', () => {
    const { engine, clock } = setup();
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 0 });
    // Expires at T0 + 90 s: kept by the pass at 60 s, deleted by the pass at 120 s.
    coll(engine).insertOne({ _id: 1, t: new Date(T0 + 90_000) });
    const deletions: Array<{ at: number; count: number }> = [];
    engine.onDidChange((events) => {
      for (const e of events) if (e.kind === 'documentsDeleted') deletions.push({ at: clock.now(), count: e.count });
    });
    clock.advance(5 * MIN);
    assert.equal(passes(engine), 5);
    assert.deepEqual(deletions, [{ at: T0 + 2 * MIN, count: 1 }]);
  });

  it('rule 7.12: waiting for two pass increments guarantees a full pass after the inserts', () => {
    const { engine, clock } = setup();
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 0 });
    clock.advance(37_000);
    coll(engine).insertOne({ _id: 1, t: new Date(T0) });
    waitForPasses(engine, clock, 2);
    assert.equal(count(engine), 0);
  });

  it('rule 7.1 / 7.2: a disabled monitor counts no pass and deletes nothing', () => {
    const { engine, clock } = setup();
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 0 });
    insertExpired(engine, 5);
    setParameter(engine, 'ttlMonitorEnabled', false);
    clock.advance(10 * MIN);
    assert.equal(passes(engine), 0);
    assert.equal(engine.ttl.status().metrics.subPasses, 0);
    assert.equal(count(engine), 5);
    assert.equal(engine.ttl.runPass().subPasses, 0, 'an explicit pass is skipped as well');
    assert.equal(passes(engine), 0);
    setParameter(engine, 'ttlMonitorEnabled', true);
    clock.advance(MIN);
    assert.equal(passes(engine), 1);
    assert.equal(count(engine), 0);
  });

  it('rule 7.1: ttlMonitorEnabled false at startup', () => {
    const { engine, clock } = setup({ parameters: { ttlMonitorEnabled: false } });
    clock.advance(10 * MIN);
    assert.equal(passes(engine), 0);
    assert.equal(engine.ttl.status().enabled, false);
  });

  it('rule 7.1: setParameter ttlMonitorSleepSecs changes the cadence', () => {
    const { engine, clock } = setup();
    clock.advance(MIN);
    assert.equal(passes(engine), 1);
    setParameter(engine, 'ttlMonitorSleepSecs', 5);
    clock.advance(5000);
    assert.ok(passes(engine) >= 2, 'the sleeper woke up with the new interval');
    const before = passes(engine);
    clock.advance(MIN);
    assert.equal(passes(engine) - before, 12, 'a pass every 5 s');
    setParameter(engine, 'ttlMonitorSleepSecs', 3600);
    const before2 = passes(engine);
    clock.advance(30 * MIN);
    assert.equal(passes(engine) - before2, 0, 'no pass for half an hour with 3600 s sleep');
    clock.advance(30 * MIN);
    assert.equal(passes(engine) - before2, 1);
  });
});

// ---- 7.3 ---------------------------------------------------------------------------------------

describe('TTL monitor: rule 7.3 (sub-passes and visit budgets)', () => {
  // The real-time visit budget (ttlIndexDeleteTargetTimeMS) is switched off in these two tests so
  // that only the document budget splits the visits: a slow CI machine must not change the answer.
  it('rule 7.3: 120 000 expired docs, default doc budget → 1 pass, 1 sub-pass, visits 50000 + 50000 + 20000', () => {
    const { engine } = setup({ parameters: { ttlIndexDeleteTargetTimeMS: 0 } });
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 60 });
    insertExpired(engine, 120_000);
    const report = engine.ttl.runPass();
    assert.equal(report.subPasses, 1);
    assert.deepEqual(
      report.visits.map((v) => v.deleted),
      [50_000, 50_000, 20_000],
    );
    assert.equal(report.deleted, 120_000);
    assert.equal(count(engine), 0);
    const m = engine.ttl.status().metrics;
    assert.equal(m.passes, 1);
    assert.equal(m.subPasses, 1);
    assert.equal(m.deletedDocuments, 120_000);
  });

  it('rule 7.3: 120 000 expired docs with ttlMonitorSubPassTargetSecs 0 → 1 pass, 3 sub-passes', () => {
    const { engine } = setup({ parameters: { ttlMonitorSubPassTargetSecs: 0, ttlIndexDeleteTargetTimeMS: 0 } });
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 60 });
    insertExpired(engine, 120_000);
    const report = engine.ttl.runPass();
    assert.equal(report.subPasses, 3);
    assert.deepEqual(
      report.visits.map((v) => v.deleted),
      [50_000, 50_000, 20_000],
    );
    assert.equal(count(engine), 0);
    const m = engine.ttl.status().metrics;
    assert.equal(m.passes, 1);
    assert.equal(m.subPasses, 3);
  });

  it('rule 7.3: a small ttlIndexDeleteTargetDocs splits one index into several visits of one pass', () => {
    const { engine, clock } = setup({ parameters: { ttlIndexDeleteTargetDocs: 10 } });
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 60 });
    insertExpired(engine, 25);
    clock.advance(MIN);
    const report = engine.ttl.status().lastPass!;
    assert.equal(report.subPasses, 1);
    assert.deepEqual(
      report.visits.map((v) => v.deleted),
      [10, 10, 5],
    );
    assert.deepEqual(
      report.visits.map((v) => v.outcome),
      ['more', 'more', 'done'],
    );
    assert.equal(count(engine), 0);
    assert.equal(passes(engine), 1);
  });

  it('rule 7.3: indexes that hit the target are revisited after all others', () => {
    const { engine } = setup({ parameters: { ttlIndexDeleteTargetDocs: 10 } });
    coll(engine, 'a').createIndex({ t: 1 }, { expireAfterSeconds: 60 });
    coll(engine, 'b').createIndex({ t: 1 }, { expireAfterSeconds: 60 });
    insertExpired(engine, 15, 10 * HOUR, 'a');
    insertExpired(engine, 3, 10 * HOUR, 'b');
    const report = engine.ttl.runPass();
    assert.deepEqual(
      report.visits.map((v) => `${v.collection}:${v.deleted}`),
      ['a:10', 'b:3', 'a:5'],
    );
    assert.equal(count(engine, 'a') + count(engine, 'b'), 0);
  });

  it('rule 7.3: a tiny ttlIndexDeleteTargetTimeMS still removes everything within one pass', () => {
    const { engine, clock } = setup({ parameters: { ttlIndexDeleteTargetTimeMS: 1 } });
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 60 });
    insertExpired(engine, 20_000);
    clock.advance(MIN);
    assert.equal(passes(engine), 1);
    assert.equal(count(engine), 0);
    const report = engine.ttl.status().lastPass!;
    assert.equal(report.deleted, 20_000);
    assert.ok(report.visits.every((v) => v.deleted <= 50_000));
  });

  it('rule 7.1: ttlIndexDeleteTargetDocs 0 means unlimited: one visit', () => {
    const { engine } = setup({ parameters: { ttlIndexDeleteTargetDocs: 0 } });
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 60 });
    insertExpired(engine, 3000);
    const report = engine.ttl.runPass();
    assert.deepEqual(
      report.visits.map((v) => v.deleted),
      [3000],
    );
  });

  it('rule 7.1: ttlMonitorBatchDeletes false → legacy unbounded delete per index (one visit)', () => {
    const { engine, clock } = setup();
    setParameter(engine, 'ttlIndexDeleteTargetDocs', 10);
    setParameter(engine, 'ttlMonitorBatchDeletes', false);
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 60 });
    insertExpired(engine, 35);
    clock.advance(MIN);
    const report = engine.ttl.status().lastPass!;
    assert.deepEqual(
      report.visits.map((v) => v.deleted),
      [35],
    );
    assert.equal(report.subPasses, 1);
    assert.equal(count(engine), 0);
  });

  it('rule 7.12: batched TTL deletes feed serverStatus().batchedDeletes; with ttlMonitorBatchDeletes false they stay 0', () => {
    const batched = setup();
    coll(batched.engine).createIndex({ t: 1 }, { expireAfterSeconds: 60 });
    insertExpired(batched.engine, 20);
    batched.engine.ttl.runPass();
    const bd = admin(batched.engine, { serverStatus: 1 }).batchedDeletes as Document | undefined;
    assert.ok(bd, 'serverStatus has a batchedDeletes section');
    assert.ok(Number(bd.docs) >= 20, 'batched deletes counted the TTL documents');
    assert.ok(Number(bd.batches) >= 1);

    const legacy = setup({ parameters: { ttlMonitorBatchDeletes: false } });
    coll(legacy.engine).createIndex({ t: 1 }, { expireAfterSeconds: 60 });
    insertExpired(legacy.engine, 20);
    legacy.engine.ttl.runPass();
    const bd2 = admin(legacy.engine, { serverStatus: 1 }).batchedDeletes as Document | undefined;
    assert.ok(bd2, 'serverStatus has a batchedDeletes section');
    assert.equal(Number(bd2.docs), 0);
    assert.equal(Number(bd2.batches), 0);
  });
});

// ---- 7.6 / 4.2 ---------------------------------------------------------------------------------

describe('TTL monitor: a pass in steps (a host that must not be held for a whole pass)', () => {
  it('rules 7.3 / 7.5: a driver gets one step per visit; commands between steps see earlier visits, and a collection dropped meanwhile is skipped', async () => {
    const { engine, clock } = setup();
    for (const name of ['a', 'b', 'c']) {
      coll(engine, name).createIndex({ t: 1 }, { expireAfterSeconds: 60 });
      insertExpired(engine, 5, 10 * HOUR, name);
    }
    let steps: Iterator<void, unknown> | undefined;
    let finish: () => void = () => undefined;
    engine.ttl.setPassDriver((s) => {
      steps = s;
      return new Promise<void>((resolve) => (finish = resolve));
    });
    clock.advance(60_000);
    assert.ok(steps, 'the timer handed the pass to the driver');
    assert.deepEqual(
      [count(engine, 'a'), count(engine, 'b'), count(engine, 'c')],
      [5, 5, 5],
      'nothing ran before the first step',
    );
    assert.equal(steps.next().done, false);
    assert.deepEqual([count(engine, 'a'), count(engine, 'b'), count(engine, 'c')], [0, 5, 5], 'one visit per step');
    engine.runCommand(DB, { drop: 'c' });
    let n = 1;
    while (!steps.next().done) n++;
    assert.equal(n, 3, 'three visits: a, b, then c (dropped)');
    const last = engine.ttl.status().lastPass!;
    assert.deepEqual(
      last.visits.map((v) => [v.collection, v.deleted, v.outcome]),
      [
        ['a', 5, 'done'],
        ['b', 5, 'done'],
        ['c', 0, 'skipped'],
      ],
    );
    // The monitor sleeps again only once the driver says the pass ended (rule 7.2: sleep after a pass).
    assert.equal(engine.ttl.status().nextPassAt, null);
    finish();
    await engine.ttl.whenPassEnded();
    assert.equal(engine.ttl.status().nextPassAt?.getTime(), T0 + 120_000);
    assert.equal(passes(engine), 1);
  });

  it('rule 7.2: a driver that runs the steps at once keeps the cadence of synchronous passes', () => {
    const { engine, clock } = setup();
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 60 });
    insertExpired(engine, 3);
    let driven = 0;
    engine.ttl.setPassDriver((s) => {
      driven++;
      while (!s.next().done);
      return undefined;
    });
    clock.advance(3 * 60_000);
    assert.equal(driven, 3, 'three passes in three minutes, each through the driver');
    assert.equal(passes(engine), 3);
    assert.equal(count(engine), 0);
  });
});

describe('TTL monitor: rules 7.6 / 4.2 (index validity at each visit)', () => {
  it('rule 4.2: a legacy NaN EAS index is skipped every pass (log 6909100) and listed as 2147483647', () => {
    const { engine, clock } = setup();
    insertExpired(engine, 3);
    loadLegacyIndexSpec(engine, DB, 'c', { v: 2, key: { t: 1 }, name: 't_1', expireAfterSeconds: NaN });
    clock.advance(2 * MIN);
    assert.equal(count(engine), 3);
    const visit = engine.ttl.status().lastPass!.visits.find((v) => v.target === 'index t_1');
    assert.equal(visit?.outcome, 'skipped');
    const listed = coll(engine)
      .listIndexes()
      .find((i) => i.name === 't_1')!;
    assert.ok(listed.expireAfterSeconds instanceof Int32);
    assert.equal(listed.expireAfterSeconds.value, 2147483647);
  });

  it('rule 4.2: a legacy negative or out-of-range EAS index deletes nothing', () => {
    const { engine, clock } = setup();
    insertExpired(engine, 3);
    loadLegacyIndexSpec(engine, DB, 'c', { v: 2, key: { t: 1 }, name: 't_1', expireAfterSeconds: -10 });
    loadLegacyIndexSpec(engine, DB, 'c', { v: 2, key: { t: -1 }, name: 't_-1', expireAfterSeconds: 1e12 });
    clock.advance(2 * MIN);
    assert.equal(count(engine), 3);
  });

  it('rule 4.2 / 7.6: skipping an invalid legacy index logs 6909100 (getLog)', () => {
    const { engine, clock } = setup();
    insertExpired(engine, 1);
    loadLegacyIndexSpec(engine, DB, 'c', { v: 2, key: { t: 1 }, name: 't_1', expireAfterSeconds: NaN });
    clock.advance(MIN);
    assert.ok(logIds(engine).includes(6909100), `log ids: ${logIds(engine).join(', ')}`);
  });

  it('rule 1.9 / 7.6: skipping a hashed TTL index logs 22541 (getLog)', () => {
    const { engine, clock } = setup();
    coll(engine).createIndex({ t: 'hashed' }, { expireAfterSeconds: 0 });
    clock.advance(MIN);
    assert.ok(logIds(engine).includes(22541), `log ids: ${logIds(engine).join(', ')}`);
  });

  it('rule 4.2: step-up rewrites a legacy NaN EAS to 2147483647', () => {
    const { engine } = setup({ role: 'secondary' });
    loadLegacyIndexSpec(engine, DB, 'c', { v: 2, key: { t: 1 }, name: 't_1', expireAfterSeconds: NaN });
    assert.equal(findInvalidTTLIndexes(engine).length, 1);
    engine.setRole('primary');
    assert.deepEqual(findInvalidTTLIndexes(engine), []);
    const stored = engine.getCollection(DB, 'c')!.indexes.get('t_1')!.spec.expireAfterSeconds;
    assert.equal(Number((stored as Int32).valueOf()), 2147483647);
  });

  it('rule 4.2: 8.0 step-up rewrites a legacy fractional EAS to its integer; 7.0 keeps it and both expire by the truncated value', () => {
    for (const serverVersion of ['8.0', '7.0'] as const) {
      const { engine, clock } = setup({ role: 'secondary', serverVersion });
      loadLegacyIndexSpec(engine, DB, 'c', { v: 2, key: { t: 1 }, name: 't_1', expireAfterSeconds: 100.9 });
      engine.setRole('primary');
      const stored = engine.getCollection(DB, 'c')!.indexes.get('t_1')!.spec.expireAfterSeconds;
      if (serverVersion === '8.0') assert.equal(Number((stored as Int32).valueOf()), 100, '8.0 rewrites to 100');
      else assert.equal(stored, 100.9, '7.0 keeps the double');
      // Passes at T0 + 60 s: threshold T0 + 60 s − 100 s.
      coll(engine).insertMany([
        { _id: 'at', t: new Date(T0 - 40_000) },
        { _id: 'after', t: new Date(T0 - 40_000 + 1) },
      ]);
      clock.advance(MIN);
      assert.deepEqual(ids(engine), ['after'], serverVersion);
    }
  });

  it('rule 7.6: dropping the TTL index stops expiry at the next pass', () => {
    const { engine, clock } = setup();
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 0 });
    coll(engine).dropIndex('t_1');
    insertExpired(engine, 3);
    clock.advance(2 * MIN);
    assert.equal(count(engine), 3);
  });
});

// ---- 7.4 ---------------------------------------------------------------------------------------

describe('TTL monitor: rule 7.4 (which node deletes)', () => {
  it("rule 7.4: role 'secondary' deletes nothing but counts passes", () => {
    const { engine, clock } = setup({ role: 'secondary' });
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 0 });
    insertExpired(engine, 5);
    clock.advance(3 * MIN);
    assert.equal(passes(engine), 3);
    assert.equal(count(engine), 5);
    assert.equal(engine.ttl.status().metrics.deletedDocuments, 0);
  });

  it('rule 7.4: a secondary that becomes primary deletes from its next pass on', () => {
    const { engine, clock } = setup({ role: 'secondary' });
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 0 });
    insertExpired(engine, 5);
    clock.advance(MIN);
    assert.equal(count(engine), 5);
    engine.setRole('primary');
    clock.advance(MIN);
    assert.equal(count(engine), 0);
  });

  it('rule 7.4: a document in local.system.replset stops the monitor', () => {
    const { engine, clock } = setup();
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 0 });
    insertExpired(engine, 5);
    engine.db('local').collection('system.replset').insertOne({ _id: 'rs0', version: 1, members: [] });
    clock.advance(5 * MIN);
    assert.equal(passes(engine), 0, 'no pass is counted');
    assert.equal(count(engine), 5);
    assert.ok(engine.ttl.status().stoppedBecause, 'status says why');
  });
});

// ---- 7.7 / 7.8 ---------------------------------------------------------------------------------

describe('TTL monitor: rules 7.7–7.8 (threshold and which values expire)', () => {
  it('rule 7.8: the threshold is inclusive (f + EAS == now is deleted), 1 ms later is kept', () => {
    const { engine, clock } = setup();
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 60 });
    // The first pass runs at T0 + 60 s; threshold = T0 + 60 s − 60 s = T0.
    coll(engine).insertMany([
      { _id: 'at', t: new Date(T0) },
      { _id: 'before', t: new Date(T0 - 1) },
      { _id: 'after', t: new Date(T0 + 1) },
    ]);
    clock.advance(MIN);
    assert.deepEqual(ids(engine), ['after']);
    clock.advance(MIN);
    assert.deepEqual(ids(engine), []);
  });

  it('rule 7.8: the threshold is inclusive for an explicit runPass at the current time', () => {
    const { engine } = setup();
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 3600 });
    coll(engine).insertMany([
      { _id: 1, t: new Date(T0 - HOUR) },
      { _id: 2, t: new Date(T0 - HOUR + 1) },
    ]);
    assert.equal(engine.ttl.runPass().deleted, 1);
    assert.deepEqual(ids(engine), [2]);
  });

  it('rule 7.8: dates before 1970 are eligible for a secondary TTL index', () => {
    const { engine, clock } = setup();
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 60 });
    coll(engine).insertMany([
      { _id: 1, t: new Date(-1) },
      { _id: 2, t: new Date(Date.UTC(1900, 0, 1)) },
      { _id: 3, t: new Date(-8.64e15) },
      { _id: 4, t: new Date(0) },
      { _id: 5, t: new Date(T0 + HOUR) },
    ]);
    clock.advance(MIN);
    assert.deepEqual(ids(engine), [5]);
  });

  it('rule 5.4: clustered TTL: _id dates before 1970 are not deleted, Date(0) and later are', () => {
    const { engine, clock } = setup();
    engine.runCommand(DB, {
      create: 'cl',
      clusteredIndex: { key: { _id: 1 }, unique: true },
      expireAfterSeconds: 3600,
    });
    const pre1970 = new Date(-1000);
    const farPast = new Date(Date.UTC(1900, 0, 1));
    coll(engine, 'cl').insertMany([
      { _id: pre1970 },
      { _id: farPast },
      { _id: new Date(0) },
      { _id: new Date(T0 - 2 * HOUR) },
      { _id: new Date(T0 + 2 * HOUR) },
    ]);
    clock.advance(MIN);
    const left = ids(engine, 'cl')
      .map((d) => (d as Date).getTime())
      .sort((a, b) => a - b);
    assert.deepEqual(left, [farPast.getTime(), pre1970.getTime(), T0 + 2 * HOUR]);
  });

  it('rule 5.4: clustered TTL: non-Date _ids never expire', () => {
    const { engine, clock } = setup();
    engine.runCommand(DB, { create: 'cl', clusteredIndex: { key: { _id: 1 }, unique: true }, expireAfterSeconds: 0 });
    coll(engine, 'cl').insertMany([
      { _id: ObjectId.createFromTime(1000) },
      { _id: 'old' },
      { _id: 42 },
      { _id: new Timestamp({ t: 1000, i: 1 }) },
      { _id: new Date(T0 - HOUR) },
    ]);
    clock.advance(2 * MIN);
    assert.equal(count(engine, 'cl'), 4);
    assert.equal(coll(engine, 'cl').countDocuments({ _id: { $type: 'date' } }), 0);
  });

  it('rule 5.4 / 7.3: clustered TTL respects ttlIndexDeleteTargetDocs per visit and still clears everything in one pass', () => {
    const { engine, clock } = setup({ parameters: { ttlIndexDeleteTargetDocs: 10 } });
    engine.runCommand(DB, { create: 'cl', clusteredIndex: { key: { _id: 1 }, unique: true }, expireAfterSeconds: 60 });
    const docs: Document[] = [];
    for (let i = 0; i < 25; i++) docs.push({ _id: new Date(T0 - HOUR - i * 1000) });
    docs.push({ _id: new Date(T0 + HOUR) });
    coll(engine, 'cl').insertMany(docs);
    clock.advance(MIN);
    const report = engine.ttl.status().lastPass!;
    assert.deepEqual(
      report.visits.filter((v) => v.collection === 'cl').map((v) => v.deleted),
      [10, 10, 5],
    );
    assert.equal(count(engine, 'cl'), 1);
    assert.equal(passes(engine), 1);
  });

  it('rule 5.4: clustered TTL threshold is inclusive', () => {
    const { engine, clock } = setup();
    engine.runCommand(DB, { create: 'cl', clusteredIndex: { key: { _id: 1 }, unique: true }, expireAfterSeconds: 60 });
    coll(engine, 'cl').insertMany([{ _id: new Date(T0) }, { _id: new Date(T0 + 1) }]);
    clock.advance(MIN);
    assert.deepEqual(ids(engine, 'cl'), [new Date(T0 + 1)]);
  });

  it('rule 7.8: arrays: the earliest date wins', () => {
    const { engine, clock } = setup();
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 0 });
    coll(engine).insertMany([
      // Earliest element expires at T0 + 30 s → deleted by the pass at T0 + 60 s.
      { _id: 1, t: [new Date(T0 + 10 * HOUR), new Date(T0 + 30_000), new Date(T0 + 20 * HOUR)] },
      // Earliest expires at T0 + 90 s → kept at 60 s, deleted at 120 s.
      { _id: 2, t: [new Date(T0 + 10 * HOUR), new Date(T0 + 90_000)] },
      { _id: 3, t: [new Date(T0 + 10 * HOUR)] },
    ]);
    clock.advance(MIN);
    assert.deepEqual(ids(engine), [2, 3]);
    clock.advance(MIN);
    assert.deepEqual(ids(engine), [3]);
  });

  it('rule 7.8: arrays: a document with several expired dates is deleted once and counted once', () => {
    const { engine, clock } = setup();
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 0 });
    coll(engine).insertOne({ _id: 1, t: [new Date(T0 - 3 * HOUR), new Date(T0 - 2 * HOUR), new Date(T0 - HOUR)] });
    clock.advance(MIN);
    assert.equal(count(engine), 0);
    assert.equal(engine.ttl.status().metrics.deletedDocuments, 1);
    assert.equal(engine.ttl.status().lastPass!.deleted, 1);
  });

  it('rule 7.8: a dotted TTL key over an array of subdocuments uses the earliest date', () => {
    const { engine, clock } = setup();
    coll(engine).createIndex({ 'ev.at': 1 }, { expireAfterSeconds: 0 });
    coll(engine).insertMany([
      { _id: 1, ev: [{ at: new Date(T0 + 10 * HOUR) }, { at: new Date(T0 - HOUR) }] },
      { _id: 2, ev: [{ at: new Date(T0 + 10 * HOUR) }, { at: 'yesterday' }] },
      { _id: 3, ev: { at: new Date(T0 - HOUR) } },
    ]);
    clock.advance(MIN);
    assert.deepEqual(ids(engine), [2]);
  });

  it('rule 7.8: arrays: non-date elements are ignored; an array with no date never expires', () => {
    const { engine, clock } = setup();
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 0 });
    coll(engine).insertMany([
      { _id: 1, t: ['2020-01-01', 5, null, new Date(T0 - HOUR)] },
      { _id: 2, t: ['2020-01-01', 5, null, new Date(T0 + HOUR)] },
      { _id: 3, t: ['2020-01-01', 0, -1e15, null, true, new Timestamp({ t: 1, i: 1 })] },
      { _id: 4, t: [] },
      { _id: 5, t: [[new Date(T0 - HOUR)]] },
    ]);
    waitForPasses(engine, clock, 2);
    assert.deepEqual(ids(engine), [2, 3, 4, 5]);
  });

  it('rule 7.8: strings, numbers, Timestamps, ObjectIds, null, missing and objects never expire', () => {
    const { engine, clock } = setup();
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 0 });
    const values: unknown[] = [
      '2020-01-01T00:00:00Z',
      0,
      1_600_000_000_000,
      -1,
      Long.fromNumber(1000),
      new Timestamp({ t: 1000, i: 1 }),
      ObjectId.createFromTime(1000),
      null,
      true,
      { d: new Date(0) },
    ];
    coll(engine).insertMany(values.map((t, i) => ({ _id: i, t })));
    coll(engine).insertOne({ _id: 'missing' });
    coll(engine).insertOne({ _id: 'date', t: new Date(0) });
    waitForPasses(engine, clock, 2);
    assert.equal(count(engine), values.length + 1);
    assert.equal(coll(engine).countDocuments({ _id: 'date' }), 0);
    assert.equal(engine.ttl.status().metrics.deletedDocuments, 1);
  });

  it('rule 7.8: updating the date to the future (or to a non-date) saves the document', () => {
    const { engine, clock } = setup();
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 60 });
    coll(engine).insertMany([
      { _id: 1, t: new Date(T0 - HOUR) },
      { _id: 2, t: new Date(T0 - HOUR) },
      { _id: 3, t: new Date(T0 - HOUR) },
    ]);
    coll(engine).updateOne({ _id: 1 }, { $set: { t: new Date(T0 + 10 * HOUR) } });
    coll(engine).updateOne({ _id: 2 }, { $set: { t: 'not a date' } });
    waitForPasses(engine, clock, 2);
    assert.deepEqual(ids(engine), [1, 2]);
    // And back to the past: it expires again.
    coll(engine).updateOne({ _id: 1 }, { $set: { t: new Date(T0) } });
    waitForPasses(engine, clock, 2);
    assert.deepEqual(ids(engine), [2]);
  });

  it('rule 7.8: EAS 0 expires at the date stored in the field', () => {
    const { engine, clock } = setup();
    coll(engine).createIndex({ expireAt: 1 }, { expireAfterSeconds: 0 });
    coll(engine).insertMany([
      { _id: 1, expireAt: new Date(T0 + 30_000) },
      { _id: 2, expireAt: new Date(T0 + 90_000) },
      { _id: 3, expireAt: new Date(T0 + 10 * HOUR) },
    ]);
    clock.advance(MIN);
    assert.deepEqual(ids(engine), [2, 3]);
    clock.advance(MIN);
    assert.deepEqual(ids(engine), [3]);
    clock.set(T0 + 10 * HOUR);
    assert.deepEqual(ids(engine), []);
  });

  it('rule 7.7: the threshold is now − EAS seconds (EAS 3600: one hour after the date)', () => {
    const { engine, clock } = setup();
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 3600 });
    coll(engine).insertOne({ _id: 1, t: new Date(T0) });
    clock.advance(HOUR - MIN);
    assert.equal(count(engine), 1);
    clock.advance(MIN);
    assert.equal(count(engine), 0, 'deleted by the pass at T0 + 1 h');
  });

  it('rule 7.9: a partial TTL index deletes only matching documents (JS-PART)', () => {
    const { engine, clock } = setup();
    coll(engine).createIndex({ x: 1 }, { expireAfterSeconds: 0, partialFilterExpression: { z: { $exists: true } } });
    coll(engine).insertMany([
      { _id: 1, x: new Date(T0), z: 2 },
      { _id: 2, x: new Date(T0) },
      { _id: 3, x: new Date(T0 - 10 * HOUR) },
    ]);
    waitForPasses(engine, clock, 2);
    assert.deepEqual(ids(engine), [2, 3]);
  });

  it('rule 7.9: a document that stops matching the partial filter is saved', () => {
    const { engine, clock } = setup();
    coll(engine).createIndex({ x: 1 }, { expireAfterSeconds: 0, partialFilterExpression: { kind: 'temp' } });
    coll(engine).insertMany([{ _id: 1, x: new Date(T0), kind: 'temp' }]);
    coll(engine).updateOne({ _id: 1 }, { $set: { kind: 'keep' } });
    waitForPasses(engine, clock, 2);
    assert.deepEqual(ids(engine), [1]);
  });

  it('rule 7.8: a descending TTL index is inclusive at the threshold (f + EAS == now deleted, 1 ms later kept)', () => {
    const { engine, clock } = setup();
    coll(engine).createIndex({ t: -1 }, { expireAfterSeconds: 60 });
    coll(engine).insertMany([
      { _id: 'before', t: new Date(T0 - 1) },
      { _id: 'at', t: new Date(T0) },
      { _id: 'after', t: new Date(T0 + 1) },
    ]);
    clock.advance(MIN);
    assert.deepEqual(ids(engine), ['after']);
  });

  it('rule 7.8: an explicit runPass on a descending TTL index deletes the document exactly at the threshold', () => {
    const { engine } = setup();
    coll(engine).createIndex({ t: -1 }, { expireAfterSeconds: 0 });
    coll(engine).insertOne({ _id: 1, t: new Date(T0) });
    assert.equal(engine.ttl.runPass().deleted, 1);
    assert.equal(count(engine), 0);
  });

  it('rule 7.8: a descending TTL index works', () => {
    const { engine, clock } = setup({ parameters: { ttlIndexDeleteTargetDocs: 3 } });
    coll(engine).createIndex({ t: -1 }, { expireAfterSeconds: 60 });
    const docs: Document[] = [];
    for (let i = 0; i < 10; i++) docs.push({ _id: i, t: new Date(T0 - i * HOUR) });
    for (let i = 10; i < 15; i++) docs.push({ _id: i, t: new Date(T0 + (i - 9) * HOUR) });
    coll(engine).insertMany(docs);
    clock.advance(MIN);
    assert.deepEqual(ids(engine), [10, 11, 12, 13, 14], 'T0 itself expires at the first pass (T0 + 60 s − 60 s)');
  });
});

// ---- engine lifecycle, events, metrics ----------------------------------------------------------

describe('TTL monitor: lifecycle, events and metrics', () => {
  it('engine.close() leaves no timer on the virtual clock', () => {
    const { engine, clock } = setup();
    assert.notEqual(clock.nextTimerAt(), undefined);
    engine.close();
    assert.equal(clock.nextTimerAt(), undefined);
    clock.advance(10 * MIN);
    assert.equal(passes(engine), 0);
    assert.equal(engine.ttl.status().running, false);
  });

  it('engine.close() after passes ran leaves no timer either', () => {
    const { engine, clock } = setup();
    clock.advance(3 * MIN);
    setParameter(engine, 'ttlMonitorSleepSecs', 5);
    engine.close();
    assert.equal(clock.nextTimerAt(), undefined);
  });

  it('rule 7.11: deletions reach onDidChange as batched events with cause "ttl", never one per document', () => {
    const { engine, clock } = setup();
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 60 });
    insertExpired(engine, 500);
    const batches: EngineEvent[][] = [];
    engine.onDidChange((events) => batches.push([...events]));
    clock.advance(MIN);
    const deleted = batches.flat().filter((e) => e.kind === 'documentsDeleted');
    assert.equal(deleted.length, 1, 'one event for the whole visit');
    assert.deepEqual(deleted[0], { kind: 'documentsDeleted', db: DB, collection: 'c', count: 500, cause: 'ttl' });
    assert.ok(batches.length <= 2, `few deliveries, got ${batches.length}`);
  });

  it('rule 7.11: with several visits, one deletion event per visit, counts adding up', () => {
    const { engine, clock } = setup({ parameters: { ttlIndexDeleteTargetDocs: 50 } });
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 60 });
    insertExpired(engine, 120);
    const batches: EngineEvent[][] = [];
    engine.onDidChange((events) => batches.push([...events]));
    clock.advance(MIN);
    const deleted = batches.flat().filter((e) => e.kind === 'documentsDeleted') as Array<
      EngineEvent & { count: number; cause: string }
    >;
    assert.ok(deleted.every((e) => e.cause === 'ttl'));
    assert.equal(
      deleted.reduce((s, e) => s + e.count, 0),
      120,
    );
    assert.ok(deleted.length <= 3, `at most one event per visit, got ${deleted.length}`);
  });

  it('rule 7.12 / 9.4: serverStatus().metrics.ttl values are Longs matching the monitor', () => {
    const { engine, clock } = setup({ parameters: { ttlIndexDeleteTargetDocs: 2, ttlMonitorSubPassTargetSecs: 0 } });
    coll(engine).createIndex({ t: 1 }, { expireAfterSeconds: 60 });
    insertExpired(engine, 5);
    clock.advance(2 * MIN);
    const ttl = (admin(engine, { serverStatus: 1 }).metrics as Document).ttl as Document;
    for (const k of ['passes', 'subPasses', 'deletedDocuments']) assert.ok(ttl[k] instanceof Long, `${k} is a Long`);
    assert.equal((ttl.passes as Long).toNumber(), 2);
    assert.equal((ttl.deletedDocuments as Long).toNumber(), 5);
    // 3 sub-passes for the first pass (2 + 2 + 1 with a zero sub-pass budget) and 1 for the second.
    assert.equal((ttl.subPasses as Long).toNumber(), 4);
  });
});
