/**
 * Read-only views: a name for a pipeline over another collection or view of the same database.
 * A view is kept in the catalog as a collection with `viewOn` and `pipeline` options and nothing
 * else (no documents, no indexes), so it is listed, stored and restored like any collection.
 *
 * What this module decides: whether a definition is valid (its pipeline, cycles, mongod's depth
 * limit of 20 counted through $lookup, $graphLookup, $unionWith and $facet too), what a read of a
 * view runs (its pipeline, and those of the views under it, before the read's own work), and the
 * refusal every write and index command gives a view (166 CommandNotSupportedOnView).
 */
import type { Collection } from '../catalog/collection';
import type { EngineContext } from '../engine-context';
import { EngineError, fail } from '../errors';
import { runPipeline, type PipelineCatalog } from '../query/aggregate';
import { isPlainObject, type Document } from '../values/types';
import { formatValue } from '../values/format';
import { currentCollator } from '../collation/active';
import { collatorFor } from '../collation/collator';
import { collationKey, parseCollation } from '../collation/spec';
import { MAX_VIEW_DEPTH } from '../validation/supported';
import { engineIntrospection } from './pipeline-introspection';

/** What a read of `name` runs: the collection at the bottom (if it exists) and the pipelines above it, in order. */
export interface ResolvedView {
  /** The namespace the read ends on (the collection under every view). */
  sourceName: string;
  source: Collection | undefined;
  pipeline: Document[];
}

/** The refusal of a write or index command on a view (mongod's wording). */
export function viewNotSupported(ns: string, what = ''): EngineError {
  return new EngineError(
    'CommandNotSupportedOnView',
    `Namespace ${ns} is a view, not a collection${what ? `: ${what}` : ''}. Views are read-only: write to the collection it reads (see its viewOn in listCollections).`,
  );
}

/** Throws 166 when `name` is a view: the write and index commands call this first. */
export function refuseView(engine: EngineContext, dbName: string, name: string, what = ''): void {
  if (engine.getCollection(dbName, name)?.isView) throw viewNotSupported(`${dbName}.${name}`, what);
}

/** Whether a pipeline opens with $collStats, which reports on the namespace it runs on rather than reading it. */
export function startsWithCollStats(pipeline: unknown): boolean {
  return Array.isArray(pipeline) && isPlainObject(pipeline[0]) && '$collStats' in pipeline[0];
}

/**
 * The view's pipelines from the bottom up, ending on a collection (which may not exist). A view
 * whose pipeline opens with $collStats ends the walk at the namespace it is defined on, view or
 * not: $collStats reports on that namespace, as mongod resolves it.
 */
export function resolveView(engine: EngineContext, dbName: string, view: Collection): ResolvedView {
  const pipelines: Document[][] = [];
  let current: Collection | undefined = view;
  let name = view.name;
  for (let depth = 0; current?.isView; depth++) {
    if (depth > MAX_VIEW_DEPTH)
      fail('ViewDepthLimitExceeded', `View depth too deep or view cycle detected. Maximum depth is ${MAX_VIEW_DEPTH}`);
    const pipeline = current.options.pipeline ?? [];
    pipelines.unshift(pipeline);
    name = current.options.viewOn!;
    current = engine.getCollection(dbName, name);
    if (startsWithCollStats(pipeline)) break;
  }
  return { sourceName: name, source: current, pipeline: pipelines.flat() };
}

/**
 * Every view a pipeline reads ($lookup, $graphLookup, $unionWith, nested) must compare strings by
 * the operation's collation: checked when the pipeline is parsed, before any document is read.
 */
export function checkPipelineViewCollations(engine: EngineContext, dbName: string, pipeline: unknown): void {
  if (!Array.isArray(pipeline)) return;
  const reads = new Set<string>();
  pipelineReads(pipeline as Document[], reads);
  for (const name of reads) {
    const c = engine.getCollection(dbName, name);
    if (c?.isView) checkViewCollation(c);
  }
}

function checkViewCollation(view: Collection): void {
  const viewCollation = view.options.collation === undefined ? null : parseCollation(view.options.collation);
  if (collatorFor(viewCollation) !== currentCollator())
    fail(
      'OptionNotSupportedOnView',
      `Cannot override a view's default collation: ${view.ns} compares strings by ${view.options.collation ? formatValue(view.options.collation) : 'the simple collation'}, this operation by another. Run the operation with the view's collation.`,
    );
}

