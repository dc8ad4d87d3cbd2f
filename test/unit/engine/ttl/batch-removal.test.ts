/**
 * Rules 7.7–7.9 as the engine carries them out in batches: a TTL visit takes its batch from the TTL
 * index's range and removes those documents from every other index, the `_id` table and the record
 * store. After passes cut into many small visits, every index must hold exactly the surviving
 * documents' entries (no stale entry pointing at a deleted document, none missing), stay a valid
 * B+ tree, and answer hinted queries as a scan of the documents would.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type BTree from 'sorted-btree';
import { Engine, type Document } from '../../../../src/engine';
import { VirtualClock } from '../../../../src/engine/clock';
import { prng } from '../../helpers/prng';

const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;

interface Shape {
  title: string;
  ttlKey: Document;
  ttlOptions: Document;
  /** Whether a stored document is expired at `now` (the rules, written apart from the engine). */
  expired: (doc: Document, now: number) => boolean;
}

const EAS = 3600;
function earliestDate(v: unknown): number | undefined {
  const values = Array.isArray(v) ? v : [v];
  let min: number | undefined;
  for (const x of values) if (x instanceof Date && (min === undefined || x.getTime() < min)) min = x.getTime();
  return min;
}
const dueAt = (doc: Document, now: number) => {
  const at = earliestDate(doc.at);
  return at !== undefined && at + EAS * 1000 <= now;
};

const shapes: Shape[] = [
  { title: 'an ascending TTL index', ttlKey: { at: 1 }, ttlOptions: { expireAfterSeconds: EAS }, expired: dueAt },
  { title: 'a descending TTL index', ttlKey: { at: -1 }, ttlOptions: { expireAfterSeconds: EAS }, expired: dueAt },
  {
    title: 'a partial TTL index (rule 7.9)',
    ttlKey: { at: 1 },
    ttlOptions: { expireAfterSeconds: EAS, partialFilterExpression: { kind: 'temp' } },
    expired: (doc, now) => doc.kind === 'temp' && dueAt(doc, now),
  },
];

function makeDoc(r: () => number, i: number, withArrays: boolean): Document {
  const date = () => new Date(T0 + Math.floor((r() - 0.5) * 8 * HOUR));
  const doc: Document = {
    _id: r() < 0.7 ? i : `s${i}`,
    name: `user${Math.floor(r() * 500)}`,
    tag: `t${i % 7}`,
    n: Math.floor(r() * 100),
    tags: [`a${i % 3}`, `b${i % 5}`],
    u: i,
    kind: r() < 0.5 ? 'temp' : 'keep',
  };
  const roll = r();
  // Dates, date arrays (earliest wins: rule 7.8), non-dates and missing fields (never expire).
  if (roll < 0.6) doc.at = date();
  else if (roll < 0.75 && withArrays) doc.at = [date(), date(), 'x'];
  else if (roll < 0.9) doc.at = 'not a date';
  if (r() < 0.5) doc.opt = Math.floor(r() * 10);
  if (r() < 0.5) doc.k = Math.floor(r() * 10);
  return doc;
}

describe('rules 7.7–7.9: TTL batches keep every other index in step', () => {
  for (const shape of shapes) {
    for (const withArrays of [false, true]) {
      it(`${shape.title}${withArrays ? ', multikey (date arrays)' : ''}: after small visits every index holds exactly the survivors`, () => {
        const r = prng(withArrays ? 11 : 7);
        const clock = new VirtualClock(T0);
        const engine = new Engine({ clock });
        // Small visits: many batches, each ending inside a leaf of the TTL index.
        engine.runCommand('admin', { setParameter: 1, ttlIndexDeleteTargetDocs: 137 });
        const c = engine.db('app').collection('c');
        c.createIndex(shape.ttlKey, shape.ttlOptions);
        c.createIndex({ name: 1 });
        c.createIndex({ tag: 1, n: -1 });
        c.createIndex({ tags: 1 });
        c.createIndex({ opt: 1 }, { sparse: true });
        c.createIndex({ k: 1 }, { partialFilterExpression: { k: { $gt: 5 } } });
        c.createIndex({ u: 1 }, { unique: true });
        const docs = Array.from({ length: 3000 }, (_, i) => makeDoc(r, i, withArrays));
        c.insertMany(docs);

        for (const step of [0, 2 * HOUR, 3 * HOUR]) {
          clock.advance(step);
          engine.ttl.runPass();
          const now = clock.now();
          const survivors = docs.filter((d) => !shape.expired(d, now));
          assert.equal(c.countDocuments({}), survivors.length, `documents left at +${step / HOUR} h`);
          assert.ok(survivors.length < docs.length, 'something expired');

          const coll = engine.getCollection('app', 'c')!;
          const liveRids = new Set<number>();
          for (const record of coll.records.values()) liveRids.add(record.rid);
          assert.equal(liveRids.size, survivors.length);
          for (const index of coll.indexes.values()) {
            if (index.name === '_id_') continue;
            const tree = index.tree as BTree<unknown[], { rid: number; doc: Document }>;
            tree.checkValid(true);
            // Every entry points at a stored document, and each stored document has exactly the
            // entries its keys call for.
            const perRid = new Map<number, number>();
            tree.forEachPair((_key, record) => {
              assert.ok(liveRids.has(record.rid), `${index.name}: entry of deleted rid ${record.rid}`);
              perRid.set(record.rid, (perRid.get(record.rid) ?? 0) + 1);
            });
            for (const record of coll.records.values()) {
              const keys = index.keysOf(record.doc);
              assert.equal(
                perRid.get(record.rid) ?? 0,
                keys ? keys.length : 0,
                `${index.name}: entries of rid ${record.rid}`,
              );
            }
          }

          // Hinted queries agree with a scan of the survivors.
          const sorted = (xs: unknown[]) => xs.map(String).sort();
          const idsOf = (filter: Document, hint: Document) => sorted(c.find(filter, { hint }).map((d) => d._id));
          const expect = (pred: (d: Document) => boolean) => sorted(survivors.filter(pred).map((d) => d._id));
          assert.deepEqual(
            idsOf({ name: 'user7' }, { name: 1 }),
            expect((d) => d.name === 'user7'),
          );
          assert.deepEqual(
            idsOf({ tag: 't3', n: { $gte: 50 } }, { tag: 1, n: -1 }),
            expect((d) => d.tag === 't3' && (d.n as number) >= 50),
          );
          assert.deepEqual(
            idsOf({ tags: 'b2' }, { tags: 1 }),
            expect((d) => (d.tags as string[]).includes('b2')),
          );
          assert.deepEqual(
            idsOf({ opt: 4 }, { opt: 1 }),
            expect((d) => d.opt === 4),
          );
          assert.deepEqual(
            idsOf({ k: 8 }, { k: 1 }),
            expect((d) => d.k === 8),
          );
          // _id point reads and the unique index: a deleted document's values are free again.
          for (const d of docs.slice(0, 300)) {
            const alive = survivors.includes(d);
            assert.equal(c.findOne({ _id: d._id }) !== null, alive, `_id ${String(d._id)}`);
            assert.equal(c.find({ u: d.u }, { hint: { u: 1 } }).length, alive ? 1 : 0);
          }
        }
        const gone = docs.find((d) => shape.expired(d, clock.now()))!;
        c.insertOne({ ...gone });
        assert.equal(c.countDocuments({ u: gone.u }), 1, 'a deleted document can be inserted again');
      });
    }
  }
});
