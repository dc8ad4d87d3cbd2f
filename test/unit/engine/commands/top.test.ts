/**
 * The top command: per namespace, the operations that ran on it by kind, and which lock they took.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Long } from 'bson';
import { Engine, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

function countsOf(engine: Engine, ns: string): Record<string, number> {
  const totals = engine.runCommand('admin', { top: 1 }).totals as Document;
  const entry = totals[ns] as Document;
  return Object.fromEntries(
    Object.entries(entry).map(([k, v]) => [k, Long.fromValue((v as Document).count as Long).toNumber()]),
  );
}

describe('top', () => {
  it('counts each command on a collection by its kind and its lock', () => {
    const engine = new Engine();
    engine.runCommand('app', { insert: 'c', documents: [{ _id: 1 }] });
    engine.runCommand('app', { insert: 'c', documents: [{ _id: 2 }] });
    engine.runCommand('app', { update: 'c', updates: [{ q: { _id: 1 }, u: { x: 1 } }] });
    engine.runCommand('app', { delete: 'c', deletes: [{ q: { _id: 2 }, limit: 1 }] });
    engine.runCommand('app', { find: 'c', filter: {} });
    engine.runCommand('app', { count: 'c' });
    engine.runCommand('app', { findAndModify: 'c', query: { _id: 1 }, update: { $inc: { x: 1 } } });
    assert.deepEqual(countsOf(engine, 'app.c'), {
      total: 7,
      readLock: 2,
      writeLock: 5,
      queries: 1,
      getmore: 0,
      insert: 2,
      update: 1,
      remove: 1,
      commands: 2,
    });
  });

  it('counts a getMore on the collection its cursor reads', () => {
    const engine = new Engine();
    engine.runCommand('app', { insert: 'c', documents: [{ _id: 1 }, { _id: 2 }, { _id: 3 }] });
    const cursor = engine.runCommand('app', { find: 'c', batchSize: 1 }).cursor as Document;
    engine.runCommand('app', { getMore: cursor.id, collection: 'c', batchSize: 1 });
    assert.equal(countsOf(engine, 'app.c').getmore, 1);
  });

  it('lists a namespace once an operation ran on it, even one on a missing collection', () => {
    const engine = new Engine();
    engine.runCommand('app', { find: 'missing', filter: {} });
    const totals = engine.runCommand('admin', { top: 1 }).totals as Document;
    assert.equal(totals.note, 'all times in micros');
    assert.deepEqual(Object.keys(totals), ['note', 'app.missing']);
  });

  it('runs only on admin', () => {
    expectError(() => new Engine().runCommand('app', { top: 1 }), 13);
  });
});