/** Run a view's pipeline followed by `rest` (a read of the view); `catalog` serves its $lookup and friends. */
export function readView(
  engine: EngineContext,
  dbName: string,
  view: Collection,
  rest: Document[],
  catalog: PipelineCatalog,
  /** Set when a $lookup or $unionWith reads the view: its pipeline runs at that stage's depth. */
  subPipelineDepth?: number,
): Document[] {
  // Read from a pipeline ($lookup, $unionWith, ...) the view still compares by its own collation:
  // the operation's must be the same.
  checkViewCollation(view);
  const resolved = resolveView(engine, dbName, view);
  const pipeline = [...resolved.pipeline, ...rest];
  const ctx = { now: engine.now(), catalog, ...(subPipelineDepth ? { subPipelineDepth } : {}) };
  if (startsWithCollStats(pipeline))
    return runPipeline([], pipeline, { ...ctx, introspection: engineIntrospection(engine, resolved.sourceName) });
  if (!resolved.source) return runPipeline([], pipeline, ctx);
  const source = resolved.source;
  return runPipeline(
    (function* () {
      for (const r of source.scanRecords()) yield r.doc;
    })(),
    pipeline,
    ctx,
  );
}

/** The namespaces a pipeline reads besides its input: $lookup, $graphLookup, $unionWith, nested pipelines and $facet. */
function pipelineReads(pipeline: Document[], out: Set<string>): void {
  for (const stage of pipeline) {
    if (!isPlainObject(stage)) continue;
    for (const [name, arg] of Object.entries(stage)) {
      if (name === '$lookup' || name === '$graphLookup') {
        if (isPlainObject(arg)) {
          if (typeof arg.from === 'string') out.add(arg.from);
          if (Array.isArray(arg.pipeline)) pipelineReads(arg.pipeline as Document[], out);
        }
      } else if (name === '$unionWith') {
        if (typeof arg === 'string') out.add(arg);
        else if (isPlainObject(arg)) {
          if (typeof arg.coll === 'string') out.add(arg.coll);
          if (Array.isArray(arg.pipeline)) pipelineReads(arg.pipeline as Document[], out);
        }
      } else if (name === '$facet' && isPlainObject(arg)) {
        for (const sub of Object.values(arg)) if (Array.isArray(sub)) pipelineReads(sub as Document[], out);
      }
    }
  }
}

/** $out and $merge write: a view's pipeline may hold neither, at the top or nested. */
function refuseWritingStages(pipeline: Document[], where: 'top' | 'lookup' | 'facet'): void {
  for (const stage of pipeline) {
    if (!isPlainObject(stage)) fail('TypeMismatch', "Each element of the 'pipeline' array must be an object");
    for (const [name, arg] of Object.entries(stage)) {
      if (name === '$out' || name === '$merge') {
        if (where === 'lookup') fail(51047, `${name} is not allowed within a $lookup's sub-pipeline`);
        if (where === 'facet') fail(40600, `${name} is not allowed to be used within a $facet stage`);
        fail('OptionNotSupportedOnView', `${name} cannot be used in a view definition: a view only reads.`);
      }
      if ((name === '$lookup' || name === '$unionWith') && isPlainObject(arg) && Array.isArray(arg.pipeline))
        refuseWritingStages(arg.pipeline as Document[], 'lookup');
      if (name === '$facet' && isPlainObject(arg))
        for (const sub of Object.values(arg)) if (Array.isArray(sub)) refuseWritingStages(sub as Document[], 'facet');
    }
  }
}

function dependenciesOf(viewOn: string, pipeline: Document[]): string[] {
  const reads = new Set<string>([viewOn]);
  pipelineReads(pipeline, reads);
  return [...reads];
}

/**
 * Check a view definition before create or collMod stores it: a pipeline of stages that only
 * read, no cycle through other views, and no chain of views deeper than 20 through it.
 */
