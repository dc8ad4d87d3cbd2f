/**
 * Counts on a real server never run unbounded: tenfold limit steps under one maxTimeMS budget,
 * exact below the cap, "at least" at the cap, "more than N" when the budget runs out. The step is a
 * plain function here; driver-backend.test.ts runs the same logic against the wire endpoint.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { boundedCount, boundedCountWords, stepLimits } from '../../../src/extension/backend/bounded-count';

const timeLimit = () =>
  Object.assign(new Error('operation exceeded time limit'), { code: 50, codeName: 'MaxTimeMSExpired' });

describe('bounded counts', () => {
  test('steps grow tenfold from 1,000 and end at the cap', () => {
    assert.deepEqual(stepLimits(100_000), [1_000, 10_000, 100_000]);
    assert.deepEqual(stepLimits(500), [500]);
    assert.deepEqual(stepLimits(25_000), [1_000, 10_000, 25_000]);
  });

  test('a count below a step is exact, after one step only', async () => {
    const asked: number[] = [];
    const r = await boundedCount(async (limit) => (asked.push(limit), Math.min(limit, 742)), {
      cap: 100_000,
      maxTimeMS: 1000,
    });
    assert.deepEqual(r, { kind: 'exact', n: 742 });
    assert.deepEqual(asked, [1_000]);
  });

  test('a count that reaches the cap is "at least" the cap', async () => {
    const r = await boundedCount(async (limit) => limit, { cap: 10_000, maxTimeMS: 1000 });
    assert.deepEqual(r, { kind: 'atLeast', n: 10_000 });
    assert.equal(boundedCountWords(r), 'at least 10,000');
  });

  test('the budget running out mid-way gives "more than" the last step reached', async () => {
    const r = await boundedCount(
      async (limit) => {
        if (limit > 10_000) throw timeLimit();
        return limit;
      },
      { cap: 1_000_000, maxTimeMS: 2000 },
    );
    assert.deepEqual(r, { kind: 'moreThan', n: 10_000, maxTimeMS: 2000 });
    assert.equal(boundedCountWords(r), 'more than 10,000 (counting stopped at its 2,000 ms limit)');
  });

  test('each step gets only the time left of the one budget', async () => {
    let t = 0;
    const given: number[] = [];
    const r = await boundedCount(
      async (limit, ms) => {
        given.push(ms);
        t += 600;
        return limit;
      },
      { cap: 1_000_000, maxTimeMS: 1000, now: () => t },
    );
    assert.deepEqual(given, [1000, 400]);
    assert.deepEqual(r, { kind: 'moreThan', n: 10_000, maxTimeMS: 1000 });
  });

  test('other errors are not mistaken for running out of time', async () => {
    await assert.rejects(
      boundedCount(
        async () => {
          throw Object.assign(new Error('bad hint'), { code: 2 });
        },
        { cap: 10, maxTimeMS: 100 },
      ),
      /bad hint/,
    );
  });
});
