/**
 * The `create` command of "Create Collection…" for each kind: plain, capped, time series (with
 * an optional collection-level expireAfterSeconds) and clustered by _id (same).
 */
import type { Document } from '../../engine';
import type { CollectionKind } from './collection-description';

export interface CreateCollectionArgs {
  name: string;
  kind: CollectionKind;
  /** Collection-level TTL (time series, clustered). */
  expireAfterSeconds?: number;
  /** Capped: maximum bytes (default 1 MiB) and documents. */
  size?: number;
  max?: number;
  /** Time series. */
  timeField?: string;
  metaField?: string;
  granularity?: 'seconds' | 'minutes' | 'hours';
}

/** The options part (what `db.createCollection(name, options)` takes). */
export function createCollectionOptions(a: CreateCollectionArgs): Document {
  switch (a.kind) {
    case 'plain':
      return {};
    case 'capped':
      return { capped: true, size: a.size ?? 1_048_576, ...(a.max !== undefined ? { max: a.max } : {}) };
    case 'timeseries':
      return {
        timeseries: {
          timeField: a.timeField ?? 'timestamp',
          ...(a.metaField ? { metaField: a.metaField } : {}),
          ...(a.granularity ? { granularity: a.granularity } : {}),
        },
        ...(a.expireAfterSeconds !== undefined ? { expireAfterSeconds: a.expireAfterSeconds } : {}),
      };
    case 'clustered':
      return {
        clusteredIndex: { key: { _id: 1 }, unique: true },
        ...(a.expireAfterSeconds !== undefined ? { expireAfterSeconds: a.expireAfterSeconds } : {}),
      };
    case 'view':
      throw new Error('Create Collection makes collections: create a view with db.createView(name, source, pipeline).');
  }
}

export function createCollectionCommand(a: CreateCollectionArgs): Document {
  return { create: a.name, ...createCollectionOptions(a) };
}

/** Why a database name cannot be used (mongod's rules: not empty, none of /\\. "$, under 64 bytes). */
export function databaseNameProblem(name: string): string | undefined {
  if (!name) return 'A database name is not empty.';
  if (/[/\\. "$]/.test(name)) return 'A database name has none of the characters /\\. "$.';
  if (Buffer.byteLength(name, 'utf8') >= 64) return 'A database name is shorter than 64 bytes.';
  return undefined;
}
