/**
 * `db.getMongo().startSession(options)`: mongosh's explicit session over the engine. Commands sent
 * through `session.getDatabase(name)` carry the session's lsid and, inside a transaction, its
 * txnNumber with `autocommit: false` (and `startTransaction: true` plus the read concern on the
 * first statement), as the Node driver sends them. The transaction's client-side states and their
 * errors are the driver's (MongoTransactionError "Transaction already in progress", …);
 * `withTransaction` retries on TransientTransactionError and UnknownTransactionCommitResult within
 * the driver's 120 s. The server side (snapshots, conflicts, NoSuchTransaction) is the engine's.
 */
import { Long, UUID, type Timestamp } from 'bson';
import type { Document } from '../engine';
import type { SessionFields } from '../engine/replication/sessions';
import { shellPrintable } from './render';
import { sessionFieldsOf, withoutLsid, type CommandSession, type DatabaseLike, type ShellRuntime } from './runtime';

/** Internal state under a symbol: scripts see the methods only. */
const STATE = Symbol('clientSessionState');

/** The driver's transaction states (transactions spec). */
type TxnState = 'none' | 'starting' | 'inProgress' | 'committedEmpty' | 'committed' | 'aborted';

/** How long withTransaction keeps retrying, as the driver: real time, whatever the engine's clock. */
const WITH_TRANSACTION_LIMIT_MS = 120_000;

/** Commands that read: under causal consistency they wait for the session's operation time. */
const READS = new Set(['find', 'aggregate', 'count', 'distinct']);

const IN_TRANSACTION_HINT =
  'Transactions need a replica-set engine: in a notebook set its engine metadata to {"replSet": "rs0"}; from the command line use `ttl-workbench run --replSet rs0 FILE`; `ttl-workbench serve --replSet rs0` for drivers and mongosh.';

interface TransactionOptions {
  readConcern?: Document;
  writeConcern?: Document;
  maxCommitTimeMS?: number;
}

interface SessionState {
  rt: ShellRuntime;
  /** The runtime whose commands carry this session's fields. */
  view: ShellRuntime;
  lsid: Document;
  options: Document;
  ended: boolean;
  txnNumber: number;
  txn: TxnState;
  txnOptions: TransactionOptions;
  operationTime: Timestamp | undefined;
  clusterTime: Document | undefined;
  databases: Map<string, DatabaseLike>;
}

export class ShellClientSession implements CommandSession {
  declare private readonly [STATE]: SessionState;

  constructor(rt: ShellRuntime, options: Document) {
    const state: SessionState = {
      rt,
      view: rt,
      lsid: { id: new UUID() },
      options,
      ended: false,
      txnNumber: 0,
      txn: 'none',
      txnOptions: {},
      operationTime: undefined,
      clusterTime: undefined,
      databases: new Map(),
    };
    Object.defineProperty(this, STATE, { value: state });
    state.view = rt.inSession(this);
  }

  /** The session prints as its id document, `{ id: UUID('…') }`, as in mongosh. */
  [shellPrintable](): Document {
    return this[STATE].rt.out(this[STATE].lsid);
  }

  /** The lsid, `{ id: UUID }` (the legacy shell's name; mongosh keeps it in `session.id`). */
  getSessionId(): Document {
    return this[STATE].rt.out(this[STATE].lsid);
  }

  get id(): Document {
    return this.getSessionId();
  }

  getDatabase(name: unknown): DatabaseLike {
    const s = this[STATE];
    if (typeof name !== 'string') throw s.rt.errors.typeError('Session.getDatabase() needs a database name.');
    return s.view.database(name);
  }

  getOptions(): Document {
    return this[STATE].options;
  }

  /**
   * The driver's transaction state ('none', 'starting', 'inProgress', 'committed', …), as mongosh
   * scripts read it from `session._session.transaction.state`; test harnesses read it here.
   */
  get _transactionState(): string {
    return this[STATE].txn;
  }

  hasEnded(): boolean {
    return this[STATE].ended;
  }

  getOperationTime(): Timestamp | undefined {
    return this[STATE].operationTime;
  }

  /** `{clusterTime, signature: {hash, keyId}}`, keyId a number as the driver reads it. */
  getClusterTime(): Document | undefined {
    const ct = this[STATE].clusterTime;
    if (ct === undefined) return undefined;
    const signature = ct.signature as Document | undefined;
    const keyId = signature?.keyId;
    const read = signature && isLong(keyId) ? { ...ct, signature: { ...signature, keyId: keyId.toNumber() } } : ct;
    return this[STATE].rt.out(read);
  }

