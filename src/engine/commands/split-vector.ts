/**
 * splitVector: the keys at which a range of a collection would be cut into chunks of at most
 * maxChunkSize (what a sharded cluster's balancer and tools such as the Spark connector ask a
 * shard). As mongod does it: documents are read in the order of an index prefixed by keyPattern,
 * each chunk gets half the allowed bytes' worth of documents at the collection's average size (or
 * maxChunkObjects, when fewer), a key equal to the previous split point is never split on, and
 * with force the range is cut once, at its middle document.
 */
import type { Collection } from '../catalog/collection';
import { fail } from '../errors';
import { parseKeyPattern, type KeyField } from '../indexes/key-pattern';
import { toDouble } from '../values/numbers';
import { bsonTypeOf, isNumeric, type Document } from '../values/types';
import { optionalBool, optionalDocument, type CommandContext, type CommandHandler } from './context';
import { boundOf, compareKeys, keyOf as dataSizeKeyOf } from './data-size';

const MB = 1024 * 1024;

function namespaceOf(cmd: Document): { db: string; coll: string } {
  const ns = cmd.splitVector;
  const dot = typeof ns === 'string' ? ns.indexOf('.') : -1;
  if (typeof ns !== 'string' || dot <= 0 || dot === ns.length - 1)
    fail(
      'InvalidNamespace',
      `splitVector takes a full namespace, got ${bsonTypeOf(ns)} ${JSON.stringify(ns)}: use {splitVector: "<db>.<collection>", keyPattern: {x: 1}, maxChunkSize: 64}.`,
    );
  return { db: ns.slice(0, dot), coll: ns.slice(dot + 1) };
}

function optionalCount(cmd: Document, field: string): number | undefined {
  const v = cmd[field];
  if (v === undefined || v === null) return undefined;
  if (!isNumeric(v))
    fail('TypeMismatch', `BSON field 'splitVector.${field}' is the wrong type '${bsonTypeOf(v)}', expected a number`);
  return Math.trunc(toDouble(v));
}

/** The directions of an index usable for keyPattern: a plain ascending/descending index that begins with its fields. */
function shardKeyIndexDirections(coll: Collection, fields: KeyField[]): KeyField[] | undefined {
  for (const index of coll.indexes.values()) {
    const own = index.pattern.fields;
    if (index.spec.partialFilterExpression !== undefined || index.spec.sparse === true) continue;
    if (own.length < fields.length) continue;
    if (fields.every((f, i) => own[i].path === f.path && (own[i].direction === 1 || own[i].direction === -1)))
      return own.slice(0, fields.length);
  }
  return undefined;
}

// A missing field's key is null here (mongod's split points print it), where dataSize's bounds
// compare it as missing.
function keyOf(doc: Document, fields: KeyField[]): unknown[] {
  return dataSizeKeyOf(doc, fields).map((v) => v ?? null);
}

/** The split points over `keys` (in index order), as mongod's scan picks them. */
function splitPoints(
  keys: unknown[][],
  fields: KeyField[],
  perChunk: number,
  maxSplitPoints: number,
  force: boolean,
): unknown[][] {
  const points: unknown[][] = [];
  // The first key stands in for the previous split point: it is never one itself.
  let last = keys[0];
  let keyCount = perChunk;
  let pass = force ? 'count' : 'split';
  for (;;) {
    let count = 0;
    for (const key of keys) {
      count++;
      if (count > keyCount && pass === 'split') {
        if (compareKeys(key, last, fields) !== 0) {
          points.push(key);
          last = key;
          count = 0;
        }
      }
      if (maxSplitPoints > 0 && points.length === maxSplitPoints) return points;
    }
    if (pass === 'split') return points;
    // force: the first pass only counted the documents; cut once at the middle one.
    keyCount = Math.floor(count / 2);
    pass = 'split';
  }
}

function splitVector({ engine }: CommandContext, cmd: Document): Document {
  const { db, coll: name } = namespaceOf(cmd);
  const keyPattern = optionalDocument(cmd, 'keyPattern');
  if (keyPattern === undefined || Object.keys(keyPattern).length === 0)
    fail('BadValue', 'no key pattern found in splitVector: add keyPattern, the shard key, e.g. {x: 1}.');
  const force = optionalBool(cmd, 'force') === true;
  const maxChunkSizeMB = optionalCount(cmd, 'maxChunkSize');
  const maxChunkSizeBytes = optionalCount(cmd, 'maxChunkSizeBytes');
  if (!force && !maxChunkSizeMB && !maxChunkSizeBytes)
    fail(
      'InvalidOptions',
      'need to specify the desired max chunk size (maxChunkSize in MB or maxChunkSizeBytes), or force: true to split in half.',
    );
  const coll = engine.getCollection(db, name);
  if (!coll || coll.isView) fail('NamespaceNotFound', `ns not found: ${db}.${name} is not a collection.`);
  const fields = shardKeyIndexDirections(coll, parseKeyPattern(keyPattern).fields);
  if (!fields)
    fail(
      'IndexNotFound',
      `couldn't find index over splitting key ${JSON.stringify(keyPattern)}: create an index that starts with it.`,
    );
  const recCount = coll.count;
  const dataSize = coll.dataSizeBytes;
  // Forcing a split means a chunk as large as the data: it is cut in half.
  const maxChunkSize = force ? dataSize : maxChunkSizeMB ? maxChunkSizeMB * MB : maxChunkSizeBytes!;
  if (dataSize < maxChunkSize || recCount === 0) return { splitKeys: [], ok: 1 };
  const avgRecSize = Math.floor(dataSize / recCount);
  let perChunk = Math.floor(maxChunkSize / (2 * avgRecSize));
  const maxChunkObjects = optionalCount(cmd, 'maxChunkObjects') ?? 0;
  if (maxChunkObjects > 0 && maxChunkObjects < perChunk) perChunk = maxChunkObjects;

  const lo = boundOf(optionalDocument(cmd, 'min'), fields);
  const hi = boundOf(optionalDocument(cmd, 'max'), fields);
  const keys = [...coll.scanRecords()]
    .map((r) => keyOf(r.doc, fields))
    .filter((key) => (!lo || compareKeys(key, lo, fields) >= 0) && (!hi || compareKeys(key, hi, fields) < 0))
    .sort((a, b) => compareKeys(a, b, fields));
  if (keys.length === 0) return { splitKeys: [], ok: 1 };
  const points = splitPoints(keys, fields, perChunk, optionalCount(cmd, 'maxSplitPoints') ?? 0, force);
  const splitKeys = points.map((key) => {
    const doc: Document = {};
    fields.forEach((f, i) => (doc[f.path] = key[i]));
    return doc;
  });
  return { splitKeys, ok: 1 };
}

export const splitVectorCommands: Record<string, CommandHandler> = { splitVector };
