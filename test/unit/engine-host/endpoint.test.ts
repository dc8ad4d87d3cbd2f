/**
 * The local endpoint in the engine host: the official driver talks to the window's shared engine
 * in the worker. Its writes reach the client's listeners as events, like any write; the virtual
 * clock and the TTL monitor expire its data; the control command tells the listeners the clock
 * moved. Reset Engine keeps the endpoint (on the new engine); a restarted worker listens again on
 * the same port, or says it could not; a taken port fails with its code; Stop refuses connections.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as net from 'node:net';
import * as path from 'node:path';
import { MongoClient } from 'mongodb';
import type { BackendEvent } from '../../../src/extension/backend/backend';
import { EngineHost, type EndpointChange } from '../../../src/extension/engine-host/client';

const WORKER = path.join(__dirname, '../../../src/extension/engine-host/worker-main.js');
const NOW = Date.parse('2030-01-01T00:00:00Z');
const LOOPBACK = '127.0.0.1';

const hosts: EngineHost[] = [];
const clients: MongoClient[] = [];
function newHost(options: Partial<ConstructorParameters<typeof EngineHost>[0]> = {}): EngineHost {
  const host = new EngineHost({ workerPath: WORKER, ...options });
  hosts.push(host);
  return host;
}
function client(uri: string): MongoClient {
  const c = new MongoClient(uri, { serverSelectionTimeoutMS: 3000, connectTimeoutMS: 2000 });
  clients.push(c);
  return c;
}
after(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  for (const h of hosts) await h.dispose();
});

/** Waits until `check` holds (events cross asynchronously), or fails with what it saw last. */
async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > timeoutMs) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function refused(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, LOOPBACK);
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