  advanceOperationTime(ts: unknown): void {
    const s = this[STATE];
    if (!isTimestamp(ts))
      throw invalidArgument(s, 'advanceOperationTime() needs a Timestamp, e.g. Timestamp({t: 1, i: 1}).');
    if (s.operationTime === undefined || ts.greaterThan(s.operationTime)) s.operationTime = ts;
  }

  advanceClusterTime(clusterTime: unknown): void {
    const s = this[STATE];
    const ct = clusterTime as Document | null;
    if (ct === null || typeof ct !== 'object' || !isTimestamp(ct.clusterTime))
      throw invalidArgument(s, 'input cluster time "clusterTime" property must be a valid BSON Timestamp');
    if (ct.signature === null || typeof ct.signature !== 'object')
      throw invalidArgument(s, 'input cluster time must have a valid "signature" property');
    const known = s.clusterTime?.clusterTime as Timestamp | undefined;
    if (known === undefined || ct.clusterTime.greaterThan(known)) s.clusterTime = s.rt.in(ct);
  }

  startTransaction(options?: unknown): void {
    const s = this[STATE];
    checkNotEnded(s);
    if (s.txn === 'starting' || s.txn === 'inProgress') throw transactionError(s, 'Transaction already in progress');
    const opts = options === undefined || options === null ? {} : (s.rt.in(options) as Document);
    if (typeof opts !== 'object' || Array.isArray(opts))
      throw s.rt.errors.typeError(
        'startTransaction() takes an options object such as {readConcern: {level: "snapshot"}}.',
      );
    const defaults = (s.options.defaultTransactionOptions ?? {}) as TransactionOptions;
    s.txnOptions = { ...defaults, ...(opts as TransactionOptions) };
    s.txnNumber++;
    s.txn = 'starting';
  }

  commitTransaction(): void {
    const s = this[STATE];
    checkNotEnded(s);
    if (s.txn === 'none') throw transactionError(s, 'No transaction started');
    if (s.txn === 'aborted') throw transactionError(s, 'Cannot call commitTransaction after calling abortTransaction');
    // A transaction that ran no statement never reached the server: there is nothing to commit.
    if (s.txn === 'starting' || s.txn === 'committedEmpty') {
      s.txn = 'committedEmpty';
      return;
    }
    const command: Document = { commitTransaction: 1 };
    if (s.txnOptions.writeConcern) command.writeConcern = s.txnOptions.writeConcern;
    if (s.txnOptions.maxCommitTimeMS !== undefined) command.maxTimeMS = s.txnOptions.maxCommitTimeMS;
    s.txn = 'committed';
    s.view.run('admin', command);
  }

  abortTransaction(): void {
    const s = this[STATE];
    checkNotEnded(s);
    if (s.txn === 'none') throw transactionError(s, 'No transaction started');
    if (s.txn === 'committed' || s.txn === 'committedEmpty')
      throw transactionError(s, 'Cannot call abortTransaction after calling commitTransaction');
    if (s.txn === 'aborted') throw transactionError(s, 'Cannot call abortTransaction twice');
    const reached = s.txn === 'inProgress';
    s.txn = 'aborted';
    if (!reached) return;
    try {
      s.view.run('admin', { abortTransaction: 1 });
    } catch {
      // The driver ignores a failed abort: the server aborts the transaction on its own
      // (NoSuchTransaction means it already has).
    }
  }

  /**
   * Runs `fn` in a transaction and commits it, starting over on TransientTransactionError and
   * retrying the commit on UnknownTransactionCommitResult, until 120 s of real time have passed
   * (the driver's rule). Returns what `fn` returned.
   */
  withTransaction(fn: unknown, options?: unknown): unknown {
    const s = this[STATE];
    if (typeof fn !== 'function')
      throw s.rt.errors.typeError('withTransaction() needs a function to run in the transaction.');
    const elapsed = s.rt.engine.elapsedTime;
    const started = elapsed();
    const inTime = () => elapsed() - started < WITH_TRANSACTION_LIMIT_MS;
    for (;;) {
      this.startTransaction(options);
      let result: unknown;
      try {
        result = (fn as () => unknown)();
      } catch (err) {
        if (s.txn === 'starting' || s.txn === 'inProgress') this.abortTransaction();
        if (hasLabel(err, 'TransientTransactionError') && inTime()) continue;
        throw err;
      }
      // The function ended the transaction itself: nothing left to commit.
      if (s.txn === 'none' || s.txn === 'aborted' || s.txn === 'committed' || s.txn === 'committedEmpty') return result;
      for (;;) {
        try {
          this.commitTransaction();
          return result;
        } catch (err) {
          if (hasLabel(err, 'UnknownTransactionCommitResult') && codeOf(err) !== 50 && inTime()) {
            s.txn = 'inProgress';
            continue;
          }
          if (hasLabel(err, 'TransientTransactionError') && inTime()) break;
          throw err;
        }
      }
    }
  }

