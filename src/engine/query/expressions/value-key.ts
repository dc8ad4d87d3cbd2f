/**
 * Value keys: a string per value, equal exactly when mongod considers the values equal. Under a
 * collation, strings that compare equal share the key of the first of them met (collation/active.ts).
 */
import { type Decimal128, type Int32, type Long, type ObjectId, type Timestamp } from 'bson';
import { activeCollation } from '../../collation/active';
import { formatValue } from '../../values/format';
import { compareNumbers, numericKind, toDouble } from '../../values/numbers';
import { bsonClassOf, bsonTypeOf, isNumeric, isPlainObject } from '../../values/types';
import { decimalOfRational, decimalSpecial, rationalOfDecimalString } from './numeric';

const TWO_53 = 2 ** 53;

function numberKey(v: unknown): string {
  switch (numericKind(v)) {
    case 'int':
      return `n${(v as Int32).value}`;
    case 'long':
      return `n${(v as Long).toString()}`;
    case 'double': {
      const d = toDouble(v);
      if (d === 0) return 'n0';
      if (Number.isInteger(d) && Math.abs(d) >= TWO_53) return `n${BigInt(d)}`;
      return `n${d}`;
    }
    default: {
      // Decimal: integral values and values a double holds exactly share the other types' keys.
      const special = decimalSpecial(v as Decimal128);
      if (special !== undefined) return `n${special}`;
      const r = rationalOfDecimalString((v as Decimal128).toString())!;
      if (r.num % r.den === 0n) return `n${r.num / r.den}`;
      const d = Number((v as Decimal128).toString());
      if (compareNumbers(v, d) === 0) return `n${d}`;
      return `m${decimalOfRational(r).toString()}`;
    }
  }
}

function collated(s: string): string {
  const scope = activeCollation.scope;
  return scope === null ? s : scope.representative(s);
}

/** Key for hashing ($group _id, $addToSet): values compare equal ⇔ keys are equal. */
export function valueKey(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return `s${JSON.stringify(collated(v))}`;
    case 'number':
      return numberKey(v);
    case 'boolean':
      return v ? 'T' : 'F';
    case 'undefined':
      return 'u';
  }
  if (v === null) return 'z';
  if (Array.isArray(v)) return `[${v.map(valueKey).join(',')}]`;
  if (v instanceof Date) return `d${v.getTime()}`;
  if (isPlainObject(v)) {
    let s = '{';
    for (const k of Object.keys(v)) s += `${JSON.stringify(k)}:${valueKey(v[k])},`;
    return `${s}}`;
  }
  if (isNumeric(v)) return numberKey(v);
  switch (bsonClassOf(v)) {
    case 'ObjectId':
      return `o${(v as ObjectId).toHexString()}`;
    case 'BSONSymbol':
      return `s${JSON.stringify(collated((v as { value: string }).value))}`;
    case 'Timestamp':
      return `t${(v as Timestamp).t}:${(v as Timestamp).i}`;
    case 'MinKey':
      return '<';
    case 'MaxKey':
      return '>';
  }
  return `x${bsonTypeOf(v)}:${formatValue(v)}`;
}
