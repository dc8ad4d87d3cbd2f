/**
 * maxTimeMS and interruption at safe points: validation as mongod's parser (BadValue 2 for a
 * non-number, a value out of 0..2^31-1, a double with a fraction), MaxTimeMSExpired (50) once the
 * real time is up — read from the engine's monotonic source, never from its (virtual) clock —,
 * Interrupted (11601) from an interrupt flag, and a stopped write that keeps (and journals) the
 * documents written before the safe point, failing the whole command (ok: 0) as mongod does.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BSON, Double, Int32, Long } from 'bson';
import { Engine, EngineError, VirtualClock, type Document } from '../../../../src/engine';
import {
  InterruptAfterChecks,
  InterruptFlag,
  OperationDeadline,
  checkForInterrupt,
  parseMaxTimeMS,
  withInterrupts,
} from '../../../../src/engine/interrupt';

const T0 = Date.UTC(2026, 0, 1);

/** An engine whose monotonic time moves 1 ms at every read: deadlines expire after a known amount of work. */
function engineWithTicks(storage?: { commit(frame: Document): void }) {
  let t = 0;
  const engine = new Engine({ clock: new VirtualClock(T0), elapsedTime: () => t++, storage });
  const docs = Array.from({ length: 5000 }, (_, i) => ({ _id: i, n: i % 100, g: `g${i % 13}` }));
  engine.runCommand('app', { insert: 'c', documents: docs });
  return engine;
}

function codeOf(fn: () => unknown): number | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    assert.ok(err instanceof EngineError, String(err));
    return err.code;
  }
}

describe('maxTimeMS validation (mongod parseMaxTimeMS)', () => {
  it('accepts whole numbers of any numeric type; 0 means no limit', () => {
    assert.equal(parseMaxTimeMS(undefined), undefined);
    assert.equal(parseMaxTimeMS(0), undefined);
    assert.equal(parseMaxTimeMS(100), 100);
    assert.equal(parseMaxTimeMS(new Int32(7)), 7);
    assert.equal(parseMaxTimeMS(Long.fromNumber(9)), 9);
    assert.equal(parseMaxTimeMS(new Double(12)), 12);
    assert.equal(parseMaxTimeMS(2147483647), 2147483647);
  });

  it('rejects a non-number, a negative or too large value, and a fraction with BadValue (2)', () => {
    const engine = new Engine({ clock: new VirtualClock(T0) });
    engine.runCommand('app', { insert: 'c', documents: [{ _id: 1 }] });
    const cases: Array<[unknown, RegExp]> = [
      ['10', /maxTimeMS must be a number/],
      [true, /maxTimeMS must be a number/],
      [-1, /-1 value for maxTimeMS is out of range/],
      [2147483648, /value for maxTimeMS is out of range/],
      [Long.fromNumber(-5), /-5 value for maxTimeMS is out of range/],
      [1.5, /maxTimeMS has non-integral value/],
      [NaN, /non-integral value/],
    ];
    for (const [value, message] of cases) {
      for (const cmd of [
        { find: 'c' },
        { count: 'c' },
        { update: 'c', updates: [{ q: {}, u: { $set: { a: 1 } } }] },
        { aggregate: 'c', pipeline: [], cursor: {} },
      ]) {
        assert.throws(
          () => engine.runCommand('app', { ...cmd, maxTimeMS: value }),
          (err: EngineError) => err.code === 2 && err.codeName === 'BadValue' && message.test(err.message),
          `${JSON.stringify(cmd)} maxTimeMS ${String(value)}`,
        );
      }
    }
    // A rejected command changed nothing.
    assert.equal(engine.runCommand('app', { count: 'c', query: { a: 1 } }).n, 0);
  });
});

