/**
 * The ObjectId table against a plain Map keyed by hex: random inserts, replacements and deletes
 * (deletes shift runs back, so every record's remembered slot must follow), small tables that wrap
 * around their end, growth, and ids that differ in a single byte.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ObjectId } from 'bson';
import { ObjectIdTable, objectIdHash } from '../../../../src/engine/indexes/object-id-table';
import { prng } from '../../helpers/prng';

interface Rec {
  name: string;
  id: ObjectId;
  idSlot: number;
}

/** The table confirms a hash hit against the record's own id. */
const newTable = () => new ObjectIdTable<Rec>((r) => r.id);

function idFrom(rand: () => number, pool: number): ObjectId {
  // A small pool makes repeats (replacements, deletes of present ids) frequent.
  const n = Math.floor(rand() * pool);
  const bytes = new Uint8Array(12);
  bytes[11] = n & 0xff;
  bytes[10] = (n >> 8) & 0xff;
  bytes[0] = (n * 7) & 0xff;
  return new ObjectId(bytes);
}

function check(table: ObjectIdTable<Rec>, model: Map<string, { id: ObjectId; rec: Rec }>, gone: Rec[]): void {
  assert.equal(table.size, model.size);
  for (const { id, rec } of model.values()) {
    // A fresh id object with the same bytes: found by value, not identity.
    assert.equal(table.get(new ObjectId(id.toHexString())), rec, `lookup of ${id.toHexString()}`);
    assert.ok(rec.idSlot >= 0);
  }
  for (const rec of gone) assert.equal(rec.idSlot, -1, `${rec.name} was removed or replaced`);
  assert.equal([...table.values()].length, model.size);
}

function run(seed: number, pool: number, steps: number, maxSize: number): void {
  const rand = prng(seed);
  const table = newTable();
  const model = new Map<string, { id: ObjectId; rec: Rec }>();
  let gone: Rec[] = [];
  for (let step = 0; step < steps; step++) {
    const id = idFrom(rand, pool);
    const hex = id.toHexString();
    const have = model.get(hex);
    const roll = rand();
    if (roll < 0.5 && model.size < maxSize) {
      const rec: Rec = { name: `${hex}@${step}`, id, idSlot: -1 };
      // Half the writes probe first, as an insert's uniqueness check does.
      if (rand() < 0.5) assert.equal(table.get(id), have?.rec);
      table.set(id, rec);
      if (have) gone.push(have.rec);
      model.set(hex, { id, rec });
    } else if (have) {
      assert.equal(table.remove(have.rec), true);
      assert.equal(table.remove(have.rec), false, 'a second remove finds nothing');
      gone.push(have.rec);
      model.delete(hex);
    } else {
      assert.equal(table.get(id), undefined);
    }
    if (step % 97 === 0) {
      check(table, model, gone);
      gone = [];
    }
  }
  check(table, model, gone);
  table.clear();
  assert.equal(table.size, 0);
  for (const { id, rec } of model.values()) {
    assert.equal(rec.idSlot, -1);
    assert.equal(table.get(id), undefined);
  }
}

