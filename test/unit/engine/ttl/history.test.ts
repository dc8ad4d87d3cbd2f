/**
 * The monitor's pass history (TTLMonitor.history()): what each pass did, as "is the monitor keeping
 * up?" needs it (rules 7.2, 7.3).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine } from '../../../../src/engine';
import { VirtualClock } from '../../../../src/engine/clock';
import { PASS_HISTORY } from '../../../../src/engine/ttl/monitor';

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
