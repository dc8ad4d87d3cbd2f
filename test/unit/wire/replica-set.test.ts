/**
 * The replica-set mode (`startServer({replSet})`, `--replSet NAME`) through the official driver on
 * a real socket: hello as a one-member set's primary, sessions, transactions with snapshot
 * isolation and mongod's errors, retryable writes, the TTL monitor beside an open transaction,
 * and a committed transaction's durability as one journal frame.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Long, ObjectId, Timestamp, UUID, type Document } from 'bson';
import { MongoClient, MongoServerError } from 'mongodb';
import mongoose from 'mongoose';
import { Engine, VirtualClock } from '../../../src/engine';
import { closeStoredEngine, openStoredEngine } from '../../../src/storage/engine-store';
import { startServer, type RunningServer } from '../../../src/wire';
import { driverOnServer } from './driver-on-server';
import { parseArgs } from '../../../src/cli/args';

const T0 = '2026-01-01T00:00:00.000Z';

type Doc = any;
/** The driver's topology description (not in its public types). */
const topologyOf = (c: MongoClient) =>
  (c as unknown as { topology?: { description: { type: string; setName?: string } } }).topology?.description;

describe('replica-set mode: hello and the driver', () => {
  const live = driverOnServer({ now: T0, replSet: 'rs0' });

  test('the connection string names the set, and the driver sees a replica set with a primary', () => {
    assert.equal(live.server.uri, `mongodb://127.0.0.1:${live.server.port}/?replicaSet=rs0`);
    assert.equal(topologyOf(live.client)?.type, 'ReplicaSetWithPrimary');
    assert.equal(topologyOf(live.client)?.setName, 'rs0');
  });

  test('hello answers as the primary of a one-member set: setName, hosts, primary, me, electionId, cluster time', async () => {
    const hello = await live.client.db('admin').command({ hello: 1 });
    const me = `127.0.0.1:${live.server.port}`;
    assert.equal(hello.setName, 'rs0');
    assert.deepEqual(hello.hosts, [me]);
    assert.equal(hello.primary, me);
    assert.equal(hello.me, me);
    assert.equal(hello.isWritablePrimary, true);
    assert.equal(hello.secondary, false);
    assert.equal(hello.setVersion, 1);
    assert.equal(hello.logicalSessionTimeoutMinutes, 30);
    assert.ok(hello.electionId instanceof ObjectId);
    assert.equal(hello.electionId.toHexString(), '7fffffff0000000000000001');
    assert.ok(hello.topologyVersion.processId instanceof ObjectId);
    assert.ok(hello.operationTime instanceof Timestamp);
    assert.ok(hello.$clusterTime.clusterTime instanceof Timestamp);
    const legacy = await live.client.db('admin').command({ isMaster: 1 });
    assert.equal(legacy.ismaster, true);
    assert.equal(legacy.isWritablePrimary, undefined);
    assert.equal(legacy.setName, 'rs0');
  });

  test('every reply carries operationTime, and the cluster time moves forward with each write', async () => {
    const c = live.client.db('app').collection<Doc>('clock');
    const first = await live.client.db('app').command({ insert: 'clock', documents: [{ a: 1 }] });
    await c.insertOne({ a: 2 });
    const second = await live.client.db('app').command({ ping: 1 });
    assert.ok(first.operationTime instanceof Timestamp);
    assert.equal(second.operationTime.compare(first.operationTime), 1);
  });

  test('directConnection reaches the same member as a direct (Single) topology', async () => {
    const direct = new MongoClient(`mongodb://127.0.0.1:${live.server.port}/?directConnection=true`);
    try {
      await direct.connect();
      assert.equal(topologyOf(direct)?.type, 'Single');
      assert.equal((await direct.db('admin').command({ hello: 1 })).setName, 'rs0');
    } finally {
      await direct.close();
    }
  });

  test('replSetGetStatus and replSetGetConfig describe one healthy PRIMARY; replSetInitiate is AlreadyInitialized (23)', async () => {
    const admin = live.client.db('admin');
    const status = await admin.command({ replSetGetStatus: 1 });
    assert.equal(status.set, 'rs0');
    assert.equal(status.myState, 1);
    assert.equal(status.members.length, 1);
    assert.equal(status.members[0].stateStr, 'PRIMARY');
    assert.equal(status.members[0].name, `127.0.0.1:${live.server.port}`);
    const { config } = await admin.command({ replSetGetConfig: 1 });
    assert.equal(config._id, 'rs0');
    assert.equal(config.members[0].host, `127.0.0.1:${live.server.port}`);
    await assert.rejects(admin.command({ replSetInitiate: {} }), { code: 23, codeName: 'AlreadyInitialized' });
    const opts = await admin.command({ getCmdLineOpts: 1 });
    assert.deepEqual(opts.parsed.replication, { replSet: 'rs0' });
  });

  test('--replSet NAME is a serve and run option; a name with a space or "/" is a usage error', () => {
    const serve = parseArgs(['serve', '--port', '0', '--replSet', 'rs0']);
    assert.equal(serve.command === 'serve' && serve.options.replSet, 'rs0');
    const run = parseArgs(['run', 'a.js', '--replSet', 'set1']);
    assert.equal(run.command === 'run' && run.options.replSet, 'set1');
    assert.throws(() => parseArgs(['serve', '--replSet', 'a b']), /--replSet needs a set name/);
    assert.throws(() => parseArgs(['serve', '--replSet', 'a/b']), /--replSet needs a set name/);
  });
});

