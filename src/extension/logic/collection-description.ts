/**
 * A collection in words: its kind (plain, time series, clustered, capped), a short description
 * (`1,234 docs · TTL 30 d after _id`) and the options for the tooltip.
 */
import type { Document } from '../../engine';
import { describeCollectionTTL } from './index-description';
import { formatCount } from './durations';

export type CollectionKind = 'plain' | 'timeseries' | 'clustered' | 'capped' | 'view';

/** From listCollections' `type` and `options`. */
export function collectionKindOf(type: string | undefined, options: Document): CollectionKind {
  if (type === 'view' || options.viewOn !== undefined) return 'view';
  if (type === 'timeseries' || options.timeseries !== undefined) return 'timeseries';
  if (options.clusteredIndex !== undefined) return 'clustered';
  if (options.capped === true) return 'capped';
  return 'plain';
}

export const KIND_WORDS: Record<CollectionKind, string> = {
  plain: 'collection',
  timeseries: 'time-series collection',
  clustered: 'clustered collection',
  capped: 'capped collection',
  view: 'read-only view',
};

/** `1,234 docs`, `1 doc · TTL 30 d after _id`, `12 docs · capped`. */
export function describeCollection(kind: CollectionKind, options: Document, count: number): string {
  // A view stores no documents: it is described by what it reads, never by a count.
  if (kind === 'view') {
    const stages = Array.isArray(options.pipeline) ? options.pipeline.length : 0;
    return `view on ${String(options.viewOn)} · ${stages} ${stages === 1 ? 'stage' : 'stages'}`;
  }
  const parts = [`${formatCount(count)} ${count === 1 ? 'doc' : 'docs'}`];
  const ttl = describeCollectionTTL(options);
  if (ttl) parts.push(ttl);
  if (kind === 'capped')
    parts.push(
      `capped ${formatBytes(Number(options.size))}${options.max !== undefined ? `, max ${formatCount(Number(options.max))}` : ''}`,
    );
  return parts.join(' · ');
}

export function formatBytes(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (n >= 1 << 30) return `${+(n / (1 << 30)).toFixed(1)} GiB`;
  if (n >= 1 << 20) return `${+(n / (1 << 20)).toFixed(1)} MiB`;
  if (n >= 1024) return `${+(n / 1024).toFixed(1)} KiB`;
  return `${n} B`;
}
