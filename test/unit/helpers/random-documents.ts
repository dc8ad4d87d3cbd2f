/**
 * Random documents holding every BSON type the engine keeps (and what a caller may hand it:
 * undefined, bigint, -0, NaN, JS regexes), nested in documents and arrays, with ASCII, accented,
 * CJK and emoji names: for checks that compare a hand-written BSON path with the bson package's.
 */
import {
  Binary,
  BSONRegExp,
  BSONSymbol,
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
import type { Document } from '../../../src/engine/values/types';
import { prng } from './prng';

/** A generator of random documents from `seed`. */
export function randomDocuments(seed: number): () => Document {
  const rand = prng(seed);
  const int = (n: number) => Math.floor(rand() * n);
  const pick = <T>(xs: T[]): T => xs[int(xs.length)];
  const keys = ['a', '_id', 'name', 'é', '日本語', 'x'.repeat(30), '', '$x', 'a.b', '😀'];
  const value = (depth: number): unknown => {
    switch (int(depth > 2 ? 22 : 25)) {
      case 0:
        return int(1000);
      case 1:
        return rand() * 1e9;
      case 2:
        return pick([-0, -1.5, 2 ** 31, -(2 ** 53), Number.MAX_VALUE]);
      case 3:
        return pick(['', 'abc', 'é', '😀', 'x'.repeat(int(200))]);
      case 4:
        return rand() < 0.5;
      case 5:
        return null;
      case 6:
        return undefined;
      case 7:
        return pick([new Date(int(2 ** 40)), new Date(-int(2 ** 40)), new Date(Number.NaN), new Date(8.64e15)]);
      case 8:
        return new ObjectId();
      case 9:
        return new Int32(int(100) - 50);
      case 10:
        return pick([Long.fromNumber(int(1e9)), Long.fromNumber(-int(1e12)), Long.MAX_VALUE]);
      case 11:
        return new Double(rand());
      case 12:
        return Decimal128.fromString(pick(['1.5', '-0', 'NaN', '1E+6000']));
      case 13:
        return new Timestamp({ t: int(1e9), i: int(100) });
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
        return BigInt(int(1000)) - 500n;
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
  return () => doc(0);
}