describe('replica-set mode: transactions through the driver', () => {
  const live = driverOnServer({ now: T0, replSet: 'rs0' });

  test('a transaction commits all its writes at once; until then no one else sees them', async () => {
    const c = live.client.db('tx').collection<Doc>('commit');
    await c.insertOne({ _id: 1, n: 1 });
    const session = live.client.startSession();
    try {
      session.startTransaction();
      await c.insertOne({ _id: 2, n: 2 }, { session });
      await c.updateOne({ _id: 1 }, { $inc: { n: 10 } }, { session });
      await c.deleteOne({ _id: 1, n: 999 }, { session });
      // Its own writes inside, the committed state outside.
      assert.deepEqual(await c.find({}, { session }).sort({ _id: 1 }).toArray(), [
        { _id: 1, n: 11 },
        { _id: 2, n: 2 },
      ]);
      assert.deepEqual(await c.find().sort({ _id: 1 }).toArray(), [{ _id: 1, n: 1 }]);
      assert.equal(await c.countDocuments({}, { session }), 2);
      await session.commitTransaction();
      assert.deepEqual(await c.find().sort({ _id: 1 }).toArray(), [
        { _id: 1, n: 11 },
        { _id: 2, n: 2 },
      ]);
    } finally {
      await session.endSession();
    }
  });

  test('abortTransaction discards every write of the transaction', async () => {
    const c = live.client.db('tx').collection<Doc>('abort');
    await c.insertOne({ _id: 1, v: 'kept' });
    const session = live.client.startSession();
    try {
      session.startTransaction();
      await c.insertMany([{ _id: 2 }, { _id: 3 }], { session });
      await c.updateOne({ _id: 1 }, { $set: { v: 'changed' } }, { session });
      await session.abortTransaction();
      assert.deepEqual(await c.find().toArray(), [{ _id: 1, v: 'kept' }]);
    } finally {
      await session.endSession();
    }
  });

  test('snapshot isolation: reads in a transaction see the snapshot of its first operation, not later commits', async () => {
    const c = live.client.db('tx').collection<Doc>('snapshot');
    await c.insertMany([
      { _id: 1, v: 'a' },
      { _id: 2, v: 'b' },
    ]);
    const session = live.client.startSession();
    try {
      session.startTransaction();
      assert.equal((await c.findOne({ _id: 1 }, { session }))?.v, 'a');
      // Written outside after the snapshot: the transaction keeps reading what it read first.
      await c.updateOne({ _id: 1 }, { $set: { v: 'later' } });
      await c.insertOne({ _id: 3, v: 'new' });
      await c.deleteOne({ _id: 2 });
      assert.deepEqual(await c.find({}, { session }).sort({ _id: 1 }).toArray(), [
        { _id: 1, v: 'a' },
        { _id: 2, v: 'b' },
      ]);
      await session.commitTransaction();
    } finally {
      await session.endSession();
    }
  });

  test('two transactions writing one document: the second gets WriteConflict (112) labelled TransientTransactionError', async () => {
    const c = live.client.db('tx').collection<Doc>('conflict');
    await c.insertOne({ _id: 1, n: 0 });
    const s1 = live.client.startSession();
    const s2 = live.client.startSession();
    try {
      s1.startTransaction();
      s2.startTransaction();
      await c.updateOne({ _id: 1 }, { $inc: { n: 1 } }, { session: s1 });
      await assert.rejects(c.updateOne({ _id: 1 }, { $inc: { n: 100 } }, { session: s2 }), (e: unknown) => {
        assert.ok(e instanceof MongoServerError);
        assert.equal(e.code, 112);
        assert.equal(e.codeName, 'WriteConflict');
        assert.ok(e.hasErrorLabel('TransientTransactionError'));
        return true;
      });
      // The conflict aborted the second transaction: its commit is NoSuchTransaction (251).
      await assert.rejects(s2.commitTransaction(), { code: 251, codeName: 'NoSuchTransaction' });
      await s1.commitTransaction();
      assert.equal((await c.findOne({ _id: 1 }))?.n, 1);
    } finally {
      await s1.endSession();
      await s2.endSession();
    }
  });

  test('a write outside the transaction to a document it wrote goes first; the commit then fails with WriteConflict and changes nothing', async () => {
    const c = live.client.db('tx').collection<Doc>('outside');
    await c.insertMany([
      { _id: 1, n: 0 },
      { _id: 2, n: 0 },
    ]);
    const session = live.client.startSession();
    try {
      session.startTransaction();
      await c.updateOne({ _id: 1 }, { $set: { n: 1 } }, { session });
      await c.updateOne({ _id: 2 }, { $set: { n: 1 } }, { session });
      await c.updateOne({ _id: 2 }, { $set: { n: -1 } });
      await assert.rejects(session.commitTransaction(), (e: unknown) => {
        assert.ok(e instanceof MongoServerError);
        assert.equal(e.code, 112);
        assert.ok(e.hasErrorLabel('TransientTransactionError'));
        return true;
      });
      assert.deepEqual(await c.find().sort({ _id: 1 }).toArray(), [
        { _id: 1, n: 0 },
        { _id: 2, n: -1 },
      ]);
    } finally {
      await session.endSession();
    }
  });

  test('withTransaction retries a transaction that met a TransientTransactionError, and commits the retry', async () => {
    const c = live.client.db('tx').collection<Doc>('retry');
    await c.insertOne({ _id: 1, n: 0 });
    const session = live.client.startSession();
    let attempts = 0;
    try {
      await session.withTransaction(async () => {
        attempts++;
        await c.updateOne({ _id: 1 }, { $inc: { n: 1 } }, { session });
        if (attempts === 1) await c.updateOne({ _id: 1 }, { $set: { touched: true } }); // outside: the commit conflicts
      });
    } finally {
      await session.endSession();
    }
    assert.equal(attempts, 2);
    const doc = await c.findOne({ _id: 1 });
    assert.equal(doc?.n, 1);
    assert.equal(doc?.touched, true);
  });

  test('a transaction may create a collection and its index; both appear at commit', async () => {
    const db = live.client.db('tx');
    const session = live.client.startSession();
    try {
      session.startTransaction();
      await db.createCollection('made', { session });
      await db.collection<Doc>('made').createIndex({ k: 1 }, { unique: true, session });
      await db.collection<Doc>('made').insertOne({ k: 1 }, { session });
      assert.equal((await db.listCollections({ name: 'made' }).toArray()).length, 0);
      await session.commitTransaction();
      const names = (await db.collection<Doc>('made').indexes()).map((i) => i.name);
      assert.deepEqual(names, ['_id_', 'k_1']);
      assert.equal(await db.collection<Doc>('made').countDocuments(), 1);
    } finally {
      await session.endSession();
    }
  });

  test('commands a transaction may not run answer OperationNotSupportedInTransaction (263) and abort it', async () => {
    const session = live.client.startSession();
    try {
      session.startTransaction();
      await live.client.db('tx').collection<Doc>('ops').insertOne({ a: 1 }, { session });
      await assert.rejects(live.client.db('tx').command({ count: 'ops' }, { session }), {
        code: 263,
        codeName: 'OperationNotSupportedInTransaction',
      });
      await assert.rejects(session.commitTransaction(), { code: 251 });
      assert.equal(await live.client.db('tx').collection<Doc>('ops').countDocuments(), 0);
    } finally {
      await session.endSession();
    }
  });

  test('a duplicate key inside a transaction aborts it: nothing of it is committed', async () => {
    const c = live.client.db('tx').collection<Doc>('dup');
    await c.insertOne({ _id: 1 });
    const session = live.client.startSession();
    try {
      session.startTransaction();
      await c.insertOne({ _id: 2 }, { session });
      await assert.rejects(c.insertOne({ _id: 1 }, { session }), { code: 11000 });
      await assert.rejects(session.commitTransaction(), { code: 251 });
      assert.deepEqual(await c.find().toArray(), [{ _id: 1 }]);
    } finally {
      await session.endSession();
    }
  });

  test('a cursor opened in a transaction continues with getMore inside it', async () => {
    const c = live.client.db('tx').collection<Doc>('cursor');
    await c.insertMany(Array.from({ length: 10 }, (_, i) => ({ _id: i })));
    const session = live.client.startSession();
    try {
      session.startTransaction();
      await c.insertOne({ _id: 10 }, { session });
      const ids = (await c.find({}, { session, batchSize: 3 }).sort({ _id: 1 }).toArray()).map((d) => d._id);
      assert.deepEqual(
        ids,
        Array.from({ length: 11 }, (_, i) => i),
      );
      await session.commitTransaction();
    } finally {
      await session.endSession();
    }
  });

  test('retryable writes: the driver sends txnNumber with each write, and the writes apply once', async () => {
    const c = live.client.db('tx').collection<Doc>('retryable');
    await c.insertOne({ _id: 1 });
    await c.updateOne({ _id: 1 }, { $inc: { n: 1 } });
    await c.findOneAndUpdate({ _id: 1 }, { $inc: { n: 1 } });
    assert.equal((await c.findOne({ _id: 1 }))?.n, 2);
  });

  test('the TTL monitor puts off a collection an open transaction wrote, and deletes after the commit (rule 7.11)', async () => {
    const c = live.client.db('tx').collection<Doc>('ttl');
    await c.createIndex({ at: 1 }, { expireAfterSeconds: 60 });
    const old = new Date(Date.parse(T0) - 3_600_000);
    await c.insertMany([
      { _id: 1, at: old },
      { _id: 2, at: old },
    ]);
    const session = live.client.startSession();
    try {
      session.startTransaction();
      await c.updateOne({ _id: 1 }, { $set: { note: 'in a transaction' } }, { session });
      assert.equal(live.server.ttl.runPass().deleted, 0, 'no delete while the transaction holds a document of it');
      await session.commitTransaction();
      assert.equal(live.server.ttl.runPass().deleted, 2);
      assert.equal(await c.countDocuments(), 0);
    } finally {
      await session.endSession();
    }
  });
});

