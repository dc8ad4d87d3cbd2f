/**
 * The TTL monitor's sleep and its failures (docs/ttl-rules.md §7.1, 7.2, 7.4): a restore suspends
 * and restarts the sleep, only the sleep parameter moves the deadline, a held thread runs due
 * passes itself, a failed pass is reported and the monitor sleeps again, and why it would not run.
 */
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { VirtualClock, type CancelTimer, type Clock } from '../../../../src/engine/clock';
import { interruptedError, isInterruption } from '../../../../src/engine/interrupt';

const DB = 'app';
const T0 = Date.UTC(2026, 0, 1);
const MIN = 60_000;

function engineWithExpired(clock: Clock = new VirtualClock(T0), names = ['a']): Engine {
  const engine = new Engine({ clock });
  for (const name of names) {
    const c = engine.db(DB).collection(name);
    c.createIndex({ t: 1 }, { expireAfterSeconds: 60 });
    const docs: Document[] = [];
    for (let i = 0; i < 3; i++) docs.push({ _id: i, t: new Date(T0 - 3_600_000) });
    c.insertMany(docs);
  }
  return engine;
}

const count = (engine: Engine, name = 'a') => engine.db(DB).collection(name).countDocuments({});
const nextPassAt = (engine: Engine) => engine.ttl.status().nextPassAt?.getTime() ?? null;

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

/** Installs a driver that holds the pass it is given; the test takes its steps. */
function holdingDriver(engine: Engine): { steps: () => Iterator<void, unknown> | undefined; finish: () => void } {
  let held: Iterator<void, unknown> | undefined;
  let finish: () => void = () => undefined;
  engine.ttl.setPassDriver((s) => {
    held = s;
    return new Promise<void>((resolve) => (finish = resolve));
  });
  return { steps: () => held, finish: () => finish() };
}

function captureConsoleErrors(t: TestContext): unknown[][] {
  const calls: unknown[][] = [];
  t.mock.method(console, 'error', (...args: unknown[]) => void calls.push(args));
  return calls;
}

