/**
 * The engine's collections as aggregation stages reach them ($lookup, $unionWith, $graphLookup,
 * $out, $merge): reads through the query planner, writes through the same validation, index and
 * journal paths as the insert and update commands (so TTL indexes of a target apply as usual).
 */
import { UUID } from 'bson';
import type { CollectionOptions } from '../catalog/collection';
import { checkUpdatedSize, prepareForInsert } from '../catalog/document-rules';
import type { EngineContext } from '../engine-context';
import { fail } from '../errors';
import { BTreeIndex } from '../indexes/btree-index';
import { checkForInterrupt } from '../interrupt';
import type { PipelineCatalog, WriteTargetInfo } from '../query/aggregate';
import { queryRecords } from '../query/executor';
import { compileFilter, isMatchAll } from '../query/matcher';
import { cloneDocument } from '../values/clone';
import { enforceValidator } from '../validation/validator';
import type { Document } from '../values/types';
import { parseTimeseries } from './timeseries-options';
import { checkTimeseriesDocument, insertDocument } from './document-writes';
import { readView, refuseView, resolveView, viewNotSupported } from './views';

export function engineCatalog(engine: EngineContext, dbName: string): PipelineCatalog {
  const catalog: PipelineCatalog = {
    dbName,

    find(db, name, filter, subPipelineDepth) {
      const coll = engine.getCollection(db, name);
      if (!coll) return [];
      if (coll.isView) {
        const rest = filter && !isMatchAll(filter) ? [{ $match: filter }] : [];
        return readView(engine, db, coll, rest, catalog, subPipelineDepth);
      }
      if (filter === undefined || isMatchAll(filter)) {
        return (function* () {
          for (const r of coll.scanRecords()) {
            checkForInterrupt();
            yield r.doc;
          }
        })();
      }
      return queryRecords(coll, { filter }).map((r) => r.doc);
    },

    viewPipeline(db, name) {
      const coll = engine.getCollection(db, name);
      return coll?.isView ? resolveView(engine, db, coll).pipeline : undefined;
    },

    describe(db, name): WriteTargetInfo | undefined {
      const coll = engine.getCollection(db, name);
      if (!coll) return undefined;
      if (coll.isView) throw viewNotSupported(coll.ns, '$out and $merge cannot write to a view');
      const uniqueKeys: Document[] = [];
      for (const index of coll.indexes.values()) {
        if (index.name === '_id_' || (index.unique && !index.isPartial)) uniqueKeys.push(index.spec.key as Document);
      }
      return {
        capped: coll.isCapped,
        ...(coll.options.timeseries ? { timeseries: { ...coll.options.timeseries } } : {}),
        uniqueKeys,
      };
    },

    indexedFields(db, name) {
      const coll = engine.getCollection(db, name);
      const fields: string[] = [];
      // A view (and a missing collection) has no index: its documents come from its pipeline.
      if (!coll || coll.isView) return fields;
      for (const index of coll.indexes.values())
        if (index.queryable && !index.isPartial) fields.push(Object.keys(index.spec.key as Document)[0]);
      return fields;
    },

    insert(db, name, doc) {
      refuseView(engine, db, name, '$merge cannot write to a view');
      engine.opcounters.insert++;
      insertDocument(engine, engine.ensureCollection(db, name).collection, doc);
    },

    replace(db, name, current, next) {
      engine.opcounters.update++;
      const coll = engine.requireCollection(db, name);
      const record = coll.findById(current._id);
      if (!record) fail('NoSuchKey', `The document with _id ${String(current._id)} is no longer in ${coll.ns}.`);
      const prepared = prepareForInsert(next, { generateId: false });
      checkUpdatedSize(prepared);
      checkTimeseriesDocument(coll, prepared);
      enforceValidator(engine, coll, prepared, record.doc);
      coll.replace(record, prepared);
      engine.documentMetrics.updated++;
    },

    replaceCollection(db, name, docs, timeseries) {
      refuseView(engine, db, name, '$out cannot write to a view');
      const target = engine.getCollection(db, name);
      let options: CollectionOptions = {};
      if (target) options = { ...target.options };
      else if (timeseries) options = { timeseries: parseTimeseries(timeseries, false) };
      const tempName = `tmp.agg_out.${new UUID().toHexString()}`;
      const temp = engine.createCollection(db, tempName, options);
      try {
        // The target's indexes (its TTL indexes among them) are built on the empty collection
        // first, so every insert is checked against the unique ones as it happens.
        const built: string[] = [];
        for (const index of target?.indexes.values() ?? []) {
          if (temp.indexes.has(index.name)) continue;
          const spec = cloneDocument(index.spec);
          const partial = spec.partialFilterExpression
            ? compileFilter(spec.partialFilterExpression as Document)
            : undefined;
          temp.addIndex(new BTreeIndex(spec, partial));
          built.push(index.name);
        }
        if (built.length) engine.recordEvent({ kind: 'indexesCreated', db, collection: tempName, names: built });
        for (const doc of docs) {
          checkForInterrupt();
          engine.opcounters.insert++;
          insertDocument(engine, temp, doc);
        }
      } catch (err) {
        engine.dropCollection(db, tempName);
        throw err;
      }
      if (target) engine.dropCollection(db, name);
      engine.renameCollection(db, tempName, db, name);
    },
  };
  return catalog;
}
