/** `db`: database methods, collections as properties, sibling databases and commands. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type Long } from 'bson';
import { harness, plain } from './helpers';

type Doc = Record<string, unknown>;

describe('collections as properties', () => {
  it('db.<name> is the collection, cached per name, and the same as getCollection(name)', () => {
    const h = harness();
    assert.deepEqual(
      plain(h.value('[db.events === db.events, db.events === db.getCollection("events"), db.events.getName()]')),
      [true, true, 'events'],
    );
    h.run('db.events.insertOne({ a: 1 })');
    assert.equal(h.value('db["events"].countDocuments()'), 1);
  });

  it('method names stay methods; such collections are reached with getCollection', () => {
    const h = harness();
    assert.equal(h.value('typeof db.getName'), 'function');
    h.run('db.getCollection("getName").insertOne({ x: 1 })');
    assert.equal(h.value('db.getCollection("getName").countDocuments()'), 1);
  });

  it('db is not thenable and has no enumerable internals', () => {
    const h = harness();
    assert.deepEqual(plain(h.value('[db.then, Object.keys(db).length, JSON.stringify(Object.keys(db.c))]')), [
      undefined,
      0,
      '[]',
    ]);
  });

  it('getCollection refuses what is not a name', () => {
    const h = harness();
    assert.equal(h.failure('db.getCollection("")').error?.name, 'MongoshInvalidInputError', "mongosh's name for it");
    assert.equal(h.failure('db.getCollection(5)').error?.name, 'TypeError');
  });
});

describe('database methods', () => {
  it('getName, toString and how db prints', () => {
    const h = harness({ dbName: 'app' });
    assert.equal(h.value('db.getName()'), 'app');
    assert.equal(h.value('`${db}`'), 'app');
    const shown = h.last('db');
    assert.equal(shown.rendered, 'app');
    assert.equal(shown.ejson, 'app');
  });

  it('getSiblingDB reaches another database without switching', () => {
    const h = harness();
    h.run('db.getSiblingDB("other").c.insertOne({ a: 1 })');
    assert.equal(h.value('db.getSiblingDB("other").c.countDocuments()'), 1);
    assert.equal(h.value('db.getName()'), 'test');
    assert.equal(h.value('db.getSiblingDB("other") === db.getSiblingDB("other")'), true);
    assert.equal(h.failure('db.getSiblingDB("bad name")').error?.name, 'MongoServerError');
  });

  it('createCollection, getCollectionNames and getCollectionInfos', () => {
    const h = harness();
    assert.deepEqual(h.value('db.createCollection("b")'), { ok: 1 });
    h.run('db.createCollection("a", { clusteredIndex: { key: { _id: 1 }, unique: true }, expireAfterSeconds: 60 })');
    assert.deepEqual(plain(h.value('db.getCollectionNames()')), ['a', 'b']);
    const infos = h.value('db.getCollectionInfos({ name: "a" })') as Doc[];
    assert.equal(infos.length, 1);
    assert.equal(((infos[0].options as Doc).expireAfterSeconds as Long).toString(), '60');
    assert.equal(h.failure('db.createCollection("b", { capped: true })').error?.name, 'MongoServerError');
  });

  it('runCommand takes a document or a command name and returns the reply', () => {
    const h = harness();
    assert.deepEqual(h.value('db.runCommand({ ping: 1 })'), { ok: 1 });
    assert.deepEqual(h.value('db.runCommand("ping")'), { ok: 1 });
    assert.equal((h.value('db.runCommand({ buildInfo: 1 })') as Doc).version, '8.0.4');
    assert.equal(h.failure('db.runCommand(5)').error?.name, 'TypeError');
  });

  it('adminCommand runs against admin (setParameter, getParameter)', () => {
    const h = harness();
    assert.equal((h.value('db.adminCommand({ setParameter: 1, ttlMonitorSleepSecs: 5 })') as Doc).ok, 1);
    assert.deepEqual(h.value('db.adminCommand({ getParameter: 1, ttlMonitorSleepSecs: 1 })'), {
      ttlMonitorSleepSecs: 5,
      ok: 1,
    });
    assert.equal(
      h.failure('db.runCommand({ getParameter: 1, ttlMonitorSleepSecs: 1 })').error?.codeName,
      'Unauthorized',
    );
  });

  it('serverStatus shows the TTL metrics as Longs', () => {
    const h = harness();
    h.run('sleep(60000)');
    const status = h.value('db.serverStatus()') as { metrics: { ttl: { passes: Long } } };
    assert.equal(status.metrics.ttl.passes.toString(), '1');
    assert.equal(
      h.rendered('db.serverStatus().metrics.ttl'),
      "{\n  deletedDocuments: Long('0'),\n  passes: Long('1'),\n  subPasses: Long('1')\n}",
    );
  });

  it('stats, version, hello and dropDatabase', () => {
    const h = harness();
    h.run('db.c.insertMany([{}, {}])');
    assert.equal((h.value('db.stats()') as Doc).objects, 2);
    assert.equal(h.value('db.version()'), '8.0.4');
    assert.equal((h.value('db.hello()') as Doc).isWritablePrimary, true);
    assert.deepEqual(h.value('db.dropDatabase()'), { dropped: 'test', ok: 1 });
    assert.deepEqual(plain(h.value('db.getCollectionNames()')), []);
  });
});