  /** Ends the session: an open transaction is aborted, and the server forgets the session. */
  endSession(): void {
    const s = this[STATE];
    if (s.ended) return;
    if (s.txn === 'inProgress') this.abortTransaction();
    s.ended = true;
    s.rt.run('admin', { endSessions: [s.lsid] });
  }

  // ---- CommandSession: what the session's commands carry --------------------------------------

  /** @internal */
  prepare(dbName: string, command: Document): { command: Document; fields: SessionFields } {
    const s = this[STATE];
    checkNotEnded(s);
    const own = sessionFieldsOf(command);
    // A command that spells its own transaction fields (a raw `runCommand`) is sent as written.
    if (own && (own.txnNumber !== undefined || own.autocommit !== undefined))
      return { command: withoutLsid(command), fields: { lsid: s.lsid, ...own } };
    const plain = withoutLsid(command);
    const name = Object.keys(plain)[0];
    const fields: SessionFields = { lsid: own?.lsid ?? s.lsid };
    if (s.txn === 'committed' || s.txn === 'committedEmpty' || s.txn === 'aborted') {
      // After a transaction ended, commands run outside any (a commit may be sent again).
      if (name !== 'commitTransaction' && name !== 'abortTransaction') s.txn = 'none';
    }
    if (s.txn === 'starting' || s.txn === 'inProgress' || name === 'commitTransaction' || name === 'abortTransaction') {
      fields.txnNumber = Long.fromNumber(s.txnNumber);
      fields.autocommit = false;
      if (s.txn === 'starting') {
        fields.startTransaction = true;
        s.txn = 'inProgress';
        if (s.txnOptions.readConcern) return { command: { ...plain, readConcern: s.txnOptions.readConcern }, fields };
      }
      return { command: plain, fields };
    }
    if (READS.has(name) && s.options.causalConsistency !== false && s.operationTime && plain.readConcern === undefined)
      return { command: { ...plain, readConcern: { afterClusterTime: s.operationTime } }, fields };
    return { command: plain, fields };
  }

  /** @internal */
  observe(): void {
    const s = this[STATE];
    const times = s.rt.engine.replication?.clusterTimeFields();
    if (!times) return;
    this.advanceOperationTime(times.operationTime);
    const ct = times.$clusterTime as Document;
    const known = s.clusterTime?.clusterTime as Timestamp | undefined;
    if (known === undefined || (ct.clusterTime as Timestamp).greaterThan(known)) s.clusterTime = ct;
  }

  /** @internal */
  explain(err: unknown, fields: SessionFields): unknown {
    const e = err as { code?: unknown; message?: unknown } | null;
    // On a standalone engine the transaction fails as on a standalone mongod (20); say what to do.
    if (
      fields.txnNumber !== undefined &&
      e?.code === 20 &&
      typeof e.message === 'string' &&
      /replica set/.test(e.message)
    )
      e.message = `${e.message.replace(/: this engine is a standalone.*$/, '')}. ${IN_TRANSACTION_HINT}`;
    return err;
  }
}

function isTimestamp(v: unknown): v is Timestamp {
  return (v as { _bsontype?: unknown } | null)?._bsontype === 'Timestamp';
}

function isLong(v: unknown): v is Long {
  return (v as { _bsontype?: unknown } | null)?._bsontype === 'Long';
}

function hasLabel(err: unknown, label: string): boolean {
  const labels = (err as { errorLabels?: unknown } | null)?.errorLabels;
  return Array.isArray(labels) && labels.includes(label);
}

function codeOf(err: unknown): unknown {
  return (err as { code?: unknown } | null)?.code;
}

function checkNotEnded(s: SessionState): void {
  if (s.ended) throw s.rt.errors.error('Use of expired sessions is not permitted', 'MongoExpiredSessionError');
}

function transactionError(s: SessionState, message: string): Error {
  return s.rt.errors.error(message, 'MongoTransactionError');
}

function invalidArgument(s: SessionState, message: string): Error {
  return s.rt.errors.error(message, 'MongoInvalidArgumentError');
}
