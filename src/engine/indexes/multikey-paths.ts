/**
 * Which prefixes of an index's key paths hold arrays: mongod keeps this per index
 * (`multiKeyPaths` in explain) and plans with it, so that an index made multikey by `a` still
 * bounds, sorts and covers `b` exactly. A prefix counts once an array there was expanded into
 * several keys; a numeric part that picks one element ("a.0") expands nothing.
 */
import { ownValue } from '../values/fields';
import { isArrayPosition } from './array-position';
import { isPlainObject, type Document } from '../values/types';
import type { KeyField } from './key-pattern';

/** Adds to `out` each prefix of `parts` (dotted, itself included) that holds an array in `doc`. */
export function arrayPrefixes(doc: Document, parts: readonly string[], out: Set<string>): void {
  const visit = (node: unknown, i: number): void => {
    if (Array.isArray(node)) {
      if (i < parts.length && isArrayPosition(parts[i]) && Number(parts[i]) < node.length) {
        visit(node[Number(parts[i])], i + 1);
        return;
      }
      out.add(parts.slice(0, i).join('.'));
      if (i === parts.length) return;
      for (const element of node) if (isPlainObject(element)) visit(element, i);
      return;
    }
    if (i === parts.length || !isPlainObject(node)) return;
    const next = ownValue(node, parts[i]);
    if (next !== undefined) visit(next, i + 1);
  };
  visit(doc, 0);
}

/** Per key field, its prefixes that hold arrays, as explain's `multiKeyPaths` shows them. */
export function multiKeyPathsDocument(fields: readonly KeyField[], arrayPaths: ReadonlySet<string>): Document {
  const shown: Document = {};
  for (const field of fields) {
    const parts = field.path.split('.');
    const prefixes: string[] = [];
    for (let i = 1; i <= parts.length; i++) {
      const prefix = parts.slice(0, i).join('.');
      if (arrayPaths.has(prefix)) prefixes.push(prefix);
    }
    Object.defineProperty(shown, field.path, { value: prefixes, writable: true, enumerable: true, configurable: true });
  }
  return shown;
}

/** Whether no prefix of `path` holds an array: its values are one per document, as if not multikey. */
export function pathIsScalar(path: string, arrayPaths: ReadonlySet<string>): boolean {
  const parts = path.split('.');
  for (let i = 1; i <= parts.length; i++) if (arrayPaths.has(parts.slice(0, i).join('.'))) return false;
  return true;
}
