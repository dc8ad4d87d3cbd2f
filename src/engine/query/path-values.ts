/**
 * Dotted-path traversal with MongoDB's array semantics, compiled once per path.
 *
 * A leaf predicate ("is this one value > 5?") is applied to every value a path reaches in a
 * document; the path matches when any of them satisfies it. Which values a path reaches is
 * mongod's rule (the classic matcher's element iterator):
 *
 * - Embedded documents are walked field by field. A scalar in the middle of the path ends the walk
 *   with "missing".
 * - An array met before the last component is fanned out: each element that is a document is
 *   walked with the rest of the path; when the next component is a canonical array index
 *   ("0", "7", never "01") the element at that position is also used as the value of that
 *   component (so `a.0.b` reads both `a[*]["0"].b` and `a[0].b`). Other elements reach nothing,
 *   and the array itself is not a value of the path.
 * - An array at the last component yields each element and then the array itself (when leaf
 *   traversal is on; $size and $elemMatch switch it off and see only the array).
 * - Arrays nested in arrays are never flattened implicitly: only a positional component enters them.
 */
import type { DBRef } from 'bson';
import { bsonClassOf, isPlainObject, type Document } from '../values/types';

/** The value of a path that reaches nothing. Distinct from `undefined` (BSON undefined). */
export const MISSING: unique symbol = Symbol('missing');
export type Missing = typeof MISSING;

/** A predicate on one value a path reaches (possibly MISSING). */
export type ValuePredicate = (value: unknown) => boolean;

/** A compiled path: true when `pred` holds for any value the path reaches in `doc`. */
export type PathMatcher = (doc: Document | unknown[]) => boolean;

const hasOwn = Object.prototype.hasOwnProperty;
const CANONICAL_INDEX = /^(?:0|[1-9][0-9]*)$/;

/** The array position a path component names, or -1 when it cannot name one. */
export function arrayIndexOf(component: string): number {
  if (!CANONICAL_INDEX.test(component)) return -1;
  const n = Number(component);
  return Number.isSafeInteger(n) ? n : -1;
}

/**
 * Keys that plain objects inherit (toString, constructor, __proto__, ...) must be read as own
 * properties only, or `{toString: 1}` would see Object.prototype.toString. Other keys take the
 * fast direct read.
 */
function needsOwnCheck(key: string): boolean {
  return key in Object.prototype || key === '__proto__';
}

/**
 * Field `key` of a document, or MISSING. A document may be an array when $elemMatch or a
 * positional component treats it as {"0": .., "1": ..}; then only canonical indexes resolve.
 */
export function getField(container: object, key: string, index: number, ownOnly: boolean): unknown {
  if (Array.isArray(container)) {
    return index >= 0 && index < container.length ? container[index] : MISSING;
  }
  const obj = container as Document;
  if (ownOnly && !hasOwn.call(obj, key)) return MISSING;
  const v = obj[key];
  if (v === undefined && !hasOwn.call(obj, key)) return MISSING;
  return v;
}

/**
 * A DBRef is stored as the driver's DBRef object; a path reads it as the document BSON holds
 * ({$ref, $id, $db?, ...fields}), so `'links.$id'` and `{$elemMatch: {$ref, $id}}` reach into it.
 */
export function asDocument(v: unknown): Document | undefined {
  if (isPlainObject(v)) return v;
  if (bsonClassOf(v) !== 'DBRef') return undefined;
  const ref = v as DBRef;
  const doc: Document = { $ref: ref.collection, $id: ref.oid };
  if (ref.db) doc.$db = ref.db;
  return Object.assign(doc, ref.fields);
}

/** Split a dotted path into its components. */
export function splitPath(path: string): string[] {
  return path.split('.');
}

/**
 * Compile `path` into a matcher that applies `pred` to every value the path reaches and answers
 * whether any satisfied it (stopping at the first that does).
 */
