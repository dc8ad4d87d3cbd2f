/**
 * The index filter commands: planCacheSetFilter, planCacheListFilters, planCacheClearFilters.
 * A filter limits the indexes the planner considers for one query shape (query, sort, projection,
 * collation), overriding any hint; query/index-filters.ts keeps them per collection.
 */
import type { Collection } from '../catalog/collection';
import { fail } from '../errors';
import { compileFilter } from '../query/matcher';
import { clearIndexFilters, listIndexFilters, setIndexFilter, type IndexFilterEntry } from '../query/index-filters';
import { shapeCollation } from '../query/query-shape';
import { bsonTypeOf, isPlainObject, type Document } from '../values/types';
import { collectionNameOf, optionalDocument, type CommandContext, type CommandHandler } from './context';

interface ShapeFields {
  query: Document;
  sort: Document;
  projection: Document;
  collation?: Document;
}

/** The shape a filter command names; the query is parsed so a bad one is refused, as mongod canonicalizes it. */
function shapeFields(cmd: Document): ShapeFields {
  const query = optionalDocument(cmd, 'query') ?? {};
  compileFilter(query);
  const collation = shapeCollation(cmd.collation);
  return {
    query,
    sort: optionalDocument(cmd, 'sort') ?? {},
    projection: optionalDocument(cmd, 'projection') ?? {},
    ...(collation ? { collation } : {}),
  };
}

function collectionOf({ engine, dbName }: CommandContext, cmd: Document, name: string): Collection | undefined {
  const coll = engine.getCollection(dbName, collectionNameOf(cmd, name));
  return coll && !coll.isView ? coll : undefined;
}

function allowedIndexes(cmd: Document): Array<Document | string> {
  const indexes = cmd.indexes;
  if (indexes === undefined) fail('BadValue', 'required field indexes missing: name the indexes the shape may use.');
  if (!Array.isArray(indexes))
    fail(
      'BadValue',
      `required field indexes must be an array of key patterns or index names, not ${bsonTypeOf(indexes)}.`,
    );
  if (indexes.length === 0)
    fail(
      'BadValue',
      'required field indexes must contain at least one index; to remove a filter use planCacheClearFilters.',
    );
  return indexes.map((entry) => {
    if (typeof entry === 'string') return entry;
    if (!isPlainObject(entry))
      fail('BadValue', `each item in indexes must be an object (a key pattern) or a string (an index name).`);
    if (Object.keys(entry).length === 0) fail('BadValue', 'index specification cannot be empty: give a key pattern.');
    return entry;
  });
}

function planCacheSetFilter(ctx: CommandContext, cmd: Document): Document {
  const indexes = allowedIndexes(cmd);
  const coll = collectionOf(ctx, cmd, 'planCacheSetFilter');
  if (!coll)
    fail(
      'BadValue',
      `no such collection: ${ctx.dbName}.${String(cmd.planCacheSetFilter)}; index filters belong to a collection, so create it first.`,
    );
  const entry: IndexFilterEntry = { ...shapeFields(cmd), indexes };
  setIndexFilter(coll, entry);
  return { ok: 1 };
}

function planCacheListFilters(ctx: CommandContext, cmd: Document): Document {
  const coll = collectionOf(ctx, cmd, 'planCacheListFilters');
  const filters = coll
    ? listIndexFilters(coll).map((f) => ({
        query: f.query,
        sort: f.sort,
        projection: f.projection,
        ...(f.collation ? { collation: f.collation } : {}),
        indexes: f.indexes,
      }))
    : [];
  return { filters, ok: 1 };
}

function planCacheClearFilters(ctx: CommandContext, cmd: Document): Document {
  if (
    cmd.query === undefined &&
    (cmd.sort !== undefined || cmd.projection !== undefined || cmd.collation !== undefined)
  )
    fail(
      'BadValue',
      'sort, projection or collation provided without query: name the query shape to clear, or give none of them to clear every filter.',
    );
  const coll = collectionOf(ctx, cmd, 'planCacheClearFilters');
  if (!coll) return { ok: 1 };
  if (cmd.query === undefined) clearIndexFilters(coll);
  else {
    const shape = shapeFields(cmd);
    clearIndexFilters(coll, {
      filter: shape.query,
      sort: shape.sort,
      projection: shape.projection,
      collation: shape.collation,
    });
  }
  return { ok: 1 };
}

export const planCacheFilterCommands: Record<string, CommandHandler> = {
  planCacheSetFilter,
  planCacheListFilters,
  planCacheClearFilters,
};
