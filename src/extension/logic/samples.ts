/**
 * Sample documents whose dates are spread over the past and the future around the engine's "now",
 * so a TTL index shows at once which documents are expired, which are due soon and which are far
 * off. Deterministic for a given `now` and count. Every tenth `createdAt` is a string, the classic
 * reason a TTL index "does not work": the monitor ignores values that are not dates.
 */
import type { Document } from '../../engine';
import type { CollectionKind } from './collection-description';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export interface SampleOptions {
  kind: CollectionKind;
  nowMs: number;
  count: number;
  /** Time-series collections: where the measurement time and metadata go. */
  timeField?: string;
  metaField?: string;
  /** Dates span [now − pastMs, now + futureMs]. */
  pastMs?: number;
  futureMs?: number;
}

/** i-th of n offsets from −past to +future, nudged so no two documents share a date. */
function offset(i: number, n: number, past: number, future: number): number {
  if (n <= 1) return 0;
  const base = -past + ((past + future) * i) / (n - 1);
  return Math.round(base) + (i % 7) * 1000;
}

export function sampleDocuments(o: SampleOptions): Document[] {
  const past = o.pastMs ?? 2 * DAY;
  const future = o.futureMs ?? 2 * DAY;
  const docs: Document[] = [];
  for (let i = 0; i < o.count; i++) {
    const at = o.nowMs + offset(i, o.count, past, future);
    if (o.kind === 'timeseries') {
      const timeField = o.timeField ?? 'timestamp';
      const doc: Document = { [timeField]: new Date(at), value: Math.round(Math.sin(i / 5) * 1000) / 10 };
      if (o.metaField) doc[o.metaField] = { sensor: `sensor-${i % 3}`, kind: i % 4 === 0 ? 'debug' : 'reading' };
      docs.push(doc);
      continue;
    }
    const doc: Document = {};
    // A clustered collection's own TTL reads _id: make it the date (unique: the offsets differ).
    if (o.kind === 'clustered') doc._id = new Date(at + i);
    doc.n = i;
    doc.status = i % 3 === 0 ? 'done' : 'active';
    doc.lastModifiedDate = new Date(at);
    // expireAt: an absolute expiry time, spread the other way round.
    doc.expireAt = new Date(o.nowMs + offset(o.count - 1 - i, o.count, past / 2, future));
    doc.createdAt = i % 10 === 9 ? new Date(at - HOUR).toISOString() : new Date(at - HOUR);
    docs.push(doc);
  }
  return docs;
}
