/**
 * bsonDocumentSize: the size of a document as it is written out (numbers as doubles), the number
 * calculateObjectSize gives for its storable form, over random documents of every BSON type.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  Binary,
  BSONRegExp,
  BSONSymbol,
  calculateObjectSize,
  Code,
  DBRef,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
} from 'bson';
import { storableDocument } from '../../../../src/engine/storage/values';
import { bsonDocumentSize } from '../../../../src/engine/values/bson-size';
import type { Document } from '../../../../src/engine/values/types';
import { prng } from '../../helpers/prng';

describe('bsonDocumentSize', () => {
  it('equals calculateObjectSize of the written form, for 2,000 random documents', () => {
    const rand = prng(424242);
    const int = (n: number) => Math.floor(rand() * n);
    const pick = <T>(xs: T[]): T => xs[int(xs.length)];
    const keys = ['a', '_id', 'name', 'é', '日本語', 'x'.repeat(30), '', '$x', 'a.b'];
    const value = (depth: number): unknown => {
      switch (int(depth > 2 ? 22 : 25)) {
        case 0:
          return int(1000);
        case 1:
          return rand() * 1e9;
        case 2:
          return -0;
        case 3:
          return pick(['', 'abc', 'é', '😀', 'x'.repeat(int(200))]);
        case 4:
          return rand() < 0.5;
        case 5:
          return null;
        case 6:
          return undefined;
        case 7:
          return new Date(int(2 ** 40));
        case 8:
          return new ObjectId();
        case 9:
          return new Int32(int(100));
        case 10:
          return Long.fromNumber(int(1e9));
        case 11:
          return new Double(rand());
        case 12:
          return Decimal128.fromString('1.5');
        case 13:
          return new Timestamp({ t: 1, i: 1 });
        case 14:
          return pick([new MinKey(), new MaxKey()]);
        case 15:
          return new Binary(Buffer.alloc(int(40), 1), pick([0, 4, 0x80]));
        case 16:
          return pick([/ab+c/i, /x/, new BSONRegExp('a b', 'x')]);
        case 17:
          return pick([new Code('f()'), new Code('g()', { a: 1 })]);
        case 18:
          return new BSONSymbol('sym');
        case 19:
          return new DBRef('c', new ObjectId());
        case 20:
          return BigInt(int(1000));
        case 21:
          return Number.NaN;
        case 22:
        case 23:
          return Array.from({ length: int(12) }, () => value(depth + 1));
        default:
          return doc(depth + 1);
      }
    };
    const doc = (depth: number): Document => {
      const out: Document = {};
      for (let i = int(6); i > 0; i--) out[pick(keys)] = value(depth);
      return out;
    };
    for (let i = 0; i < 2000; i++) {
      const d = doc(0);
      assert.equal(bsonDocumentSize(d), calculateObjectSize(storableDocument(d)), JSON.stringify(Object.keys(d)));
    }
  });

  it('an array of 12,000 elements (index names of 1 to 5 digits)', () => {
    const d = { a: Array.from({ length: 12_000 }, (_, i) => i) };
    assert.equal(bsonDocumentSize(d), calculateObjectSize(storableDocument(d)));
  });
});