export function checkViewDefinition(
  engine: EngineContext,
  dbName: string,
  name: string,
  viewOn: string,
  pipeline: Document[],
  catalog: PipelineCatalog,
  /** The view's default collation as stored (undefined: simple). */
  collation: Document | undefined = undefined,
): void {
  refuseWritingStages(pipeline, 'top');
  // Over no documents: a bad stage fails the create, as in mongod, and nothing is read. The views
  // it reads stay unresolved, as mongod validates a definition: their nesting counts when it runs.
  // A leading $collStats is left out: it reports on a namespace rather than reading documents, so
  // running it here would report (or fail on a missing collection) instead of validating.
  const validated = startsWithCollStats(pipeline) ? pipeline.slice(1) : pipeline;
  runPipeline([], validated, { now: engine.now(), catalog: { ...catalog, viewPipeline: undefined } });
  const db = engine.getDatabase(dbName);
  const depsOf = (view: string): string[] => {
    if (view === name) return dependenciesOf(viewOn, pipeline);
    const c = db?.collections.get(view);
    return c?.isView ? dependenciesOf(c.options.viewOn!, c.options.pipeline ?? []) : [];
  };
  const isView = (n: string) => n === name || db?.collections.get(n)?.isView === true;

  // A view and every view it reads, or that reads it, compare strings alike (mongod's rule).
  const own = collationName(collation);
  const clash = (other: Collection) =>
    fail(
      'OptionNotSupportedOnView',
      `View ${dbName}.${name} has a different default collation than view ${other.ns}: views that read one another must share one collation. Give ${dbName}.${name} the collation ${other.options.collation ? formatValue(other.options.collation) : '"simple"'}.`,
    );
  for (const dep of dependenciesOf(viewOn, pipeline)) {
    const c = db?.collections.get(dep);
    if (c?.isView && c.name !== name && collationName(c.options.collation) !== own) clash(c);
  }
  for (const c of db?.collections.values() ?? []) {
    if (!c.isView || c.name === name) continue;
    const reads = dependenciesOf(c.options.viewOn!, c.options.pipeline ?? []).includes(name);
    if (reads && collationName(c.options.collation) !== own) clash(c);
  }

  // Below: the longest chain of views from the new one down, with a cycle back to it refused.
  const below = new Map<string, number>();
  const walk = (view: string, path: string[]): number => {
    const known = below.get(view);
    if (known !== undefined) return known;
    let deepest = 0;
    for (const dep of depsOf(view)) {
      if (dep === name || path.includes(dep))
        fail(
          'GraphContainsCycle',
          `View cycle detected: ${[...path, dep].map((n) => `${dbName}.${n}`).join(' => ')}. A view may not read itself through other views.`,
        );
      if (isView(dep)) deepest = Math.max(deepest, walk(dep, [...path, dep]));
    }
    const depth = deepest + 1;
    if (depth > MAX_VIEW_DEPTH) tooDeep();
    below.set(view, depth);
    return depth;
  };
  const down = walk(name, [name]);

  // Above: the longest chain of existing views that read the new one.
  const above = new Map<string, number>();
  const readersOf = (view: string): string[] =>
    [...(db?.collections.values() ?? [])]
      .filter(
        (c) =>
          c.isView && c.name !== name && dependenciesOf(c.options.viewOn!, c.options.pipeline ?? []).includes(view),
      )
      .map((c) => c.name);
  const up = (view: string, seen: Set<string>): number => {
    const known = above.get(view);
    if (known !== undefined) return known;
    let highest = 0;
    for (const reader of readersOf(view)) {
      if (seen.has(reader)) continue;
      highest = Math.max(highest, 1 + up(reader, new Set([...seen, reader])));
    }
    above.set(view, highest);
    return highest;
  };
  if (down + up(name, new Set([name])) > MAX_VIEW_DEPTH) tooDeep();
}

function collationName(stored: Document | undefined): string {
  const spec = stored === undefined ? null : parseCollation(stored);
  return spec === null ? 'simple' : collationKey(spec);
}

function tooDeep(): never {
  fail(
    'ViewDepthLimitExceeded',
    `View depth too deep or view cycle detected. Maximum depth is ${MAX_VIEW_DEPTH}: define the view on a collection or on a shallower view.`,
  );
}

/** `viewOn` and `pipeline` of a create or collMod command, checked for type. */
export function parseViewOptions(cmd: Document): { viewOn: string; pipeline: Document[] } {
  const viewOn = cmd.viewOn;
  if (typeof viewOn !== 'string')
    fail('TypeMismatch', "'viewOn' must be a string: the name of a collection or view in the same database.");
  if (viewOn.length === 0) fail('BadValue', "'viewOn' cannot be empty: name the collection or view the view reads.");
  const pipeline = cmd.pipeline ?? [];
  if (!Array.isArray(pipeline))
    fail('TypeMismatch', "'pipeline' must be an array of aggregation stages, e.g. [{$match: {active: true}}].");
  for (const stage of pipeline)
    if (!isPlainObject(stage)) fail('TypeMismatch', "Each element of the 'pipeline' array must be an object");
  return { viewOn, pipeline: pipeline as Document[] };
}