describe('replica-set mode: session fields as mongod checks them', () => {
  const lsid = { id: new UUID() };
  const engine = new Engine({ clock: new VirtualClock(Date.parse(T0)), replSetName: 'rs0' });
  after(() => engine.close());
  const run = (db: string, cmd: Document, fields: Document) => engine.runInSession(db, cmd, fields);

  test('a retried write (same lsid and txnNumber) returns the first reply and writes nothing again', () => {
    const cmd = { insert: 'r', documents: [{ _id: 1 }] };
    const first = run('app', cmd, { lsid, txnNumber: Long.fromNumber(1) });
    const again = run('app', cmd, { lsid, txnNumber: Long.fromNumber(1) });
    assert.equal(first.n, 1);
    assert.deepEqual(again, first);
    assert.equal(engine.db('app').collection('r').countDocuments({}), 1);
    assert.throws(() => run('app', cmd, { lsid, txnNumber: Long.fromNumber(0) }), {
      code: 225,
      codeName: 'TransactionTooOld',
    });
  });

  test('txnNumber needs an lsid, autocommit a txnNumber, startTransaction autocommit; autocommit must be false', () => {
    assert.throws(() => run('app', { find: 'r' }, { txnNumber: 5 }), { code: 72, message: /requires a session ID/ });
    assert.throws(() => run('app', { find: 'r' }, { lsid, autocommit: false }), {
      code: 72,
      message: /'autocommit' field requires a transaction number/,
    });
    assert.throws(() => run('app', { find: 'r' }, { lsid, txnNumber: 5, startTransaction: true }), {
      code: 72,
      message: /'startTransaction' field requires 'autocommit'/,
    });
    assert.throws(() => run('app', { find: 'r' }, { lsid, txnNumber: 5, autocommit: true, startTransaction: true }), {
      code: 72,
      message: /autocommit=true is not allowed/,
    });
  });

  test('a statement of a transaction never started is NoSuchTransaction (251); a second start is ConflictingOperationInProgress (117)', () => {
    assert.throws(
      () => run('app', { find: 'r' }, { lsid, txnNumber: 10, autocommit: false }),
      (e: unknown) => {
        const err = e as { code: number; info?: Document };
        assert.equal(err.code, 251);
        assert.deepEqual(err.info?.errorLabels, ['TransientTransactionError']);
        return true;
      },
    );
    run('app', { find: 'r' }, { lsid, txnNumber: 11, autocommit: false, startTransaction: true });
    assert.throws(() => run('app', { find: 'r' }, { lsid, txnNumber: 11, autocommit: false, startTransaction: true }), {
      code: 117,
    });
    run('admin', { commitTransaction: 1 }, { lsid, txnNumber: 11, autocommit: false });
    // Committing again is allowed (the driver retries commits); aborting a committed one is not.
    run('admin', { commitTransaction: 1 }, { lsid, txnNumber: 11, autocommit: false });
    assert.throws(() => run('admin', { abortTransaction: 1 }, { lsid, txnNumber: 11, autocommit: false }), {
      code: 256,
      codeName: 'TransactionCommitted',
    });
  });

  test('a standalone refuses transaction numbers with IllegalOperation (20), naming the replica-set mode', () => {
    const standalone = new Engine({ clock: new VirtualClock(Date.parse(T0)) });
    try {
      assert.throws(() => standalone.runInSession('app', { insert: 'c', documents: [{}] }, { lsid, txnNumber: 1 }), {
        code: 20,
        message: /^Transaction numbers are only allowed on a replica set member or mongos/,
      });
    } finally {
      standalone.close();
    }
  });
});

