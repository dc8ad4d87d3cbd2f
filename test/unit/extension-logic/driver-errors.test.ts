/**
 * Connecting fails in four ways users meet, each reported with MongoDB's code and codeName, a
 * message that says what to do, and never the password: a refused port, a name that does not
 * resolve, wrong credentials (18, against the endpoint's SCRAM-SHA-256) and a server that never
 * answers. Real sockets and the real driver throughout.
 */
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { describe, test } from 'node:test';
import { DriverBackend } from '../../../src/extension/backend/driver-backend';
import { classifyConnectionError } from '../../../src/extension/backend/driver-errors';
import { redactText } from '../../../src/extension/connections/connection-string';
import { startServer } from '../../../src/wire';

const PASSWORD = 's3cr3t-Pa55';

function backendFor(uri: string, timeoutMs = 1500): DriverBackend {
  return new DriverBackend({
    uri,
    label: 'my connection',
    redact: (s) => redactText(s, uri, PASSWORD),
    monitorRefreshMs: 0,
    clientOptions: { serverSelectionTimeoutMS: timeoutMs, connectTimeoutMS: timeoutMs },
  });
}

async function connectError(b: DriverBackend): Promise<{ code: number; codeName: string; message: string }> {
  try {
    await b.connect();
  } catch (err) {
    return err as { code: number; codeName: string; message: string };
  } finally {
    b.dispose();
  }
  assert.fail('connect() succeeded');
}

/** A port nothing listens on: listen, note the port, close. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('connection errors say what happened and what to do, without the password', () => {
  test('a refused connection: HostUnreachable (6), check that the server runs', async () => {
    const port = await closedPort();
    const err = await connectError(backendFor(`mongodb://app:${PASSWORD}@127.0.0.1:${port}/`));
    assert.equal(err.code, 6);
    assert.equal(err.codeName, 'HostUnreachable');
    assert.match(err.message, /^my connection: the connection was refused .*ECONNREFUSED.*Check that the server runs/);
    assert.ok(!err.message.includes(PASSWORD));
  });

  test('a host name that does not resolve: HostNotFound (7), check the host', async () => {
    const err = await connectError(backendFor(`mongodb://app:${PASSWORD}@no-such-host.invalid:27017/`, 3000));
    assert.equal(err.code, 7, err.message);
    assert.equal(err.codeName, 'HostNotFound');
    assert.match(err.message, /could not be resolved .*Check the host in the connection string/);
    assert.ok(!err.message.includes(PASSWORD));
  });

  test('wrong credentials: AuthenticationFailed (18), check user, password and authSource', async () => {
    const server = await startServer({ auth: { user: 'app', password: 'the-right-one' } });
    try {
      const uri = `mongodb://app:${PASSWORD}@127.0.0.1:${server.port}/?authSource=admin`;
      const err = await connectError(backendFor(uri));
      assert.equal(err.code, 18);
      assert.equal(err.codeName, 'AuthenticationFailed');
      assert.match(err.message, /authentication failed\. Check the user name and password .*authSource/);
      assert.ok(!err.message.includes(PASSWORD));
      // The right password connects.
      const ok = backendFor(`mongodb://app:the-right-one@127.0.0.1:${server.port}/?authSource=admin`);
      await ok.connect();
      assert.ok((await ok.listDatabases()).length >= 0);
      ok.dispose();
    } finally {
      await server.stop();
    }
  });

  test('a server that accepts but never answers: NetworkTimeout (89), check host and access list', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as net.AddressInfo).port;
    try {
      const err = await connectError(backendFor(`mongodb://app:${PASSWORD}@127.0.0.1:${port}/`, 500));
      assert.equal(err.code, 89, err.message);
      assert.equal(err.codeName, 'NetworkTimeout');
      assert.match(err.message, /no server answered in time .*access list/);
      assert.ok(!err.message.includes(PASSWORD));
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  test('classification reads nested causes: a selection error whose server error is ECONNREFUSED is "refused"', () => {
    const inner = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const outer = Object.assign(new Error('Server selection timed out after 30000 ms'), {
      name: 'MongoServerSelectionError',
      reason: { servers: new Map([['127.0.0.1:1', { error: { name: 'MongoNetworkError', cause: inner } }]]) },
    });
    assert.equal(classifyConnectionError(outer), 'refused');
    assert.equal(
      classifyConnectionError(Object.assign(new Error('x'), { name: 'MongoServerSelectionError' })),
      'timeout',
    );
    assert.equal(
      classifyConnectionError({ code: 18, codeName: 'AuthenticationFailed', message: 'Authentication failed.' }),
      'auth',
    );
  });
});
