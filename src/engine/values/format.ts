/**
 * Short, shell-like rendering of BSON values for error messages (`ObjectId('…')`, `new Date(…)`),
 * the way mongod prints keys in "dup key: { _id: … }".
 */
import type { Binary, Decimal128, Int32, Long, ObjectId, Timestamp } from 'bson';
import { bsonTypeOf, type Document } from './types';

export function formatValue(value: unknown, depth = 0): string {
  if (depth > 6) return '…';
  switch (bsonTypeOf(value)) {
    case 'double': {
      const n = value as number;
      // Integral doubles print bare ({ a: 1 }), as users typed them; mongod's logs would say 1.0.
      return Object.is(n, -0) ? '-0' : String(n);
    }
    case 'int':
      return String((value as Int32).value);
    case 'long':
      return `${(value as Long).toString()}`;
    case 'decimal':
      return `Decimal128("${(value as Decimal128).toString()}")`;
    case 'string':
      return JSON.stringify(value);
    case 'bool':
      return String(value);
    case 'null':
      return 'null';
    case 'undefined':
      return 'undefined';
    case 'date': {
      const d = value as Date;
      return Number.isNaN(d.getTime()) ? 'new Date(NaN)' : `new Date(${d.getTime()})`;
    }
    case 'objectId':
      return `ObjectId('${(value as ObjectId).toHexString()}')`;
    case 'timestamp':
      return `Timestamp(${(value as Timestamp).t}, ${(value as Timestamp).i})`;
    case 'binData':
      return `BinData(${(value as Binary).sub_type}, ${JSON.stringify((value as Binary).toString('base64'))})`;
    case 'regex': {
      const r = value as { source?: string; flags?: string; pattern?: string; options?: string };
      return `/${r.source ?? r.pattern}/${r.flags ?? r.options ?? ''}`;
    }
    case 'minKey':
      return 'MinKey';
    case 'maxKey':
      return 'MaxKey';
    case 'array':
      return `[ ${(value as unknown[]).map((v) => formatValue(v, depth + 1)).join(', ')} ]`;
    case 'object': {
      const entries = Object.entries(value as Document);
      if (entries.length === 0) return '{}';
      return `{ ${entries.map(([k, v]) => `${k}: ${formatValue(v, depth + 1)}`).join(', ')} }`;
    }
    default:
      return String(value);
  }
}
