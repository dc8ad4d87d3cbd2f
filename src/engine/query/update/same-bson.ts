import { Long, type DBRef, type Decimal128, type Int32 } from 'bson';
import { compareUnder } from '../../values/compare';
import { toDouble } from '../../values/numbers';
import { bsonClassOf, bsonTypeOf, type Document } from '../../values/types';

/**
 * Binary equality (mongod's binaryEqualValues): same BSON type and same bytes, so 1 vs
 * NumberInt(1), 0 vs -0 and {a, b} vs {b, a} all differ. Decides whether an operation is a no-op.
 */
export function sameBson(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Object.is(a, b);
  if (a === b) return true;
  const ta = bsonTypeOf(a);
  if (ta !== bsonTypeOf(b)) return false;
  switch (ta) {
    case 'double':
      return Object.is(toDouble(a), toDouble(b));
    case 'int':
      return (a as Int32).value === (b as Int32).value;
    case 'long':
      return asLong(a).equals(asLong(b));
    case 'decimal':
      return sameBytes((a as Decimal128).bytes, (b as Decimal128).bytes);
    case 'date':
      return Object.is((a as Date).getTime(), (b as Date).getTime());
    // Stryker disable next-line ConditionalExpression: an array falling into the object branch is compared index by index ('0'…'n-1') all the same; the engine's arrays have no holes (cloneValue fills every index)
    case 'array': {
      const x = a as unknown[];
      const y = b as unknown[];
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) if (!sameBson(x[i], y[i])) return false;
      return true;
    }
    case 'object': {
      const x = storedForm(a);
      const y = storedForm(b);
      const kx = Object.keys(x);
      const ky = Object.keys(y);
      if (kx.length !== ky.length) return false;
      for (let i = 0; i < kx.length; i++) {
        if (kx[i] !== ky[i] || !sameBson(x[kx[i]], y[ky[i]])) return false;
      }
      return true;
    }
    case 'null':
    case 'undefined':
    case 'minKey':
    // Stryker disable next-line ConditionalExpression: the cases above fall through to this one; falling on into default, two nulls, MinKeys or MaxKeys compare equal there (compareUnder gives 0), so the answer is still true
    case 'maxKey':
      return true;
    default:
      return compareUnder(null, a, b) === 0;
  }
}

/** The engine takes a JS bigint as a BSON long too (bsonTypeOf), and a bigint has no equals(). */
function asLong(v: unknown): Long {
  return typeof v === 'bigint' ? Long.fromBigInt(v) : (v as Long);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  // Stryker disable next-line BooleanLiteral: unreachable, a Decimal128 is always 16 bytes
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * An embedded document as it is stored: a DBRef is the document {$ref, $id, $db?, ...fields}, so its
 * $id's type counts and it is identical to that document.
 */
function storedForm(v: unknown): Document {
  if (bsonClassOf(v) !== 'DBRef') return v as Document;
  const ref = v as DBRef;
  const doc: Document = { $ref: ref.collection, $id: ref.oid };
  if (ref.db !== undefined) doc.$db = ref.db;
  return Object.assign(doc, ref.fields);
}
