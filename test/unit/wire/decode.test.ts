/**
 * The wire's decoder (src/wire/decode.ts) makes the values cloneValue(BSON.deserialize(...)) makes,
 * in place: for random documents of every type, and for a Binary, whose bytes must not stay a view
 * into the frame.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Binary, BSON, Double, Int32 } from 'bson';
import { cloneValue } from '../../../src/engine/values/clone';
import { decodeDocument } from '../../../src/wire/decode';
import { randomDocuments } from '../helpers/random-documents';

const DECODE = { promoteValues: false, bsonRegExp: true } as const;

describe('wire decoder', () => {
  it('the values of cloneValue(BSON.deserialize(bytes)), for 3,000 random documents', () => {
    const doc = randomDocuments(31337);
    for (let i = 0; i < 3000; i++) {
      const bytes = Buffer.from(BSON.serialize(doc()));
      assert.deepStrictEqual(decodeDocument(bytes), cloneValue(BSON.deserialize(bytes, DECODE)), `document ${i}`);
    }
  });

  it('doubles become numbers, Int32 stays, undefined is null, a Binary owns its bytes, __proto__ is a field', () => {
    const bytes = Buffer.from(
      BSON.serialize({ d: new Double(2), i: new Int32(2), u: [undefined], b: new Binary(Buffer.from([1, 2, 3])) }),
    );
    const decoded = decodeDocument(bytes);
    assert.equal(decoded.d, 2);
    assert.ok(decoded.i instanceof Int32);
    assert.deepEqual(decoded.u, [null]);
    bytes.fill(0); // the frame is reused: the decoded Binary keeps its bytes
    assert.deepEqual([...(decoded.b as Binary).buffer], [1, 2, 3]);
    // {__proto__: {a: 1.5}}: an own field, with its double made a number; the prototype untouched.
    const inner = BSON.serialize({ a: new Double(1.5) });
    const outer = Buffer.concat([Buffer.alloc(4), Buffer.from('\x03__proto__\0', 'latin1'), inner, Buffer.from([0])]);
    outer.writeInt32LE(outer.length, 0);
    const d = decodeDocument(outer);
    assert.equal(Object.getPrototypeOf(d), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(d, '__proto__')?.value, { a: 1.5 });
  });
});
