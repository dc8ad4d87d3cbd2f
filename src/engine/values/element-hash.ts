/**
 * mongod's 64-bit hash of a BSON value (BSONElementHasher::hash64), what hashed indexes and hashed
 * shard keys store: MD5 over the seed, then the value's canonical type, then its bytes, with every
 * number first turned into a 64-bit integer so that 1, NumberLong(1) and 1.0 hash alike, and an
 * embedded document or array hashed field by field (each field's name in the hash too, then its
 * end). The first eight bytes of the digest, read little-endian, are the hash. Its values must
 * never change: they are stored in indexes and shard keys, and mongod's hash.js pins them.
 */
import { createHash, type Hash } from 'node:crypto';
import { Decimal128, Long, serialize } from 'bson';
import { LONG_MAX, LONG_MIN } from './numbers';
import { bsonTypeOf, canonicalRank, type Document } from './types';

const TWO_TO_63 = 2 ** 63;

function clamp(n: bigint): bigint {
  return n < LONG_MIN ? LONG_MIN : n > LONG_MAX ? LONG_MAX : n;
}

/**
 * A double as mongod hashes it: NaN is 0, out-of-range values saturate, and exactly 2^63 becomes
 * the lowest long (the x86 conversion older servers relied on, which mongod keeps so that stored
 * hashes stay valid).
 */
function doubleAsLong(d: number): bigint {
  if (Number.isNaN(d)) return 0n;
  if (d === TWO_TO_63) return LONG_MIN;
  if (d >= TWO_TO_63) return LONG_MAX;
  if (d < -TWO_TO_63) return LONG_MIN;
  return BigInt(Math.trunc(d));
}

/** A decimal as a long: NaN is 0, out-of-range values saturate, the rest round half to even. */
function decimalAsLong(value: Decimal128): bigint {
  const text = value.toString();
  if (/nan/i.test(text)) return 0n;
  if (/inf/i.test(text)) return text.startsWith('-') ? LONG_MIN : LONG_MAX;
  const [mantissa, exponentText] = text.toLowerCase().split('e');
  const exponent = exponentText === undefined ? 0 : Number(exponentText);
  const negative = mantissa.startsWith('-');
  const [whole, fraction = ''] = mantissa.replace(/^[-+]/, '').split('.');
  const digits = BigInt(whole + fraction);
  const scale = fraction.length - exponent;
  if (scale <= 0) return clamp((negative ? -1n : 1n) * digits * 10n ** BigInt(-scale));
  // Only the rounding needs the digits past the point; more than 40 of them are all below 0.5.
  if (scale > 40) return 0n;
  const divisor = 10n ** BigInt(scale);
  let quotient = digits / divisor;
  const twice = (digits % divisor) * 2n;
  if (twice > divisor || (twice === divisor && quotient % 2n === 1n)) quotient += 1n;
  return clamp(negative ? -quotient : quotient);
}

function numberAsLong(value: unknown): bigint {
  if (typeof value === 'number') return doubleAsLong(value);
  if (typeof value === 'bigint') return clamp(value);
  if (value instanceof Long) return value.toBigInt();
  if (value instanceof Decimal128) return decimalAsLong(value);
  return doubleAsLong(Number((value as { valueOf(): number }).valueOf()));
}

/** The canonical type mongod hashes: the comparison rank, except MaxKey, which keeps its own type (127). */
function canonicalType(value: unknown): number {
  return bsonTypeOf(value) === 'maxKey' ? 127 : canonicalRank(value);
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32LE(n);
  return b;
}

/** A value's bytes as BSON stores them after the type byte and field name. */
function valueBytes(value: unknown): Buffer {
  const type = bsonTypeOf(value);
  if (type === 'undefined' || type === 'null' || type === 'minKey' || type === 'maxKey') return Buffer.alloc(0);
  const doc = serialize({ '': value });
  // [length: 4][type: 1][empty name's NUL: 1] value [document's NUL: 1]
  return Buffer.from(doc.subarray(6, doc.length - 1));
}

const EOO = Buffer.from([0, 0, 0, 0]);

function hashValue(md5: Hash, value: unknown, name: string | undefined): void {
  md5.update(int32(canonicalType(value)));
  if (name !== undefined) md5.update(Buffer.from(`${name}\0`, 'utf8'));
  const type = bsonTypeOf(value);
  if (type === 'object' || type === 'array' || type === 'javascriptWithScope') {
    let doc = value as Document;
    if (type === 'javascriptWithScope') {
      const code = value as { code: string; scope: Document };
      md5.update(Buffer.from(`${code.code}\0`, 'utf8'));
      doc = code.scope;
    }
    for (const key of Object.keys(doc)) hashValue(md5, doc[key], key);
    // The document's end is hashed too: an end element has canonical type 0 and no name bytes.
    md5.update(EOO);
    return;
  }
  if (type === 'double' || type === 'int' || type === 'long' || type === 'decimal') {
    const b = Buffer.alloc(8);
    b.writeBigInt64LE(numberAsLong(value));
    md5.update(b);
    return;
  }
  md5.update(valueBytes(value));
}

/** mongod's hash of `value` with `seed` (0 for hashed indexes), as a signed 64-bit integer. */
export function hashBsonValue(value: unknown, seed = 0): Long {
  const md5 = createHash('md5');
  md5.update(int32(seed));
  hashValue(md5, value, undefined);
  return Long.fromBigInt(md5.digest().readBigInt64LE(0));
}
