/**
 * $out: the pipeline's results replace a collection (of this database or another). The documents
 * are written to a new collection that has the target's options and indexes, which then takes the
 * target's place in one step, as on mongod: a failed insert (a duplicate key, say) leaves the
 * target as it was, and the target's indexes (TTL indexes included) stay.
 */
import { isPlainObject, type Document } from '../../values/types';
import { fail, typeName } from './shared';
import type { StageParser } from './types';

export const parseOut: StageParser = (spec, env) => {
  const catalog = env.ctx.catalog;
  const defaultDb = catalog?.dbName ?? 'test';
  let db = defaultDb;
  let coll: string;
  let timeseries: Document | undefined;
  if (typeof spec === 'string') {
    coll = spec;
  } else if (isPlainObject(spec)) {
    let c: unknown;
    let d: unknown;
    for (const [k, v] of Object.entries(spec)) {
      if (k === 'coll') c = v;
      else if (k === 'db') d = v;
      else if (k === 'timeseries') {
        if (!isPlainObject(v))
          fail(14, `BSON field '$out.timeseries' is the wrong type '${typeName(v)}', expected type 'object'`);
        timeseries = v;
      } else fail(40415, `BSON field '$out.${k}' is an unknown field.`);
    }
    if (c === undefined) fail(40414, "BSON field '$out.coll' is missing but a required field");
    if (typeof c !== 'string')
      fail(14, `BSON field '$out.coll' is the wrong type '${typeName(c)}', expected type 'string'`);
    if (d !== undefined && typeof d !== 'string')
      fail(14, `BSON field '$out.db' is the wrong type '${typeName(d)}', expected type 'string'`);
    coll = c;
    if (typeof d === 'string') db = d;
  } else {
    fail(16990, `$out only supports a string or object argument, not ${typeName(spec)}`);
  }
  if (coll === '' || db === '') fail(73, `Invalid $out target namespace, ${db}.${coll}`);
  if (coll.startsWith('system.')) fail(17385, `Can't $out to special collection: ${coll}`);
  return (input) => {
    // Everything is read before anything is written: $out may replace the collection it reads.
    const docs = Array.from(input);
    if (!catalog) fail(238, '$out needs the engine: this pipeline runs without a catalog of collections.');
    const target = catalog.describe(db, coll);
    if (target?.capped) fail(17152, `namespace '${db}.${coll}' is capped so it can't be used for $out`);
    if (timeseries && target && !target.timeseries)
      fail(7268700, 'Cannot create a time-series collection from a non time-series collection or view.');
    catalog.replaceCollection(db, coll, docs, timeseries ?? target?.timeseries);
    return [];
  };
};
