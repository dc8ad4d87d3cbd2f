/**
 * dataSize: the BSON bytes and the number of the documents of a namespace, or of those whose key
 * lies in [min, max) of an index whose key pattern begins with `keyPattern`, stopping once
 * `maxSize` bytes or `maxObjects` documents are passed (the one past the limit is counted, as
 * mongod counts it). `estimate` answers from the collection's average document size.
 */
import { calculateObjectSize } from 'bson';
import type { Collection } from '../catalog/collection';
import { fail } from '../errors';
import { fieldKeys } from '../indexes/keys';
import { parseKeyPattern, type KeyField } from '../indexes/key-pattern';
import { compareValues } from '../values/compare';
import { bsonTypeOf, type Document } from '../values/types';
import { optionalBool, optionalDocument, optionalNumber, type CommandContext, type CommandHandler } from './context';

/** The namespace in the first field (`dataSize` or its alias `datasize`). */
function namespaceOf(cmd: Document): { db: string; coll: string } {
  const ns = cmd[Object.keys(cmd)[0]];
  const dot = typeof ns === 'string' ? ns.indexOf('.') : -1;
  if (typeof ns !== 'string' || dot <= 0 || dot === ns.length - 1)
    fail(
      'InvalidNamespace',
      `dataSize takes a full namespace, got ${bsonTypeOf(ns)} ${JSON.stringify(ns)}: use {dataSize: "<db>.<collection>"}.`,
    );
  return { db: ns.slice(0, dot), coll: ns.slice(dot + 1) };
}

/** The document's key under `fields`, compared field by field in the index's directions. */
export function keyOf(doc: Document, fields: KeyField[]): unknown[] {
  return fields.map((f) => fieldKeys(doc, f.path).values[0]);
}

export function compareKeys(a: unknown[], b: unknown[], fields: KeyField[]): number {
  for (let i = 0; i < fields.length; i++) {
    const c = compareValues(a[i], b[i]);
    if (c !== 0) return fields[i].direction === -1 ? -c : c;
  }
  return 0;
}

export function boundOf(bound: Document | undefined, fields: KeyField[]): unknown[] | undefined {
  if (bound === undefined || Object.keys(bound).length === 0) return undefined;
  return fields.map((f) => (Object.hasOwn(bound, f.path) ? bound[f.path] : null));
}

/** The documents to measure, in the order mongod reads them (the index's, or natural order). */
function documentsOf(coll: Collection, cmd: Document): Document[] {
  const docs = [...coll.scanRecords()].map((r) => r.doc);
  const min = optionalDocument(cmd, 'min');
  const max = optionalDocument(cmd, 'max');
  let keyPattern = optionalDocument(cmd, 'keyPattern');
  if (keyPattern === undefined || Object.keys(keyPattern).length === 0) {
    if (!(min && Object.keys(min).length) && !(max && Object.keys(max).length)) return docs;
    // Without a keyPattern, mongod reads one from min's fields, each ascending.
    keyPattern = Object.fromEntries(Object.keys(min ?? {}).map((field) => [field, 1]));
    if (Object.keys(keyPattern).length === 0)
      fail('BadValue', 'dataSize with max and no min needs the keyPattern of an index: add keyPattern: {<field>: 1}.');
  }
  const fields = parseKeyPattern(keyPattern).fields;
  const prefixed = [...coll.indexes.values()].some((index) => {
    const own = index.pattern.fields;
    return (
      own.length >= fields.length &&
      fields.every((f, i) => own[i].path === f.path && (own[i].direction === 1 || own[i].direction === -1))
    );
  });
  if (!prefixed)
    fail(
      'IndexNotFound',
      `couldn't find valid index containing key pattern ${JSON.stringify(keyPattern)}: create an index that starts with it.`,
    );
  const lo = boundOf(min, fields);
  const hi = boundOf(max, fields);
  return docs
    .map((doc) => ({ doc, key: keyOf(doc, fields) }))
    .filter(({ key }) => (!lo || compareKeys(key, lo, fields) >= 0) && (!hi || compareKeys(key, hi, fields) < 0))
    .sort((a, b) => compareKeys(a.key, b.key, fields))
    .map(({ doc }) => doc);
}

function dataSize({ engine }: CommandContext, cmd: Document): Document {
  const { db, coll: name } = namespaceOf(cmd);
  const coll = engine.getCollection(db, name);
  if (!coll || coll.isView) return { size: 0, numObjects: 0, millis: 0, ok: 1 };
  if (optionalBool(cmd, 'estimate') === true && cmd.keyPattern === undefined) {
    return { estimate: true, size: coll.dataSizeBytes, numObjects: coll.count, millis: 0, ok: 1 };
  }
  const maxSize = optionalNumber(cmd, 'maxSize', { min: 0 }) ?? 0;
  const maxObjects = optionalNumber(cmd, 'maxObjects', { min: 0 }) ?? 0;
  let size = 0;
  let numObjects = 0;
  let maxReached = false;
  for (const doc of documentsOf(coll, cmd)) {
    size += calculateObjectSize(doc);
    numObjects++;
    if ((maxSize > 0 && size > maxSize) || (maxObjects > 0 && numObjects > maxObjects)) {
      maxReached = true;
      break;
    }
  }
  return { size, numObjects, millis: 0, ...(maxReached ? { maxReached: true } : {}), ok: 1 };
}

export const dataSizeCommands: Record<string, CommandHandler> = { dataSize };
