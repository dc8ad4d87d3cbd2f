/**
 * The replica-set mode's oplog: every committed change of the engine, in order, each with its
 * cluster time (a Timestamp that only grows). Change streams read it; a transaction rebuilds the
 * snapshot it started from out of the before-images kept here. It is memory only and bounded: the
 * oldest entries go once more than `capacity` are kept, except those an open transaction's
 * snapshot still needs. Stored documents are copy-on-write, so an entry holds references, never
 * copies.
 */
import { Timestamp, type UUID } from 'bson';
import type { Collection, RecordObserver } from '../catalog/collection';
import type { Document } from '../values/types';

export type OplogOp = 'insert' | 'update' | 'replace' | 'delete' | 'drop' | 'rename' | 'dropDatabase';

export interface OplogEntry {
  /** Position in the log: strictly increasing, never reused. */
  readonly seq: number;
  readonly ts: Timestamp;
  /** Index of the entry among those sharing `ts` (a transaction's operations share its commit time). */
  readonly opIndex: number;
  readonly op: OplogOp;
  readonly db: string;
  /** Absent for dropDatabase. */
  readonly coll?: string;
  readonly uuid?: UUID;
  readonly id?: unknown;
  readonly before?: Document;
  readonly after?: Document;
  /** rename: where the collection went. */
  readonly to?: { db: string; coll: string };
  /** Operations of a committed transaction carry its session and number. */
  readonly lsid?: Document;
  readonly txnNumber?: unknown;
  readonly wallTime: Date;
}

/** How the current write names its document changes (an update command with replacement documents is "replace"). */
export type UpdateKind = 'update' | 'replace';

export class Oplog {
  private readonly entries: OplogEntry[] = [];
  /** seq of entries[0]. */
  private firstSeq = 1;
  private lastTs = new Timestamp({ t: 0, i: 0 });
  /** While set, every entry gets this one timestamp (a transaction's commit). */
  private shared: { ts: Timestamp; next: number; lsid: Document; txnNumber: unknown } | undefined;
  private readonly observed = new WeakSet<Collection>();
  private readonly pins = new Map<number, number>();
  private readonly listeners = new Set<() => void>();
  /** Restores apply what is already stored: nothing of it is new. */
  paused = false;
  /** Set by the command being run: what an update of a document is called in its entry. */
  updateKind: UpdateKind = 'update';

  /** The time the log starts from: nothing before it can be read back. */
  private startTs: Timestamp;

  constructor(
    private readonly now: () => number,
    readonly capacity = 100_000,
  ) {
    this.startTs = new Timestamp({ t: Math.floor(now() / 1000), i: 0 });
  }

  /** The oldest time a stream can resume from: the log's start, or its oldest entry once trimmed. */
  get historyStart(): Timestamp {
    return this.startTs;
  }

  /** The newest cluster time: what operationTime and $clusterTime report. */
  get clusterTime(): Timestamp {
    return this.lastTs;
  }

  /** seq the next entry gets. */
  get nextSeq(): number {
    return this.firstSeq + this.entries.length;
  }

  /** seq of the oldest entry still kept. */
  get oldestSeq(): number {
    return this.firstSeq;
  }

  /** Advance the cluster time by one tick (a write with no document change, such as a no-op commit). */
  tick(): Timestamp {
    const seconds = Math.floor(this.now() / 1000);
    const last = this.lastTs;
    const t = last.high;
    this.lastTs = seconds > t ? new Timestamp({ t: seconds, i: 1 }) : new Timestamp({ t, i: (last.low >>> 0) + 1 });
    return this.lastTs;
  }

  observe(collection: Collection): void {
    if (this.observed.has(collection)) return;
    this.observed.add(collection);
    const observer: RecordObserver = {
      inserted: (record) => this.append('insert', collection, record.doc._id, undefined, record.doc),
      replaced: (record, before) => this.append(this.updateKind, collection, record.doc._id, before, record.doc),
      removed: (record) => this.append('delete', collection, record.doc._id, record.doc, undefined),
    };
    collection.observers.push(observer);
  }

