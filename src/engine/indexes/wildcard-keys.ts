/**
 * Keys of a wildcard index (`{"$**": 1}`, `{"a.$**": 1}`) as mongod makes them: one key per leaf
 * path, `[path, value]`, where the path is the document's own dotted path with array positions left
 * out. An array is walked (its objects keep the array's path), so `{g: [{h: 1}]}` keys `["g.h", 1]`;
 * an array inside an array and an empty object or array are leaves, keyed whole (the empty array as
 * `undefined`, as ordinary indexes key it). `_id` is left out unless the projection names it.
 */
import { compareUnder } from '../values/compare';
import { isPlainObject, type Document } from '../values/types';
import { fail } from '../errors';

export interface WildcardScope {
  /** The indexed subtree: '' for `$**`, 'a.b' for `a.b.$**`. */
  root: string;
  /** Paths a `wildcardProjection` includes, or excludes; undefined: everything under the root. */
  include?: string[];
  exclude?: string[];
  /** `_id` is indexed only when the projection asks for it. */
  withId: boolean;
}

function truthy(v: unknown): boolean {
  return v !== 0 && v !== false && !(typeof v === 'object' && v !== null && Number(v) === 0);
}

/** The scope of a wildcard key pattern and its `wildcardProjection`. */
export function wildcardScope(keyPath: string, projection: unknown): WildcardScope {
  const root = keyPath === '$**' ? '' : keyPath.slice(0, -'.$**'.length);
  if (projection === undefined) return { root, withId: false };
  if (root !== '')
    fail(
      'FailedToParse',
      `The field 'wildcardProjection' is only allowed in an '$**' index: drop it, or index {"$**": 1} with wildcardProjection {"${root}": 1}.`,
    );
  if (!isPlainObject(projection) || Object.keys(projection).length === 0)
    fail('FailedToParse', "The field 'wildcardProjection' must be a non-empty object, e.g. {a: 1} or {a: 0}.");
  const include: string[] = [];
  const exclude: string[] = [];
  let withId = false;
  for (const [path, value] of Object.entries(projection)) {
    if (path === '_id') {
      withId = truthy(value);
      continue;
    }
    (truthy(value) ? include : exclude).push(path);
  }
  if (include.length > 0 && exclude.length > 0)
    fail(
      'FailedToParse',
      "A 'wildcardProjection' either includes or excludes fields (only _id may differ): keep the 1s or the 0s.",
    );
  return {
    root,
    withId,
    ...(include.length > 0 ? { include } : {}),
    ...(exclude.length > 0 ? { exclude } : {}),
  };
}

function within(path: string, prefix: string): boolean {
  return path === prefix || (path.startsWith(prefix) && path.charCodeAt(prefix.length) === 46);
}

/** Whether keys of `path` (a leaf) belong to the index. */
export function scopeHolds(scope: WildcardScope, path: string): boolean {
  const top = path.split('.', 1)[0];
  if (top === '_id') return scope.withId;
  if (scope.root !== '' && !within(path, scope.root)) return false;
  if (scope.include) return scope.include.some((p) => within(path, p));
  if (scope.exclude) return !scope.exclude.some((p) => within(path, p));
  return true;
}

/** Whether something under `path` may belong to the index (the walk descends into it). */
function scopeReaches(scope: WildcardScope, path: string): boolean {
  const top = path.split('.', 1)[0];
  if (top === '_id') return scope.withId;
  if (scope.root !== '' && !within(path, scope.root) && !within(scope.root, path)) return false;
  if (scope.include) return scope.include.some((p) => within(path, p) || within(p, path));
  if (scope.exclude) return !scope.exclude.some((p) => within(path, p));
  return true;
}

/**
 * The keys of `doc`, deduplicated; every path that met an array goes into `multikeyPaths` (the
 * index remembers them for explain's multiKeyPaths and for loosening bounds).
 */
export function wildcardKeys(doc: Document, scope: WildcardScope, multikeyPaths: Set<string>): unknown[][] {
  const keys: unknown[][] = [];
  const leaf = (path: string, value: unknown) => {
    if (scopeHolds(scope, path)) keys.push([path, value]);
  };
  const visit = (value: unknown, path: string, inArray: boolean): void => {
    if (Array.isArray(value)) {
      if (inArray) return leaf(path, value);
      if (scopeHolds(scope, path)) multikeyPaths.add(path);
      if (value.length === 0) return leaf(path, undefined);
      for (const element of value) visit(element, path, true);
      return;
    }
    if (isPlainObject(value)) {
      const fields = Object.keys(value);
      if (fields.length === 0) return leaf(path, value);
      for (const field of fields) {
        const sub = `${path}.${field}`;
        if (scopeReaches(scope, sub)) visit(value[field], sub, false);
      }
      return;
    }
    leaf(path, value === undefined ? null : value);
  };
  for (const field of Object.keys(doc)) {
    if (scopeReaches(scope, field)) visit(doc[field], field, false);
  }
  if (keys.length < 2) return keys;
  // An array holding a value twice gives one key (binary comparison, as for every index).
  const cmp = (a: unknown[], b: unknown[]) => compareUnder(null, a[0], b[0]) || compareUnder(null, a[1], b[1]);
  keys.sort(cmp);
  const out = [keys[0]];
  for (let i = 1; i < keys.length; i++) if (cmp(keys[i], out[out.length - 1]) !== 0) out.push(keys[i]);
  return out;
}

/** The prefixes of `path` (itself included) that hold arrays in some document. */
export function multikeyPrefixes(path: string, multikeyPaths: ReadonlySet<string>): string[] {
  const parts = path.split('.');
  const out: string[] = [];
  for (let i = 1; i <= parts.length; i++) {
    const prefix = parts.slice(0, i).join('.');
    if (multikeyPaths.has(prefix)) out.push(prefix);
  }
  return out;
}

/** An index key `[path, value]` as returnKey and validate show it: `{$_path: "a.b", "a.b": value}`. */
export function wildcardKeyDocument(key: readonly unknown[]): Document {
  const out: Document = { $_path: key[0] };
  Object.defineProperty(out, String(key[0]), { value: key[1], writable: true, enumerable: true, configurable: true });
  return out;
}
