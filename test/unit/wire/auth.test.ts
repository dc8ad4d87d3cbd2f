/**
 * startServer({auth}): SCRAM-SHA-256 over the wire. The official driver and mongosh with the
 * right password, a wrong one and none; and the protocol itself on a raw socket (speculative
 * authentication in hello, saslSupportedMechs, the long and short conversations, what runs before
 * authenticating, what mongod answers for a refused mechanism, a replayed or unknown
 * conversation, and w:0 writes that must not slip through).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { Binary, BSON, type Document } from 'bson';
import { MongoClient, MongoServerError } from 'mongodb';
import { startServer, type RunningServer } from '../../../src/wire';
import { scramClientFinal } from './scram-client';

const USER = 'app';
const PASSWORD = 'p@ss:w/rd é';
const root = path.resolve(__dirname, '../../../..');
const mongosh = path.join(root, 'node_modules', '.bin', 'mongosh');

function uriFor(server: RunningServer, user = USER, password = PASSWORD, query = ''): string {
  return `mongodb://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${server.port}/${query}`;
}

/** A client that speaks OP_MSG on one socket, one command at a time (what a connection of the driver is). */
class RawConnection {
  private buffer = Buffer.alloc(0);
  private waiting: ((reply: Buffer) => void) | undefined;
  private nextId = 1;

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      if (this.buffer.length >= 4 && this.buffer.length >= this.buffer.readInt32LE(0) && this.waiting) {
        const frame = this.buffer.subarray(0, this.buffer.readInt32LE(0));
        this.buffer = this.buffer.subarray(frame.length);
        const resolve = this.waiting;
        this.waiting = undefined;
        resolve(frame);
      }
    });
  }

  static async open(port: number): Promise<RawConnection> {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    return new RawConnection(socket);
  }

  private frame(doc: Document, flags = 0): Buffer {
    const body = Buffer.from(BSON.serialize(doc));
    const head = Buffer.alloc(21);
    head.writeInt32LE(21 + body.length, 0);
    head.writeInt32LE(this.nextId++, 4);
    head.writeInt32LE(0, 8);
    head.writeInt32LE(2013, 12);
    head.writeUInt32LE(flags, 16);
    head[20] = 0;
    return Buffer.concat([head, body]);
  }

  async command(doc: Document, db = 'admin'): Promise<Document> {
    const reply = new Promise<Buffer>((r) => (this.waiting = r));
    this.socket.write(this.frame({ ...doc, $db: db }));
    return BSON.deserialize((await reply).subarray(21));
  }

  /** moreToCome: the server answers nothing (a w:0 write). */
  send(doc: Document, db: string): void {
    this.socket.write(this.frame({ ...doc, $db: db }, 2));
  }

  close(): void {
    this.socket.destroy();
  }
}

const bytes = (text: string) => new Binary(Buffer.from(text, 'utf8'));
const text = (payload: unknown) => Buffer.from((payload as Binary).value()).toString('utf8');

/** saslStart through saslContinue on a raw connection; returns the replies. */
async function authenticate(
  c: RawConnection,
  password: string,
  options: { skipEmptyExchange?: boolean; user?: string } = {},
): Promise<{ start: Document; final: Document; serverFinalExpected: string }> {
  const bare = `n=${options.user ?? USER},r=clientnonce${Math.random().toString(36).slice(2)}`;
  const start = await c.command({
    saslStart: 1,
    mechanism: 'SCRAM-SHA-256',
    payload: bytes(`n,,${bare}`),
    ...(options.skipEmptyExchange === false ? {} : { options: { skipEmptyExchange: true } }),
  });
  assert.equal(start.ok, 1, JSON.stringify(start));
  const client = scramClientFinal(password, bare, text(start.payload));
  const final = await c.command({
    saslContinue: 1,
    conversationId: start.conversationId,
    payload: bytes(client.message),
  });
  return { start, final, serverFinalExpected: client.expectedServerFinal };
}

