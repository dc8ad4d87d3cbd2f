/**
 * RecordStore: records by rid in rid (natural) order, across chunk boundaries, with deletes that
 * empty whole chunks, and rids beyond 2^32.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecordStore } from '../../../../src/engine/catalog/record-store';
import type { StoredRecord } from '../../../../src/engine/catalog/record';

const rec = (rid: number): StoredRecord => ({ rid, doc: { _id: rid }, idSlot: -1 });

describe('RecordStore', () => {
  it('keeps rid order, size and lookups across chunks while records come and go', () => {
    const store = new RecordStore();
    for (let rid = 1; rid <= 5000; rid++) store.add(rec(rid));
    for (let rid = 1; rid <= 5000; rid++) if (rid % 3 !== 0 || (rid > 1024 && rid <= 3072)) store.delete(rid);
    const expected = [];
    for (let rid = 1; rid <= 5000; rid++) if (rid % 3 === 0 && !(rid > 1024 && rid <= 3072)) expected.push(rid);
    assert.deepEqual([...store.values()].map((r) => r.rid), expected);
    assert.equal(store.size, expected.length);
    assert.equal(store.first()?.rid, 3);
    assert.equal(store.get(2000), undefined);
    assert.equal(store.get(3075)?.rid, 3075);
    assert.equal(store.has(3076), false);
    assert.equal(store.delete(3076), false, 'deleting twice changes nothing');
    assert.equal(store.size, expected.length);
  });

  it('keeps the newest chunk when it empties, so later rids still land in order', () => {
    const store = new RecordStore();
    store.add(rec(1));
    store.add(rec(2));
    store.delete(1);
    store.delete(2);
    assert.equal(store.size, 0);
    assert.equal(store.first(), undefined);
    store.add(rec(3));
    store.add(rec(2000));
    assert.deepEqual([...store.values()].map((r) => r.rid), [3, 2000]);
  });

  it('handles rids beyond 2^32', () => {
    const store = new RecordStore();
    const big = 2 ** 32 + 5;
    store.add(rec(7));
    store.add(rec(big));
    assert.equal(store.get(big)?.rid, big);
    assert.equal(store.get(5), undefined);
    assert.deepEqual([...store.values()].map((r) => r.rid), [7, big]);
  });
});
