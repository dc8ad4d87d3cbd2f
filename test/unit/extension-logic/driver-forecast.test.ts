/**
 * The expiry forecast over the driver (issue 21): DriverBackend.forecast runs one aggregation on the
 * server (the wire endpoint, through the real driver) and must give the embedded engine's figures
 * (`forecastExpiry` over the endpoint's own collection at the same `now`) for the same data: every
 * bucket, due now, later, never, total.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MongoClient } from 'mongodb';
import { forecastExpiry, type Forecast, type ForecastRequest } from '../../../src/engine';
import { DriverBackend } from '../../../src/extension/backend/driver-backend';
import { noServerHistoryText } from '../../../src/extension/logic/server-history';
import { startServer, type RunningServer } from '../../../src/wire';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const H = 3600_000;
const at = (ms: number) => new Date(NOW + ms);

function figures(f: Forecast) {
  const { notes: _notes, ...rest } = f;
  return rest;
}

describe('the expiry forecast computed on a server', () => {
  let server: RunningServer;
  let backend: DriverBackend;
  let client: MongoClient;

  before(async () => {
    server = await startServer({ now: NOW });
    client = await MongoClient.connect(server.uri, { serverSelectionTimeoutMS: 3000 });
    const db = client.db('shop');
    // lastSeen + 1 h: due now, each of the next hours, past the day, and never.
    await db.collection('sessions').createIndex({ lastSeen: 1 }, { expireAfterSeconds: 3600 });
    const docs = [];
    for (let i = 0; i < 300; i++) docs.push({ lastSeen: at(-2 * H + i * 7 * 60_000 + 1234) });
    docs.push(
      { lastSeen: [at(5 * H), at(-30 * 60_000), 'x'] }, // rule 7.8: the earliest date, -30 min + 1 h
      { lastSeen: [7, at(2 * H)] }, // the number is not a date: the date counts
      { lastSeen: [] }, // no date at all: never
      { lastSeen: 'yesterday' }, // rule 7.9: never
      { other: 1 }, // no field: never
      { lastSeen: at(30 * 24 * H) }, // after the horizon
      { lastSeen: at(-H) }, // exactly at now: due
      { lastSeen: at(0) }, // exactly at the first bucket's end
    );
    await db.collection('sessions').insertMany(docs);
    // A partial TTL index: only paid orders expire.
    await db
      .collection('orders')
      .createIndex({ closedAt: 1 }, { expireAfterSeconds: 600, partialFilterExpression: { status: 'paid' } });
    await db.collection('orders').insertMany(
      Array.from({ length: 120 }, (_, i) => ({
        status: i % 3 === 0 ? 'open' : 'paid',
        closedAt: at(i * 17 * 60_000),
      })),
    );
    // A clustered collection's own TTL: _id dates from 1970 on (rule 5.4).
    await db.createCollection('ticks', { clusteredIndex: { key: { _id: 1 }, unique: true }, expireAfterSeconds: 60 });
    await db
      .collection<{ _id: unknown }>('ticks')
      .insertMany([
        ...Array.from({ length: 50 }, (_, i) => ({ _id: at(i * 29 * 60_000 - 3 * H) })),
        { _id: new Date(-5000) },
        { _id: 'not a date' },
      ]);
    backend = new DriverBackend({
      uri: server.uri,
      label: 'staging',
      redact: (s) => s,
      monitorRefreshMs: 0,
      clientOptions: { serverSelectionTimeoutMS: 3000 },
    });
    await backend.connect();
  });

  after(async () => {
    backend.dispose();
    await client.close();
    await server.stop();
  });

  async function same(collection: string, request: ForecastRequest): Promise<Forecast> {
    const remote = await backend.forecast('shop', collection, request);
    const local = forecastExpiry(server.engine.requireCollection('shop', collection), request, remote.now.getTime());
    assert.deepEqual(figures(remote), figures(local));
    return remote;
  }

  test("rule 7.8: the server's buckets equal the embedded forecast's, an array expiring on its earliest date", async () => {
    const f = await same('sessions', { horizonMs: 24 * H, buckets: 24 });
    assert.equal(f.total, 308);
    assert.equal(f.never, 3, 'an empty array, a string and a missing field never expire');
    assert.equal(f.later, 86, 'the hours past the day, and the date a month ahead');
    assert.equal(f.dueNow, 10, 'nine of the series and the one that expired at now');
    assert.equal(f.buckets[0].count, 11, 'nine of the series, the array at -30 min, and the date at now (+1 h)');
  });

  test('a what-if expireAfterSeconds, another horizon and bucket count give the same figures as the engine', async () => {
    const f = await same('sessions', {
      index: 'lastSeen_1',
      expireAfterSeconds: 7 * 60,
      horizonMs: 6 * H,
      buckets: 36,
    });
    assert.equal(f.whatIf, true);
    assert.equal(f.expireAfterSeconds, 420);
    await same('sessions', { index: { lastSeen: 1 }, horizonMs: 7 * 24 * H, buckets: 7 });
  });

  test('a partial TTL index counts only the documents its filter selects, and a what-if filter replaces it', async () => {
    const f = await same('orders', { horizonMs: 24 * H, buckets: 48 });
    assert.equal(f.total, 80);
    const g = await same('orders', { partialFilterExpression: { status: 'open' }, horizonMs: 24 * H, buckets: 48 });
    assert.equal(g.total, 40);
    assert.equal(g.whatIf, true);
  });

  test('rule 5.4: a clustered collection expires its _id dates from 1970 on; others never', async () => {
    const f = await same('ticks', { horizonMs: 24 * H, buckets: 24 });
    assert.equal(f.kind, 'clustered');
    assert.equal(f.never, 2);
  });

  test('a key with no index yet is forecast as the TTL index it would be (what-if seconds required)', async () => {
    const f = await same('orders', { index: { closedAt: 1 }, expireAfterSeconds: 60, horizonMs: 24 * H, buckets: 12 });
    assert.equal(f.total, 80, 'the existing index is found by its key, with its partial filter');
    const g = await backend.forecast('shop', 'sessions', {
      index: { other: 1 },
      expireAfterSeconds: 60,
      horizonMs: H,
      buckets: 4,
    });
    assert.equal(g.index, 'proposed');
    assert.equal(g.total, 308);
    assert.equal(g.never, 308, 'the one document with the field holds a number: nothing expires');
  });

  test("the engine's refusals, with its codes: no such index, not TTL without a value, bad shapes, no collection", async () => {
    await assert.rejects(backend.forecast('shop', 'sessions', { index: 'nope' }), {
      code: 27,
      codeName: 'IndexNotFound',
    });
    await assert.rejects(backend.forecast('shop', 'sessions', { index: '_id_' }), { code: 2, codeName: 'BadValue' });
    await assert.rejects(backend.forecast('shop', 'sessions', { buckets: 0 }), { code: 2 });
    await assert.rejects(backend.forecast('shop', 'sessions', { index: { a: 1, b: 1 }, expireAfterSeconds: 5 }), {
      code: 67,
    });
    await assert.rejects(backend.forecast('shop', 'missing', {}), { code: 26, codeName: 'NamespaceNotFound' });
  });

  test("the monitor history's half says in words that a server keeps only totals, quoting them", async () => {
    await assert.rejects(backend.monitorHistory(), { code: 20, codeName: 'IllegalOperation' });
    server.clock.advance('2m'); // passes run on the endpoint's clock: the totals are the server's own
    const monitor = await backend.monitorStatus();
    assert.ok(monitor.passes >= 1, JSON.stringify(monitor));
    const text = noServerHistoryText('staging', monitor);
    assert.match(text, /^No pass history on staging: a real server keeps only the TTL monitor's totals/);
    assert.ok(text.includes(`${monitor.passes} passes, ${monitor.deletedDocuments} documents deleted`), text);
    assert.match(noServerHistoryText('staging', undefined), /nothing to chart\. The Expiry Forecast works/);
  });
});
