/**
 * The text of Show Documents: a collection's first documents as mongosh prints a cursor batch
 * (`ISODate('…')`, `ObjectId('…')`, `Long('…')`), under a header that says which documents these are
 * and how to see more. mongosh's form rather than extended JSON because dates are what a TTL user
 * reads, and `ISODate('2026-01-01T00:00:00.000Z')` reads as a date where `{"$date": …}` does not;
 * it is also what the same `find()` prints in a playground cell. No `vscode` import.
 */
import type { Document } from '../../engine';
import { render } from '../../shell/render';
import { formatCount } from './durations';
import { collectionRef } from './mongosh';

/** Documents shown at first, and added by each "Show More Documents". */
export const DOCUMENTS_PAGE = 20;
/** The most a view loads: beyond this, a playground query with a filter serves better. */
export const DOCUMENTS_MAX = 5_000;

/** Values as mongosh shows what the driver returns: Int32 and Double as plain numbers (Long stays). */
export function promotedForDisplay(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  if (Array.isArray(value)) return value.map(promotedForDisplay);
  const type = (value as { _bsontype?: string })._bsontype;
  if (type === 'Int32' || type === 'Double') return (value as { value: number }).value;
  if (type !== undefined) return value;
  const out: Document = {};
  for (const [k, v] of Object.entries(value as Document))
    Object.defineProperty(out, k, {
      value: promotedForDisplay(v),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}

export interface DocumentsPage {
  db: string;
  collection: string;
  documents: Document[];
  /** Documents in the collection (from count). */
  total: number;
  /** The view's limit, for the header. */
  limit: number;
}

/** The whole text of the view. */
export function documentsText(p: DocumentsPage): string {
  const ns = `${p.db}.${p.collection}`;
  const shown = p.documents.length;
  const range = shown === 0 ? 'no documents' : `documents 1–${formatCount(shown)} of ${formatCount(p.total)}`;
  const more =
    shown < p.total
      ? shown >= DOCUMENTS_MAX
        ? `// ${formatCount(DOCUMENTS_MAX)} is the most this view shows: query in a playground notebook for the rest.`
        : `// More: "Show More Documents" (the editor's title bar) adds ${DOCUMENTS_PAGE}.`
      : '// That is all of them.';
  const lines = [
    `// ${ns}: ${range}, in natural order, as mongosh prints them. Read-only: it follows the engine.`,
    more,
    `// The same query: ${collectionRef(p.db, p.collection)}.find().limit(${p.limit})`,
  ];
  if (shown > 0) lines.push(render(promotedForDisplay(p.documents), { full: true }) ?? '[]');
  return `${lines.join('\n')}\n`;
}