describe('maxTimeMS on commands (real elapsed time, checked at safe points)', () => {
  const commands: Array<[string, Document]> = [
    ['find', { find: 'c', filter: { n: { $gte: 0 } }, sort: { g: 1, n: -1 } }],
    [
      'aggregate',
      { aggregate: 'c', pipeline: [{ $group: { _id: '$g', s: { $sum: '$n' } } }, { $sort: { s: 1 } }], cursor: {} },
    ],
    ['count', { count: 'c', query: { n: { $lt: 90 } } }],
    ['distinct', { distinct: 'c', key: 'n', query: { g: { $ne: 'x' } } }],
    ['findAndModify', { findAndModify: 'c', query: { n: 99, g: 'none' }, update: { $set: { hit: true } } }],
    ['update', { update: 'c', updates: [{ q: {}, u: { $inc: { n: 1 } }, multi: true }] }],
    ['delete', { delete: 'c', deletes: [{ q: { n: { $gte: 0 } }, limit: 0 }] }],
  ];
  for (const [name, cmd] of commands) {
    it(`${name} fails with MaxTimeMSExpired (50) once its time is up, and runs to the end with time to spare`, () => {
      const engine = engineWithTicks();
      assert.equal(
        codeOf(() => engine.runCommand('app', { ...cmd, maxTimeMS: 5 })),
        50,
      );
      assert.equal(
        codeOf(() => engine.runCommand('app', { ...cmd, maxTimeMS: 1_000_000 })),
        undefined,
      );
    });
  }

  it('the deadline reads the monotonic source, not the engine clock: a virtual clock standing still does not stop it', () => {
    let t = 0;
    const engine = new Engine({ clock: new VirtualClock(T0), elapsedTime: () => (t += 10) });
    engine.runCommand('app', { insert: 'c', documents: Array.from({ length: 2000 }, (_, i) => ({ _id: i })) });
    const err = (() => {
      try {
        engine.runCommand('app', { find: 'c', filter: { x: { $exists: false } }, maxTimeMS: 100 });
      } catch (e) {
        return e as EngineError;
      }
    })();
    assert.equal(err?.codeName, 'MaxTimeMSExpired');
    assert.match(err.message, /operation exceeded time limit/);
    assert.equal(engine.clock.now(), T0);
  });

  it('a multi-document write stopped by its time limit fails the whole command (ok: 0, no writeErrors) and keeps — and journals — what it wrote', () => {
    const frames: Document[] = [];
    const engine = engineWithTicks({ commit: (f) => void frames.push(BSON.deserialize(BSON.serialize(f))) });
    const framesBefore = frames.length;
    assert.equal(
      codeOf(() =>
        engine.runCommand('app', {
          update: 'c',
          updates: [{ q: {}, u: { $set: { done: true } }, multi: true }],
          maxTimeMS: 60,
        }),
      ),
      50,
    );
    const updated = engine.runCommand('app', { count: 'c', query: { done: true } }).n as number;
    assert.ok(updated > 0 && updated < 5000, `a part was updated (${updated})`);
    assert.equal(frames.length, framesBefore + 1, 'one frame for the stopped command');
    const puts = (frames[frames.length - 1].ops as Document[]).filter((op) => op.put !== undefined);
    assert.equal(puts.length, updated, 'the frame holds exactly the documents updated');
    assert.ok(puts.every((op) => (op.d as Document).done === true));
  });

  it('an ordered insert stopped between documents keeps the documents before the stop; none half-inserted', () => {
    const engine = new Engine({ clock: new VirtualClock(T0) });
    engine.runCommand('app', { createIndexes: 'c', indexes: [{ key: { k: 1 }, name: 'k_1', unique: true }] });
    const stop = new InterruptAfterChecks(300);
    const docs = Array.from({ length: 1000 }, (_, i) => ({ _id: i, k: i }));
    assert.equal(
      codeOf(() => withInterrupts(stop, () => engine.runCommand('app', { insert: 'c', documents: docs }))),
      11601,
    );
    const count = engine.runCommand('app', { count: 'c' }).n;
    assert.equal(count, 299);
    assert.equal(engine.runCommand('app', { count: 'c', query: { k: { $gte: 0 } }, hint: { k: 1 } }).n, 299);
  });
});

describe('interrupt sources', () => {
  it('an InterruptFlag fails the next safe point with Interrupted (11601) until reset', () => {
    const flag = new InterruptFlag();
    withInterrupts(flag, () => checkForInterrupt());
    flag.request();
    assert.throws(
      () => withInterrupts(flag, () => checkForInterrupt()),
      (err: EngineError) =>
        err.code === 11601 && err.codeName === 'Interrupted' && /operation was interrupted/.test(err.message),
    );
    flag.reset();
    withInterrupts(flag, () => checkForInterrupt());
    // Outside withInterrupts nothing is installed: a check is free and never throws.
    flag.request();
    checkForInterrupt();
  });

  it('an OperationDeadline reads its time source only every so many checks, and fails every check once expired', () => {
    let reads = 0;
    let now = 0;
    const deadline = new OperationDeadline(10, { time: () => (reads++, now), checkEvery: 100 });
    withInterrupts(deadline, () => {
      for (let i = 0; i < 1000; i++) checkForInterrupt();
    });
    assert.equal(reads, 1 + 10, 'one read at construction, one per 100 checks');
    now = 10;
    assert.throws(
      () =>
        withInterrupts(deadline, () => {
          for (let i = 0; i < 100; i++) checkForInterrupt();
        }),
      (err: EngineError) => err.code === 50,
    );
    assert.throws(
      () => withInterrupts(deadline, () => checkForInterrupt()),
      (err: EngineError) => err.code === 50,
    );
  });
});