  /** A catalog change: a collection dropped or renamed, a database dropped. */
  catalog(op: 'drop' | 'rename' | 'dropDatabase', db: string, coll?: string, uuid?: UUID, to?: OplogEntry['to']): void {
    if (this.paused) return;
    this.push(op, db, coll, uuid, undefined, undefined, undefined, to);
  }

  /** Run `apply` with every entry it writes at one cluster time, marked with the transaction (its commit). */
  asTransaction(lsid: Document, txnNumber: unknown, apply: () => void): void {
    this.shared = { ts: this.tick(), next: 0, lsid, txnNumber };
    try {
      apply();
    } finally {
      this.shared = undefined;
    }
  }

  private append(op: OplogOp, coll: Collection, id: unknown, before?: Document, after?: Document): void {
    if (this.paused) return;
    this.push(op, coll.dbName, coll.name, coll.uuid, id, before, after, undefined);
  }

  // One object literal per entry, every field present: spreads made several objects per write.
  private push(
    op: OplogOp,
    db: string,
    coll: string | undefined,
    uuid: UUID | undefined,
    id: unknown,
    before: Document | undefined,
    after: Document | undefined,
    to: OplogEntry['to'],
  ): void {
    const shared = this.shared;
    const entry: OplogEntry = {
      seq: this.nextSeq,
      ts: shared ? shared.ts : this.tick(),
      opIndex: shared ? shared.next++ : 0,
      op,
      db,
      coll,
      uuid,
      id,
      before,
      after,
      to,
      lsid: shared?.lsid,
      txnNumber: shared?.txnNumber,
      wallTime: new Date(this.now()),
    };
    this.entries.push(entry);
    this.trim();
    if (this.listeners.size > 0) for (const listener of this.listeners) listener();
  }

  private trim(): void {
    if (this.entries.length < this.capacity + Math.max(1024, this.capacity / 8)) return;
    let keepFrom = this.nextSeq - this.capacity;
    for (const seq of this.pins.keys()) keepFrom = Math.min(keepFrom, seq);
    const drop = keepFrom - this.firstSeq;
    // Trimmed in slices, not per entry: shifting one entry off a large array copies it each time.
    if (drop >= Math.max(1024, this.capacity / 8)) {
      this.entries.splice(0, drop);
      this.firstSeq += drop;
      if (this.entries.length) this.startTs = this.entries[0].ts;
    }
  }

  /** Forget the entries from `seq` on (a commit that failed half-way and was undone). */
  rollbackTo(seq: number): void {
    if (seq >= this.firstSeq && seq < this.nextSeq) this.entries.length = seq - this.firstSeq;
  }

  /** Keep every entry from `seq` on until the returned function is called (a transaction's snapshot). */
  pin(seq: number): () => void {
    this.pins.set(seq, (this.pins.get(seq) ?? 0) + 1);
    return () => {
      const n = (this.pins.get(seq) ?? 1) - 1;
      if (n <= 0) this.pins.delete(seq);
      else this.pins.set(seq, n);
    };
  }

  /** Entries with seq >= `from`, oldest first; undefined when some of them are no longer kept. */
  since(from: number): readonly OplogEntry[] | undefined {
    if (from < this.firstSeq) return undefined;
    return this.entries.slice(from - this.firstSeq);
  }

  /** The entry at `seq`, if kept. */
  at(seq: number): OplogEntry | undefined {
    return this.entries[seq - this.firstSeq];
  }

  /** seq of the first entry whose time is at or after `ts` (nextSeq when none is). */
  seqAtOrAfter(ts: Timestamp): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.entries[mid].ts.compare(ts) < 0) lo = mid + 1;
      else hi = mid;
    }
    return this.firstSeq + lo;
  }

  /** Called after each new entry (change streams awaiting data); returns the unsubscribe function. */
  onAppend(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
