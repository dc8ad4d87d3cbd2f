/**
 * Nesting limits, measured by walks that stop one level past the limit, so that no value, however
 * deep (or cyclic), can overflow the stack while it is measured.
 *
 * mongod's limits (bson/bson_depth.h, ops/insert.cpp, update/storage_validation.cpp):
 * - every BSON object the server reads (a command with its filter, pipeline, update or documents)
 *   may nest 200 levels below its top-level document (`maxBSONDepth`, default 200): code 15
 *   Overflow;
 * - a document to store may nest at most 180 levels (200 minus 20 kept for the server's own
 *   wrapping, such as oplog entries), counting the document itself and not counting empty
 *   embedded documents or arrays: code 15 Overflow, for inserts and for the result of an update;
 * - a field path in a filter may have at most 180 components: code 5729100.
 *
 * Every other walk in the engine is recursive and relies on these checks running first: a command
 * is measured before it is dispatched, a document before it is stored.
 */
import { EJSON, type EJSONOptions } from 'bson';
import { fail } from '../errors';
import { bsonClassOf, type Document } from './types';

/** mongod's `maxBSONDepth` default: levels a command may nest below its top-level document. */
export const MAX_BSON_DEPTH = 200;
/** Levels a stored document may nest, the document itself included, empty containers not. */
export const MAX_STORAGE_DEPTH = 180;
/** Components a filter's field path may have. */
export const MAX_FIELD_PATH_COMPONENTS = 180;
/**
 * Levels of EJSON text accepted: a value at MAX_BSON_DEPTH plus the two levels a type wrapper can
 * add at a leaf (`{$date: {$numberLong: "…"}}`).
 */
export const MAX_EJSON_DEPTH = MAX_BSON_DEPTH + 2;

const hasOwn = Object.prototype.hasOwnProperty;

/** The values that nest: arrays, plain documents, a code's scope. */
function isNestable(value: object): boolean {
  if (Array.isArray(value)) return true;
  if (value instanceof Date || value instanceof RegExp) return false;
  const cls = bsonClassOf(value);
  return cls === undefined || (cls === 'Code' && (value as { scope?: unknown }).scope != null);
}

function isEmptyContainer(value: object): boolean {
  if (Array.isArray(value)) return value.length === 0;
  if (bsonClassOf(value) === 'Code') return isEmptyContainer((value as { scope: object }).scope);
  for (const key in value) if (hasOwn.call(value, key)) return false;
  return true;
}

/**
 * Whether `value` nests more than `limit` levels. A container counts one level (the top-level
 * value too, when it is one); with `countEmpty` false, empty documents and arrays count none.
 * The walk recurses at most `limit + 1` calls deep whatever the value (a cyclic one answers true).
 */
export function nestsDeeperThan(value: unknown, limit: number, countEmpty: boolean): boolean {
  if (value === null || typeof value !== 'object' || !isNestable(value)) return false;
  return exceeds(value, limit, countEmpty);
}

/** `node` (a container) is one level, and `remaining` levels are allowed from it down. */
function exceeds(node: object, remaining: number, countEmpty: boolean): boolean {
  if (remaining <= 0) return countEmpty || !isEmptyContainer(node);
  const container = bsonClassOf(node) === 'Code' ? (node as { scope: object }).scope : node;
  if (Array.isArray(container)) {
    for (let i = 0; i < container.length; i++) {
      const child: unknown = container[i];
      if (child !== null && typeof child === 'object' && isNestable(child) && exceeds(child, remaining - 1, countEmpty))
        return true;
    }
    return false;
  }
  for (const key in container) {
    if (!hasOwn.call(container, key)) continue;
    const child = (container as Document)[key];
    if (child !== null && typeof child === 'object' && isNestable(child) && exceeds(child, remaining - 1, countEmpty))
      return true;
  }
  return false;
}

