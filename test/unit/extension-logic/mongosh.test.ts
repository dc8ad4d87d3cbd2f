/** "Copy as mongosh": the shell text of what a command did. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as mongosh from '../../../src/extension/logic/mongosh';

describe('mongosh text', () => {
  it('builds createIndex, collMod, hide, drop and createCollection as mongosh prints values', () => {
    assert.equal(
      mongosh.createIndex('app', 'events', { lastModifiedDate: 1 }, { expireAfterSeconds: 3600 }),
      "db.getSiblingDB('app').events.createIndex({ lastModifiedDate: 1 }, { expireAfterSeconds: 3600 })",
    );
    assert.equal(
      mongosh.collModIndex('app', 'events', { name: 'expireAt_1', expireAfterSeconds: 60 }),
      "db.getSiblingDB('app').runCommand({ collMod: 'events', index: { name: 'expireAt_1', expireAfterSeconds: 60 } })",
    );
    assert.equal(mongosh.hideIndex('app', 'events', 'a_1', true), "db.getSiblingDB('app').events.hideIndex('a_1')");
    assert.equal(mongosh.hideIndex('app', 'events', 'a_1', false), "db.getSiblingDB('app').events.unhideIndex('a_1')");
    assert.equal(mongosh.dropIndex('app', 'events', 'a_1'), "db.getSiblingDB('app').events.dropIndex('a_1')");
    assert.equal(mongosh.createCollection('app', 'logs', {}), "db.getSiblingDB('app').createCollection('logs')");
    assert.equal(
      mongosh.createCollection('app', 'logs', {
        clusteredIndex: { key: { _id: 1 }, unique: true },
        expireAfterSeconds: 60,
      }),
      "db.getSiblingDB('app').createCollection('logs', { clusteredIndex: { key: { _id: 1 }, unique: true }, expireAfterSeconds: 60 })",
    );
    assert.equal(mongosh.value({ note: 'two\nlines' }), "{ note: 'two\\nlines' }");
  });

  it('uses getCollection for names that are not plain identifiers or are database methods', () => {
    assert.equal(mongosh.collectionRef('app', 'my-events'), "db.getSiblingDB('app').getCollection('my-events')");
    assert.equal(mongosh.collectionRef('app', 'stats'), "db.getSiblingDB('app').getCollection('stats')");
    assert.equal(
      mongosh.collectionRef('app', 'system.profile'),
      "db.getSiblingDB('app').getCollection('system.profile')",
    );
  });

  it('sends admin commands through adminCommand and dates as ISODate', () => {
    assert.equal(
      mongosh.setParameter({ ttlMonitorSleepSecs: 5 }),
      'db.adminCommand({ setParameter: 1, ttlMonitorSleepSecs: 5 })',
    );
    assert.equal(
      mongosh.insertMany('app', 'e', [{ t: new Date('2030-01-01T00:00:00Z') }]),
      "db.getSiblingDB('app').e.insertMany([ { t: ISODate('2030-01-01T00:00:00.000Z') } ])",
    );
  });
});

describe('mongosh numbers', () => {
  it('shows Int32, Double and safe Long values as plain numbers, as mongosh shows driver results', async () => {
    const { Int32, Long, Double } = await import('bson');
    assert.equal(
      mongosh.value({
        a: new Int32(3600),
        b: Long.fromNumber(7200),
        c: new Double(1.5),
        d: NaN,
        e: Long.fromString('9223372036854775807'),
      }),
      "{ a: 3600, b: 7200, c: 1.5, d: NaN, e: Long('9223372036854775807') }",
    );
  });
});
