/**
 * RecordStore: records by rid in rid (natural) order, across chunk boundaries, with deletes that
 * empty whole chunks, and rids beyond 2^32.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecordStore } from '../../../../src/engine/catalog/record-store';
import type { StoredRecord } from '../../../../src/engine/catalog/record';
import { prng } from '../../helpers/prng';

const rec = (rid: number): StoredRecord => ({ rid, doc: { _id: rid }, idSlot: -1 });

describe('RecordStore', () => {
  it('keeps rid order, size and lookups across chunks while records come and go', () => {
    const store = new RecordStore();
    for (let rid = 1; rid <= 5000; rid++) store.add(rec(rid));
    for (let rid = 1; rid <= 5000; rid++) if (rid % 3 !== 0 || (rid > 1024 && rid <= 3072)) store.delete(rid);
    const expected = [];
    for (let rid = 1; rid <= 5000; rid++) if (rid % 3 === 0 && !(rid > 1024 && rid <= 3072)) expected.push(rid);
    assert.deepEqual(
      [...store.values()].map((r) => r.rid),
      expected,
    );
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
    assert.deepEqual(
      [...store.values()].map((r) => r.rid),
      [3, 2000],
    );
  });

  it('handles rids beyond 2^32', () => {
    const store = new RecordStore();
    const big = 2 ** 32 + 5;
    store.add(rec(7));
    store.add(rec(big));
    assert.equal(store.get(big)?.rid, big);
    assert.equal(store.get(5), undefined);
    assert.deepEqual(
      [...store.values()].map((r) => r.rid),
      [7, big],
    );
  });

  it('agrees with a sorted model under TTL-like churn: rising rids, the oldest deleted in runs, holes trimmed, a pinned old record, a rid below them all', () => {
    const r = prng(404);
    for (let round = 0; round < 40; round++) {
      const store = new RecordStore();
      const model = new Map<number, StoredRecord>();
      let next = Math.floor(r() * 5000);
      // Sometimes one old record stays while everything after it churns (holes, no trimming).
      const pinned = r() < 0.3 ? next++ : undefined;
      if (pinned !== undefined) {
        store.add(rec(pinned));
        model.set(pinned, rec(pinned));
      }
      for (let step = 0; step < 400; step++) {
        const x = r();
        if (x < 0.5) {
          const n = 1 + Math.floor(r() * 3000);
          for (let k = 0; k < n; k++) {
            const rid = next;
            next += r() < 0.05 ? 1 + Math.floor(r() * 5000) : 1;
            store.add(rec(rid));
            model.set(rid, rec(rid));
          }
        } else if (x < 0.9) {
          // Expire the oldest run (pinned excepted), or random ones.
          const live = [...model.keys()].sort((a, b) => a - b).filter((rid) => rid !== pinned);
          const n = Math.floor(r() * live.length * 0.6);
          const doomed = r() < 0.7 ? live.slice(0, n) : live.filter(() => r() < 0.3);
          for (const rid of doomed) {
            assert.equal(store.delete(rid), true);
            model.delete(rid);
          }
        } else if (x < 0.92 && model.size > 0) {
          // A rid below every chunk (callers do not do this, but it must stay correct).
          const low = Math.max(0, Math.min(...model.keys()) - 1 - Math.floor(r() * 10_000));
          if (!model.has(low)) {
            store.add(rec(low));
            model.set(low, rec(low));
          }
        } else {
          const probe = Math.floor(r() * next);
          assert.equal(store.get(probe)?.rid, model.get(probe)?.rid, `round ${round}: get ${probe}`);
          assert.equal(store.delete(probe + 0.0), model.delete(probe), `round ${round}: delete ${probe}`);
        }
        const expected = [...model.keys()].sort((a, b) => a - b);
        assert.equal(store.size, expected.length);
        assert.equal(store.first()?.rid, expected[0]);
        if (step % 20 === 0) {
          assert.deepEqual(
            [...store.values()].map((x) => x.rid),
            expected,
            `round ${round} step ${step}`,
          );
          const fromChunks: number[] = [];
          for (const [first, slots] of store.chunkSlots())
            slots.forEach((x, i) => x && (assert.equal(x.rid, first + i), fromChunks.push(x.rid)));
          assert.deepEqual(fromChunks, expected);
        }
      }
    }
  });

  it('a chunk walk is live: chunks dropped before it reaches them are skipped, new ones come at the end', () => {
    const store = new RecordStore();
    for (let rid = 0; rid < 200 * 1024; rid += 512) store.add(rec(rid));
    const seen: number[] = [];
    let added = false;
    for (const [first] of store.chunkSlots()) {
      seen.push(first);
      if (first === 0) {
        // Drop chunks 1..150 (enough to trim the array's leading holes once chunk 0 goes too).
        for (let rid = 1024; rid < 151 * 1024; rid += 512) store.delete(rid);
        store.delete(0);
        store.delete(512);
      }
      if (!added && first === 199 * 1024) {
        store.add(rec(300 * 1024));
        added = true;
      }
    }
    const expected = [0, ...Array.from({ length: 49 }, (_, i) => (151 + i) * 1024), 300 * 1024];
    assert.deepEqual(seen, expected);
  });
});