describe('wire endpoint with authentication: the official driver and mongosh', () => {
  let server: RunningServer;
  const log: string[] = [];

  before(async () => {
    server = await startServer({ auth: { user: USER, password: PASSWORD }, log: (l) => log.push(l) });
  });

  after(async () => {
    await server.stop();
  });

  test('the right password: CRUD, aggregate, a cursor over batches, and connectionStatus names the user', async () => {
    const client = new MongoClient(uriFor(server, USER, PASSWORD, '?authSource=admin'), { maxPoolSize: 1 });
    try {
      await client.connect();
      const c = client.db('app').collection<any>('items');
      await c.insertMany(Array.from({ length: 25 }, (_, i) => ({ _id: i, kind: i % 2 ? 'odd' : 'even' })));
      assert.deepEqual(await c.findOne({ _id: 3 }), { _id: 3, kind: 'odd' });
      assert.equal((await c.updateMany({ kind: 'odd' }, { $set: { seen: true } })).modifiedCount, 12);
      assert.equal((await c.deleteOne({ _id: 0 })).deletedCount, 1);
      assert.equal(await c.countDocuments({ seen: true }), 12);
      assert.deepEqual(
        await c.aggregate([{ $group: { _id: '$kind', n: { $sum: 1 } } }, { $sort: { _id: 1 } }]).toArray(),
        [
          { _id: 'even', n: 12 },
          { _id: 'odd', n: 12 },
        ],
      );
      assert.equal((await c.find({}, { batchSize: 5 }).toArray()).length, 24);
      const status = await client.db('admin').command({ connectionStatus: 1 });
      assert.deepEqual(status.authInfo, {
        authenticatedUsers: [{ user: USER, db: 'admin' }],
        authenticatedUserRoles: [{ role: 'root', db: 'admin' }],
      });
      const moved = await client.db('admin').command({ ttlWorkbench: 'advanceClock', by: '1m' });
      assert.equal(moved.ok, 1);
    } finally {
      await client.close();
    }
  });

  test('authSource defaults to admin: no database in the URI is the same user', async () => {
    const client = new MongoClient(uriFor(server));
    try {
      await client.connect();
      assert.equal((await client.db('app').command({ ping: 1 })).ok, 1);
      assert.equal(await client.db('app').collection('items').countDocuments(), 24);
    } finally {
      await client.close();
    }
  });

  test('a wrong password: connect() rejects with MongoServerError 18, and the server logs why', async () => {
    for (const [user, password] of [
      [USER, 'wrong'],
      ['nobody', PASSWORD],
    ]) {
      const client = new MongoClient(uriFor(server, user, password), { serverSelectionTimeoutMS: 2000 });
      try {
        await assert.rejects(client.connect(), (e: unknown) => {
          assert.ok(e instanceof MongoServerError, String(e));
          assert.equal(e.code, 18);
          assert.equal(e.codeName, 'AuthenticationFailed');
          assert.equal(e.message, 'Authentication failed.');
          return true;
        });
      } finally {
        await client.close();
      }
    }
    assert.ok(log.some((l) => /authentication failed \(SCRAM-SHA-256, user app@admin\): the proof is wrong/.test(l)));
    assert.ok(log.some((l) => /user nobody@admin\): no user "nobody"/.test(l)));
  });

  test('the user lives in admin: authSource=app fails with 18', async () => {
    const client = new MongoClient(uriFor(server, USER, PASSWORD, 'app?authSource=app'), {
      serverSelectionTimeoutMS: 2000,
    });
    try {
      await assert.rejects(client.connect(), { code: 18 });
    } finally {
      await client.close();
    }
  });

  test('authMechanism=SCRAM-SHA-1 is refused with MechanismUnavailable (334), as mongod refuses a mechanism it has not enabled', async () => {
    const client = new MongoClient(uriFor(server, USER, PASSWORD, '?authMechanism=SCRAM-SHA-1'), {
      serverSelectionTimeoutMS: 2000,
    });
    try {
      await assert.rejects(client.connect(), (e: unknown) => {
        assert.ok(e instanceof MongoServerError, String(e));
        assert.equal(e.code, 334);
        assert.equal(e.message, 'Received authentication for mechanism SCRAM-SHA-1 which is not enabled');
        return true;
      });
    } finally {
      await client.close();
    }
  });

  test('no credentials: ping and hello answer, find fails with 13 "Command find requires authentication"', async () => {
    const client = new MongoClient(`mongodb://127.0.0.1:${server.port}/`, { serverSelectionTimeoutMS: 2000 });
    try {
      await client.connect();
      assert.equal((await client.db('admin').command({ ping: 1 })).ok, 1);
      await assert.rejects(client.db('app').collection('items').findOne({}), (e: unknown) => {
        assert.ok(e instanceof MongoServerError);
        assert.equal(e.code, 13);
        assert.equal(e.codeName, 'Unauthorized');
        assert.equal(e.message, 'Command find requires authentication');
        return true;
      });
      await assert.rejects(client.db('app').collection('items').insertOne({ sneaky: true }), { code: 13 });
    } finally {
      await client.close();
    }
  });

  test('mongosh: the right password prints 1, a wrong one exits non-zero with "Authentication failed"', async () => {
    const run = promisify(execFile);
    const ok = await run(
      mongosh,
      [uriFor(server, USER, PASSWORD, '?authSource=admin'), '--quiet', '--eval', 'db.runCommand({ping:1}).ok'],
      {
        timeout: 30_000,
      },
    );
    assert.equal(ok.stdout.trim(), '1');
    await assert.rejects(
      run(
        mongosh,
        [uriFor(server, USER, 'wrong', '?authSource=admin'), '--quiet', '--eval', 'db.runCommand({ping:1}).ok'],
        {
          timeout: 30_000,
        },
      ),
      (e: { code?: number; stderr?: string; stdout?: string }) => {
        assert.notEqual(e.code, 0);
        assert.match(`${e.stderr}${e.stdout}`, /Authentication failed/);
        return true;
      },
    );
  });
});

