/**
 * A query's shape: its filter with every constant left out, its sort, projection and collation.
 * Queries of one shape (`{x: 3}` and `{x: 5}`) share mongod's `queryHash` and its index filters,
 * so the shape is what both are keyed by. `{x: 3}` and `{x: {$eq: 3}}` parse to the same
 * expression on mongod, and the children of `$and`/`$or`/`$nor` are normalized to one order, so
 * they share a shape too.
 */
import { collationDocument, parseCollation } from '../collation/spec';
import { bsonClassOf, isPlainObject, type Document } from '../values/types';

export interface ShapeInput {
  filter?: Document;
  sort?: Document;
  projection?: Document;
  /** The collation the command names, not a collection's default (a shape is what the client sent). */
  collation?: Document;
}

const LOGICAL = new Set(['$and', '$or', '$nor']);
/** Operators whose operand is itself a filter or a predicate, whose shape matters. */
const NESTED = new Set(['$elemMatch', '$not']);

function isRegex(v: unknown): boolean {
  return v instanceof RegExp || bsonClassOf(v) === 'BSONRegExp';
}

function isOperatorObject(v: unknown): v is Document {
  const keys = isPlainObject(v) ? Object.keys(v) : [];
  return keys.length > 0 && keys[0].startsWith('$');
}

/** The shape of a predicate on one path, as text. */
function predicateShape(value: unknown): string {
  if (isRegex(value)) return '$regex';
  if (!isOperatorObject(value)) return '$eq';
  const parts: string[] = [];
  for (const [op, operand] of Object.entries(value)) {
    // $options belongs to its $regex: the flags are part of the pattern, not a constant.
    if (op === '$options') continue;
    if (op === '$exists') parts.push(`$exists:${operand ? 1 : 0}`);
    else if (op === '$elemMatch' && isPlainObject(operand))
      parts.push(
        isOperatorObject(operand) ? `$elemMatch:${predicateShape(operand)}` : `$elemMatch:${filterShape(operand)}`,
      );
    else if (NESTED.has(op)) parts.push(`${op}:${predicateShape(operand)}`);
    else parts.push(op);
  }
  return parts.sort().join(',');
}

/** The shape of a filter document, as text independent of its constants and clause order. */
export function filterShape(filter: Document): string {
  const clauses: string[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$comment') continue;
    if (LOGICAL.has(key) && Array.isArray(value)) {
      const children = value.map((c) => (isPlainObject(c) ? filterShape(c) : '?')).sort();
      clauses.push(`${key}[${children.join(';')}]`);
    } else if (key.startsWith('$')) {
      clauses.push(key);
    } else {
      clauses.push(`${JSON.stringify(key)}(${predicateShape(value)})`);
    }
  }
  return `{${clauses.sort().join(',')}}`;
}

/** Sort and projection are shapes as given: their values are directions and inclusions, not constants. */
function plainShape(doc: Document | undefined): string {
  return doc === undefined || Object.keys(doc).length === 0 ? '{}' : JSON.stringify(doc);
}

/** The text a shape is keyed and hashed by. */
export function queryShapeKey(input: ShapeInput): string {
  return [
    filterShape(input.filter ?? {}),
    plainShape(input.sort),
    plainShape(input.projection),
    plainShape(input.collation),
  ].join('|');
}

/** 32-bit FNV-1a of the text, as mongod prints its query hashes: eight upper-case hex digits. */
export function shapeHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).toUpperCase().padStart(8, '0');
}

/**
 * A command's `collation` as a shape holds it: in full (so field order and defaults spelled out or
 * left out do not split one shape in two); undefined when the command names none.
 */
export function shapeCollation(given: unknown): Document | undefined {
  if (given === undefined || given === null) return undefined;
  const spec = parseCollation(given);
  return spec === null ? { locale: 'simple' } : collationDocument(spec);
}