describe('replica-set mode: a committed transaction is one journal frame', () => {
  const T = Date.parse(T0);
  const lsid = { id: new UUID() };

  function folderWithTransaction(): { dir: string; journal: string; before: number } {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-replset-'));
    const o = openStoredEngine(dir, { engine: { clock: new VirtualClock(T), replSetName: 'rs0' } });
    o.engine.db('app').collection('c').insertOne({ _id: 0, n: 0 });
    const journal = path.join(dir, 'journal-0.ttlj');
    const before = fs.statSync(journal).size;
    const tx = { lsid, txnNumber: 1, autocommit: false };
    o.engine.runInSession(
      'app',
      { insert: 'c', documents: [{ _id: 1 }, { _id: 2 }] },
      { ...tx, startTransaction: true },
    );
    o.engine.runInSession('app', { update: 'c', updates: [{ q: { _id: 0 }, u: { $set: { n: 1 } } }] }, tx);
    assert.equal(fs.statSync(journal).size, before, 'nothing of an open transaction is journaled');
    o.engine.runInSession('admin', { commitTransaction: 1 }, tx);
    o.engine.close();
    o.store.close(); // no clean-close frame: the journal ends with the commit
    return { dir, journal, before };
  }

  const state = (dir: string) => {
    const o = openStoredEngine(dir, { engine: { clock: new VirtualClock(T), replSetName: 'rs0' } });
    try {
      return o.engine
        .db('app')
        .collection('c')
        .find({}, { sort: { _id: 1 } });
    } finally {
      closeStoredEngine(o);
    }
  };

  test('recovered whole: every write of the committed transaction is there', () => {
    const { dir } = folderWithTransaction();
    assert.deepEqual(state(dir), [{ _id: 0, n: 1 }, { _id: 1 }, { _id: 2 }]);
  });

  test('a journal cut anywhere inside the commit recovers none of the transaction (all or nothing)', () => {
    const { dir, journal, before } = folderWithTransaction();
    const bytes = fs.readFileSync(journal);
    assert.ok(bytes.length > before, 'the commit wrote a frame');
    for (const cut of [before + 1, Math.floor((before + bytes.length) / 2), bytes.length - 1]) {
      const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-replset-cut-'));
      for (const f of fs.readdirSync(dir))
        if (f !== 'ttl-store.lock') fs.copyFileSync(path.join(dir, f), path.join(copy, f));
      fs.writeFileSync(path.join(copy, 'journal-0.ttlj'), bytes.subarray(0, cut));
      assert.deepEqual(state(copy), [{ _id: 0, n: 0 }], `cut at ${cut}`);
    }
  });
});

