/**
 * TTL011 against a connection's indexes (issue 21): a file or notebook bound to a saved connection
 * is compared with that server's indexes, read through the real driver from the wire endpoint
 * (`startServer`, as `ttl-workbench serve`), cached per connection, read again on the tree's
 * Refresh and after a write through this window, never once per analysis.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MongoClient } from 'mongodb';
import { analyzeText } from '../../../src/analysis';
import type { Backend } from '../../../src/extension/backend/backend';
import { DriverBackend } from '../../../src/extension/backend/driver-backend';
import { ConnectionSnapshots } from '../../../src/extension/analysis/connection-snapshots';
import { startServer, type RunningServer } from '../../../src/wire';

const CODE = 'db.getSiblingDB("shop").sessions.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 7200 });\n';

function ttl011(facts: ReturnType<ConnectionSnapshots['factsOf']>, code = CODE) {
  return analyzeText(code, 'scripts/prod.js', { engine: facts }).problems.filter((p) => p.code === 'TTL011');
}

/** The backend, counting its catalog reads (the real DriverBackend answers them). */
function counting(backend: DriverBackend): { backend: Backend; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(backend, {
    get(target, key, receiver) {
      if (key === 'catalog')
        return (...args: Parameters<Backend['catalog']>) => {
          reads++;
          return target.catalog(...args);
        };
      const value = Reflect.get(target, key, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { backend: proxy, reads: () => reads };
}

function built(snapshots: ConnectionSnapshots, name: string): Promise<void> {
  return new Promise((resolve) => {
    const stop = snapshots.onDidBuild((n) => {
      if (n !== name) return;
      stop();
      resolve();
    });
  });
}

describe('TTL011 against a connection (the wire endpoint through the real driver)', () => {
  let server: RunningServer;
  let driver: DriverBackend;
  let other: MongoClient;

  before(async () => {
    server = await startServer({});
    driver = new DriverBackend({
      uri: server.uri,
      label: 'staging',
      redact: (s) => s,
      monitorRefreshMs: 0,
      clientOptions: { serverSelectionTimeoutMS: 3000 },
    });
    await driver.connect();
    await driver.runCommand('shop', {
      createIndexes: 'sessions',
      indexes: [{ key: { lastSeen: 1 }, name: 'lastSeen_1', expireAfterSeconds: 3600 }],
    });
    // Someone else's client: its changes reach the cache only on a refresh.
    other = await MongoClient.connect(server.uri, { serverSelectionTimeoutMS: 3000 });
  });

  after(async () => {
    await other.close();
    driver.dispose();
    await server.stop();
  });

  test("a createIndex that would change the server's TTL index is reported with the server's namespace", async () => {
    const { backend } = counting(driver);
    const snapshots = new ConnectionSnapshots({ backendOf: (n) => (n === 'staging' ? backend : undefined) });
    const landed = built(snapshots, 'staging');
    assert.equal(snapshots.factsOf('staging'), undefined, 'the first ask starts the read and does not wait for it');
    await landed;
    const problems = ttl011(snapshots.factsOf('staging'));
    assert.equal(problems.length, 1);
    assert.match(problems[0].message, /shop\.sessions already has index 'lastSeen_1' with expireAfterSeconds 3600/);
    assert.match(problems[0].message, /IndexOptionsConflict \(85\)/);
    assert.deepEqual(
      ttl011(snapshots.factsOf('staging'), CODE.replace('7200', '3600')),
      [],
      'the same value is no change',
    );
    snapshots.dispose();
  });

  test('asking on every keystroke reads the server once; Refresh reads again and sees a change made elsewhere', async () => {
    const { backend, reads } = counting(driver);
    const snapshots = new ConnectionSnapshots({ backendOf: () => backend });
    const landed = built(snapshots, 'staging');
    snapshots.factsOf('staging');
    await landed;
    for (let i = 0; i < 100; i++) snapshots.factsOf('staging');
    assert.equal(reads(), 1);

    await other
      .db('shop')
      .command({ collMod: 'sessions', index: { keyPattern: { lastSeen: 1 }, expireAfterSeconds: 7200 } });
    assert.equal(ttl011(snapshots.factsOf('staging')).length, 1, 'until a refresh the cache holds what was read');
    await snapshots.refreshAll();
    assert.equal(reads(), 2);
    assert.deepEqual(ttl011(snapshots.factsOf('staging')), [], 'the server now has 7200: nothing would change');
    await other
      .db('shop')
      .command({ collMod: 'sessions', index: { keyPattern: { lastSeen: 1 }, expireAfterSeconds: 3600 } });
    snapshots.dispose();
  });

  test('a write through this connection (collMod from the tree) reads the indexes again by itself', async () => {
    const { backend, reads } = counting(driver);
    const snapshots = new ConnectionSnapshots({ backendOf: () => backend });
    let landed = built(snapshots, 'staging');
    snapshots.factsOf('staging');
    await landed;
    assert.equal(ttl011(snapshots.factsOf('staging')).length, 1);
    landed = built(snapshots, 'staging');
    await backend.runCommand('shop', {
      collMod: 'sessions',
      index: { keyPattern: { lastSeen: 1 }, expireAfterSeconds: 7200 },
    });
    await landed;
    assert.equal(reads(), 2);
    assert.deepEqual(ttl011(snapshots.factsOf('staging')), []);
    await backend.runCommand('shop', {
      collMod: 'sessions',
      index: { keyPattern: { lastSeen: 1 }, expireAfterSeconds: 3600 },
    });
    snapshots.dispose();
  });

  test('a connection that is not connected has no facts (TTL011 stays silent), and a failed read is not retried per ask', async () => {
    let live: Backend | undefined;
    const snapshots = new ConnectionSnapshots({ backendOf: () => live });
    assert.equal(snapshots.factsOf('staging'), undefined);
    assert.deepEqual(ttl011(undefined), []);

    const refused = new DriverBackend({ uri: server.uri, label: 'closed', redact: (s) => s, monitorRefreshMs: 0 });
    const { backend, reads } = counting(refused); // never connected: every read rejects with HostUnreachable
    live = backend;
    for (let i = 0; i < 20; i++) assert.equal(snapshots.factsOf('staging'), undefined);
    await new Promise((r) => setImmediate(r));
    assert.equal(reads(), 1);

    // Connected now (a new backend: the manager's reconnect): the cache starts over.
    const { backend: connected } = counting(driver);
    live = connected;
    const landed = built(snapshots, 'staging');
    snapshots.factsOf('staging');
    await landed;
    assert.equal(ttl011(snapshots.factsOf('staging')).length, 1);
    refused.dispose();
    snapshots.dispose();
  });
});
