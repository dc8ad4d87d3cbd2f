/**
 * The BSON size of a document the engine holds, as it is written out (storage and the wire wrap
 * every JS number as a double: 8 bytes). The same number bson's calculateObjectSize gives for the
 * written form (`storableDocument(doc)`), at a fraction of its cost: cursors measure every
 * document they hand out (16 MiB batches), and calculateObjectSize made a find of 10,000 small
 * documents ten times slower. Common types are sized here; anything else (Binary, regexes, Code,
 * DBRef, symbols) by calculateObjectSize.
 */
import { calculateObjectSize } from 'bson';
import type { Document } from './types';

const hasOwn = Object.prototype.hasOwnProperty;

/** Bytes of `s` in UTF-8. */
function utf8Length(s: string): number {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return Buffer.byteLength(s, 'utf8');
  return s.length;
}

/** Bytes of the decimal string of a non-negative integer (an array index). */
function indexLength(i: number): number {
  return i < 10 ? 1 : i < 100 ? 2 : i < 1000 ? 3 : i < 10000 ? 4 : String(i).length;
}

export function bsonDocumentSize(doc: Document): number {
  let size = 5;
  for (const key in doc) {
    const v = doc[key];
    // bson leaves out a field that is undefined (in an array, it writes null).
    if (v === undefined || !hasOwn.call(doc, key)) continue;
    size += 2 + utf8Length(key) + valueSize(key, v);
  }
  return size;
}

function arraySize(values: unknown[]): number {
  let size = 5;
  for (let i = 0; i < values.length; i++) size += 2 + indexLength(i) + valueSize(String(i), values[i]);
  return size;
}

/** The bytes of a value after its element's type byte and name. */
function valueSize(key: string, v: unknown): number {
  switch (typeof v) {
    case 'number':
    case 'bigint':
      return 8;
    case 'string':
      return 5 + utf8Length(v);
    case 'boolean':
      return 1;
    case 'undefined':
      return 0; // in an array: written as null
    case 'object': {
      if (v === null) return 0;
      if (Array.isArray(v)) return arraySize(v);
      if (v instanceof Date) return 8;
      if (v instanceof RegExp || ArrayBuffer.isView(v) || v instanceof Map) break;
      switch ((v as { _bsontype?: unknown })._bsontype) {
        case undefined:
          return bsonDocumentSize(v as Document);
        case 'ObjectId':
          return 12;
        case 'Int32':
          return 4;
        case 'Long':
        case 'Double':
        case 'Timestamp':
          return 8;
        case 'Decimal128':
          return 16;
        case 'MinKey':
        case 'MaxKey':
          return 0;
      }
      break;
    }
  }
  // {key: v} is 4 + (1 + key + 1 + value) + 1 bytes.
  return calculateObjectSize({ [key]: v }) - 7 - Buffer.byteLength(key, 'utf8');
}