describe('replica-set mode: Mongoose transactions, as a MongoMemoryReplSet test setup uses them', () => {
  let server: RunningServer;
  let conn: mongoose.Connection;

  before(async () => {
    server = await startServer({ now: T0, replSet: 'rs0' });
    conn = await mongoose.createConnection(server.uri, { serverSelectionTimeoutMS: 5000 }).asPromise();
  });

  after(async () => {
    await conn.close();
    await server.stop();
  });

  test('connection.transaction() commits the models written inside it; a throw inside rolls them back', async () => {
    const Account = conn.model('Account', new mongoose.Schema({ name: String, balance: Number }));
    await Account.create([
      { name: 'a', balance: 100 },
      { name: 'b', balance: 0 },
    ]);
    await conn.transaction(async (session) => {
      await Account.updateOne({ name: 'a' }, { $inc: { balance: -30 } }, { session });
      await Account.updateOne({ name: 'b' }, { $inc: { balance: 30 } }, { session });
    });
    await assert.rejects(
      conn.transaction(async (session) => {
        await Account.updateOne({ name: 'a' }, { $inc: { balance: -1000 } }, { session });
        throw new Error('insufficient funds');
      }),
      /insufficient funds/,
    );
    const balances = (await Account.find().sort({ name: 1 }).lean()).map((d) => d.balance);
    assert.deepEqual(balances, [70, 30]);
  });
});
