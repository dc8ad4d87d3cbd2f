/**
 * Index scans over bounds that are not one key range (several intervals on a field, or bounds on
 * the fields after a range) test each key against every field's intervals and seek past the gaps,
 * so keysExamined is what mongod's bounds checker reads: each key inside, each key that makes the
 * cursor seek, and the one key that ends the scan.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';

function ageRatings(): Engine {
  const e = new Engine();
  const docs = [];
  for (let age = 10; age < 50; age++) for (let rating = 0; rating < 10; rating++) docs.push({ age, rating });
  e.runCommand('t', { insert: 'c', documents: docs });
  e.runCommand('t', { createIndexes: 'c', indexes: [{ key: { age: 1, rating: 1 }, name: 'ar' }] });
  return e;
}

function stats(e: Engine, filter: Document, sort?: Document): Document {
  const reply = e.runCommand('t', {
    explain: { find: 'c', filter, hint: 'ar', ...(sort ? { sort } : {}) },
    verbosity: 'executionStats',
  });
  return reply.executionStats as Document;
}

function bounds(e: Engine, filter: Document): Document {
  const reply = e.runCommand('t', { explain: { find: 'c', filter, hint: 'ar' }, verbosity: 'queryPlanner' });
  let s = (reply.queryPlanner as Document).winningPlan as Document;
  while (s.stage !== 'IXSCAN') s = s.inputStage as Document;
  return s.indexBounds as Document;
}

describe('checked index scans', () => {
  it('a seek past the last key ends the scan: a regex prefix on strings with no regex stored reads one key (jstest regex6)', () => {
    const e = new Engine();
    e.runCommand('t', { insert: 'c', documents: [{ name: 'bob' }, { name: 'aaron' }, { name: '[with]some?symbols' }] });
    e.runCommand('t', { createIndexes: 'c', indexes: [{ key: { name: 1 }, name: 'n' }] });
    const explain = (regex: RegExp) =>
      e.runCommand('t', { explain: { find: 'c', filter: { name: regex } }, verbosity: 'executionStats' });
    // ["/", "0") then the regex interval: '[with]…' is past the first, and nothing is at or past the
    // second's start, so the scan ends there instead of reading 'aaron' and 'bob'.
    assert.equal((explain(/^\//).executionStats as Document).totalKeysExamined, 1);
    assert.equal((explain(/^\./).executionStats as Document).totalKeysExamined, 1);
    assert.equal((explain(/^./).executionStats as Document).totalKeysExamined, 3);
  });

  it('a range followed by $in points seeks from point to point: 3 keys per age for ratings 0 and 9, and one to end', () => {
    const e = ageRatings();
    const filter = { age: { $gte: 25, $lte: 30 }, rating: { $in: [9, 0] } };
    assert.deepEqual(bounds(e, filter), { age: ['[25, 30]'], rating: ['[0, 0]', '[9, 9]'] });
    const s = stats(e, filter);
    assert.equal(s.totalKeysExamined, 19);
    assert.equal(s.nReturned, 12);
  });

  it('the scan ends at a key past the last point once the range is at its last value', () => {
    const e = ageRatings();
    assert.equal(stats(e, { age: { $gte: 25, $lte: 30 }, rating: { $in: [0, 8] } }).totalKeysExamined, 24);
    assert.equal(stats(e, { age: { $gte: 25, $lte: 30 }, rating: { $in: [1, 8] } }).totalKeysExamined, 29);
    assert.equal(stats(e, { age: { $gte: 29, $lte: 30 }, rating: 5 }).totalKeysExamined, 5);
    assert.equal(stats(e, { age: { $gte: 29, $lte: 30 }, rating: { $gte: 4, $lte: 5 } }).totalKeysExamined, 7);
  });

  it('a backward scan (a reversed sort) reads the same keys in reverse and returns them in the sort order', () => {
    const e = ageRatings();
    const filter = { age: { $gte: 29, $lte: 30 }, rating: { $gte: 4, $lte: 5 } };
    const reply = e.runCommand('t', { find: 'c', filter, hint: 'ar', sort: { age: -1, rating: -1 } });
    const docs = ((reply.cursor as Document).firstBatch as Document[]).map((d) => [d.age, d.rating]);
    assert.deepEqual(docs, [
      [30, 5],
      [30, 4],
      [29, 5],
      [29, 4],
    ]);
    assert.equal(stats(e, filter, { age: -1, rating: -1 }).totalKeysExamined, 7);
  });

  it('points then an exclusive range read the key past each point, the one that opens the next, and the last', () => {
    const e = new Engine();
    e.runCommand('t', {
      insert: 'c',
      documents: [
        { age: 1, rating: 1 },
        { age: 1, rating: 2 },
        { age: 2, rating: 1 },
        { age: 2, rating: 2 },
      ],
    });
    e.runCommand('t', { createIndexes: 'c', indexes: [{ key: { age: 1, rating: 1 }, name: 'ar' }] });
    const filter = { age: { $in: [1, 2] }, rating: { $gt: 1, $lt: 2 } };
    assert.equal(stats(e, filter).totalKeysExamined, 3);
    assert.equal(stats(e, filter, { age: -1, rating: -1 }).totalKeysExamined, 3);
    assert.equal(stats(e, filter).nReturned, 0);
  });
});
