/**
 * What BSON type a JS value held by the engine is. Documents hold plain JS values for the common
 * types (number = double, string, boolean, null, Date, arrays, objects) and `bson` package classes
 * for everything else (Int32, Long, Decimal128, ObjectId, Timestamp, Binary, BSONRegExp, MinKey,
 * MaxKey, Code, BSONSymbol, DBRef).
 */

import type { ObjectId } from 'bson';
import { nextObjectId } from './object-id-source';

export type Document = { [key: string]: unknown };

/**
 * A new ObjectId whose timestamp is `ms` (the engine clock's time, not the wall clock's), so ids
 * made on a virtual clock agree with it: `_id.getTimestamp()` reads virtual time.
 */
export function objectIdAt(ms: number): ObjectId {
  return nextObjectId(Math.floor(ms / 1000));
}

export type BsonTypeName =
  | 'double'
  | 'string'
  | 'object'
  | 'array'
  | 'binData'
  | 'undefined'
  | 'objectId'
  | 'bool'
  | 'date'
  | 'null'
  | 'regex'
  | 'dbPointer'
  | 'javascript'
  | 'symbol'
  | 'javascriptWithScope'
  | 'int'
  | 'timestamp'
  | 'long'
  | 'decimal'
  | 'minKey'
  | 'maxKey';

/** BSON element type numbers, as `$type` accepts them. */
export const BSON_TYPE_NUMBERS: Record<BsonTypeName, number> = {
  double: 1,
  string: 2,
  object: 3,
  array: 4,
  binData: 5,
  undefined: 6,
  objectId: 7,
  bool: 8,
  date: 9,
  null: 10,
  regex: 11,
  dbPointer: 12,
  javascript: 13,
  symbol: 14,
  javascriptWithScope: 15,
  int: 16,
  timestamp: 17,
  long: 18,
  decimal: 19,
  minKey: -1,
  maxKey: 127,
};

export function bsonClassOf(value: unknown): string | undefined {
  return value !== null && typeof value === 'object' ? (value as { _bsontype?: string })._bsontype : undefined;
}

export function bsonTypeOf(value: unknown): BsonTypeName {
  switch (typeof value) {
    case 'number':
      return 'double';
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'undefined':
      return 'undefined';
    case 'bigint':
      return 'long';
    case 'function':
      return 'javascript';
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Date) return 'date';
  if (value instanceof RegExp) return 'regex';
  switch ((value as { _bsontype?: string })._bsontype) {
    case undefined:
      return 'object';
    case 'Int32':
      return 'int';
    case 'Double':
      return 'double';
    case 'Long':
      return 'long';
    case 'Decimal128':
      return 'decimal';
    case 'ObjectId':
      return 'objectId';
    case 'Timestamp':
      return 'timestamp';
    case 'Binary':
      return 'binData';
    case 'BSONRegExp':
      return 'regex';
    case 'MinKey':
      return 'minKey';
    case 'MaxKey':
      return 'maxKey';
    case 'Code':
      return (value as { scope?: unknown }).scope ? 'javascriptWithScope' : 'javascript';
    case 'BSONSymbol':
      return 'symbol';
    case 'DBRef':
      return 'object';
    case 'Undefined':
      return 'undefined'; // the stored type-6 marker (bson-undefined.ts)
    default:
      return 'object';
  }
}

/**
 * MongoDB's canonical type order (BSONElement::canonicalType): values of different types compare
 * by this rank; numbers share one rank, as do string and symbol.
 */
export function canonicalRank(value: unknown): number {
  switch (bsonTypeOf(value)) {
    case 'minKey':
      return -1;
    case 'undefined':
      return 0;
    case 'null':
      return 5;
    case 'double':
    case 'int':
    case 'long':
    case 'decimal':
      return 10;
    case 'string':
    case 'symbol':
      return 15;
    case 'object':
      return 20;
    case 'array':
      return 25;
    case 'binData':
      return 30;
    case 'objectId':
      return 35;
    case 'bool':
      return 40;
    case 'date':
      return 45;
    case 'timestamp':
      return 47;
    case 'regex':
      return 50;
    case 'dbPointer':
      return 55;
    case 'javascript':
      return 60;
    case 'javascriptWithScope':
      return 65;
    case 'maxKey':
      return 100;
  }
}

export function isNumeric(value: unknown): boolean {
  if (typeof value === 'number') return true;
  const t = bsonClassOf(value);
  return t === 'Int32' || t === 'Long' || t === 'Double' || t === 'Decimal128';
}

/** A plain embedded document (not an array, not a BSON value class, not a Date/RegExp). */
export function isPlainObject(value: unknown): value is Document {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    !(value instanceof Date) &&
    !(value instanceof RegExp) &&
    (value as { _bsontype?: string })._bsontype === undefined
  );
}