describe('engine host: the local endpoint', () => {
  it("serves the shared engine from the worker: the driver's writes reach the listeners, the clock expires them, Stop refuses connections", async () => {
    const host = newHost();
    const backend = host.open({ settings: {}, startMs: NOW });
    const events: BackendEvent[] = [];
    backend.onDidChange((e) => events.push(...e));
    const changes: EndpointChange['kind'][] = [];
    host.onEndpointChange((c) => changes.push(c.kind));

    const address = await host.startEndpoint(backend, { port: 0, host: LOOPBACK });
    assert.equal(address.host, LOOPBACK);
    assert.ok(address.port > 0);
    assert.equal(address.uri, `mongodb://127.0.0.1:${address.port}/`);
    assert.deepEqual(host.endpoint, address);

    const mongo = client(address.uri);
    const sessions = mongo.db('app').collection('sessions');
    await sessions.createIndex({ at: 1 }, { expireAfterSeconds: 60 });
    await sessions.insertMany([
      { at: new Date(NOW), user: 'a' },
      { at: new Date(NOW), user: 'b' },
      { at: new Date(NOW + 86_400_000), user: 'later' },
    ]);
    // The writes are the engine's own: the same events as the tree's writes, and the catalog.
    const inserted = () =>
      events.filter((e) => e.kind === 'documentsInserted').reduce((n, e) => n + (e as { count: number }).count, 0);
    await until('the inserts to reach the listeners', () => inserted() === 3);
    assert.ok(events.some((e) => e.kind === 'indexesCreated'));
    const catalog = await backend.catalog();
    assert.deepEqual(
      catalog.collections.find((c) => c.name === 'sessions')?.indexes.map((i) => i.name),
      ['_id_', 'at_1'],
    );
    assert.equal((await backend.listCollections('app'))[0].count, 3);

    // The window's clock (Advance Clock) runs the monitor over the app's data.
    const moved = await backend.advanceClock(120_000);
    assert.equal(moved.deleted, 2);
    assert.deepEqual(await sessions.find({}, { projection: { _id: 0, user: 1 } }).toArray(), [{ user: 'later' }]);

    // The control command over the wire moves the same clock, and the listeners hear of it.
    events.length = 0;
    const r = await mongo.db('admin').command({ ttlWorkbench: 'advanceClock', by: '2d' });
    assert.equal(r.deletedDocuments, 1);
    await until('clockChanged from the wire', () => events.some((e) => e.kind === 'clockChanged'));
    assert.equal((await backend.clock()).now.getTime(), NOW + 120_000 + 2 * 86_400_000);
    assert.equal(await sessions.countDocuments(), 0);

    assert.equal(await host.stopEndpoint(), true);
    assert.equal(host.endpoint, undefined);
    assert.equal(await refused(address.port), 'ECONNREFUSED');
    assert.equal(await host.stopEndpoint(), false, 'nothing left to stop');
    assert.deepEqual(changes, ['started', 'stopped']);
  });

  it('Reset Engine keeps the endpoint: the same connection reaches the new, empty engine', async () => {
    const host = newHost();
    const backend = host.open({ settings: {}, startMs: NOW });
    const { uri } = await host.startEndpoint(backend, { port: 0, host: LOOPBACK });
    const mongo = client(uri);
    const c = mongo.db('app').collection('c');
    await c.insertMany(Array.from({ length: 150 }, (_, i) => ({ i })));
    // A cursor open on the old engine dies with it.
    const cursor = c.find({}, { batchSize: 10 });
    await cursor.next();
    await backend.reset();
    assert.equal(await c.countDocuments(), 0);
    await assert.rejects(cursor.toArray(), /CursorNotFound|cursor id/);
    await c.insertOne({ after: 'reset' });
    assert.equal((await backend.listCollections('app'))[0].count, 1);
    assert.equal(host.endpoint?.uri, uri);
  });

  it('after a restart the worker listens again on the same port and the driver reconnects; a port taken meanwhile ends it with a reason', async () => {
    let blocker: net.Server | undefined;
    let blockPort = 0;
    const host = newHost({
      // Called once the old worker is gone and before the new one can listen: take its port.
      onRestart: () => {
        if (!blockPort) return;
        // It holds the port and closes what connects (the driver keeps trying).
        blocker = net.createServer((socket) => socket.destroy()).listen(blockPort, LOOPBACK);
      },
    });
    const backend = host.open({ settings: {}, startMs: NOW });
    const changes: EndpointChange[] = [];
    host.onEndpointChange((c) => changes.push(c));
    const first = await host.startEndpoint(backend, { port: 0, host: LOOPBACK });
    const mongo = client(first.uri);
    await mongo.db('app').collection('c').insertOne({ n: 1 });

    await host.restartNow();
    assert.deepEqual(host.endpoint, first, 'same host, port and connection string');
    const resumed = changes.at(-1);
    assert.equal(resumed?.kind, 'resumed');
    assert.equal(resumed.kind === 'resumed' && resumed.reason.kind, 'requested');
    // An in-memory engine starts empty after a restart; the same client goes on.
    assert.equal(await mongo.db('app').collection('c').countDocuments(), 0);
    await mongo.db('app').collection('c').insertOne({ n: 2 });
    assert.equal((await backend.listCollections('app'))[0].count, 1);

    blockPort = first.port;
    await host.restartNow();
    assert.equal(host.endpoint, undefined);
    const lost = changes.at(-1);
    assert.equal(lost?.kind, 'lost');
    if (lost.kind === 'lost') {
      assert.equal(lost.address.port, first.port);
      assert.equal((lost.error as Error & { listenCode?: string }).listenCode, 'EADDRINUSE');
    }
    await mongo.close();
    await new Promise<void>((r) => (blocker ? blocker.close(() => r()) : r()));
  });

  it('a port in use fails with EADDRINUSE and the port; the endpoint that ran before is replaced by a new start', async () => {
    const busy = net.createServer();
    await new Promise<void>((r) => busy.listen(0, LOOPBACK, () => r()));
    const port = (busy.address() as net.AddressInfo).port;
    try {
      const host = newHost();
      const backend = host.open({ settings: {}, startMs: NOW });
      const err = (await host.startEndpoint(backend, { port, host: LOOPBACK }).then(
        () => assert.fail('listened on a taken port'),
        (e: unknown) => e,
      )) as Error & { listenCode?: string; port?: number };
      assert.equal(err.name, 'EndpointListenError');
      assert.equal(err.listenCode, 'EADDRINUSE');
      assert.equal(err.port, port);
      assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
      assert.equal(host.endpoint, undefined);

      const a = await host.startEndpoint(backend, { port: 0, host: LOOPBACK });
      const b = await host.startEndpoint(backend, { port: 0, host: LOOPBACK });
      assert.notEqual(a.port, b.port);
      assert.equal(await refused(a.port), 'ECONNREFUSED', 'the first endpoint stopped');
      assert.equal(await refused(b.port), 'connected');
    } finally {
      await new Promise<void>((r) => busy.close(() => r()));
    }
  });
});
