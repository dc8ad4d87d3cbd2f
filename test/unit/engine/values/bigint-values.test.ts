/**
 * A JS bigint handed to the engine (the playground, an embedding app) is a BSON long, as the Node
 * driver writes it: stored as a Long, never lost, and one a long cannot hold is refused.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Long } from 'bson';
import { Engine, VirtualClock, type Document } from '../../../../src/engine';

function engine(): Engine {
  return new Engine({ clock: new VirtualClock(new Date(0)) });
}

function findOne(e: Engine, id: unknown): Document | undefined {
  const reply = e.runCommand('test', { find: 'c', filter: { _id: id } }) as { cursor: { firstBatch: Document[] } };
  return reply.cursor.firstBatch[0];
}

describe('bigint values', () => {
  test('an inserted bigint is stored as the Long it stands for, at the top level, nested and in arrays', () => {
    const e = engine();
    const reply = e.runCommand('test', {
      insert: 'c',
      documents: [{ _id: 1, a: 5n, b: { c: -(2n ** 63n) }, d: [2n ** 63n - 1n] }],
    });
    assert.equal(reply.n, 1);
    const doc = findOne(e, 1)!;
    assert.ok(Long.isLong(doc.a), 'a is a Long');
    assert.equal(doc.a.toBigInt(), 5n);
    assert.equal(((doc.b as Document).c as Long).toBigInt(), -(2n ** 63n));
    assert.equal(((doc.d as unknown[])[0] as Long).toBigInt(), 2n ** 63n - 1n);
    // Stored as a long, it matches the same number of any type.
    const byValue = e.runCommand('test', { find: 'c', filter: { a: 5 } }) as { cursor: { firstBatch: Document[] } };
    assert.equal(byValue.cursor.firstBatch.length, 1);
  });

  test('a bigint given to $set is stored as a Long', () => {
    const e = engine();
    e.runCommand('test', { insert: 'c', documents: [{ _id: 1 }] });
    const reply = e.runCommand('test', { update: 'c', updates: [{ q: { _id: 1 }, u: { $set: { a: 7n } } }] });
    assert.equal(reply.nModified, 1);
    const a = findOne(e, 1)!.a;
    assert.ok(Long.isLong(a));
    assert.equal(a.toBigInt(), 7n);
  });

  test('a bigint a BSON long cannot hold is refused with BadValue (2), naming it, and nothing is stored', () => {
    const e = engine();
    const reply = e.runCommand('test', { insert: 'c', documents: [{ _id: 1, a: 2n ** 64n }] }) as {
      n: number;
      writeErrors?: { code: number; errmsg: string }[];
    };
    assert.equal(reply.n, 0);
    assert.equal(reply.writeErrors?.[0].code, 2);
    assert.match(reply.writeErrors[0].errmsg, /bigint 18446744073709551616n.*-2\^63 to 2\^63-1/);
    assert.equal(findOne(e, 1), undefined);
    e.runCommand('test', { insert: 'c', documents: [{ _id: 2 }] });
    const set = e.runCommand('test', {
      update: 'c',
      updates: [{ q: { _id: 2 }, u: { $set: { a: -(2n ** 63n) - 1n } } }],
    }) as {
      writeErrors?: { code: number }[];
    };
    assert.equal(set.writeErrors?.[0].code, 2);
    assert.deepEqual(findOne(e, 2), { _id: 2 });
  });
});