describe('TTL monitor: sleep, restore and failures', () => {
  it('rule 7.1: a suspended sleep runs no pass however far the clock moves, and no parameter change restarts it', () => {
    const clock = new VirtualClock(T0);
    const engine = engineWithExpired(clock);
    engine.ttl.suspendSleep();
    assert.equal(nextPassAt(engine), null);
    engine.runCommand('admin', { setParameter: 1, ttlMonitorSleepSecs: 30 });
    assert.equal(nextPassAt(engine), null, 'changing the sleep while suspended sets no timer');
    clock.advance(10 * MIN);
    assert.equal(count(engine), 3);
    assert.equal(engine.ttl.status().metrics.passes, 0);
  });

  it('rule 7.1: restarting the sleep after a restore runs the first pass one sleep after now, not at once', () => {
    const clock = new VirtualClock(T0);
    const engine = engineWithExpired(clock);
    engine.ttl.suspendSleep();
    clock.advance(10 * MIN);
    engine.ttl.restartSleep();
    assert.equal(nextPassAt(engine), T0 + 11 * MIN);
    clock.advance(MIN - 1);
    assert.equal(count(engine), 3);
    clock.advance(1);
    assert.equal(count(engine), 0);
    assert.equal(engine.ttl.status().metrics.passes, 1);
  });

  it('rule 7.1: a restarted sleep follows later changes of ttlMonitorSleepSecs', () => {
    const clock = new VirtualClock(T0);
    const engine = engineWithExpired(clock);
    engine.ttl.suspendSleep();
    engine.ttl.restartSleep();
    engine.runCommand('admin', { setParameter: 1, ttlMonitorSleepSecs: 5 });
    assert.equal(nextPassAt(engine), T0 + 5_000);
  });

  it('rule 7.1: restarting the sleep of a stopped monitor sets no timer', () => {
    const clock = new VirtualClock(T0);
    const engine = engineWithExpired(clock);
    engine.ttl.stop();
    engine.ttl.restartSleep();
    assert.equal(nextPassAt(engine), null);
    clock.advance(10 * MIN);
    assert.equal(count(engine), 3);
  });

  it('rule 7.1: changing another parameter during a driven pass does not start a sleep', () => {
    const clock = new VirtualClock(T0);
    const engine = engineWithExpired(clock, ['a', 'b']);
    const { steps, finish } = holdingDriver(engine);
    clock.advance(MIN);
    assert.ok(steps(), 'the timer handed the pass to the driver');
    assert.equal(nextPassAt(engine), null, 'the next sleep starts when the pass ends');
    engine.runCommand('admin', { setParameter: 1, ttlIndexDeleteTargetDocs: 10 });
    assert.equal(nextPassAt(engine), null);
    while (!steps()!.next().done);
    finish();
  });

  it('rule 7.2: a held thread runs a due pass itself, not through the driver', () => {
    const clock = new HeldClock(T0);
    const engine = engineWithExpired(clock);
    const { steps } = holdingDriver(engine);
    clock.t = T0 + MIN;
    assert.equal(engine.ttl.runDuePasses(), 1);
    assert.equal(steps(), undefined, 'the driver was not asked');
    assert.equal(count(engine), 0, 'deleted before runDuePasses returned');
  });

  it('rule 7.2: no pass is due while a driven pass runs (its next sleep is not set yet)', async () => {
    const clock = new VirtualClock(T0);
    const engine = engineWithExpired(clock, ['a', 'b']);
    const { steps, finish } = holdingDriver(engine);
    clock.advance(MIN);
    steps()!.next();
    assert.equal(engine.ttl.runDuePasses(), 0);
    assert.equal(engine.ttl.status().metrics.passes, 0);
    while (!steps()!.next().done);
    finish();
    await engine.ttl.whenPassEnded();
    assert.equal(nextPassAt(engine), T0 + 2 * MIN);
  });

  it('rule 7.2: after a host interrupted a driven pass, recoverFromInterruption lets the next pass run', () => {
    const clock = new VirtualClock(T0);
    const engine = engineWithExpired(clock, ['a', 'b']);
    const { steps } = holdingDriver(engine);
    clock.advance(MIN);
    steps()!.next();
    assert.equal(engine.ttl.runPass().skipped, 'a pass is already running');
    engine.recoverFromInterruption();
    const report = engine.ttl.runPass();
    assert.equal(report.skipped, undefined);
    assert.deepEqual([count(engine, 'a'), count(engine, 'b')], [0, 0]);
  });

  it('rule 7.2: a driven pass that fails is reported on the console and the monitor sleeps again', async (t) => {
    const errors = captureConsoleErrors(t);
    const clock = new VirtualClock(T0);
    const engine = engineWithExpired(clock);
    const failure = new Error('driver lost the pass');
    engine.ttl.setPassDriver(() => Promise.reject(failure));
    clock.advance(MIN);
    await engine.ttl.whenPassEnded();
    assert.deepEqual(errors, [['TTL Workbench: TTL pass failed', failure]]);
    assert.equal(nextPassAt(engine), T0 + 2 * MIN);
  });

  it('rule 7.2: a timer-started pass that throws is reported on the console and the monitor sleeps again', (t) => {
    const errors = captureConsoleErrors(t);
    const clock = new VirtualClock(T0);
    const engine = engineWithExpired(clock);
    const failure = new Error('a target factory failed');
    engine.ttl.registerTargets(() => {
      throw failure;
    });
    clock.advance(MIN);
    assert.deepEqual(errors, [['TTL Workbench: TTL pass failed', failure]]);
    assert.equal(nextPassAt(engine), T0 + 2 * MIN);
    assert.equal(engine.ttl.status().metrics.passes, 1, 'the failed pass still counts');
  });

  it('rule 7.2: a timer-started pass stopped by an interrupt ends the statement with it, after the monitor sleeps again', (t) => {
    const errors = captureConsoleErrors(t);
    const clock = new VirtualClock(T0);
    const engine = engineWithExpired(clock);
    let interrupts = 1;
    engine.ttl.registerTargets(() => {
      if (interrupts-- > 0) throw interruptedError();
      return [];
    });
    assert.throws(
      () => clock.advance(MIN),
      (err: unknown) => isInterruption(err) && (err as { code?: number }).code === 11601,
    );
    assert.deepEqual(errors, [], 'an interruption is not a failure');
    assert.equal(nextPassAt(engine), T0 + 2 * MIN);
    clock.advance(MIN);
    assert.equal(count(engine), 0, 'the next pass runs');
  });

  it('rule 7.2: a closed engine says why its monitor would not delete', () => {
    const engine = engineWithExpired();
    engine.close();
    assert.equal(engine.ttl.stoppedBecause(), 'the engine is closed');
  });

  it('rule 7.4: an empty local.system.replset does not stop the monitor', () => {
    const clock = new VirtualClock(T0);
    const engine = engineWithExpired(clock);
    engine.runCommand('local', { create: 'system.replset' });
    assert.equal(engine.ttl.stoppedBecause(), null);
    clock.advance(MIN);
    assert.equal(count(engine), 0);
  });
});
