/**
 * mongod's rules for what a transaction's commands may carry and touch: commitTransaction /
 * abortTransaction never start one, read concerns only on the first statement and of the levels a
 * transaction takes, write concerns only on commit / abort, no writes to capped collections.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Long, UUID } from 'bson';
import { Engine, EngineError, VirtualClock } from '../../../src/engine';
import type { Document } from '../../../src/engine';

function setup() {
  const engine = new Engine({ clock: new VirtualClock(Date.parse('2026-01-01T00:00:00Z')), replSetName: 'rs0' });
  const lsid = { id: new UUID() };
  const txn = (dbName: string, command: Document, txnNumber: number, start = false): Document =>
    engine.runInSession(dbName, command, {
      lsid,
      txnNumber: Long.fromNumber(txnNumber),
      autocommit: false,
      ...(start ? { startTransaction: true } : {}),
    });
  return { engine, txn };
}

function codeOf(fn: () => unknown): number {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof EngineError, String(err));
    return err.code;
  }
  assert.fail('expected an EngineError');
}

describe('transaction rules', () => {
  it('autocommit: true is InvalidOptions (72) on any statement, commit and abort included', () => {
    const { engine, txn } = setup();
    const lsid = { id: new UUID() };
    const withTrue = (dbName: string, command: Document, start: boolean) =>
      engine.runInSession(dbName, command, {
        lsid,
        txnNumber: Long.fromNumber(1),
        autocommit: true,
        ...(start ? { startTransaction: true } : {}),
      });
    assert.equal(
      codeOf(() => withTrue('app', { find: 'c' }, true)),
      72,
    );
    txn('app', { find: 'c' }, 0, true);
    assert.equal(
      codeOf(() => withTrue('admin', { commitTransaction: 1 }, false)),
      72,
    );
  });

  it('commitTransaction / abortTransaction without autocommit read as a retryable write they are not: 50768', () => {
    const { engine, txn } = setup();
    txn('app', { find: 'c' }, 0, true);
    for (const name of ['commitTransaction', 'abortTransaction']) {
      const err = (() => {
        try {
          engine.runInSession('admin', { [name]: 1 }, { lsid: { id: new UUID() }, txnNumber: Long.fromNumber(0) });
        } catch (e) {
          return e as EngineError;
        }
        assert.fail('expected an error');
      })();
      assert.equal(err.code, 50768);
      assert.match(err.message, new RegExp(`${name} is not a retryable write command`));
    }
  });

  it('two open transactions writing one unique index key, on different documents: the second write is WriteConflict (112)', () => {
    const engine = new Engine({ clock: new VirtualClock(Date.parse('2026-01-01T00:00:00Z')), replSetName: 'rs0' });
    engine.runCommand('app', { createIndexes: 'c', indexes: [{ key: { x: 1 }, name: 'x_1', unique: true }] });
    const s1 = { lsid: { id: new UUID() }, txnNumber: Long.fromNumber(0), autocommit: false };
    const s2 = { lsid: { id: new UUID() }, txnNumber: Long.fromNumber(0), autocommit: false };
    engine.runInSession('app', { insert: 'c', documents: [{ _id: 1, x: 1 }] }, { ...s1, startTransaction: true });
    const err = (() => {
      try {
        engine.runInSession('app', { insert: 'c', documents: [{ _id: 2, x: 1.0 }] }, { ...s2, startTransaction: true });
      } catch (e) {
        return e as EngineError;
      }
      assert.fail('expected a WriteConflict');
    })();
    assert.equal(err.code, 112);
    assert.deepEqual(err.info?.errorLabels, ['TransientTransactionError']);
    engine.runInSession('admin', { commitTransaction: 1 }, s1);
    assert.equal(
      codeOf(() => engine.runInSession('admin', { commitTransaction: 1 }, s2)),
      251,
    );
    // Other keys of the index do not conflict.
    const s3 = { lsid: { id: new UUID() }, txnNumber: Long.fromNumber(0), autocommit: false };
    engine.runInSession('app', { insert: 'c', documents: [{ _id: 3, x: 3 }] }, { ...s3, startTransaction: true });
    engine.runInSession('admin', { commitTransaction: 1 }, s3);
  });

  it('a unique index key that a write outside the transaction took after its snapshot: the write is WriteConflict (112)', () => {
    const engine = new Engine({ clock: new VirtualClock(Date.parse('2026-01-01T00:00:00Z')), replSetName: 'rs0' });
    engine.runCommand('app', { createIndexes: 'c', indexes: [{ key: { x: 1 }, name: 'x_1', unique: true }] });
    engine.runCommand('app', {
      insert: 'c',
      documents: [
        { _id: 1, x: 1 },
        { _id: 2, x: 2 },
      ],
    });
    const s1 = { lsid: { id: new UUID() }, txnNumber: Long.fromNumber(0), autocommit: false };
    engine.runInSession('app', { find: 'c' }, { ...s1, startTransaction: true });
    engine.runCommand('app', { update: 'c', updates: [{ q: { _id: 2 }, u: { $set: { x: 3 } } }] });
    assert.equal(
      codeOf(() =>
        engine.runInSession('app', { update: 'c', updates: [{ q: { _id: 1 }, u: { $set: { x: 3 } } }] }, s1),
      ),
      112,
    );
  });

  it("a retryable write with an open transaction's txnNumber is IncompleteTransactionHistory (217); the transaction goes on", () => {
    const engine = new Engine({ clock: new VirtualClock(Date.parse('2026-01-01T00:00:00Z')), replSetName: 'rs0' });
    const lsid = { id: new UUID() };
    const fields = { lsid, txnNumber: Long.fromNumber(3) };
    engine.runInSession(
      'app',
      { insert: 'c', documents: [{ _id: 1 }] },
      { ...fields, autocommit: false, startTransaction: true },
    );
    assert.equal(
      codeOf(() => engine.runInSession('app', { insert: 'c', documents: [{ _id: 2 }] }, fields)),
      217,
    );
    engine.runInSession('admin', { commitTransaction: 1 }, { ...fields, autocommit: false });
    const docs = (engine.runCommand('app', { find: 'c' }).cursor as Document).firstBatch as Document[];
    assert.deepEqual(docs, [{ _id: 1 }]);
  });

  for (const name of ['commitTransaction', 'abortTransaction']) {
    it(`${name} cannot start a transaction: OperationNotSupportedInTransaction (263), and none is started`, () => {
      const { txn } = setup();
      assert.equal(
        codeOf(() => txn('admin', { [name]: 1 }, 0, true)),
        263,
      );
      assert.equal(
        codeOf(() => txn('admin', { abortTransaction: 1 }, 0)),
        251,
      );
    });
  }

  it('a read concern on a statement after the first is InvalidOptions (72)', () => {
    const { txn } = setup();
    txn('app', { find: 'c', readConcern: { level: 'snapshot' } }, 0, true);
    assert.equal(
      codeOf(() => txn('app', { find: 'c', readConcern: { level: 'snapshot' } }, 0)),
      72,
    );
  });

  it('a transaction starts only with read concern local, majority or snapshot; an unknown level is FailedToParse (9)', () => {
    const { txn } = setup();
    for (const [n, level] of ['local', 'majority', 'snapshot'].entries()) {
      assert.equal(txn('app', { find: 'c', readConcern: { level } }, n, true).ok, 1);
    }
    assert.equal(
      codeOf(() => txn('app', { find: 'c', readConcern: { level: 'linearizable' } }, 10, true)),
      72,
    );
    assert.equal(
      codeOf(() => txn('app', { find: 'c', readConcern: { level: 'available' } }, 11, true)),
      72,
    );
    assert.equal(
      codeOf(() => txn('app', { find: 'c', readConcern: { level: 'bad' } }, 12, true)),
      9,
    );
  });

  it("readConcern snapshot on a write outside a transaction is InvalidOptions (72), in a session or not; reads and a transaction's first write take it", () => {
    const { engine, txn } = setup();
    const snapshot = { readConcern: { level: 'snapshot' } };
    const writes: Document[] = [
      { insert: 'c', documents: [{ _id: 0 }], ...snapshot },
      { update: 'c', updates: [{ q: { _id: 0 }, u: { $set: { x: 1 } } }], ...snapshot },
      { delete: 'c', deletes: [{ q: { _id: 0 }, limit: 1 }], ...snapshot },
      { findAndModify: 'c', query: { _id: 0 }, remove: true, ...snapshot },
    ];
    for (const write of writes) {
      assert.equal(
        codeOf(() => engine.runCommand('app', write)),
        72,
      );
      assert.equal(
        codeOf(() => engine.runInSession('app', write, { lsid: { id: new UUID() } })),
        72,
      );
    }
    assert.equal(engine.runCommand('app', { find: 'c', ...snapshot }).ok, 1);
    assert.equal(txn('app', { insert: 'c', documents: [{ _id: 1 }], ...snapshot }, 0, true).ok, 1);
  });

  it('a write concern on a statement is InvalidOptions (72); commitTransaction takes one', () => {
    const { txn } = setup();
    assert.equal(
      codeOf(() => txn('app', { insert: 'c', documents: [{}], writeConcern: { w: 1 } }, 0, true)),
      72,
    );
    txn('app', { insert: 'c', documents: [{ _id: 1 }] }, 1, true);
    assert.equal(txn('admin', { commitTransaction: 1, writeConcern: { w: 'majority' } }, 1).ok, 1);
  });

  it('writes to a capped collection in a transaction are OperationNotSupportedInTransaction (263); reads work', () => {
    const { engine, txn } = setup();
    engine.runCommand('app', { create: 'log', capped: true, size: 4096 });
    engine.runCommand('app', { insert: 'log', documents: [{ _id: 1 }] });
    assert.equal(
      codeOf(() => txn('app', { insert: 'log', documents: [{ _id: 2 }] }, 0, true)),
      263,
    );
    const reply = txn('app', { find: 'log' }, 1, true);
    assert.equal(((reply.cursor as Document).firstBatch as Document[]).length, 1);
    assert.equal(
      codeOf(() => txn('app', { update: 'log', updates: [{ q: {}, u: { $set: { a: 1 } } }] }, 1)),
      263,
    );
  });

  it('an unordered write batch in a transaction stops at its first error, and the error aborts the transaction', () => {
    const { txn } = setup();
    txn('app', { insert: 'c', documents: [{ _id: 1 }] }, 0, true);
    const reply = txn(
      'app',
      { insert: 'c', ordered: false, documents: [{ _id: 2 }, { _id: 1 }, { _id: 1 }, { _id: 3 }] },
      0,
    );
    assert.equal(reply.n, 1);
    assert.equal((reply.writeErrors as Document[]).length, 1);
    assert.equal((reply.writeErrors as Document[])[0].index, 1);
    assert.equal(
      codeOf(() => txn('admin', { commitTransaction: 1 }, 0)),
      251,
    );
  });

  for (const stage of ['$indexStats', '$collStats', '$out', '$merge']) {
    it(`${stage} in a transaction's aggregation is OperationNotSupportedInTransaction (263)`, () => {
      const { engine, txn } = setup();
      engine.runCommand('app', { insert: 'c', documents: [{ _id: 1 }] });
      const spec =
        stage === '$out'
          ? 'other'
          : stage === '$merge'
            ? { into: 'other' }
            : stage === '$collStats'
              ? { count: {} }
              : {};
      assert.equal(
        codeOf(() => txn('app', { aggregate: 'c', pipeline: [{ [stage]: spec }], cursor: {} }, 0, true)),
        263,
      );
    });
  }

  it('reading system.views in a transaction is refused with 51071', () => {
    const { engine, txn } = setup();
    engine.runCommand('app', { create: 'v', viewOn: 'c', pipeline: [] });
    assert.equal(
      codeOf(() => txn('app', { find: 'system.views', filter: {} }, 0, true)),
      51071,
    );
  });

  it("reading system.views by its UUID in a transaction is refused with 51070; another collection's UUID is not", () => {
    const { engine, txn } = setup();
    engine.runCommand('app', { create: 'v', viewOn: 'c', pipeline: [] });
    engine.runCommand('app', { create: 'c' });
    const infos = (engine.runCommand('app', { listCollections: 1 }).cursor as Document).firstBatch as Document[];
    const uuidOf = (name: string) => (infos.find((i) => i.name === name)?.info as Document).uuid;
    assert.equal(
      codeOf(() => txn('app', { find: uuidOf('system.views'), filter: {} }, 0, true)),
      51070,
    );
    assert.notEqual(
      codeOf(() => txn('app', { find: uuidOf('c'), filter: {} }, 1, true)),
      51070,
    );
  });

  it('an insert outside a transaction of a document an open transaction wrote waits for it: with maxTimeMS, MaxTimeMSExpired (50), and the transaction commits', () => {
    const { engine, txn } = setup();
    engine.runCommand('app', { create: 'c' });
    txn('app', { insert: 'c', documents: [{ _id: 'held' }] }, 0, true);
    assert.equal(
      codeOf(() => engine.runCommand('app', { insert: 'c', documents: [{ _id: 'held' }], maxTimeMS: 10 })),
      50,
    );
    // A document no transaction holds is written at once.
    assert.equal(engine.runCommand('app', { insert: 'c', documents: [{ _id: 'free' }], maxTimeMS: 10 }).n, 1);
    assert.equal(txn('admin', { commitTransaction: 1 }, 0).ok, 1);
    assert.equal(engine.runCommand('app', { count: 'c' }).n, 2);
  });

  it('dbstats is an alias of dbStats, as on mongod', () => {
    const { engine } = setup();
    assert.equal(engine.runCommand('app', { dbstats: 1 }).ok, 1);
  });
});
