/**
 * Lock waits between transactions and DDL: an open transaction holds intent locks on every
 * collection it used until it ends, and a drop or an index build of such a collection needs an
 * exclusive lock. Nothing else runs while the engine waits, so the transaction can only end by
 * expiring: a maxTimeMS shorter than its remaining lifetime fails with MaxTimeMSExpired (50);
 * otherwise the transaction is aborted as mongod's reaper aborts it and the command goes on.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Long, UUID } from 'bson';
import { Engine, EngineError, VirtualClock } from '../../../src/engine';
import type { Document } from '../../../src/engine';

function setup() {
  const engine = new Engine({ clock: new VirtualClock(Date.parse('2026-01-01T00:00:00Z')), replSetName: 'rs0' });
  engine.runCommand('app', {
    insert: 'c',
    documents: [
      { _id: 1, a: 1 },
      { _id: 2, a: 2 },
    ],
  });
  engine.runCommand('app', { insert: 'other', documents: [{ _id: 1 }] });
  const lsid = { id: new UUID() };
  const inTxn = (command: Document, start = false): Document =>
    engine.runInSession('app', command, {
      lsid,
      txnNumber: Long.fromNumber(0),
      autocommit: false,
      ...(start ? { startTransaction: true } : {}),
    });
  const commit = () =>
    engine.runInSession('admin', { commitTransaction: 1 }, { lsid, txnNumber: Long.fromNumber(0), autocommit: false });
  return { engine, inTxn, commit };
}

function codeOf(fn: () => unknown): number {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof EngineError, String(err));
    return err.code;
  }
  return 0;
}

describe('transactions and DDL locks', () => {
  it('a drop of a collection an open transaction read waits for it: the transaction is aborted as expired, the drop works', () => {
    const { engine, inTxn, commit } = setup();
    inTxn({ find: 'c', batchSize: 1 }, true);
    assert.equal(engine.runCommand('app', { drop: 'c' }).ok, 1);
    assert.equal(engine.getCollection('app', 'c'), undefined);
    assert.equal(codeOf(commit), 251, 'NoSuchTransaction: the reaper aborted it');
  });

  it('a drop with a maxTimeMS shorter than the transaction has left fails with MaxTimeMSExpired and changes nothing', () => {
    const { engine, inTxn, commit } = setup();
    inTxn({ insert: 'c', documents: [{ _id: 3 }] }, true);
    assert.equal(
      codeOf(() => engine.runCommand('app', { drop: 'c', maxTimeMS: 500 })),
      50,
    );
    assert.ok(engine.getCollection('app', 'c'));
    assert.equal(commit().ok, 1);
  });

  it('createIndexes of a new index waits; one that already exists is a no-op that does not', () => {
    const { engine, inTxn, commit } = setup();
    engine.runCommand('app', { createIndexes: 'c', indexes: [{ key: { a: 1 }, name: 'a_1' }] });
    inTxn({ insert: 'c', documents: [{ _id: 3, a: 3 }] }, true);
    const same = engine.runCommand('app', { createIndexes: 'c', indexes: [{ key: { a: 1 }, name: 'a_1' }] });
    assert.equal(same.numIndexesBefore, same.numIndexesAfter);
    const fresh = { createIndexes: 'c', indexes: [{ key: { b: 1 }, name: 'b_1' }], maxTimeMS: 500 };
    assert.equal(
      codeOf(() => engine.runCommand('app', fresh)),
      50,
    );
    assert.equal(commit().ok, 1, 'the transaction was left alone');
  });

  it('a collection the transaction did not use is not locked by it', () => {
    const { engine, inTxn, commit } = setup();
    inTxn({ find: 'c' }, true);
    assert.equal(
      engine.runCommand('app', { createIndexes: 'other', indexes: [{ key: { x: 1 }, name: 'x_1' }], maxTimeMS: 500 })
        .ok,
      1,
    );
    assert.equal(engine.runCommand('app', { drop: 'other', maxTimeMS: 500 }).ok, 1);
    assert.equal(commit().ok, 1);
  });
});
