/** Small helpers the stage modules share: errors with mongod's codes, paths and field writes. */
import { formatValue } from '../../values/format';
import { isPlainObject, type Document } from '../../values/types';
import { aggError, typeName, validateUserVariableName } from '../expressions';

export const hasOwn = Object.prototype.hasOwnProperty;

export function fail(code: number, message: string): never {
  throw aggError(code, message);
}

export function show(v: unknown): string {
  return v === undefined ? 'MISSING' : formatValue(v);
}

export { typeName };

/** Assign a field whose name comes from user data ("__proto__" must stay an ordinary field). */
export function put(obj: Document, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

/** A field path given as a plain string ("a.b"), checked as mongod's FieldPath does. */
export function fieldPathParts(path: string): string[] {
  if (path === '') fail(40352, 'FieldPath cannot be constructed with empty string');
  const parts = path.split('.');
  if (parts.some((p) => p === '')) fail(15998, 'FieldPath field names may not be empty strings.');
  if (parts[0].startsWith('$'))
    fail(16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField.");
  if (path.includes('\0')) fail(16411, 'FieldPath field names may not contain embedded nulls.');
  return parts;
}

/**
 * Copy of `doc` with `value` at `parts`: documents on the path are copied, anything else on the
 * path (a scalar, an array) is replaced by a new document (mongod's setNestedField).
 */
export function setPath(doc: Document, parts: readonly string[], value: unknown, i = 0): Document {
  const out: Document = { ...doc };
  const key = parts[i];
  if (i === parts.length - 1) {
    if (value === undefined) delete out[key];
    else put(out, key, value);
    return out;
  }
  const child = hasOwn.call(doc, key) ? doc[key] : undefined;
  put(out, key, setPath(isPlainObject(child) ? child : {}, parts, value, i + 1));
  return out;
}

/** The value at `parts` through embedded documents only (undefined when missing). */
export function getPath(doc: unknown, parts: readonly string[]): unknown {
  let v: unknown = doc;
  for (const p of parts) {
    if (!isPlainObject(v) || !hasOwn.call(v, p)) return undefined;
    v = v[p];
  }
  return v;
}

/**
 * Every value at a dotted path, arrays expanded at each level (mongod's visitAllValuesAtPath):
 * {a: [{b: 1}, {b: [2, 3]}]} at "a.b" gives 1, 2, 3. Missing values give nothing.
 */
export function valuesAtPath(doc: unknown, parts: readonly string[], i = 0, out: unknown[] = []): unknown[] {
  if (i === parts.length) {
    if (Array.isArray(doc)) out.push(...doc);
    else if (doc !== undefined) out.push(doc);
    return out;
  }
  if (Array.isArray(doc)) {
    for (const el of doc) if (isPlainObject(el)) valuesAtPath(el, parts, i, out);
    return out;
  }
  if (isPlainObject(doc) && hasOwn.call(doc, parts[i])) valuesAtPath(doc[parts[i]], parts, i + 1, out);
  return out;
}

/** Whether a filter uses $expr anywhere (such a filter needs the pipeline's variables). */
export function usesExpr(filter: unknown): boolean {
  if (Array.isArray(filter)) return filter.some(usesExpr);
  if (!isPlainObject(filter)) return false;
  for (const [k, v] of Object.entries(filter)) if (k === '$expr' || usesExpr(v)) return true;
  return false;
}

/** Checks a user variable name of a `let` ($lookup, $merge). */
export function checkUserVariableName(name: string): void {
  validateUserVariableName(name);
}