/**
 * Refuse a command nested deeper than mongod reads (its top-level document plus 200 levels), before
 * any recursive walk (filter compilation, expression parsing, cloning) meets it.
 */
export function checkCommandDepth(command: Document, skipField?: string): void {
  let tooDeep = false;
  if (skipField === undefined || !hasOwn.call(command, skipField))
    tooDeep = nestsDeeperThan(command, MAX_BSON_DEPTH + 1, true);
  else {
    for (const key in command) {
      if (key === skipField || !hasOwn.call(command, key)) continue;
      const v = command[key];
      if (v !== null && typeof v === 'object' && nestsDeeperThan(v, MAX_BSON_DEPTH, true)) tooDeep = true;
    }
  }
  if (tooDeep) {
    fail(
      'Overflow',
      `The command nests more than ${MAX_BSON_DEPTH} levels of embedded documents and arrays below its top level, the most MongoDB reads (maxBSONDepth). Flatten the filter, pipeline, update or document: stored documents may nest at most ${MAX_STORAGE_DEPTH} levels.`,
    );
  }
}

/** Refuse a document that would be stored nested deeper than mongod stores (180 levels). */
export function checkStorageDepth(doc: unknown, what: 'insert' | 'update'): void {
  if (nestsDeeperThan(doc, MAX_STORAGE_DEPTH, false)) failStorageDepth(what);
}

/** The Overflow error of a document too deep to store. */
export function failStorageDepth(what: 'insert' | 'update'): never {
  if (what === 'insert') {
    fail(
      'Overflow',
      `The document to insert nests more than ${MAX_STORAGE_DEPTH} levels of embedded documents and arrays (the document itself counts as one, empty ones do not), the most MongoDB stores. Flatten it, for example keep a tree as a list of nodes that name their parent.`,
    );
  }
  fail(
    'Overflow',
    `The document after this update would nest more than ${MAX_STORAGE_DEPTH} levels of embedded documents and arrays (the document itself counts as one, empty ones do not), the most MongoDB stores. Set a shallower value or use a shorter path.`,
  );
}

/** Refuse a filter field path with more components than mongod accepts (180). */
export function checkFieldPathLength(path: string): void {
  // A path of more than 180 components has at least 180 dots: short keys need no count.
  if (path.length <= 2 * MAX_FIELD_PATH_COMPONENTS - 1) return;
  let dots = 0;
  for (let i = path.indexOf('.'); i !== -1; i = path.indexOf('.', i + 1)) dots++;
  if (dots + 1 > MAX_FIELD_PATH_COMPONENTS) {
    fail(
      5729100,
      `FieldPath is too long: '${path.slice(0, 40)}…' has ${dots + 1} components, and a filter's path may have at most ${MAX_FIELD_PATH_COMPONENTS}. Query a shallower field.`,
    );
  }
}

/** Refuse a value (parsed EJSON, or a value to convert to EJSON) nested deeper than MAX_EJSON_DEPTH. */
export function checkEjsonDepth(value: unknown): void {
  if (nestsDeeperThan(value, MAX_EJSON_DEPTH, true)) {
    fail(
      'Overflow',
      `The value nests more than ${MAX_EJSON_DEPTH} levels of objects and arrays (as EJSON), deeper than any BSON MongoDB reads (${MAX_BSON_DEPTH} levels of embedded documents and arrays). Flatten the data.`,
    );
  }
}

/**
 * `EJSON.parse` that refuses text nested deeper than MAX_EJSON_DEPTH with code 15 (Overflow)
 * instead of overflowing the stack in the recursive EJSON reviver. The text is read once by the
 * native JSON parser (which does not recurse on the JS stack) to measure it.
 */
export function parseEjson(text: string, options?: EJSONOptions): unknown {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    // Not JSON: let EJSON.parse report it in its own words.
    return EJSON.parse(text, options);
  }
  checkEjsonDepth(raw);
  return EJSON.parse(text, options);
}
