/**
 * The ObjectId table against a plain Map keyed by hex: random inserts, replacements and deletes
 * (deletes shift runs back, so every record's remembered slot must follow), small tables that wrap
 * around their end, growth, and ids that differ in a single byte.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ObjectId } from 'bson';
import { ObjectIdTable } from '../../../../src/engine/indexes/object-id-table';
import { prng } from '../../helpers/prng';

interface Rec {
  name: string;
  idSlot: number;
}

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
  const table = new ObjectIdTable<Rec>();
  const model = new Map<string, { id: ObjectId; rec: Rec }>();
  let gone: Rec[] = [];
  for (let step = 0; step < steps; step++) {
    const id = idFrom(rand, pool);
    const hex = id.toHexString();
    const have = model.get(hex);
    const roll = rand();
    if (roll < 0.5 && model.size < maxSize) {
      const rec: Rec = { name: `${hex}@${step}`, idSlot: -1 };
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

  it('sized ahead by expect(), before or after its first id, still finds every id', () => {
    for (const early of [true, false]) {
      const table = new ObjectIdTable<Rec>();
      const ids: Array<[ObjectId, Rec]> = [];
      if (early) table.expect(3000);
      for (let i = 0; i < 3000; i++) {
        const pair: [ObjectId, Rec] = [new ObjectId(), { name: String(i), idSlot: -1 }];
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
    const table = new ObjectIdTable<Rec>();
    const a = new ObjectId();
    const b = new ObjectId();
    const ra: Rec = { name: 'a', idSlot: -1 };
    const rb: Rec = { name: 'b', idSlot: -1 };
    assert.equal(table.get(a), undefined);
    // b lands between a's probe and a's store: a must not reuse the slot it probed if b took it.
    table.set(b, rb);
    table.set(a, ra);
    assert.equal(table.get(a), ra);
    assert.equal(table.get(b), rb);
    assert.notEqual(ra.idSlot, rb.idSlot);
  });

  it('finds an id whose words come from its bytes as well as from bson 7 fields', () => {
    const table = new ObjectIdTable<Rec>();
    const id = new ObjectId('65a1b2c3d4e5f60718293a4b');
    const rec: Rec = { name: 'x', idSlot: -1 };
    table.set(id, rec);
    const bytesOnly = { id: id.id } as unknown as ObjectId;
    assert.equal(table.get(bytesOnly), rec);
  });
});
