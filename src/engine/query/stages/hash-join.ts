/**
 * The foreign side of an equality $lookup as a hash table, built once per run of the pipeline when
 * the foreign collection has to be read anyway. Without it an unindexed foreignField costs a scan
 * of the foreign collection per input document (100k orders × 10k customers is 10^9 document
 * visits); with it, one scan and one probe per local value. mongod makes the same choice (its hash
 * join for a foreign collection without a usable index).
 *
 * A probe must find exactly what `{foreignField: {$eq: v}}` finds. Keys are `valueKey`s (the
 * values $group puts together: numbers by value across types, strings and symbols alike,
 * documents field by field), taken from the foreign field's value and, for an array, from each
 * element too. The cases where equality means more than that are left to the query path: a null
 * or missing local value (it also finds documents where the path is missing part way), a local
 * array (one nested in the local array), and paths with a numeric component (an array index).
 */
import { isPlainObject, type Document } from '../../values/types';
import { valueKey } from '../expressions';
import { hasOwn, typeName } from './shared';

/** Whether a $lookup on these paths can use a hash table at all. */
export function hashJoinApplies(localParts: readonly string[], foreignParts: readonly string[]): boolean {
  const numeric = (p: string) => /^\d+$/.test(p);
  return !localParts.some(numeric) && !foreignParts.some(numeric);
}

/** Whether the probe answers exactly what the equality query would for these local values. */
export function probeAnswers(localValues: readonly unknown[]): boolean {
  if (localValues.length === 0) return false;
  for (const v of localValues) {
    if (v === null || v === undefined || Array.isArray(v)) return false;
    const t = typeName(v);
    if (t === 'undefined' || t === 'regex') return false;
  }
  return true;
}

export class ForeignHashTable {
  /** Each key's documents, as their positions in `docs` (ascending: the collection's order). */
  private readonly byKey = new Map<string, number[]>();
  private readonly docs: Document[] = [];

  constructor(foreign: Iterable<Document>, foreignParts: readonly string[]) {
    const keys = new Set<string>();
    for (const doc of foreign) {
      const position = this.docs.length;
      this.docs.push(doc);
      keys.clear();
      collectKeys(doc, foreignParts, 0, keys);
      for (const key of keys) {
        const list = this.byKey.get(key);
        if (list) list.push(position);
        else this.byKey.set(key, [position]);
      }
    }
  }

  /** The foreign documents equal to any of `values`, each once, in the collection's order. */
  lookup(values: readonly unknown[]): Document[] {
    if (values.length === 1) return (this.byKey.get(valueKey(values[0])) ?? []).map((p) => this.docs[p]);
    const positions = new Set<number>();
    for (const v of values) for (const p of this.byKey.get(valueKey(v)) ?? []) positions.add(p);
    return [...positions].sort((a, b) => a - b).map((p) => this.docs[p]);
  }
}

/** The keys under which a query equality on `parts` finds `doc`: each value, and an array's elements. */
function collectKeys(value: unknown, parts: readonly string[], i: number, out: Set<string>): void {
  if (i === parts.length) {
    if (value === undefined) return;
    out.add(valueKey(value));
    if (Array.isArray(value)) for (const el of value) out.add(valueKey(el));
    return;
  }
  if (Array.isArray(value)) {
    for (const el of value) if (isPlainObject(el)) collectKeys(el, parts, i, out);
    return;
  }
  if (isPlainObject(value) && hasOwn.call(value, parts[i])) collectKeys(value[parts[i]], parts, i + 1, out);
}