describe('ObjectId table', () => {
  it('agrees with a Map under churn in a small table (runs wrap around its end)', () => {
    for (const seed of [1, 2, 3, 4]) run(seed, 40, 20_000, 12);
  });

  it('agrees with a Map while growing to thousands of ids and shrinking back', () => {
    for (const seed of [5, 6]) run(seed, 6_000, 60_000, 5_000);
  });

  it('a run longer than a distance byte holds (300 ids with 8 home slots) shifts back correctly as it empties', () => {
    const rand = prng(31);
    // expect(300) makes a 512-slot table; collect ids whose home there is one of slots 0-7.
    const ids: ObjectId[] = [];
    while (ids.length < 300) {
      const bytes = new Uint8Array(12);
      for (let i = 0; i < 12; i++) bytes[i] = Math.floor(rand() * 256);
      const id = new ObjectId(bytes);
      if ((objectIdHash(id) & 511) < 8) ids.push(id);
    }
    const table = newTable();
    table.expect(300);
    const model = new Map<string, { id: ObjectId; rec: Rec }>();
    for (const id of ids) {
      const rec: Rec = { name: id.toHexString(), id, idSlot: -1 };
      table.set(id, rec);
      model.set(id.toHexString(), { id, rec });
    }
    // 300 ids over 8 home slots make one run of 300: the last ones sit ~290 slots past their home.
    assert.ok(
      [...model.values()].every((e) => e.rec.idSlot < 8),
      'each record remembers its home slot',
    );
    const order = [...model.keys()].sort(() => rand() - 0.5);
    for (let i = 0; i < order.length; i++) {
      const { rec } = model.get(order[i])!;
      assert.equal(table.remove(rec), true);
      model.delete(order[i]);
      // Now and then one comes back (it lands at the end of what is left of the run).
      if (i % 25 === 0) {
        const back = ids[Math.floor(rand() * ids.length)];
        if (!model.has(back.toHexString())) {
          const again: Rec = { name: `${back.toHexString()} again`, id: back, idSlot: -1 };
          table.set(back, again);
          model.set(back.toHexString(), { id: back, rec: again });
        }
      }
      if (i % 10 === 0) check(table, model, []);
    }
    check(table, model, []);
  });

  it('two ids with the same 32-bit hash are told apart by their words', () => {
    // ~2^16.5 random ids make a pair whose hashes collide (the birthday bound).
    const rand = prng(77);
    const seen = new Map<number, ObjectId>();
    let pair: [ObjectId, ObjectId] | undefined;
    while (!pair) {
      const bytes = new Uint8Array(12);
      for (let i = 0; i < 12; i++) bytes[i] = Math.floor(rand() * 256);
      const id = new ObjectId(bytes);
      const h = objectIdHash(id);
      const earlier = seen.get(h);
      if (earlier && earlier.toHexString() !== id.toHexString()) pair = [earlier, id];
      seen.set(h, id);
    }
    const table = newTable();
    const [x, y] = pair;
    const rx: Rec = { name: 'x', id: x, idSlot: -1 };
    const ry: Rec = { name: 'y', id: y, idSlot: -1 };
    table.set(x, rx);
    assert.equal(table.get(y), undefined, 'same hash, different id: absent');
    table.set(y, ry);
    assert.equal(table.size, 2);
    assert.equal(table.get(new ObjectId(x.toHexString())), rx);
    assert.equal(table.get(new ObjectId(y.toHexString())), ry);
    assert.equal(table.remove(rx), true);
    assert.equal(table.get(y), ry);
    assert.equal(table.get(x), undefined);
  });

  it('sized ahead by expect(), before or after its first id, still finds every id', () => {
    for (const early of [true, false]) {
      const table = newTable();
      const ids: Array<[ObjectId, Rec]> = [];
      if (early) table.expect(3000);
      for (let i = 0; i < 3000; i++) {
        const id = new ObjectId();
        const pair: [ObjectId, Rec] = [id, { name: String(i), id, idSlot: -1 }];
        ids.push(pair);
        // A probe before the reservation must not be reused after it moved everything.
        assert.equal(table.get(pair[0]), undefined);
        if (!early && i === 10) table.expect(3000);
        table.set(pair[0], pair[1]);
      }
      for (const [id, rec] of ids) assert.equal(table.get(id), rec);
      assert.equal(table.size, 3000);
    }
  });

  it('keeps a probe valid only until the table changes', () => {
    const table = newTable();
    const a = new ObjectId();
    const b = new ObjectId();
    const ra: Rec = { name: 'a', id: a, idSlot: -1 };
    const rb: Rec = { name: 'b', id: b, idSlot: -1 };
    assert.equal(table.get(a), undefined);
    // b lands between a's probe and a's store: a must not reuse the slot it probed if b took it.
    table.set(b, rb);
    table.set(a, ra);
    assert.equal(table.get(a), ra);
    assert.equal(table.get(b), rb);
    assert.equal(table.size, 2);
  });

  it('finds an id whose words come from its bytes as well as from bson 7 fields', () => {
    const table = newTable();
    const id = new ObjectId('65a1b2c3d4e5f60718293a4b');
    const rec: Rec = { name: 'x', id, idSlot: -1 };
    table.set(id, rec);
    const bytesOnly = { id: id.id } as unknown as ObjectId;
    assert.equal(table.get(bytesOnly), rec);
    // And a stored record whose id has only bytes, looked up by a bson 7 id.
    const other = new ObjectId('65a1b2c3d4e5f60718293a4c');
    const stored: Rec = { name: 'y', id: { id: other.id } as unknown as ObjectId, idSlot: -1 };
    table.set(other, stored);
    assert.equal(table.get(new ObjectId(other.toHexString())), stored);
    assert.equal(table.get(new ObjectId('65a1b2c3d4e5f60718293a4d')), undefined);
  });
});
