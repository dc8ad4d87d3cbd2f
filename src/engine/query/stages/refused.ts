/**
 * Stages of MongoDB 8.0 that a standalone engine refuses, with the code mongod gives where it
 * refuses them too (a standalone has no replica set, no Atlas Search and no shards) and, where
 * mongod would run them, why this engine cannot.
 */
import { EngineError } from '../../errors';

export interface RefusedStage {
  code: number;
  codeName: string;
  /** The message, which says why and what to do instead. */
  reason: string;
}

export const REFUSED_STAGES: Readonly<Record<string, RefusedStage>> = Object.freeze({
  $changeStream: {
    code: 40573,
    codeName: 'Location40573',
    reason:
      'The $changeStream stage is only supported on replica sets: this engine is a standalone server. Start it as a one-member replica set to watch changes (ttl-workbench serve --replSet rs0).',
  },
  $geoNear: {
    code: 27,
    codeName: 'IndexNotFound',
    reason:
      '$geoNear requires a 2d or 2dsphere index, but none were found: the embedded engine has no geospatial indexes.',
  },
  $search: {
    code: 31082,
    codeName: 'SearchNotEnabled',
    reason:
      'Using $search and $vectorSearch aggregation stages requires additional configuration: Atlas Search runs only on Atlas or an Atlas CLI local deployment, not in the embedded engine.',
  },
  $searchMeta: {
    code: 31082,
    codeName: 'SearchNotEnabled',
    reason:
      'Using $searchMeta requires additional configuration: Atlas Search runs only on Atlas or an Atlas CLI local deployment, not in the embedded engine.',
  },
  $vectorSearch: {
    code: 31082,
    codeName: 'SearchNotEnabled',
    reason:
      'Using $search and $vectorSearch aggregation stages requires additional configuration: Atlas Vector Search runs only on Atlas or an Atlas CLI local deployment, not in the embedded engine.',
  },
  $shardedDataDistribution: {
    code: 6789101,
    codeName: 'Location6789101',
    reason:
      'The $shardedDataDistribution stage can only be run on a sharded cluster (through mongos): this engine is a standalone server.',
  },
});

/** The error a refused stage fails with, or undefined when the engine runs it. */
export function refusalOf(name: string): EngineError | undefined {
  const refused = Object.hasOwn(REFUSED_STAGES, name) ? REFUSED_STAGES[name] : undefined;
  if (!refused) return undefined;
  const err = new EngineError(refused.code, refused.reason);
  // errors.ts names only the codes the engine itself raises; the others keep mongod's name.
  if (err.codeName !== refused.codeName) (err as unknown as { codeName: string }).codeName = refused.codeName;
  return err;
}
