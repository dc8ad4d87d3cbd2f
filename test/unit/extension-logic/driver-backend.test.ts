/**
 * The driver Backend against the wire endpoint (`startServer`, this process, port 0) through the
 * real `mongodb` driver: the tree's facts, the monitor node, bounded eligibility counts, the
 * refusals of what only the embedded engine can do, the production confirmation and Cosmos DB's
 * rules. No fakes: every answer crosses a real socket.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BackendEvent } from '../../../src/extension/backend/backend';
import { DriverBackend, type DriverBackendOptions } from '../../../src/extension/backend/driver-backend';
import { loadLegacyIndexSpec } from '../../../src/engine';
import { startServer, type RunningServer } from '../../../src/wire';

const T0 = Date.parse('2030-01-01T00:00:00Z');
const HOUR = 3_600_000;

function backendOn(server: RunningServer, extra: Partial<DriverBackendOptions> = {}): DriverBackend {
  return new DriverBackend({
    uri: server.uri,
    label: 'test server',
    redact: (s) => s,
    monitorRefreshMs: 0,
    clientOptions: { serverSelectionTimeoutMS: 3000 },
    ...extra,
  });
}

async function rejectsWith(p: Promise<unknown>, code: number, pattern: RegExp): Promise<void> {
  await assert.rejects(p, (err: { code?: number; codeName?: string; message: string }) => {
    assert.equal(err.code, code, err.message);
    assert.equal(typeof err.codeName, 'string');
    assert.match(err.message, pattern);
    return true;
  });
}

describe('DriverBackend over the wire endpoint', () => {
  let server: RunningServer;
  let backend: DriverBackend;

  before(async () => {
    server = await startServer({ now: T0 });
    backend = backendOn(server);
    await backend.connect();
    const docs = Array.from({ length: 10 }, (_, i) => ({ _id: i, t: new Date(T0 + (i - 5) * HOUR), kind: i % 2 }));
    await backend.runCommand('app', { insert: 'events', documents: docs });
    await backend.runCommand('app', {
      createIndexes: 'events',
      indexes: [
        { key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 },
        { key: { kind: 1 }, name: 'kind_1', hidden: true },
      ],
    });
    await backend.runCommand('app', { create: 'metrics', timeseries: { timeField: 'ts' }, expireAfterSeconds: 86400 });
    await backend.runCommand('app', {
      create: 'sessions',
      clusteredIndex: { key: { _id: 1 }, unique: true },
      expireAfterSeconds: 600,
    });
    await backend.runCommand('app', { create: 'log', capped: true, size: 4096 });
    await backend.runCommand('app', { create: 'recent', viewOn: 'events', pipeline: [{ $match: { kind: 1 } }] });
  });

  after(async () => {
    backend.dispose();
    await server.stop();
  });

  test('info: a driver backend on a standalone 8.0 server, named by the connection', async () => {
    const info = await backend.info();
    assert.equal(info.kind, 'driver');
    assert.equal(info.label, 'test server');
    assert.equal(info.flavor, 'mongodb');
    assert.equal(info.serverVersion, '8.0');
    assert.match(info.version, /^8\.0\./);
    assert.equal(info.server?.kind, 'standalone');
    assert.equal(info.server?.canWrite, true);
  });

  test("clock: the server's time (hello localTime), system mode, never advanceable", async () => {
    const clock = await backend.clock();
    assert.equal(clock.mode, 'system');
    assert.equal(clock.canAdvance, false);
    // The endpoint runs a virtual clock at T0: the backend reads the server's now, not this machine's.
    assert.ok(Math.abs(clock.now.getTime() - T0) < 5_000, clock.now.toISOString());
  });

  test('databases and collections with kinds from listCollections and counts from estimatedDocumentCount', async () => {
    const dbs = await backend.listDatabases();
    assert.ok(dbs.some((d) => d.name === 'app'));
    const colls = await backend.listCollections('app');
    const byName = new Map(colls.map((c) => [c.name, c]));
    assert.equal(byName.get('events')?.kind, 'plain');
    assert.equal(byName.get('events')?.count, 10);
    assert.equal(byName.get('metrics')?.kind, 'timeseries');
    assert.equal(byName.get('sessions')?.kind, 'clustered');
    assert.equal(byName.get('log')?.kind, 'capped');
    assert.equal(byName.get('recent')?.kind, 'view');
    assert.equal(byName.get('recent')?.count, 0, 'a view is never counted');
    assert.equal(Number(byName.get('sessions')?.options.expireAfterSeconds), 600);
  });

  test('indexes from listIndexes: TTL spec and hidden flag as the server reports them', async () => {
    const ix = await backend.listIndexes('app', 'events');
    assert.deepEqual(
      ix.map((i) => i.name),
      ['_id_', 't_1', 'kind_1'],
    );
    assert.equal(Number(ix[1].spec.expireAfterSeconds), 3600);
    assert.equal(ix[2].spec.hidden, true);
    assert.equal(ix[1].stored, undefined);
  });

  test('rule 7.7: expiry counts by the server threshold (now − expireAfterSeconds, inclusive), hinted to the TTL index', async () => {
    const [, ttl] = await backend.listIndexes('app', 'events');
    const r = await backend.expiryCounts(ttl, 3600);
    assert.ok(r.ok, JSON.stringify(r));
    if (!r.ok) return;
    // Dates T0−5h … T0+4h; expired: t ≤ T0−1h → i = 0..4 (5 documents); due within 1 h: T0−1h < t ≤ T0 → i = 5.
    assert.equal(r.counts.expiredNow, 5);
    assert.equal(r.counts.dueWithinWindow, 1);
    assert.equal(r.counts.capped.expiredNow, false);
    const capped = await backend.expiryCounts(ttl, 3600, 3);
    assert.ok(capped.ok);
    if (capped.ok) {
      assert.equal(capped.counts.expiredNow, 3);
      assert.equal(capped.counts.capped.expiredNow, true, 'at the cap the tree says "at least"');
    }
  });

  test('expiry counts refuse a hidden index with the reason (counting would scan)', async () => {
    await backend.runCommand('app', { collMod: 'events', index: { name: 't_1', hidden: true } });
    try {
      const [, ttl] = await backend.listIndexes('app', 'events');
      const r = await backend.expiryCounts(ttl, 3600);
      assert.equal(r.ok, false);
      if (!r.ok) assert.match(r.reason, /Hidden/);
    } finally {
      await backend.runCommand('app', { collMod: 'events', index: { name: 't_1', hidden: false } });
    }
  });

  test('the eligibility preview count (count with a query) runs as bounded countDocuments steps', async () => {
    const reply = await backend.runCommand('app', {
      count: 'events',
      query: { t: { $lte: new Date(T0 - HOUR) } },
      hint: 't_1',
    });
    assert.equal(reply.n, 5);
    assert.equal(reply.ok, 1);
  });

  test('the preview says "more than N" when the server runs out of its maxTimeMS', async () => {
    // Enough documents that an unindexed count cannot finish in 1 ms on the server.
    for (let b = 0; b < 2; b++)
      server.engine
        .db('big')
        .collection('c')
        .insertMany(Array.from({ length: 100_000 }, (_, i) => ({ i, v: `x${i}` })));
    await rejectsWith(
      backend.runCommand('big', { count: 'c', query: { v: { $regex: 'y' } }, maxTimeMS: 1 }),
      50,
      /more than 0 .*counting stopped at its 1 ms limit/,
    );
  });

  test('the monitor node from serverStatus().metrics.ttl and getParameter', async () => {
    await backend.runCommand('admin', { setParameter: 1, ttlMonitorSleepSecs: 30 });
    const before = await backend.monitorStatus();
    assert.equal(before.enabled, true);
    assert.equal(before.sleepSecs, 30);
    assert.equal(before.parameters.ttlMonitorSleepSecs, 30);
    assert.equal(before.lastPassAt, null, 'a server does not say when its last pass ran');
    server.clock.advance('1m');
    const afterPass = await backend.monitorStatus();
    assert.ok(afterPass.passes > before.passes);
    assert.equal(afterPass.deletedDocuments - before.deletedDocuments, 5, 'the expired documents of app.events');
    assert.equal(afterPass.deletedSinceActivation, afterPass.deletedDocuments, 'counted from the connection on');
    await backend.runCommand('admin', { setParameter: 1, ttlMonitorEnabled: false });
    const off = await backend.monitorStatus();
    assert.equal(off.enabled, false);
    assert.match(off.stoppedBecause ?? '', /ttlMonitorEnabled is false/);
    await backend.runCommand('admin', { setParameter: 1, ttlMonitorEnabled: true });
  });

  test('what only the embedded engine can do is refused with IllegalOperation (20) and the reason', async () => {
    await rejectsWith(backend.advanceClock(1000), 20, /virtual clock exists only in the embedded engine/);
    await rejectsWith(backend.setClockMode('virtual'), 20, /not available on a real server/);
    await rejectsWith(backend.runTTLPass(), 20, /ttlMonitorSleepSecs/);
    await rejectsWith(backend.reset(), 20, /real deployment's data/);
    await rejectsWith(backend.loadLegacyIndexSpec(), 20, /validates every createIndex/);
    assert.equal((await backend.setClockMode('system')).mode, 'system');
  });

  test('write commands tell the tree what changed (events), since a server pushes none', async () => {
    const seen: BackendEvent[] = [];
    const off = backend.onDidChange((e) => seen.push(...e));
    await backend.runCommand('app', {
      createIndexes: 'events',
      indexes: [{ key: { kind: 1, t: 1 }, name: 'kind_t' }],
    });
    await backend.runCommand('app', { dropIndexes: 'events', index: 'kind_t' });
    off();
    assert.deepEqual(
      seen.map((e) => e.kind),
      ['indexesCreated', 'indexesDropped'],
    );
  });

  test('Find NaN TTL Indexes across databases: a legacy NaN index reads as 2147483647 and is found', async () => {
    server.engine
      .db('legacy')
      .collection('old')
      .insertOne({ at: new Date(T0) });
    loadLegacyIndexSpec(server.engine, 'legacy', 'old', {
      v: 2,
      key: { at: 1 },
      name: 'at_1',
      expireAfterSeconds: NaN,
    });
    const problems = await backend.findInvalidTTLIndexes();
    const p = problems.find((x) => x.db === 'legacy' && x.index === 'at_1');
    assert.ok(p, JSON.stringify(problems));
    assert.equal(Number(p.expireAfterSeconds), 2147483647, 'rule 4.2: the server reports the repaired value');
    assert.ok(!problems.some((x) => x.index === 't_1'), 'a valid TTL index is not a problem');
  });

  test('catalog: every collection with its index specs (views and time series without)', async () => {
    const cat = await backend.catalog();
    const events = cat.collections.find((c) => c.db === 'app' && c.name === 'events');
    assert.ok(events?.indexes.some((i) => i.name === 't_1'));
    assert.deepEqual(cat.collections.find((c) => c.name === 'recent')?.indexes, []);
    assert.equal(await backend.catalog({ allowStale: true }), cat, 'allowStale answers from the last snapshot');
  });
});

describe('DriverBackend: a connection marked production', () => {
  test('every write asks first; a refusal leaves the server unchanged (11601) and a yes runs it', async () => {
    const server = await startServer({ now: T0 });
    const asked: string[] = [];
    let answer = false;
    const backend = backendOn(server, {
      confirmWrite: async (what, db) => {
        asked.push(`${what} on ${db}`);
        return answer;
      },
    });
    try {
      await backend.connect();
      await rejectsWith(
        backend.runCommand('app', {
          createIndexes: 'c',
          indexes: [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 60 }],
        }),
        11601,
        /marked as production and the change was not confirmed/,
      );
      assert.deepEqual(asked, ['createIndexes on app']);
      assert.equal(server.engine.getCollection('app', 'c'), undefined, 'nothing was created');
      await backend.listDatabases(); // reads never ask
      assert.equal(asked.length, 1);
      answer = true;
      await backend.runCommand('app', {
        createIndexes: 'c',
        indexes: [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 60 }],
      });
      assert.equal(asked.length, 2);
      assert.ok((await backend.listIndexes('app', 'c')).some((i) => i.name === 't_1'));
    } finally {
      backend.dispose();
      await server.stop();
    }
  });
});

describe('DriverBackend on Cosmos DB (the endpoint in its cosmos flavor)', () => {
  let server: RunningServer;
  let backend: DriverBackend;
  before(async () => {
    server = await startServer({ now: T0, flavor: 'cosmos' });
    backend = backendOn(server);
    await backend.connect();
  });
  after(async () => {
    backend.dispose();
    await server.stop();
  });

  test('detected from the _t type tag of its buildInfo reply', async () => {
    const info = await backend.info();
    assert.equal(info.flavor, 'cosmos');
    assert.match(info.server?.cosmosBecause ?? '', /_t: "BuildInfoResponse"/);
    assert.match(info.server?.ttlDeletes ?? '', /rule 10\.5/);
  });

  test('rule 10.1: a TTL index on _ts is created; one on another field is refused (115) with the rule', async () => {
    await backend.runCommand('app', {
      createIndexes: 'c',
      indexes: [{ key: { _ts: 1 }, name: '_ts_1', expireAfterSeconds: 60 }],
    });
    assert.ok((await backend.listIndexes('app', 'c')).some((i) => i.name === '_ts_1'));
    await rejectsWith(
      backend.runCommand('app', {
        createIndexes: 'c',
        indexes: [{ key: { at: 1 }, name: 'at_1', expireAfterSeconds: 60 }],
      }),
      115,
      /through a TTL index on _ts only \(rule 10\.1\)/,
    );
    await rejectsWith(backend.runCommand('admin', { setParameter: 1, ttlMonitorSleepSecs: 5 }), 115, /rule 10\.5/);
  });

  test('the eligibility counts are refused: _ts is out of reach of queries (rule 10.1)', async () => {
    const [, ts] = await backend.listIndexes('app', 'c');
    const r = await backend.expiryCounts(ts, 3600);
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.reason, /_ts out of reach/);
  });
});
