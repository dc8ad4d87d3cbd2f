/**
 * transactionLifetimeLimitSeconds: an open transaction older than the limit (on the engine's clock,
 * the virtual one included) is aborted, as by mongod's periodic reaper; its later statements and
 * its commit fail with NoSuchTransaction (251) labelled TransientTransactionError.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Long, UUID } from 'bson';
import { Engine, EngineError, VirtualClock } from '../../../src/engine';
import type { Document } from '../../../src/engine';

const START = Date.parse('2026-01-01T00:00:00Z');

function setup(parameters?: Record<string, unknown>) {
  const clock = new VirtualClock(START);
  const engine = new Engine({ clock, replSetName: 'rs0', ...(parameters ? { parameters } : {}) });
  const lsid = { id: new UUID() };
  const inTxn = (dbName: string, command: Document, start = false): Document =>
    engine.runInSession(dbName, command, {
      lsid,
      txnNumber: Long.fromNumber(0),
      autocommit: false,
      ...(start ? { startTransaction: true } : {}),
    });
  return { clock, engine, lsid, inTxn };
}

function failure(fn: () => unknown): EngineError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof EngineError, String(err));
    return err;
  }
  assert.fail('expected an EngineError');
}

describe('transactionLifetimeLimitSeconds', () => {
  it('defaults to 60 and is read and set with getParameter / setParameter', () => {
    const { engine } = setup();
    const limit = () =>
      Number(
        engine.runCommand('admin', { getParameter: 1, transactionLifetimeLimitSeconds: 1 })
          .transactionLifetimeLimitSeconds,
      );
    assert.equal(limit(), 60);
    engine.runCommand('admin', { setParameter: 1, transactionLifetimeLimitSeconds: 5 });
    assert.equal(limit(), 5);
  });

  it('must be at least 1 second', () => {
    const { engine } = setup();
    const err = failure(() => engine.runCommand('admin', { setParameter: 1, transactionLifetimeLimitSeconds: 0 }));
    assert.equal(err.code, 2);
  });

  it('a transaction open longer than the limit is aborted when the virtual clock passes it: its writes are gone, later statements get NoSuchTransaction (251)', () => {
    const { clock, engine, inTxn } = setup();
    inTxn('app', { insert: 'c', documents: [{ _id: 1 }] }, true);
    assert.equal(engine.replication?.sessions.openTransactions, 1);
    clock.advance(59_000);
    assert.equal(engine.replication?.sessions.openTransactions, 1, 'not before the limit');
    clock.advance(1_000);
    assert.equal(engine.replication?.sessions.openTransactions, 0, 'aborted at the limit');
    const err = failure(() => inTxn('app', { insert: 'c', documents: [{ _id: 2 }] }));
    assert.equal(err.code, 251);
    assert.equal(err.codeName, 'NoSuchTransaction');
    assert.match(err.message, /^Transaction 0 has been aborted\./);
    assert.match(err.message, /transactionLifetimeLimitSeconds/);
    assert.deepEqual(err.toReply().errorLabels, ['TransientTransactionError']);
    const commit = failure(() => inTxn('admin', { commitTransaction: 1 }));
    assert.equal(commit.code, 251);
    assert.equal(engine.runCommand('app', { count: 'c' }).n, 0);
  });

  it('the limit is read when the transaction starts: a lower limit set later applies to the next transaction', () => {
    const { clock, engine, inTxn } = setup({ transactionLifetimeLimitSeconds: 10 });
    inTxn('app', { insert: 'c', documents: [{ _id: 1 }] }, true);
    engine.runCommand('admin', { setParameter: 1, transactionLifetimeLimitSeconds: 100 });
    clock.advance(10_000);
    assert.equal(engine.replication?.sessions.openTransactions, 0);
  });

  it('a transaction committed before the limit is not touched by its expiry', () => {
    const { clock, engine, inTxn } = setup({ transactionLifetimeLimitSeconds: 1 });
    inTxn('app', { insert: 'c', documents: [{ _id: 1 }] }, true);
    inTxn('admin', { commitTransaction: 1 });
    clock.advance(5_000);
    assert.equal(engine.runCommand('app', { count: 'c' }).n, 1);
    // Committing again is still allowed (the commit is retryable), expiry or not.
    assert.equal(inTxn('admin', { commitTransaction: 1 }).ok, 1);
  });

  it('$currentOp lists an open transaction between statements as an inactive transaction until it expires', () => {
    const { clock, engine, lsid, inTxn } = setup();
    inTxn('app', { insert: 'c', documents: [{ _id: 1 }] }, true);
    const idle = (idleSessions?: boolean) =>
      (
        engine.runCommand('admin', {
          aggregate: 1,
          pipeline: [
            { $currentOp: idleSessions === undefined ? { allUsers: true } : { allUsers: true, idleSessions } },
            { $match: { desc: 'inactive transaction' } },
          ],
          cursor: {},
        }).cursor as Document
      ).firstBatch as Document[];
    const [entry] = idle();
    assert.equal(entry.active, false);
    assert.equal(entry.opid, undefined);
    assert.equal(((entry.lsid as Document).id as UUID).toString('hex'), lsid.id.toHexString(false));
    assert.equal(Number(((entry.transaction as Document).parameters as Document).txnNumber), 0);
    assert.equal(idle(false).length, 0, 'idleSessions: false leaves them out');
    clock.advance(60_000);
    assert.equal(idle().length, 0, 'gone once expired');
  });

  it('a statement arriving after the limit finds the transaction aborted even if no timer ran', () => {
    const clock = new VirtualClock(START);
    // A clock whose timers never run: only the statement-time check can abort.
    const frozen = { kind: clock.kind, now: () => clock.now(), setTimer: () => () => {}, dispose: () => {} };
    const engine = new Engine({ clock: frozen, replSetName: 'rs0' });
    const lsid = { id: new UUID() };
    const fields = { lsid, txnNumber: Long.fromNumber(0), autocommit: false };
    engine.runInSession('app', { insert: 'c', documents: [{ _id: 1 }] }, { ...fields, startTransaction: true });
    clock.set(START + 61_000);
    const err = failure(() => engine.runInSession('app', { find: 'c' }, fields));
    assert.equal(err.code, 251);
  });
});