describe('wire endpoint with authentication: the protocol', () => {
  let server: RunningServer;
  let c: RawConnection;

  before(async () => {
    server = await startServer({ auth: { user: USER, password: PASSWORD } });
  });

  after(async () => {
    await server.stop();
  });

  test('speculative authentication in hello, then one saslContinue (skipEmptyExchange): done, and commands run', async () => {
    c = await RawConnection.open(server.port);
    try {
      const bare = 'n=app,r=speculativenonce';
      const hello = await c.command({
        hello: 1,
        saslSupportedMechs: `admin.${USER}`,
        speculativeAuthenticate: {
          saslStart: 1,
          mechanism: 'SCRAM-SHA-256',
          payload: bytes(`n,,${bare}`),
          autoAuthorize: 1,
          options: { skipEmptyExchange: true },
          db: 'admin',
        },
      });
      assert.equal(hello.ok, 1);
      assert.equal(hello.isWritablePrimary, true);
      assert.deepEqual(hello.saslSupportedMechs, ['SCRAM-SHA-256']);
      const spec = hello.speculativeAuthenticate as Document;
      assert.equal(spec.conversationId, 1);
      assert.equal(spec.done, false);
      assert.equal(spec.ok, undefined);
      const serverFirst = text(spec.payload);
      assert.match(serverFirst, /^r=speculativenonce[A-Za-z0-9+/=]{32},s=[A-Za-z0-9+/=]+,i=15000$/);
      assert.equal((await c.command({ find: 'items' }, 'app')).code, 13, 'not yet');

      const client = scramClientFinal(PASSWORD, bare, serverFirst);
      const final = await c.command({ saslContinue: 1, conversationId: 1, payload: bytes(client.message) });
      assert.equal(final.ok, 1);
      assert.equal(final.done, true);
      assert.equal(final.conversationId, 1);
      assert.equal(text(final.payload), client.expectedServerFinal, 'the server proves it knows the keys');
      assert.equal((await c.command({ find: 'items' }, 'app')).ok, 1);

      // The finished conversation is gone: replaying its last message is a protocol error.
      const replay = await c.command({ saslContinue: 1, conversationId: 1, payload: bytes(client.message) });
      assert.deepEqual(
        { code: replay.code, codeName: replay.codeName, errmsg: replay.errmsg },
        { code: 17, codeName: 'ProtocolError', errmsg: 'No SASL session state found' },
      );
      assert.equal((await c.command({ find: 'items' }, 'app')).ok, 1, 'still authenticated');

      const status = await c.command({ connectionStatus: 1 });
      assert.deepEqual((status.authInfo as Document).authenticatedUsers, [{ user: USER, db: 'admin' }]);
      assert.equal((await c.command({ logout: 1 })).ok, 1);
      assert.equal((await c.command({ find: 'items' }, 'app')).code, 13, 'logged out');
      assert.deepEqual(((await c.command({ connectionStatus: 1 })).authInfo as Document).authenticatedUsers, []);
    } finally {
      c.close();
    }
  });

  test('without skipEmptyExchange: server-final comes with done: false and an empty last step finishes', async () => {
    c = await RawConnection.open(server.port);
    try {
      const { final, serverFinalExpected } = await authenticate(c, PASSWORD, { skipEmptyExchange: false });
      assert.equal(final.ok, 1);
      assert.equal(final.done, false);
      assert.equal(text(final.payload), serverFinalExpected);
      assert.equal((await c.command({ find: 'items' }, 'app')).code, 13, 'not until the conversation is done');
      const last = await c.command({ saslContinue: 1, conversationId: 1, payload: bytes('') });
      assert.equal(last.ok, 1);
      assert.equal(last.done, true);
      assert.equal(text(last.payload), '');
      assert.equal((await c.command({ find: 'items' }, 'app')).ok, 1);
    } finally {
      c.close();
    }
  });

  test('a wrong password, a wrong nonce: 18 "Authentication failed.", and the conversation is over', async () => {
    c = await RawConnection.open(server.port);
    try {
      const { final } = await authenticate(c, 'not the password');
      assert.deepEqual(
        { ok: final.ok, code: final.code, codeName: final.codeName, errmsg: final.errmsg },
        { ok: 0, code: 18, codeName: 'AuthenticationFailed', errmsg: 'Authentication failed.' },
      );
      assert.equal((await c.command({ saslContinue: 1, conversationId: 1, payload: bytes('') })).code, 17);

      const bare = 'n=app,r=abc';
      const start = await c.command({ saslStart: 1, mechanism: 'SCRAM-SHA-256', payload: bytes(`n,,${bare}`) });
      const proof = scramClientFinal(PASSWORD, bare, text(start.payload)).message;
      const otherNonce = proof.replace(/r=abc[^,]*/, 'r=abcdefghijklmnopqrstuvwxyz0123456789ABCDEF');
      assert.equal((await c.command({ saslContinue: 1, conversationId: 1, payload: bytes(otherNonce) })).code, 18);
      assert.equal((await c.command({ find: 'items' }, 'app')).code, 13);
    } finally {
      c.close();
    }
  });

  test('SCRAM-SHA-1 is refused with 334; in a speculative hello it is left unanswered and hello still answers', async () => {
    c = await RawConnection.open(server.port);
    try {
      const sha1 = await c.command({ saslStart: 1, mechanism: 'SCRAM-SHA-1', payload: bytes('n,,n=app,r=abc') });
      assert.deepEqual(
        { code: sha1.code, codeName: sha1.codeName, errmsg: sha1.errmsg },
        {
          code: 334,
          codeName: 'MechanismUnavailable',
          errmsg: 'Received authentication for mechanism SCRAM-SHA-1 which is not enabled',
        },
      );
      const hello = await c.command({
        isMaster: 1,
        saslSupportedMechs: 'admin.nobody',
        speculativeAuthenticate: {
          saslStart: 1,
          mechanism: 'SCRAM-SHA-1',
          payload: bytes('n,,n=app,r=abc'),
          db: 'admin',
        },
      });
      assert.equal(hello.ok, 1);
      assert.equal(hello.ismaster, true);
      assert.equal(hello.speculativeAuthenticate, undefined);
      assert.equal(hello.saslSupportedMechs, undefined, 'no such user: no mechanisms (as mongod)');
      const other = await c.command({ hello: 1, saslSupportedMechs: `app.${USER}` });
      assert.equal(other.saslSupportedMechs, undefined, 'the user is admin.app, not app.app');
      const x509 = await c.command({ authenticate: 1, mechanism: 'MONGODB-X509' }, '$external');
      assert.equal(x509.code, 334);
    } finally {
      c.close();
    }
  });

  test('before authenticating: what mongod runs without authentication runs; the rest answer 13, unknown commands 59', async () => {
    c = await RawConnection.open(server.port);
    try {
      for (const cmd of [{ ping: 1 }, { buildInfo: 1 }, { buildinfo: 1 }, { listCommands: 1 }, { ismaster: 1 }])
        assert.equal((await c.command(cmd)).ok, 1, JSON.stringify(cmd));
      assert.deepEqual((await c.command({ connectionStatus: 1 })).authInfo, {
        authenticatedUsers: [],
        authenticatedUserRoles: [],
      });
      for (const [cmd, db] of [
        [{ find: 'items' }, 'app'],
        [{ insert: 'items', documents: [{ a: 1 }] }, 'app'],
        [{ listDatabases: 1 }, 'admin'],
        [{ getMore: 1, collection: 'items' }, 'app'],
        [{ serverStatus: 1 }, 'admin'],
        [{ endSessions: [] }, 'admin'],
        [{ ttlWorkbench: 'advanceClock', by: '1d' }, 'admin'],
      ] as Array<[Document, string]>) {
        const reply = await c.command(cmd, db);
        const name = Object.keys(cmd)[0];
        assert.deepEqual(
          { ok: reply.ok, code: reply.code, codeName: reply.codeName, errmsg: reply.errmsg },
          { ok: 0, code: 13, codeName: 'Unauthorized', errmsg: `Command ${name} requires authentication` },
        );
      }
      for (const name of ['frobnicate', 'constructor', 'toString'])
        assert.equal((await c.command({ [name]: 1 })).code, 59, name);
      assert.equal((await c.command({ saslContinue: 1, conversationId: 1, payload: bytes('') })).code, 17);
    } finally {
      c.close();
    }
  });

  test('a w:0 write (moreToCome) before authenticating is dropped, not run', async () => {
    c = await RawConnection.open(server.port);
    try {
      c.send({ insert: 'w0', documents: [{ sneaky: true }] }, 'app');
      await authenticate(c, PASSWORD);
      const count = await c.command({ count: 'w0' }, 'app');
      assert.equal(count.ok, 1);
      assert.equal(count.n, 0);
    } finally {
      c.close();
    }
  });

  test('saslStart for the user in another database fails with 18 (the user lives in admin)', async () => {
    c = await RawConnection.open(server.port);
    try {
      const reply = await c.command(
        { saslStart: 1, mechanism: 'SCRAM-SHA-256', payload: bytes('n,,n=app,r=abc') },
        'app',
      );
      assert.equal(reply.code, 18);
    } finally {
      c.close();
    }
  });
});

