/**
 * mongosh's explicit sessions in the playground shell: `db.getMongo().startSession()`, its
 * databases carrying the lsid and transaction fields, the driver's client-side transaction states
 * and errors, withTransaction's retries, causal consistency's times, and the standalone refusal.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { harness, plain } from './helpers';

const rs = () => harness({ replSetName: 'rs0', dbName: 'app' });

describe('shell sessions: startSession and what a session prints', () => {
  it('startSession() gives a session that prints as its id document, as mongosh prints it', () => {
    const h = rs();
    const text = h.rendered('const s = db.getMongo().startSession(); s');
    assert.match(text ?? '', /^\{ id: UUID\('[0-9a-f-]{36}'\) \}$/);
    const printed: string[] = [];
    const r = h.session.evaluate('printjson(s)');
    assert.ok(r.ok);
    printed.push(...r.statements[0].output);
    assert.match(printed.join('\n'), /^\{\n {2}id: UUID\('[0-9a-f-]{36}'\)\n\}$/);
  });

  it('getSessionId() and session.id are the lsid the session sends: { id: UUID }', () => {
    const h = rs();
    const same = h.value(
      'const s = db.getMongo().startSession(); s.getSessionId().id.toHexString() === s.id.id.toHexString()',
    );
    assert.equal(same, true);
    assert.match(String(h.value('s.getSessionId().id.toHexString()')), /^[0-9a-f]{8}-[0-9a-f]{4}-/);
  });

  it('two sessions have different ids', () => {
    const h = rs();
    assert.equal(
      h.value(
        'db.getMongo().startSession().getSessionId().id.toHexString() !== db.getMongo().startSession().getSessionId().id.toHexString()',
      ),
      true,
    );
  });

  it('startSession refuses options that are not an object', () => {
    const h = rs();
    assert.equal(h.failure('db.getMongo().startSession(5)').error?.name, 'TypeError');
  });

  it('getOptions() returns the options the session was started with', () => {
    const h = rs();
    assert.deepEqual(plain(h.value('db.getMongo().startSession({ causalConsistency: false }).getOptions()')), {
      causalConsistency: false,
    });
  });
});

describe('shell sessions: transactions on a replica-set engine', () => {
  it('writes in a transaction are seen inside it and not outside until commitTransaction', () => {
    const h = rs();
    h.last(`
      const s = db.getMongo().startSession();
      const inTxn = s.getDatabase("app").items;
      s.startTransaction();
      inTxn.insertOne({ _id: 1 });
    `);
    assert.equal(h.value('db.items.countDocuments()'), 0);
    assert.equal(h.value('inTxn.countDocuments()'), 1);
    assert.equal(h.value('inTxn.find().toArray().length'), 1);
    h.last('s.commitTransaction()');
    assert.equal(h.value('db.items.countDocuments()'), 1);
  });

  it('abortTransaction discards the transaction writes', () => {
    const h = rs();
    h.last(`
      const s = db.getMongo().startSession();
      s.startTransaction();
      s.getDatabase("app").items.insertMany([{ _id: 1 }, { _id: 2 }]);
      s.abortTransaction();
    `);
    assert.equal(h.value('db.items.countDocuments()'), 0);
  });

  it('the transaction reads its snapshot: a write outside after its first read is not seen', () => {
    const h = rs();
    h.last(`
      db.items.insertOne({ _id: 1, v: 1 });
      const s = db.getMongo().startSession();
      s.startTransaction({ readConcern: { level: "snapshot" } });
      const c = s.getDatabase("app").items;
      c.findOne({ _id: 1 });
      db.items.updateOne({ _id: 1 }, { $set: { v: 2 } });
    `);
    assert.equal(h.value('c.findOne({ _id: 1 }).v'), 1);
    assert.equal(h.value('db.items.findOne({ _id: 1 }).v'), 2);
  });

  it('a second transaction after a commit runs with the next txnNumber', () => {
    const h = rs();
    h.last(`
      const s = db.getMongo().startSession();
      const c = s.getDatabase("app").items;
      s.startTransaction(); c.insertOne({ _id: 1 }); s.commitTransaction();
      s.startTransaction(); c.insertOne({ _id: 2 }); s.commitTransaction();
    `);
    assert.equal(h.value('db.items.countDocuments()'), 2);
  });

  it('outside a transaction a session database writes at once (lsid only)', () => {
    const h = rs();
    h.last('const s = db.getMongo().startSession(); s.getDatabase("app").items.insertOne({ _id: 1 })');
    assert.equal(h.value('db.items.countDocuments()'), 1);
  });

  it('a write conflict with another transaction is WriteConflict (112) labelled TransientTransactionError', () => {
    const h = rs();
    h.last(`
      db.items.insertOne({ _id: 1, v: 0 });
      const a = db.getMongo().startSession(), b = db.getMongo().startSession();
      a.startTransaction(); b.startTransaction();
      a.getDatabase("app").items.updateOne({ _id: 1 }, { $set: { v: 1 } });
    `);
    const failed = h.failure('b.getDatabase("app").items.updateOne({ _id: 1 }, { $set: { v: 2 } })');
    assert.equal(failed.error?.code, 112);
    assert.equal(failed.error?.codeName, 'WriteConflict');
    const labels = h.value(`
      let caught;
      try { b.getDatabase("app").items.updateOne({ _id: 1 }, { $set: { v: 2 } }) } catch (e) { caught = e }
      [caught.code, caught.hasErrorLabel("TransientTransactionError")]
    `);
    // The transaction was aborted by the first conflict: the retry meets NoSuchTransaction (251).
    assert.deepEqual(plain(labels), [251, true]);
  });
});

describe("shell sessions: the driver's client-side transaction errors", () => {
  const cases: Array<[string, string, string]> = [
    ['startTransaction twice', 's.startTransaction(); s.startTransaction()', 'Transaction already in progress'],
    ['commit with none started', 's.commitTransaction()', 'No transaction started'],
    ['abort with none started', 's.abortTransaction()', 'No transaction started'],
    [
      'abort after commit',
      's.startTransaction(); s.commitTransaction(); s.abortTransaction()',
      'Cannot call abortTransaction after calling commitTransaction',
    ],
    [
      'abort twice',
      's.startTransaction(); s.abortTransaction(); s.abortTransaction()',
      'Cannot call abortTransaction twice',
    ],
    [
      'commit after abort',
      's.startTransaction(); s.abortTransaction(); s.commitTransaction()',
      'Cannot call commitTransaction after calling abortTransaction',
    ],
  ];
  for (const [what, source, message] of cases) {
    it(`${what}: MongoTransactionError "${message}"`, () => {
      const h = rs();
      h.last('const s = db.getMongo().startSession()');
      const failed = h.failure(source);
      assert.equal(failed.error?.name, 'MongoTransactionError');
      assert.equal(failed.error?.message, message);
    });
  }

  it('commitTransaction may be called again after a commit (the driver retries it)', () => {
    const h = rs();
    h.last(`
      const s = db.getMongo().startSession();
      s.startTransaction(); s.getDatabase("app").items.insertOne({ _id: 1 });
      s.commitTransaction(); s.commitTransaction();
    `);
    assert.equal(h.value('db.items.countDocuments()'), 1);
  });

  it('an ended session refuses use: MongoExpiredSessionError, and its open transaction is aborted', () => {
    const h = rs();
    h.last(`
      const s = db.getMongo().startSession();
      const c = s.getDatabase("app").items;
      s.startTransaction(); c.insertOne({ _id: 1 });
      s.endSession();
    `);
    assert.equal(h.value('s.hasEnded()'), true);
    const failed = h.failure('c.insertOne({ _id: 2 })');
    assert.equal(failed.error?.name, 'MongoExpiredSessionError');
    assert.equal(failed.error?.message, 'Use of expired sessions is not permitted');
    assert.equal(h.engine.replication?.sessions.openTransactions, 0);
    assert.equal(h.value('db.items.countDocuments()'), 0);
  });
});

describe('shell sessions: withTransaction', () => {
  it('commits what the function wrote and returns its result', () => {
    const h = rs();
    const result = h.value(`
      const s = db.getMongo().startSession();
      s.withTransaction(() => { s.getDatabase("app").items.insertOne({ _id: 1 }); return 42; })
    `);
    assert.equal(result, 42);
    assert.equal(h.value('db.items.countDocuments()'), 1);
  });

  it('starts over when the function fails with TransientTransactionError', () => {
    const h = rs();
    const tries = h.value(`
      db.items.insertOne({ _id: 1, v: 0 });
      const s = db.getMongo().startSession(), other = db.getMongo().startSession();
      let tries = 0;
      s.withTransaction(() => {
        tries++;
        if (tries === 1) {
          // Another transaction holds the document: this attempt meets a write conflict.
          other.startTransaction();
          other.getDatabase("app").items.updateOne({ _id: 1 }, { $set: { v: 9 } });
        } else other.abortTransaction();
        s.getDatabase("app").items.updateOne({ _id: 1 }, { $inc: { v: 1 } });
      });
      tries
    `);
    assert.equal(tries, 2);
    assert.equal(h.value('db.items.findOne({ _id: 1 }).v'), 1);
  });

  it('an error without the label aborts the transaction and reaches the caller', () => {
    const h = rs();
    const failed = h.failure(`
      const s = db.getMongo().startSession();
      s.withTransaction(() => { s.getDatabase("app").items.insertOne({ _id: 1 }); throw new Error("stop"); })
    `);
    assert.equal(failed.error?.message, 'stop');
    assert.equal(h.value('db.items.countDocuments()'), 0);
    assert.equal(h.engine.replication?.sessions.openTransactions, 0);
  });

  it('needs a function', () => {
    const h = rs();
    assert.equal(h.failure('db.getMongo().startSession().withTransaction(5)').error?.name, 'TypeError');
  });
});

describe('shell sessions: causal consistency times', () => {
  it('operationTime and clusterTime follow the engine after each command of the session', () => {
    const h = rs();
    h.last('const s = db.getMongo().startSession(); s.getDatabase("app").items.insertOne({ _id: 1 })');
    const [op, ct] = plain(
      h.value('[s.getOperationTime().toString(), s.getClusterTime().clusterTime.toString()]') as string[],
    );
    const engineTime = h.engine.replication!.oplog.clusterTime.toString();
    assert.equal(op, engineTime);
    assert.equal(ct, engineTime);
    assert.equal(h.value('s.getClusterTime().signature.keyId'), 0);
  });

  it('advanceOperationTime keeps the later of two times; a non-Timestamp is refused', () => {
    const h = rs();
    h.last('const s = db.getMongo().startSession(); s.advanceOperationTime(Timestamp({ t: 100, i: 2 }))');
    h.last('s.advanceOperationTime(Timestamp({ t: 50, i: 1 }))');
    assert.equal(h.value('s.getOperationTime().getHighBits()'), 100);
    assert.equal(h.failure('s.advanceOperationTime(5)').error?.name, 'MongoInvalidArgumentError');
  });

  it('advanceClusterTime needs a clusterTime Timestamp and a signature', () => {
    const h = rs();
    h.last('const s = db.getMongo().startSession()');
    assert.match(h.failure('s.advanceClusterTime({ clusterTime: 1 })').error?.message ?? '', /clusterTime/);
    assert.match(
      h.failure('s.advanceClusterTime({ clusterTime: Timestamp({ t: 1, i: 1 }) })').error?.message ?? '',
      /signature/,
    );
    h.last(
      's.advanceClusterTime({ clusterTime: Timestamp({ t: 9, i: 1 }), signature: { hash: BinData(0, ""), keyId: 0 } })',
    );
    assert.equal(h.value('s.getClusterTime().clusterTime.getHighBits()'), 9);
  });

  it('on a standalone engine a session has no operation time', () => {
    const h = harness();
    h.last('const s = db.getMongo().startSession(); s.getDatabase("test").c.insertOne({})');
    assert.equal(h.value('s.getOperationTime()'), undefined);
  });
});

describe('shell sessions: on a standalone engine', () => {
  it("a transaction's first statement fails as on a standalone mongod: IllegalOperation (20), saying how to get a replica set", () => {
    const h = harness();
    const failed = h.failure(`
      const s = db.getMongo().startSession();
      s.startTransaction();
      s.getDatabase("test").c.insertOne({ _id: 1 })
    `);
    assert.equal(failed.error?.code, 20);
    assert.equal(failed.error?.codeName, 'IllegalOperation');
    assert.match(
      failed.error?.message ?? '',
      /^Transaction numbers are only allowed on a replica set member or mongos\./,
    );
    assert.match(failed.error?.message ?? '', /"replSet"/);
    assert.match(failed.error?.message ?? '', /--replSet/);
    assert.equal(h.value('db.c.countDocuments()'), 0);
  });

  it('a session without a transaction works on a standalone', () => {
    const h = harness();
    h.last('db.getMongo().startSession().getDatabase("test").c.insertOne({ _id: 1 })');
    assert.equal(h.value('db.c.countDocuments()'), 1);
  });
});

describe('shell sessions: raw session commands', () => {
  it('db.runCommand with its own lsid, txnNumber and autocommit runs in that transaction', () => {
    const h = rs();
    h.last(`
      const lsid = { id: UUID() };
      db.runCommand({ insert: "items", documents: [{ _id: 1 }], lsid, txnNumber: NumberLong(0), autocommit: false, startTransaction: true });
    `);
    assert.equal(h.value('db.items.countDocuments()'), 0);
    h.last('db.adminCommand({ commitTransaction: 1, lsid, txnNumber: NumberLong(0), autocommit: false })');
    assert.equal(h.value('db.items.countDocuments()'), 1);
  });

  it('killSessions aborts the session transaction', () => {
    const h = rs();
    h.last(`
      const s = db.getMongo().startSession();
      s.startTransaction();
      s.getDatabase("app").items.insertOne({ _id: 1 });
      db.adminCommand({ killSessions: [s.getSessionId()] });
    `);
    assert.equal(h.engine.replication?.sessions.openTransactions, 0);
    const failed = h.failure('s.commitTransaction()');
    assert.equal(failed.error?.code, 251);
    assert.equal(failed.error?.codeName, 'NoSuchTransaction');
  });

  it('startSession as a command answers an id and the timeout, as mongod', () => {
    const h = rs();
    assert.deepEqual(
      plain(h.value('const r = db.adminCommand({ startSession: 1 }); [typeof r.id.id, r.timeoutMinutes, r.ok]')),
      ['object', 30, 1],
    );
  });
});
