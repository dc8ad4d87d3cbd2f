/**
 * The introspection stages of a standalone mongod 8.0 ($collStats, $indexStats, $currentOp,
 * $planCacheStats, $listLocalSessions, $listSessions) with the engine's real figures, and the
 * stages a standalone refuses, with mongod's codes.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Long } from 'bson';
import { MongoClient, MongoServerError } from 'mongodb';
import { startServer, type RunningServer } from '../../../../src/wire';
import { Engine, type Document } from '../../../../src/engine';
import { VirtualClock } from '../../../../src/engine/clock';
import { REFUSED_STAGES, STAGE_NAMES } from '../../../../src/engine/query/aggregate';
import { expectError } from '../../helpers/expect-error';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');

function setup(): { engine: Engine; clock: VirtualClock } {
  const clock = new VirtualClock(T0);
  const engine = new Engine({ clock });
  engine.runCommand('app', {
    insert: 'c',
    documents: [
      { _id: 1, t: new Date(T0), k: 'a' },
      { _id: 2, t: new Date(T0), k: 'b' },
      { _id: 3, t: new Date(T0), k: 'c' },
    ],
  });
  return { engine, clock };
}

function aggregate(engine: Engine, db: string, target: string | 1, pipeline: Document[]): Document[] {
  const reply = engine.runCommand(db, { aggregate: target, pipeline, cursor: {} });
  return (reply.cursor as Document).firstBatch as Document[];
}

describe('$collStats', () => {
  it("count and storageStats are the collection's own figures, scaled", () => {
    const { engine } = setup();
    const [doc] = aggregate(engine, 'app', 'c', [{ $collStats: { count: {}, storageStats: { scale: 2 } } }]);
    const stats = engine.runCommand('app', { collStats: 'c' });
    assert.equal(doc.ns, 'app.c');
    assert.equal(doc.count, 3);
    assert.deepEqual((doc.localTime as Date).getTime(), T0);
    const storage = doc.storageStats as Document;
    assert.equal(storage.count, 3);
    assert.equal(storage.size, Math.trunc((stats.size as number) / 2));
    assert.equal(storage.nindexes, 1);
    assert.deepEqual(storage.indexSizes, { _id_: Math.trunc(((stats.indexSizes as Document)._id_ as number) / 2) });
    assert.equal(storage.scaleFactor, 2);
  });

  it('queryExecStats counts the queries that scanned the whole collection', () => {
    const { engine } = setup();
    engine.runCommand('app', { find: 'c', filter: { k: 'a' } });
    engine.runCommand('app', { find: 'c', filter: { k: 'b' } });
    engine.runCommand('app', { find: 'c', filter: { _id: 1 } });
    const [doc] = aggregate(engine, 'app', 'c', [{ $collStats: { queryExecStats: {} } }]);
    assert.deepEqual(doc.queryExecStats, {
      collectionScans: { total: Long.fromNumber(2), nonTailable: Long.fromNumber(2) },
    });
  });

  it('must be the first stage (40602); on a missing collection count is NamespaceNotFound (26)', () => {
    const { engine } = setup();
    expectError(() => aggregate(engine, 'app', 'c', [{ $match: {} }, { $collStats: {} }]), 40602);
    expectError(() => aggregate(engine, 'app', 'none', [{ $collStats: { count: {} } }]), 26);
    assert.deepEqual(Object.keys(aggregate(engine, 'app', 'none', [{ $collStats: {} }])[0]), [
      'ns',
      'host',
      'localTime',
    ]);
  });

  it('refuses malformed specifications, and latencyStats histograms, which the engine does not keep', () => {
    const { engine } = setup();
    expectError(() => aggregate(engine, 'app', 'c', [{ $collStats: 1 }]), 5447000);
    expectError(() => aggregate(engine, 'app', 'c', [{ $collStats: { nope: {} } }]), 40415);
    expectError(() => aggregate(engine, 'app', 'c', [{ $collStats: { storageStats: { scale: 0 } } }]), 51024);
    expectError(
      () => aggregate(engine, 'app', 'c', [{ $collStats: { latencyStats: { histograms: true } } }]),
      238,
      /histograms/,
    );
  });
});

describe('$indexStats', () => {
  it('lists each index with its key, spec and the queries that used it since it was built', () => {
    const { engine, clock } = setup();
    clock.advance(5000);
    engine.runCommand('app', { createIndexes: 'c', indexes: [{ key: { k: 1 }, name: 'k_1' }] });
    engine.runCommand('app', { find: 'c', filter: { k: 'a' } });
    engine.runCommand('app', { count: 'c', query: { k: 'b' } });
    engine.runCommand('app', { find: 'c', filter: { t: new Date(T0) } });
    const stats = aggregate(engine, 'app', 'c', [{ $indexStats: {} }]);
    const byName = Object.fromEntries(stats.map((s) => [s.name, s]));
    assert.deepEqual((byName.k_1 as Document).accesses, { ops: Long.fromNumber(2), since: new Date(T0 + 5000) });
    assert.deepEqual((byName._id_ as Document).accesses, { ops: Long.fromNumber(0), since: new Date(T0) });
    assert.deepEqual((byName.k_1 as Document).key, { k: 1 });
    assert.equal(((byName.k_1 as Document).spec as Document).name, 'k_1');
  });

  it('explain does not count as a use; the spec must be empty (28803)', () => {
    const { engine } = setup();
    engine.runCommand('app', { createIndexes: 'c', indexes: [{ key: { k: 1 }, name: 'k_1' }] });
    engine.runCommand('app', { explain: { find: 'c', filter: { k: 'a' } } });
    const k = aggregate(engine, 'app', 'c', [{ $indexStats: {} }]).find((s) => s.name === 'k_1');
    assert.deepEqual((k?.accesses as Document).ops, Long.fromNumber(0));
    expectError(() => aggregate(engine, 'app', 'c', [{ $indexStats: { x: 1 } }]), 28803);
  });
});

describe('$currentOp', () => {
  it('on admin with {aggregate: 1} lists the running aggregate itself', () => {
    const { engine } = setup();
    const ops = aggregate(engine, 'admin', 1, [{ $currentOp: { allUsers: true } }]);
    assert.equal(ops.length, 1);
    assert.equal(ops[0].type, 'op');
    assert.equal(ops[0].op, 'command');
    assert.equal(ops[0].ns, 'admin.$cmd');
    assert.deepEqual((ops[0].command as Document).pipeline, [{ $currentOp: { allUsers: true } }]);
  });

  it("lists the TTL monitor's pass while a host driver has it in progress", () => {
    const { engine, clock } = setup();
    engine.runCommand('app', { createIndexes: 'c', indexes: [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 60 }] });
    engine.runCommand('app', { create: 'd' });
    engine.runCommand('app', { createIndexes: 'd', indexes: [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 60 }] });
    let steps: Iterator<void, unknown> | undefined;
    engine.ttl.setPassDriver((s) => {
      steps = s;
      return new Promise<void>(() => undefined);
    });
    clock.advance(60_000);
    assert.ok(steps);
    assert.equal(steps.next().done, false);
    const during = aggregate(engine, 'admin', 1, [{ $currentOp: {} }, { $match: { desc: 'TTLMonitor' } }]);
    assert.equal(during.length, 1);
    assert.equal(during[0].op, 'none');
    while (!steps.next().done);
    assert.deepEqual(aggregate(engine, 'admin', 1, [{ $currentOp: {} }, { $match: { desc: 'TTLMonitor' } }]), []);
  });

  it('refuses another database or a collection (73) and unknown options (9)', () => {
    const { engine } = setup();
    expectError(() => aggregate(engine, 'app', 1, [{ $currentOp: {} }]), 73);
    expectError(() => aggregate(engine, 'admin', 'c', [{ $currentOp: {} }]), 73);
    expectError(() => aggregate(engine, 'admin', 1, [{ $currentOp: { nope: true } }]), 9);
    expectError(() => aggregate(engine, 'admin', 1, [{ $currentOp: { allUsers: 1 } }]), 9);
  });
});

describe('$planCacheStats, $listLocalSessions, $listSessions', () => {
  it('with no plan cached and no session started: empty, as mongod with empty caches', () => {
    const { engine } = setup();
    assert.deepEqual(aggregate(engine, 'app', 'c', [{ $planCacheStats: {} }]), []);
    assert.deepEqual(aggregate(engine, 'app', 1, [{ $listLocalSessions: { allUsers: true } }]), []);
    expectError(() => aggregate(engine, 'app', 'c', [{ $listLocalSessions: {} }]), 73);
    expectError(() => aggregate(engine, 'app', 'c', [{ $planCacheStats: { x: 1 } }]), 40415);
  });

  it('$listSessions reads config.system.sessions and only there (73)', () => {
    const { engine } = setup();
    const record = { _id: { id: 'x', uid: 'u' }, lastUse: new Date(T0) };
    engine.runCommand('config', { insert: 'system.sessions', documents: [record] });
    assert.deepEqual(aggregate(engine, 'config', 'system.sessions', [{ $listSessions: { allUsers: true } }]), [record]);
    expectError(() => aggregate(engine, 'app', 'c', [{ $listSessions: {} }]), 73);
  });
});

describe('stages a standalone refuses, and the stage registry', () => {
  it("$changeStream is only supported on replica sets (40573); Atlas Search (31082); $geoNear (27); sharding's (6789101)", () => {
    const { engine } = setup();
    expectError(
      () => aggregate(engine, 'app', 'c', [{ $changeStream: {} }]),
      40573,
      /^The \$changeStream stage is only supported on replica sets/,
    );
    for (const stage of ['$search', '$searchMeta', '$vectorSearch'])
      expectError(() => aggregate(engine, 'app', 'c', [{ [stage]: {} }]), 31082, undefined, 'SearchNotEnabled');
    expectError(() => aggregate(engine, 'app', 'c', [{ $geoNear: {} }]), 27, undefined, 'IndexNotFound');
    expectError(() => aggregate(engine, 'admin', 'c', [{ $shardedDataDistribution: {} }]), 6789101);
  });

  it('STAGE_NAMES lists every stage the engine runs and REFUSED_STAGES the refused ones with code and reason', () => {
    const { engine } = setup();
    for (const name of ['$match', '$densify', '$fill', '$collStats', '$currentOp', '$setWindowFields'])
      assert.ok(STAGE_NAMES.includes(name), name);
    assert.deepEqual([...STAGE_NAMES].sort(), STAGE_NAMES);
    for (const [name, refused] of Object.entries(REFUSED_STAGES)) {
      assert.ok(!STAGE_NAMES.includes(name), `${name} is both run and refused`);
      expectError(
        () => aggregate(engine, 'admin', 'c', [{ [name]: {} }]),
        refused.code,
        refused.reason,
        refused.codeName,
      );
    }
  });
});

describe('introspection stages through the official driver', () => {
  let server: RunningServer;
  let client: MongoClient;

  before(async () => {
    server = await startServer({ now: '2026-01-01T00:00:00.000Z' });
    client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 5000 });
    await client.connect();
  });

  after(async () => {
    await client.close();
    await server.stop();
  });

  it('admin.aggregate([{$currentOp: {}}]), $indexStats and $collStats answer; $changeStream is 40573', async () => {
    const coll = client.db('app').collection('c');
    await coll.insertOne({ k: 1 });
    await coll.createIndex({ k: 1 });
    await coll.find({ k: 1 }).toArray();
    const ops = await client
      .db('admin')
      .aggregate([{ $currentOp: {} }])
      .toArray();
    assert.ok(ops.some((op) => op.op === 'command' && op.ns === 'admin.$cmd'));
    const k = (await coll.aggregate([{ $indexStats: {} }]).toArray()).find((s) => s.name === 'k_1');
    assert.equal(Number((k?.accesses as { ops: unknown }).ops), 1);
    const [stats] = await coll.aggregate([{ $collStats: { count: {} } }]).toArray();
    assert.equal(stats.count, 1);
    await assert.rejects(
      coll.aggregate([{ $changeStream: {} }]).toArray(),
      (err: unknown) => err instanceof MongoServerError && err.code === 40573,
    );
  });
});
