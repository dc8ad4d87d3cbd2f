/**
 * What compileUpdate and applyUpdate promise besides the operators themselves: an update with a
 * positional `$` asks the statement for the position its query matched (and only such an update),
 * and an update object is parsed once however many documents it updates.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { applyUpdate, compileUpdate, parseArrayFilters, type UpdateContext } from '../../../../src/engine/query/update';

const ctx: UpdateContext = { now: new Date('2024-05-01T12:00:00.000Z'), isInsert: false };

describe('compileUpdate: the matched position', () => {
  it('an update with a `$` part needs the position the query matched', () => {
    assert.equal(compileUpdate({ $set: { 'a.$': 1 } }).usesMatchedPosition, true);
    assert.equal(compileUpdate({ $inc: { n: 1 }, $set: { 'a.$.b': 1 } }).usesMatchedPosition, true);
  });

  it('plain paths, `$[]` and `$[<id>]` do not need the matched position', () => {
    assert.equal(compileUpdate({ $set: { a: 1, 'b.c': 2 } }).usesMatchedPosition, false);
    assert.equal(compileUpdate({ $set: { 'a.$[]': 1 } }).usesMatchedPosition, false);
    const filters = parseArrayFilters([{ x: 1 }], 'arrayFilters');
    assert.equal(compileUpdate({ $set: { 'a.$[x]': 2 } }, filters).usesMatchedPosition, false);
  });

  it('the update command gives a `$` update the element its query matched', () => {
    const engine = new Engine();
    engine.runCommand('app', { insert: 'c', documents: [{ _id: 1, a: [1, 2, 3] }] });
    const reply = engine.runCommand('app', { update: 'c', updates: [{ q: { a: 2 }, u: { $set: { 'a.$': 9 } } }] });
    assert.equal(reply.nModified, 1, JSON.stringify(reply));
    const docs = (engine.runCommand('app', { find: 'c', filter: {} }).cursor as Document).firstBatch as Document[];
    assert.deepEqual(docs, [{ _id: 1, a: [1, 9, 3] }]);
  });
});

describe('applyUpdate: one parse per update object', () => {
  it('applyUpdate parses an update object once, however many documents it updates', () => {
    let reads = 0;
    const update: Document = {};
    // Parsing reads the operator's argument; applying a parsed update never does.
    Object.defineProperty(update, '$inc', {
      enumerable: true,
      get: () => {
        reads++;
        return { n: 1 };
      },
    });
    assert.deepEqual(applyUpdate({ _id: 1, n: 1 }, update, ctx).doc, { _id: 1, n: 2 });
    const afterFirst = reads;
    assert.ok(afterFirst > 0);
    assert.deepEqual(applyUpdate({ _id: 2, n: 5 }, update, ctx).doc, { _id: 2, n: 6 });
    assert.deepEqual(applyUpdate({ _id: 3 }, update, ctx).doc, { _id: 3, n: 1 });
    assert.equal(reads, afterFirst);
  });
});