export function compilePath(path: string, pred: ValuePredicate, traverseLeafArrays: boolean): PathMatcher {
  const parts = splitPath(path);
  const n = parts.length;
  const indexes = parts.map(arrayIndexOf);
  const ownOnly = parts.map(needsOwnCheck);

  if (n === 1) {
    // The overwhelmingly common case: a top-level field, no recursion.
    const key = parts[0];
    const index = indexes[0];
    const own = ownOnly[0];
    if (!traverseLeafArrays) return (doc) => pred(getField(doc, key, index, own));
    return (doc) => {
      const v = getField(doc, key, index, own);
      if (Array.isArray(v)) {
        for (let k = 0; k < v.length; k++) if (pred(v[k])) return true;
      }
      return pred(v);
    };
  }

  /** Walk documents from component `start` of the path, starting at `root`. */
  function walk(root: object, start: number): boolean {
    let curr: object = root;
    for (let i = start; ; i++) {
      const v = getField(curr, parts[i], indexes[i], ownOnly[i]);
      if (i === n - 1) {
        if (traverseLeafArrays && Array.isArray(v)) {
          for (let k = 0; k < v.length; k++) if (pred(v[k])) return true;
        }
        return pred(v);
      }
      if (Array.isArray(v)) return walkArray(v, i + 1);
      const next = asDocument(v);
      if (!next) return pred(MISSING);
      curr = next;
    }
  }

  /** Fan an array out over the rest of the path, which starts at component `j`. */
  function walkArray(arr: unknown[], j: number): boolean {
    const pos = indexes[j];
    const last = j === n - 1;
    for (let k = 0; k < arr.length; k++) {
      const el = arr[k];
      const elDoc = asDocument(el);
      if (elDoc) {
        if (walk(elDoc, j)) return true;
        if (k === pos && (last ? pred(el) : walk(elDoc, j + 1))) return true;
      } else if (k === pos) {
        // A positional component that ends the path names the element as it is (no expansion).
        if (last) {
          if (pred(el)) return true;
        } else if (Array.isArray(el) && walkArray(el, j + 1)) {
          // An array entered by position fans out over the rest of the path like any other:
          // 'a.0.b' reaches b in {a: [[{b: 1}]]}.
          return true;
        }
      }
    }
    return false;
  }

  return (doc) => walk(doc, 0);
}

/**
 * Which array position a path matched through, for the positional `$` of updates (mongod's
 * elemMatchKey): the index in the outermost array the path crossed where `pred` first held. When
 * the path crossed no array, `elementIndex` (the $elemMatch form) may name the element of the array
 * at the end of the path. Returns -2 when nothing matched, -1 when the match gave no position.
 */
export function compilePathPosition(
  path: string,
  pred: ValuePredicate,
  traverseLeafArrays: boolean,
  elementIndex?: (array: unknown[]) => number,
): (doc: Document) => number {
  const parts = splitPath(path);
  const n = parts.length;
  const indexes = parts.map(arrayIndexOf);
  const ownOnly = parts.map(needsOwnCheck);

  function walk(root: object, start: number, outer: number): number {
    let curr: object = root;
    for (let i = start; ; i++) {
      const v = getField(curr, parts[i], indexes[i], ownOnly[i]);
      if (i === n - 1) {
        if (traverseLeafArrays && Array.isArray(v)) {
          for (let k = 0; k < v.length; k++) if (pred(v[k])) return outer >= 0 ? outer : k;
        }
        if (!pred(v)) return -2;
        if (outer >= 0) return outer;
        return elementIndex && Array.isArray(v) ? elementIndex(v) : -1;
      }
      if (Array.isArray(v)) return walkArray(v, i + 1, outer);
      if (!isPlainObject(v)) return pred(MISSING) ? outer : -2;
      curr = v;
    }
  }

  function walkArray(arr: unknown[], j: number, outer: number): number {
    const pos = indexes[j];
    const last = j === n - 1;
    for (let k = 0; k < arr.length; k++) {
      const el = arr[k];
      const at = outer >= 0 ? outer : k;
      let r = -2;
      // Only implicit traversal of an array records a position: an element named by its index
      // ("a.0") leaves the positional $ nothing to use, as in mongod.
      if (isPlainObject(el)) {
        r = walk(el, j, at);
        if (r === -2 && k === pos) r = last ? (pred(el) ? outer : -2) : walk(el, j + 1, outer);
      } else if (k === pos) {
        if (last) r = pred(el) ? outer : -2;
        else if (Array.isArray(el)) r = walkArray(el, j + 1, outer);
      }
      if (r !== -2) return r;
    }
    return -2;
  }

  return (doc) => walk(doc, 0, -1);
}
