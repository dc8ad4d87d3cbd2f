/**
 * The count requests behind "expired now / due in the next hour" and the eligibility preview: a
 * range on the TTL field, hinted to the index, answered from the index range (rule 7.7: expired
 * means date ≤ now − expireAfterSeconds, both ends inclusive, dates only).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, VirtualClock, type Document } from '../../../src/engine';
import {
  countReplyN,
  dueWithinCount,
  eligibleWords,
  expiredNowCount,
  expiryThreshold,
  newlyEligibleCount,
} from '../../../src/extension/logic/expiry-counts';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const MIN = 60_000;

function engineWith(docs: Document[], index: Document): Engine {
  const engine = new Engine({ clock: new VirtualClock(NOW) });
  engine.runCommand('app', { insert: 'events', documents: docs });
  engine.runCommand('app', { createIndexes: 'events', indexes: [index] });
  return engine;
}

describe('expiry count requests', () => {
  it('rule 7.7: counts dates at or before now − expireAfterSeconds as expired, and the next window as due', () => {
    const docs = [-120, -61, -60, -59, 0, 30, 59, 61].map((m, i) => ({ _id: i, t: new Date(NOW + m * MIN) }));
    docs.push({ _id: 100, t: 'not a date' as never }, { _id: 101 } as never);
    const engine = engineWith(docs, { key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 });
    const target = { collection: 'events', field: 't', indexName: 't_1' };
    // threshold = now − 1 h: -120, -61, -60 are expired (-60 inclusive).
    assert.equal(countReplyN(engine.runCommand('app', expiredNowCount(target, 3600, NOW))), 3);
    // due within 1 h: threshold < t ≤ now: -59, 0.
    assert.equal(countReplyN(engine.runCommand('app', dueWithinCount(target, 3600, NOW, 3600))), 2);
    engine.close();
  });

  it('is served from the hinted index range, never by a collection scan', () => {
    const docs = Array.from({ length: 50 }, (_, i) => ({ _id: i, t: new Date(NOW - i * MIN), other: i }));
    const engine = engineWith(docs, { key: { t: 1 }, name: 't_1', expireAfterSeconds: 600 });
    const count = expiredNowCount({ collection: 'events', field: 't', indexName: 't_1' }, 600, NOW);
    const explained = engine.runCommand('app', { explain: count, verbosity: 'executionStats' });
    // mongod counts index entries alone here: COUNT over COUNT_SCAN.
    const plan = (explained.queryPlanner as Document).winningPlan as Document;
    assert.equal((plan.inputStage as Document).stage, 'COUNT_SCAN');
    assert.equal((plan.inputStage as Document).indexName, 't_1');
    // Only the expired entries are examined: 40 dates are at or before now − 10 min.
    assert.equal((explained.executionStats as Document).totalKeysExamined, 40);
    engine.close();
  });

  it("puts a partial index's filter in verbatim so the hinted partial index serves the count (rule 1.14)", () => {
    const docs = Array.from({ length: 20 }, (_, i) => ({
      _id: i,
      t: new Date(NOW - 2 * 3600_000),
      status: i % 2 ? 'done' : 'open',
    }));
    const engine = engineWith(docs, {
      key: { t: 1 },
      name: 't_1',
      expireAfterSeconds: 3600,
      partialFilterExpression: { status: 'done' },
    });
    const count = expiredNowCount(
      { collection: 'events', field: 't', indexName: 't_1', partialFilterExpression: { status: 'done' } },
      3600,
      NOW,
    );
    assert.equal(countReplyN(engine.runCommand('app', count)), 10);
    const explained = engine.runCommand('app', { explain: count });
    // COUNT, then FETCH (a partial index's documents are read), then the index scan.
    assert.equal(
      ((((explained.queryPlanner as Document).winningPlan as Document).inputStage as Document).inputStage as Document)
        .stage,
      'IXSCAN',
    );
    engine.close();
  });

  it('counts what a shrinking expireAfterSeconds makes eligible at once, and nothing for a growing one', () => {
    const docs = [10, 30, 50, 70, 90].map((m, i) => ({ _id: i, t: new Date(NOW - m * MIN) }));
    const engine = engineWith(docs, { key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 });
    const target = { collection: 'events', field: 't', indexName: 't_1' };
    // 60 min → 20 min: 30 and 50 become eligible (70 and 90 already were).
    assert.equal(countReplyN(engine.runCommand('app', newlyEligibleCount(target, 3600, 1200, NOW)!)), 2);
    assert.equal(newlyEligibleCount(target, 1200, 3600, NOW), undefined);
    // From no TTL (a conversion): everything past the new threshold.
    assert.equal(countReplyN(engine.runCommand('app', newlyEligibleCount(target, undefined, 1200, NOW)!)), 4);
    engine.close();
  });

  it('rule 5.4: keeps dates before 1970 out of a clustered collection TTL count', () => {
    const c = expiredNowCount({ collection: 'c', field: '_id', indexName: '_id_', notBeforeEpoch: true }, 60, NOW);
    assert.deepEqual(c.query, { _id: { $lte: expiryThreshold(NOW, 60), $gte: new Date(0) } });
    assert.equal(c.hint, '_id_');
  });

  it('words the eligibility preview: none, one, many, and "at least" at the cap', () => {
    assert.equal(eligibleWords(0), 'No existing document becomes eligible at once.');
    assert.equal(eligibleWords(1), '1 existing document becomes eligible at once: the next TTL pass deletes it.');
    assert.equal(
      eligibleWords(1234),
      '1,234 existing documents become eligible at once: the next TTL pass deletes them.',
    );
    assert.equal(
      eligibleWords(100_000, 100_000),
      'At least 100,000 existing documents become eligible at once: the next TTL pass deletes them.',
    );
  });
});
