/**
 * Which fields of a collection could carry a TTL index: every field seen in a sample of documents,
 * with how often it holds a date. The monitor only ever expires documents whose indexed value is a
 * date (or an array holding one: the earliest date counts); other values stay forever, so fields
 * holding non-dates are flagged.
 */
import type { Document } from '../../engine';

export interface FieldSuggestion {
  path: string;
  /** Sampled documents that have the field. */
  seen: number;
  /** …of which hold a date (or an array with a date). */
  dates: number;
  /** Type name → documents holding it, for the values that are not dates. */
  nonDates: Record<string, number>;
  /** Words for the pick list: `date in 98 of 100 sampled` / `string in 40 of 100 — never expires`. */
  detail: string;
  /** True when some sampled values are not dates (documents holding them never expire). */
  flagged: boolean;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (v instanceof Date) return 'date';
  if (Array.isArray(v)) return v.some((x) => x instanceof Date) ? 'date' : 'array';
  if (typeof v === 'object') {
    const bson = (v as { _bsontype?: string })._bsontype;
    if (bson === 'ObjectId') return 'objectId';
    if (bson === 'Timestamp') return 'timestamp';
    if (bson) return ['Int32', 'Double', 'Long', 'Decimal128'].includes(bson) ? 'number' : bson.toLowerCase();
    return 'object';
  }
  return typeof v;
}

function isPlainObject(v: unknown): v is Document {
  return (
    v !== null &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    !(v instanceof Date) &&
    (v as { _bsontype?: string })._bsontype === undefined
  );
}

/** Fields in the sample, dates first (most dates first), then the rest by name. Nested one level. */
export function suggestTTLFields(docs: readonly Document[], maxDepth = 2): FieldSuggestion[] {
  const stats = new Map<string, { seen: number; dates: number; nonDates: Record<string, number> }>();
  const visit = (doc: Document, prefix: string, depth: number) => {
    for (const [key, v] of Object.entries(doc)) {
      const path = prefix ? `${prefix}.${key}` : key;
      let s = stats.get(path);
      if (!s) stats.set(path, (s = { seen: 0, dates: 0, nonDates: {} }));
      s.seen++;
      const t = typeName(v);
      if (t === 'date') s.dates++;
      else s.nonDates[t] = (s.nonDates[t] ?? 0) + 1;
      if (isPlainObject(v) && depth + 1 < maxDepth) visit(v, path, depth + 1);
    }
  };
  for (const doc of docs) visit(doc, '', 0);
  const out: FieldSuggestion[] = [];
  for (const [path, s] of stats) {
    const others = Object.entries(s.nonDates).sort((a, b) => b[1] - a[1]);
    const flagged = s.dates > 0 && others.length > 0;
    let detail: string;
    if (s.dates === 0)
      detail = `no dates: ${others.map(([t, n]) => `${t} in ${n}`).join(', ')} of ${docs.length} sampled — TTL would never expire these`;
    else if (others.length === 0) detail = `date in ${s.dates} of ${docs.length} sampled`;
    else
      detail = `date in ${s.dates}, but ${others.map(([t, n]) => `${t} in ${n}`).join(', ')} of ${docs.length} sampled — those never expire`;
    out.push({ path, seen: s.seen, dates: s.dates, nonDates: s.nonDates, detail, flagged: flagged || s.dates === 0 });
  }
  out.sort((a, b) => (b.dates > 0 ? 1 : 0) - (a.dates > 0 ? 1 : 0) || b.dates - a.dates || (a.path < b.path ? -1 : 1));
  return out;
}
