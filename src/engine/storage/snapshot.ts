/**
 * The engine's state as snapshot records, for compaction:
 *   { engine: {flavor, serverVersion}, t, m, params }           first
 *   { coll: ns, o: options, ix: [specs], n: count }              each collection, then its documents
 *   { flat: rows, k: [shapes], ts?: [stamps] }                   in natural order, in batches:
 *   { plain: [documents], ts?: [stamps] }
 *   { typed: [documents], ts?: [stamps] }
 *
 * `captureSnapshot` takes a consistent picture synchronously for the cost of the catalog alone (no
 * per-document work: see CollectionCapture); documents are read and encoded later, batch by batch,
 * while the engine goes on (its new commits go to the next journal). Call `release` when done.
 *
 * Three kinds of batches, for the reader's speed: a `flat` batch holds documents of top-level
 * scalars in our own row layout (see flat-batch.ts: the common small document, fastest to read); a `plain` batch holds documents with no Int32,
 * Long, symbol or -0 anywhere, which decode straight into engine documents (bson's promoted
 * values: every number a double); a `typed` batch keeps those types (numbers written as Double,
 * decoded unpromoted and converted, as journal records are). Older snapshots hold `{ d, ts? }`
 * records, one document each; the restorer still reads them.
 */
import type { EngineContext } from '../engine-context';
import { cosmosStampOf } from '../ttl/cosmos';
import { bsonClassOf, type Document } from '../values/types';
import { CollectionCapture } from './collection-capture';
import { FlatBatchWriter } from './flat-batch';
import { storableDocument } from './values';

interface CapturedCollection {
  header: Document;
  capture: CollectionCapture;
}

export interface CapturedState {
  head: Document;
  collections: CapturedCollection[];
  documentCount: number;
  /** Stop watching the collections; the state cannot be read after this. */
  release(): void;
}

/** Documents per batch record: about 25 KB for small documents (one CRC, one decode call), short enough to encode between two turns of the event loop. */
const BATCH = 256;

export function captureSnapshot(engine: EngineContext): CapturedState {
  const params: Document = {};
  for (const name of engine.parameters.names()) params[name] = engine.parameters.get(name);
  const head = storableDocument({
    engine: { flavor: engine.flavor, serverVersion: engine.serverVersion },
    t: new Date(engine.clock.now()),
    m: { ...engine.ttlMetrics },
    params,
  });
  const collections: CapturedCollection[] = [];
  let documentCount = 0;
  for (const db of engine.databases.values()) {
    for (const coll of db.collections.values()) {
      documentCount += coll.records.size;
      const stampOf = engine.flavor === 'cosmos' ? (rid: number) => cosmosStampOf(coll, rid) : undefined;
      collections.push({
        // Specs are edited in place by collMod: copied now, with the documents' moment.
        // `n` lets the restorer size its tables once (older snapshots lack it).
        header: storableDocument({
          coll: coll.ns,
          o: { ...coll.options },
          ix: [...coll.indexes.values()].map((i) => i.spec),
          n: coll.records.size,
        }),
        capture: new CollectionCapture(coll, stampOf),
      });
    }
  }
  return {
    head,
    collections,
    documentCount,
    release: () => {
      for (const c of collections) c.capture.release();
    },
  };
}

/** True when `value` decodes back as itself from bson's promoted values (see the module comment). */
function plainValue(value: unknown): boolean {
  if (typeof value === 'number') return !Object.is(value, -0);
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!plainValue(value[i])) return false;
    return true;
  }
  if (value instanceof Date || value instanceof RegExp) return true;
  switch (bsonClassOf(value)) {
    case undefined:
      return plainDocument(value as Document);
    // Promoted to numbers or strings; Binary is copied by the typed path rather than left as a
    // view into the whole snapshot file's buffer.
    case 'Int32':
    case 'Long':
    case 'Double':
    case 'BSONSymbol':
    case 'Symbol':
    case 'Binary':
      return false;
    default:
      return true;
  }
}

function plainDocument(doc: Document): boolean {
  for (const key in doc) if (Object.prototype.hasOwnProperty.call(doc, key) && !plainValue(doc[key])) return false;
  return true;
}

function batchRecord(
  kind: 'plain' | 'typed',
  docs: Document[],
  stamps: Array<number | undefined>,
  withStamps: boolean,
): Document {
  return withStamps ? { [kind]: docs, ts: stamps } : { [kind]: docs };
}

/** The captured state as records, read and encoded batch by batch as the consumer asks. */
export function* snapshotRecords(state: CapturedState): Generator<Document> {
  yield state.head;
  const withStamps = (state.head.engine as Document).flavor === 'cosmos';
  for (const c of state.collections) {
    yield c.header;
    let kind: 'flat' | 'plain' | 'typed' = 'flat';
    const flat = new FlatBatchWriter();
    let docs: Document[] = [];
    let stamps: Array<number | undefined> = [];
    let size = 0;
    const flush = () => {
      const record =
        kind === 'flat'
          ? flat.take(withStamps ? { ts: stamps } : undefined)
          : batchRecord(kind, docs, stamps, withStamps);
      docs = [];
      stamps = [];
      size = 0;
      return record;
    };
    for (const captured of c.capture.documentBatches(BATCH)) {
      for (let i = 0; i < captured.docs.length; i++) {
        const doc = captured.docs[i];
        const fields = flat.fieldsOf(doc);
        const k = fields ? 'flat' : plainDocument(doc) ? 'plain' : 'typed';
        if ((k !== kind || size >= BATCH) && size > 0) yield flush();
        kind = k;
        if (fields) flat.add(doc, fields);
        else docs.push(k === 'plain' ? doc : storableDocument(doc));
        if (withStamps) stamps.push(captured.stamps?.[i]);
        size++;
      }
    }
    if (size > 0) yield flush();
  }
}
