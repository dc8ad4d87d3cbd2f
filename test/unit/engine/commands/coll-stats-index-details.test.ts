/**
 * collStats' indexDetails option: one entry per index, from the index's own structure.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';

describe('collStats: indexDetails', () => {
  it('is left out unless asked for', () => {
    const engine = new Engine();
    engine.runCommand('app', { insert: 'c', documents: [{ a: 1 }] });
    assert.equal('indexDetails' in engine.runCommand('app', { collStats: 'c' }), false);
    assert.equal('indexDetails' in engine.runCommand('app', { collStats: 'c', indexDetails: false }), false);
  });

  it('with indexDetails: true, names every index with its entries, size and multikey state', () => {
    const engine = new Engine();
    engine.runCommand('app', { insert: 'c', documents: [{ a: [1, 2] }, { a: 3 }] });
    engine.runCommand('app', { createIndexes: 'c', indexes: [{ key: { a: 1 }, name: 'a_1' }] });
    const stats = engine.runCommand('app', { collStats: 'c', indexDetails: true });
    const details = stats.indexDetails as Document;
    assert.deepEqual(Object.keys(details), ['_id_', 'a_1']);
    assert.deepEqual(details.a_1, {
      type: 'btree',
      entries: 3,
      size: (stats.indexSizes as Document).a_1,
      multikey: true,
    });
    assert.equal((details._id_ as Document).entries, 2);
  });
});
