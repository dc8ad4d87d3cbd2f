/**
 * What every pipeline stage module shares: the compiled stage type, the environment a stage is
 * compiled in, and the catalog through which stages that read or write other collections reach
 * the engine. Types only, so aggregate.ts (the dispatcher) and the stage modules depend on this
 * file and never on each other in a circle.
 */
import type { Vars } from '../expressions';
import type { Document } from '../../values/types';

/** A compiled stage: a lazy function from input documents to output documents. */
export type Stage = (input: Iterable<Document>) => Iterable<Document>;

/** Where a sub-pipeline runs; some stages are refused there, with the container's code. */
export type PipelinePlace = 'top' | 'facet' | 'lookup' | 'unionWith' | 'mergeWhenMatched';

export interface StageEnv {
  /** Variables visible to the stage's expressions ($$NOW, `let` variables, $lookup's `let`). */
  vars: Vars;
  /** Inside a $facet sub-pipeline, where some stages are not allowed. */
  inFacet: boolean;
  /** Where this (sub-)pipeline runs. */
  place: PipelinePlace;
  /** The aggregate's context: its database, clock and the catalog. */
  ctx: PipelineContext;
  /** Compiles a sub-pipeline ($lookup, $unionWith, $facet, $merge's whenMatched) in `env`. */
  compile(pipeline: unknown, env: StageEnv): Stage;
  /** How many $lookup/$unionWith sub-pipelines enclose this one (0 or absent: the top). */
  depth?: number;
}

export type StageParser = (spec: unknown, env: StageEnv, name: string) => Stage;

export interface PipelineContext {
  /** The engine's clock: the value of $$NOW. */
  now: Date;
  /** The aggregate command's `let` option: variables evaluated once, before the pipeline runs. */
  let?: Document;
  /**
   * The sub-pipeline depth the pipeline starts at: a view read by a $lookup or $unionWith runs its
   * pipeline as deep as that stage's sub-pipeline (mongod counts the two together against 20).
   */
  subPipelineDepth?: number;
  /** The value of $$CLUSTER_TIME, where the caller has one (update pipelines). */
  clusterTime?: unknown;
  /**
   * The collections of the engine, for $lookup, $unionWith, $graphLookup, $out and $merge.
   * Without it those stages see no collections (and $out/$merge cannot write).
   */
  catalog?: PipelineCatalog;
  /**
   * What the introspection stages ($collStats, $indexStats, $currentOp, …) read of the engine.
   * Without it they refuse to run.
   */
  introspection?: PipelineIntrospection;
}

/** collStats figures of one collection, in bytes (the stage scales them). */
export interface CollectionStatsInfo {
  count: number;
  size: number;
  capped: boolean;
  max?: number;
  maxSize?: number;
  indexSizes: Record<string, number>;
  /** Queries that read the whole collection since the engine opened. */
  collectionScans: number;
}

/** The engine state the introspection stages report: real figures, never made up. */
export interface PipelineIntrospection {
  /** The aggregate's collection; undefined for a collection-less {aggregate: 1}. */
  readonly collection: string | undefined;
  /** What $collStats and $indexStats show as `host`. */
  readonly host: string;
  /** undefined when db.coll does not exist. */
  collectionStats(db: string, coll: string): CollectionStatsInfo | undefined;
  /** What $collStats' latencyStats reports for db.coll (a view's own use counts: its name is a namespace too). */
  latencyStats(db: string, coll: string): Document;
  /** Whether db.coll is a view: $collStats has no storage figures for one. */
  isView(db: string, coll: string): boolean;
  /** One document per index of db.coll (none when it does not exist), in catalog order. */
  indexStats(db: string, coll: string): Document[];
  /** The operations in progress, in $currentOp's shape; with idleSessions, the open transactions between statements too. */
  currentOps(options: { idleSessions: boolean }): Document[];
  /** The logical sessions this server has in memory, in $listLocalSessions' shape: all, those of the named users, or the caller's. */
  localSessions(options: { allUsers?: boolean; users?: readonly { user: string; db: string }[] }): Document[];
}

/** What $out and $merge need to know of a target collection. */
export interface WriteTargetInfo {
  capped: boolean;
  /** The time-series options when the collection is one. */
  timeseries?: Document;
  /** Key patterns of the unique, non-partial indexes (what $merge's `on` must be backed by). */
  uniqueKeys: Document[];
}

/**
 * The engine's collections as pipeline stages see them. Reads go through the query planner (so an
 * index on the searched field is used); writes go through the same paths as the insert and update
 * commands, so they are validated, indexed and journaled like any other write.
 */
export interface PipelineCatalog {
  /** The aggregate's database: where `from`, `coll` and `into` names resolve. */
  readonly dbName: string;
  /** The documents of db.coll that match `filter` (none when it does not exist). Never mutate them. */
  find(db: string, coll: string, filter?: Document, subPipelineDepth?: number): Iterable<Document>;
  /** The pipeline a view resolves to (its chain of views included); undefined for a collection. */
  viewPipeline?(db: string, coll: string): Document[] | undefined;
  /** Fields that lead a queryable, non-partial index of db.coll: an equality on one is an index lookup. */
  indexedFields(db: string, coll: string): string[];
  /** undefined when db.coll does not exist. */
  describe(db: string, coll: string): WriteTargetInfo | undefined;
  /** Inserts into db.coll (created when missing); an `_id` is added when the document has none. */
  insert(db: string, coll: string, doc: Document): void;
  /** Replaces the stored document whose `_id` equals `current._id` with `next`. */
  replace(db: string, coll: string, current: Document, next: Document): void;
  /**
   * $out: writes `docs` into a new collection with the options and indexes of db.coll (when it
   * exists), then puts it in place of db.coll in one step. Nothing changes when an insert fails.
   */
  replaceCollection(db: string, coll: string, docs: Document[], timeseries?: Document): void;
}
