/** An index in words (the tree's index rows), from the engine's TTL rules. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Int32 } from 'bson';
import {
  describeCollectionTTL,
  describeIndex,
  describeKey,
  indexRowText,
} from '../../../src/extension/logic/index-description';

const spec = (key: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  v: 2,
  key,
  name: Object.keys(key)
    .map((k) => `${k}_${String(key[k])}`)
    .join('_'),
  ...extra,
});

describe('describeIndex', () => {
  it('says what a TTL index does: seconds after the field (rule 1.1)', () => {
    const s = spec({ lastModifiedDate: 1 }, { expireAfterSeconds: new Int32(3600) });
    assert.equal(
      indexRowText({ name: 'lastModifiedDate_1', spec: s }),
      'lastModifiedDate_1 — TTL 1 h after lastModifiedDate',
    );
    const d = describeIndex({ name: 'lastModifiedDate_1', spec: s });
    assert.equal(d.kind, 'ttl');
    assert.equal(d.seconds, 3600);
    assert.equal(d.ttlApplies, true);
    assert.equal(d.convertible, false);
  });

  it('says expireAfterSeconds 0 expires at the date in the field (rule 7.8)', () => {
    assert.equal(
      indexRowText({ name: 'expireAt_1', spec: spec({ expireAt: 1 }, { expireAfterSeconds: 0 }) }),
      'expireAt_1 — expires at the date in expireAt',
    );
  });

  it('flags a NaN stored value as ignored by the monitor (rule 4.2)', () => {
    const d = describeIndex({
      name: 't_1',
      spec: spec({ t: 1 }, { expireAfterSeconds: new Int32(2147483647) }),
      stored: { expireAfterSeconds: NaN, problem: 'NaN' },
    });
    assert.equal(d.summary, 'NaN — ignored by the monitor');
    assert.equal(d.kind, 'ttlInvalid');
    assert.equal(d.ttlApplies, false);
    assert.match(d.warning!, /skips the index/);
  });

  it('says TTL never applies through hashed, 2dsphere and text keys (rule 1.9)', () => {
    assert.equal(
      describeIndex({ name: 'a_hashed', spec: spec({ a: 'hashed' }, { expireAfterSeconds: 60 }) }).summary,
      'hashed — TTL never applies',
    );
    assert.equal(
      describeIndex({ name: 'loc', spec: spec({ loc: '2dsphere' }, { expireAfterSeconds: 60 }) }).summary,
      '2dsphere — TTL never applies',
    );
    assert.equal(
      describeIndex({ name: 'ab', spec: spec({ a: 1, b: 1 }, { expireAfterSeconds: 60 }) }).summary,
      'compound — TTL never applies',
    );
  });

  it('marks hidden and partial TTL indexes, which still expire (rule 1.13)', () => {
    const d = describeIndex({
      name: 't_1',
      spec: spec({ t: 1 }, { expireAfterSeconds: 90, hidden: true, partialFilterExpression: { s: 'done' } }),
    });
    assert.equal(d.summary, 'TTL 1 min 30 s after t · partial · hidden');
    assert.equal(d.ttlApplies, true);
    assert.match(d.warning!, /still deletes/);
  });

  it('warns about 2147483647, the value servers write in place of NaN', () => {
    assert.match(
      describeIndex({ name: 't_1', spec: spec({ t: 1 }, { expireAfterSeconds: 2147483647 }) }).warning!,
      /in place of an invalid/,
    );
  });

  it('describes ordinary indexes and says which can become TTL indexes with collMod (rule 3.5)', () => {
    const single = describeIndex({ name: 'createdAt_-1', spec: spec({ createdAt: -1 }) });
    assert.equal(single.summary, 'index on createdAt (descending)');
    assert.equal(single.convertible, true);
    assert.equal(describeIndex({ name: 'a_1_b_1', spec: spec({ a: 1, b: 1 }, { unique: true }) }).convertible, false);
    assert.equal(
      describeIndex({ name: 'a_1_b_1', spec: spec({ a: 1, b: 1 }, { unique: true }) }).summary,
      'unique index on a, b',
    );
    assert.equal(describeIndex({ name: '_id_', spec: { v: 2, key: { _id: 1 }, name: '_id_' } }).kind, 'id');
    assert.equal(describeIndex({ name: '_id_', spec: { v: 2, key: { _id: 1 }, name: '_id_' } }).convertible, false);
    assert.equal(describeIndex({ name: 'x_1', spec: spec({ x: 1 }, { hidden: true }) }).summary, 'index on x · hidden');
  });

  it('describes keys and collection-level TTL', () => {
    assert.equal(describeKey({ a: 1, b: -1, c: '2dsphere' }), 'a, b (descending), c (2dsphere)');
    assert.equal(describeCollectionTTL({ clusteredIndex: {}, expireAfterSeconds: 2_592_000 }), 'TTL 30 d after _id');
    assert.equal(
      describeCollectionTTL({ timeseries: { timeField: 'ts' }, expireAfterSeconds: 0 }),
      'expires at the date in ts',
    );
    assert.equal(describeCollectionTTL({}), undefined);
  });
});
