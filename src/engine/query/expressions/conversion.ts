/** Type operators and conversions: $type, $toString, $toDate … */
import { type Long, type ObjectId, type Timestamp } from 'bson';
import { toDouble } from '../../values/numbers';
import { bsonTypeOf } from '../../values/types';
import { fail, isNullish, show, typeName, unary, type OperatorParser } from './core';
import { isoString, parseDateString } from './date-parts';
import { formatDouble } from './string';

function opType(v: unknown): unknown {
  return typeName(v);
}

function conversionFailure(from: unknown, to: string): never {
  fail(241, `Unsupported conversion from ${typeName(from)} to ${to} in $convert with no onError value`);
}

function opToString(v: unknown): unknown {
  if (isNullish(v)) return null;
  switch (bsonTypeOf(v)) {
    case 'string':
      return v;
    case 'bool':
      return v ? 'true' : 'false';
    case 'double':
      return formatDouble(toDouble(v));
    case 'int':
    case 'long':
    case 'decimal':
      return (v as { toString(): string }).toString();
    case 'date':
      return isoString(v as Date);
    case 'objectId':
      return (v as ObjectId).toHexString();
    case 'symbol':
      return (v as { value: string }).value;
  }
  return conversionFailure(v, 'string');
}

function opToDate(v: unknown): unknown {
  if (isNullish(v)) return null;
  switch (bsonTypeOf(v)) {
    case 'date':
      return v;
    case 'long':
      return new Date((v as Long).toNumber());
    case 'double':
    case 'decimal': {
      const d = toDouble(v);
      if (!Number.isFinite(d))
        fail(241, `Conversion from ${typeName(v)} to date failed: value ${show(v)} is out of range for a date`);
      return new Date(Math.trunc(d));
    }
    case 'objectId':
      return (v as ObjectId).getTimestamp();
    case 'timestamp':
      return new Date((v as Timestamp).t * 1000);
    case 'string':
      return parseDateString(v as string);
  }
  return conversionFailure(v, 'date');
}

export const CONVERSION_OPERATORS: Readonly<Record<string, OperatorParser>> = {
  $type: unary(opType),
  $toString: unary(opToString),
  $toDate: unary(opToDate),
};
