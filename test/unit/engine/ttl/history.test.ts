/**
 * The monitor's pass history (TTLMonitor.history()): what each pass did, as "is the monitor keeping
 * up?" needs it (rules 7.2, 7.3).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine } from '../../../../src/engine';
import { VirtualClock } from '../../../../src/engine/clock';
import { PASS_HISTORY } from '../../../../src/engine/ttl/monitor';
import { BACKLOG_COUNT_LIMIT } from '../../../../src/engine/ttl/targets';
import { loadLegacyIndexSpec } from '../../../../src/engine/ttl/legacy';

const T0 = Date.UTC(2026, 0, 1);

function engineWithExpired(count: number): { engine: Engine; clock: VirtualClock } {
  const clock = new VirtualClock(T0);
  const engine = new Engine({ clock });
  engine.runCommand('admin', { setParameter: 1, ttlMonitorEnabled: false });
  const documents = Array.from({ length: count }, (_, i) => ({ _id: i, at: new Date(T0 - 3600_000) }));
  if (count) engine.runCommand('app', { insert: 'c', documents });
  engine.runCommand('app', { createIndexes: 'c', indexes: [{ key: { at: 1 }, name: 'at_1', expireAfterSeconds: 60 }] });
  engine.runCommand('admin', { setParameter: 1, ttlMonitorEnabled: true });
  return { engine, clock };
}

describe('TTL monitor history', () => {
  it('rule 7.3: each pass is kept with its deletes and sub-passes; a visit stopped at its budget counts as cut short', () => {
    const { engine } = engineWithExpired(250);
    engine.runCommand('admin', { setParameter: 1, ttlIndexDeleteTargetDocs: 100 });
    const report = engine.ttl.runPass();
    engine.ttl.runPass();
    const history = engine.ttl.history();
    assert.equal(history.length, 2);
    assert.equal(history[0].deleted, 250);
    assert.equal(history[0].subPasses, report.subPasses);
    assert.equal(history[0].cutShort, report.visits.filter((v) => v.outcome === 'more').length);
    assert.ok(history[0].cutShort >= 2);
    assert.equal(history[0].startedAt.getTime(), T0);
    assert.equal(typeof history[0].millis, 'number');
    assert.deepEqual([history[1].deleted, history[1].cutShort], [0, 0], 'nothing left for the second pass');
  });

  it("rule 7.4: a secondary's pass is kept with why it deleted nothing", () => {
    const { engine } = engineWithExpired(3);
    engine.setRole('secondary');
    engine.ttl.runPass();
    const [pass] = engine.ttl.history();
    assert.equal(pass.deleted, 0);
    assert.match(String(pass.skipped), /secondary/);
    engine.setRole('primary');
    engine.ttl.runPass();
    assert.equal(engine.ttl.history()[1].skipped, undefined, 'a pass that ran has no skipped reason');
  });

  it('rule 7.2: a disabled monitor records no pass; the history keeps the last PASS_HISTORY passes, oldest first', () => {
    const { engine, clock } = engineWithExpired(0);
    engine.runCommand('admin', { setParameter: 1, ttlMonitorEnabled: false });
    engine.ttl.runPass();
    assert.equal(engine.ttl.history().length, 0);
    engine.runCommand('admin', { setParameter: 1, ttlMonitorEnabled: true });
    for (let i = 0; i < PASS_HISTORY + 5; i++) {
      clock.set(T0 + (i + 1) * 1000);
      engine.ttl.runPass();
    }
    const history = engine.ttl.history();
    assert.equal(history.length, PASS_HISTORY);
    // (The monitor's own passes every 60 s of the clock are in it too.)
    assert.ok(history[0].startedAt.getTime() > T0 + 5 * 1000, 'the oldest are gone');
    for (let i = 1; i < history.length; i++)
      assert.ok(history[i].startedAt.getTime() >= history[i - 1].startedAt.getTime(), 'oldest first');
    assert.equal(history.at(-1)!.startedAt.getTime(), T0 + (PASS_HISTORY + 5) * 1000);
    history[0].startedAt.setTime(0);
    assert.notEqual(engine.ttl.history()[0].startedAt.getTime(), 0, 'callers get copies');
  });
});

describe('TTL monitor history: the backlog (eligible documents left after a pass)', () => {
  it('rule 7.2: a complete pass on a primary leaves no backlog; its rule is listed with what it deleted', () => {
    const { engine } = engineWithExpired(40);
    engine.runCommand('admin', { setParameter: 1, ttlIndexDeleteTargetDocs: 10 });
    engine.ttl.runPass();
    const [pass] = engine.ttl.history();
    assert.equal(pass.deleted, 40);
    assert.equal(pass.backlog, 0);
    assert.deepEqual(
      pass.targets.map((t) => [t.db, t.collection, t.target, t.deleted, t.visits, t.backlog]),
      [['app', 'c', 'index at_1', 40, 4, 0]],
    );
  });

  it("rule 7.4: a secondary's passes leave the eligible documents, and the backlog grows as more fall due", () => {
    const { engine, clock } = engineWithExpired(7);
    engine.runCommand('app', {
      insert: 'c',
      documents: [
        { _id: 'soon', at: new Date(T0 + 30_000) },
        { _id: 'later', at: new Date(T0 + 10 * 60_000) },
      ],
    });
    engine.setRole('secondary');
    engine.ttl.runPass();
    clock.set(T0 + 90_000);
    engine.ttl.runPass();
    const passes = engine.ttl.history().filter((p) => p.skipped);
    assert.deepEqual(
      passes.map((p) => p.backlog),
      [7, 7, 8],
      "at T0 the 7 old ones; the monitor's own pass at T0 + 60 s the same; at T0 + 90 s the one dated T0 + 30 s too (60 s rule)",
    );
    assert.deepEqual(
      passes.at(-1)!.targets.map((t) => [t.target, t.deleted, t.backlog]),
      [['index at_1', 0, 8]],
    );
    engine.setRole('primary');
    engine.ttl.runPass();
    const last = engine.ttl.history().at(-1)!;
    assert.deepEqual([last.deleted, last.backlog, last.targets.length], [8, 0, 1]);
  });

  it('rules 7.8 / 5.4 / 6.2 / 10.1: each kind of rule counts its own backlog (multikey by document, clustered from 1970, time series by bucket, Cosmos by _ts)', () => {
    const clock = new VirtualClock(T0);
    const engine = new Engine({ clock });
    engine.runCommand('admin', { setParameter: 1, ttlMonitorEnabled: false });
    const old = new Date(T0 - 3 * 3600_000);
    engine.runCommand('app', {
      insert: 'multi',
      documents: [
        { _id: 1, at: [old, new Date(T0 - 2 * 3600_000)] },
        { _id: 2, at: [new Date(T0 + 3600_000), old] },
        { _id: 3, at: [new Date(T0 + 3600_000)] },
      ],
    });
    engine.runCommand('app', {
      createIndexes: 'multi',
      indexes: [{ key: { at: -1 }, name: 'at', expireAfterSeconds: 60 }],
    });
    engine.runCommand('app', {
      create: 'clus',
      clusteredIndex: { key: { _id: 1 }, unique: true },
      expireAfterSeconds: 60,
    });
    engine.runCommand('app', {
      insert: 'clus',
      documents: [{ _id: old }, { _id: new Date(Date.UTC(1960, 0, 1)) }, { _id: 'x' }, { _id: new Date(T0) }],
    });
    engine.runCommand('app', {
      create: 'ts',
      timeseries: { timeField: 't', bucketMaxSpanSeconds: 3600, bucketRoundingSeconds: 3600 },
      expireAfterSeconds: 60,
    });
    // Buckets at T0 − 3 h (2 measurements, due) and T0 − 1 h (due at T0 + 1 min: not yet).
    engine.runCommand('app', {
      insert: 'ts',
      documents: [{ t: old }, { t: new Date(old.getTime() + 1000) }, { t: new Date(T0 - 3600_000) }],
    });
    engine.setRole('secondary');
    engine.runCommand('admin', { setParameter: 1, ttlMonitorEnabled: true });
    engine.ttl.runPass();
    const [pass] = engine.ttl.history();
    const byRule = Object.fromEntries(pass.targets.map((t) => [`${t.collection} ${t.target}`, t.backlog]));
    assert.deepEqual(byRule, { 'multi index at': 2, 'clus collection': 1, 'ts collection': 2 });
    assert.equal(pass.backlog, 5);

    const cosmosClock = new VirtualClock(T0);
    const cosmos = new Engine({ clock: cosmosClock, flavor: 'cosmos' });
    cosmos.runCommand('admin', { setParameter: 1, ttlMonitorEnabled: false });
    cosmos.runCommand('app', { insert: 'c', documents: [{ _id: 1 }, { _id: 2, ttl: 30 }, { _id: 3, ttl: -1 }] });
    cosmos.runCommand('app', {
      createIndexes: 'c',
      indexes: [{ key: { _ts: 1 }, name: '_ts_1', expireAfterSeconds: 120 }],
    });
    cosmosClock.set(T0 + 60_000);
    cosmos.setRole('secondary');
    cosmos.runCommand('admin', { setParameter: 1, ttlMonitorEnabled: true });
    cosmos.ttl.runPass();
    assert.equal(cosmos.ttl.history()[0].backlog, 1, 'only the document with ttl: 30 is due after 60 s');
  });

  it('rule 7.6: an index the monitor skips has no backlog but is listed with why', () => {
    const { engine } = engineWithExpired(3);
    engine.runCommand('admin', { setParameter: 1, ttlMonitorEnabled: false });
    engine.runCommand('app', { insert: 'd', documents: [{ at: new Date(T0 - 3600_000) }] });
    loadLegacyIndexSpec(engine, 'app', 'd', { v: 2, key: { at: 1 }, name: 'nan', expireAfterSeconds: NaN });
    engine.runCommand('admin', { setParameter: 1, ttlMonitorEnabled: true });
    engine.ttl.runPass();
    const [pass] = engine.ttl.history();
    const skipped = pass.targets.find((t) => t.collection === 'd');
    assert.ok(skipped, JSON.stringify(pass.targets));
    assert.equal(skipped.backlog, 0);
    assert.match(String(skipped.skipped), /invalid index spec/);
    assert.equal(pass.backlog, 0);
  });

  it('a multikey backlog walk stops at BACKLOG_COUNT_LIMIT and says "at least"', () => {
    const { engine } = engineWithExpired(0);
    engine.runCommand('admin', { setParameter: 1, ttlMonitorEnabled: false });
    const old = new Date(T0 - 3600_000);
    const documents = Array.from({ length: BACKLOG_COUNT_LIMIT + 5 }, (_, i) => ({ _id: i, at: [old, old] }));
    engine.runCommand('app', { insert: 'm', documents: documents.slice(0, 50_000) });
    engine.runCommand('app', { insert: 'm', documents: documents.slice(50_000) });
    engine.runCommand('app', { createIndexes: 'm', indexes: [{ key: { at: 1 }, name: 'at', expireAfterSeconds: 0 }] });
    engine.setRole('secondary');
    engine.runCommand('admin', { setParameter: 1, ttlMonitorEnabled: true });
    engine.ttl.runPass();
    const [pass] = engine.ttl.history();
    assert.equal(pass.backlog, BACKLOG_COUNT_LIMIT);
    assert.equal(pass.backlogAtLeast, true);
    assert.equal(pass.targets.find((t) => t.collection === 'm')?.backlogAtLeast, true);
  });
});
