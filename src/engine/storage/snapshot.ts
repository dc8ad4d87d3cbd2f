/**
 * The engine's state as snapshot records, for compaction:
 *   { engine: {flavor, serverVersion}, t, m, params }           first
 *   { coll: ns, o: options, ix: [specs] }                        each collection, then its documents:
 *   { d: document, ts? }                                         in natural order
 *
 * `captureSnapshot` takes a consistent picture synchronously and cheaply: stored documents are
 * never changed in place (updates are copy-on-write and replace `record.doc`), so holding the
 * document references of this moment is enough; encoding them happens later, lazily, while the
 * engine goes on (its new commits go to the next journal).
 */
import type { Engine } from '../engine';
import { cosmosStampOf } from '../ttl/cosmos';
import type { Document } from '../values/types';
import { storableDocument } from './values';

interface CapturedCollection {
  header: Document;
  docs: Document[];
  stamps?: Array<number | undefined>;
}

export interface CapturedState {
  head: Document;
  collections: CapturedCollection[];
  documentCount: number;
}

export function captureSnapshot(engine: Engine): CapturedState {
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
      const records = [...coll.records.values()];
      documentCount += records.length;
      collections.push({
        // Specs are edited in place by collMod: copied now, with the documents' moment.
        header: storableDocument({ coll: coll.ns, o: { ...coll.options }, ix: [...coll.indexes.values()].map((i) => i.spec) }),
        docs: records.map((r) => r.doc),
        ...(engine.flavor === 'cosmos' ? { stamps: records.map((r) => cosmosStampOf(coll, r.rid)) } : {}),
      });
    }
  }
  return { head, collections, documentCount };
}

/** The captured state as records, encoded one at a time as the consumer asks. */
export function* snapshotRecords(state: CapturedState): Generator<Document> {
  yield state.head;
  for (const c of state.collections) {
    yield c.header;
    for (let i = 0; i < c.docs.length; i++) {
      const ts = c.stamps?.[i];
      yield ts === undefined ? { d: storableDocument(c.docs[i]) } : { d: storableDocument(c.docs[i]), ts };
    }
  }
}