describe('startServer auth options', () => {
  test('a bad user or password is refused before anything starts; a password SASLprep maps is the same password', async () => {
    await assert.rejects(startServer({ auth: { user: '', password: 'x' } }), TypeError);
    await assert.rejects(startServer({ auth: { user: 'u', password: '' } }), TypeError);
    await assert.rejects(
      startServer({ auth: { user: 'u', password: 'bell\u0007' } }),
      /SASLprep \(RFC 4013\) refuses it, U\+0007 is a control character/,
    );

    // MongoDB's auth spec, step 4: user U+2168 with password U+2163 authenticates as "IV" and "I\u00ADV".
    const server = await startServer({ auth: { user: '\u2168', password: '\u2163' } });
    try {
      for (const typed of ['IV', 'I\u00ADV']) {
        const client = new MongoClient(uriFor(server, '\u2168', typed), { serverSelectionTimeoutMS: 2000 });
        try {
          await client.connect();
          assert.equal(
            (await client.db('admin').command({ connectionStatus: 1 })).authInfo.authenticatedUsers[0].user,
            '\u2168',
          );
        } finally {
          await client.close();
        }
      }
    } finally {
      await server.stop();
    }
  });

  test('without auth (the default) nothing is asked', async () => {
    const server = await startServer();
    const client = new MongoClient(server.uri);
    try {
      await client.db('app').collection('c').insertOne({ a: 1 });
      assert.equal(await client.db('app').collection('c').countDocuments(), 1);
    } finally {
      await client.close();
      await server.stop();
    }
  });
});
