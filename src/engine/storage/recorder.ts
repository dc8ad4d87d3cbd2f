/**
 * Turns what happens in the engine into journal ops, in order, and hands one frame per commit to
 * the StorageSink. Documents come from a RecordObserver on every collection; catalog changes from
 * the engine's change events (the ops carry the collection's whole catalog entry, read at commit
 * time, so a create followed by index builds in one command is one op); parameters from the
 * parameter store.
 */
import type { Collection, RecordObserver } from '../catalog/collection';
import type { EngineEvent } from '../catalog/events';
import type { StoredRecord } from '../catalog/record';
import type { EngineContext } from '../engine-context';
import { cosmosStampOf } from '../ttl/cosmos';
import type { Document } from '../values/types';
import type { JournalOp, StorageSink } from './journal-records';
import { storableDocument } from './values';

/** A catalog op whose options and specs are filled in at commit time. */
type PendingOp = JournalOp | { catOf: Collection; ns: string };

export class JournalRecorder {
  private ops: PendingOp[] = [];
  private readonly catalogInFrame = new Set<Collection>();
  private readonly observed = new WeakSet<Collection>();
  /** Replay and snapshot loading apply what is already stored: nothing to record. */
  paused = false;

  constructor(
    private readonly engine: EngineContext,
    private readonly sink: StorageSink,
  ) {
    engine.parameters.onDidChange((name) => {
      if (!this.paused) this.ops.push({ param: name, v: engine.parameters.get(name) });
    });
  }

  /** Start observing a collection's documents (from its creation on). */
  observe(collection: Collection): void {
    if (this.observed.has(collection)) return;
    this.observed.add(collection);
    const observer: RecordObserver = {
      inserted: (record) => this.put(collection, record),
      replaced: (record) => this.put(collection, record),
      removed: (record) => {
        if (!this.paused) this.ops.push({ del: collection.ns, id: storableId(record.doc._id) });
      },
    };
    collection.observers.push(observer);
  }

  private put(collection: Collection, record: StoredRecord): void {
    if (this.paused) return;
    const ts = this.engine.flavor === 'cosmos' ? cosmosStampOf(collection, record.rid) : undefined;
    this.ops.push({ put: collection.ns, d: storableDocument(record.doc), ...(ts !== undefined ? { ts } : {}) });
  }

  /** The engine reports each change event here (whether or not anyone listens to events). */
  noteEvent(event: EngineEvent): void {
    if (this.paused) return;
    switch (event.kind) {
      case 'collectionCreated':
      case 'collectionChanged':
      case 'indexesCreated':
      case 'indexesDropped':
      case 'indexChanged': {
        const coll = this.engine.getCollection(event.db, event.collection);
        if (!coll || this.catalogInFrame.has(coll)) return;
        this.catalogInFrame.add(coll);
        this.ops.push({ catOf: coll, ns: coll.ns });
        return;
      }
      case 'collectionDropped':
        this.ops.push({ drop: `${event.db}.${event.collection}` });
        return;
      case 'collectionRenamed':
        this.ops.push({ ren: `${event.db}.${event.collection}`, to: `${event.toDb}.${event.toCollection}` });
        return;
      default:
        return;
    }
  }

  get hasPending(): boolean {
    return this.ops.length > 0;
  }

  /** Write the pending ops as one frame (also with none when `clockOnly`: a clock move). */
  commit(clockOnly = false): void {
    if (this.ops.length === 0 && !clockOnly) return;
    const ops = this.ops.map((op): JournalOp => ('catOf' in op ? catalogEntry(op.ns, op.catOf) : op));
    this.ops = [];
    this.catalogInFrame.clear();
    const frame: Document = { t: new Date(this.engine.clock.now()), m: { ...this.engine.ttlMetrics }, ops };
    if (ops.length === 0) frame.clock = true;
    this.sink.commit(storableDocument(frame));
  }

  /** Forget what a failed commit left (the engine reports the failure). */
  discard(): void {
    this.ops = [];
    this.catalogInFrame.clear();
  }
}

function storableId(id: unknown): unknown {
  return storableDocument({ id }).id;
}

/** A collection's whole catalog entry: its options and its index specs as stored. */
export function catalogEntry(ns: string, coll: Collection): JournalOp {
  return { cat: ns, o: { ...coll.options }, ix: [...coll.indexes.values()].map((i) => i.spec) };
}
