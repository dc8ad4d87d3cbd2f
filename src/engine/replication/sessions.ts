/**
 * Logical sessions of the replica-set mode: per session (lsid) its highest transaction number,
 * its transaction, and the reply of its last retryable write (a retry with the same number gets
 * that reply again instead of writing twice). The checks and codes are mongod's, in the order it
 * makes them: lsid → txnNumber → autocommit → startTransaction.
 *
 * The TTL monitor and transactions: on mongod a TTL delete of a document an open transaction has
 * written meets a write conflict and is retried until the transaction ends, so such a document
 * is never deleted before the commit, and the deletion then judges the committed value. This
 * engine cannot wait inside a visit, so a TTL visit of a collection an open transaction has
 * written is put off to the first pass after the transaction ends (`holdsWrites`).
 */
import { Long } from 'bson';
import type { EngineContext } from '../engine-context';
import { fail } from '../errors';
import type { Document } from '../values/types';
import { documentKey, namespacedKey } from './document-key';
import type { Oplog } from './oplog';
import { TRANSIENT, Transaction, type ScratchEngine, type TransactionHost } from './transaction';

/** The transaction fields of a command, as the client sent them. */
export interface SessionFields {
  lsid?: unknown;
  txnNumber?: unknown;
  autocommit?: unknown;
  startTransaction?: unknown;
}

interface SessionState {
  readonly lsid: Document;
  txnNumber: number;
  txn: Transaction | undefined;
  retry: { txnNumber: number; reply: Document } | undefined;
}

/** Commands a retryable write may be (others with a txnNumber and no autocommit are refused). */
const RETRYABLE = new Set(['insert', 'update', 'delete', 'findAndModify', 'bulkWrite']);

export class SessionCatalog implements TransactionHost {
  private readonly sessions = new Map<string, SessionState>();

  constructor(
    readonly main: EngineContext,
    readonly oplog: Oplog,
    private readonly scratch: () => ScratchEngine,
  ) {}

  newScratch(): ScratchEngine {
    return this.scratch();
  }

  writtenByOther(tx: Transaction, key: string): boolean {
    for (const s of this.sessions.values())
      if (s.txn && s.txn !== tx && s.txn.state === 'inProgress' && s.txn.writeSet.has(key)) return true;
    return false;
  }

  uniqueKeyWrittenByOther(tx: Transaction, key: string): boolean {
    for (const s of this.sessions.values())
      if (s.txn && s.txn !== tx && s.txn.state === 'inProgress' && s.txn.uniqueKeys.has(key)) return true;
    return false;
  }

  /** Whether an open transaction has written this document and holds it until it ends. */
  holdsDocument(ns: string, id: unknown): boolean {
    const key = namespacedKey(ns, id);
    for (const s of this.sessions.values()) if (s.txn?.state === 'inProgress' && s.txn.writeSet.has(key)) return true;
    return false;
  }

  /**
   * A drop or an index build of `ns` needs its exclusive lock, which waits behind the intent locks of
   * every open transaction that used `ns`. Nothing else runs while this engine waits, so those
   * transactions can only end by expiring: with a time limit shorter than the last one's remaining
   * lifetime the command fails with MaxTimeMSExpired, else they are aborted as mongod's reaper
   * aborts them (transactionLifetimeLimitSeconds) and the command goes on.
   */
  waitForLocks(ns: string, maxTimeMS: number | undefined): void {
    const blockers = [...this.sessions.values()]
      .map((s) => s.txn)
      .filter((t): t is Transaction => t !== undefined && t.state === 'inProgress' && t.locked.has(ns));
    if (blockers.length === 0) return;
    const freeAt = Math.max(...blockers.map((t) => t.expiresAt));
    if (maxTimeMS !== undefined && maxTimeMS > 0 && this.main.clock.now() + maxTimeMS < freeAt)
      fail(
        'MaxTimeMSExpired',
        `operation exceeded time limit: ${ns} is locked by an open transaction (it ends when committed, aborted or after transactionLifetimeLimitSeconds); end the transaction first or raise maxTimeMS.`,
      );
    for (const t of blockers) t.expire();
  }

  /** Whether an open transaction has written documents of `ns` (the TTL monitor waits for it). */
  holdsWrites(ns: string): boolean {
    for (const s of this.sessions.values()) if (s.txn?.state === 'inProgress' && s.txn.namespaces.has(ns)) return true;
    return false;
  }

  /**
   * The open transactions, each as $currentOp shows an idle session holding one: inactive, with
   * no opid, its lsid and transaction parameters, and when it expires.
   */
  idleTransactions(): Document[] {
    const out: Document[] = [];
    for (const s of this.sessions.values()) {
      const txn = s.txn;
      if (txn?.state !== 'inProgress') continue;
      out.push({
        desc: 'inactive transaction',
        active: false,
        lsid: s.lsid,
        transaction: {
          parameters: { txnNumber: Long.fromNumber(txn.txnNumber), autocommit: false },
          expiryTime: new Date(txn.expiresAt),
        },
      });
    }
    return out;
  }

  /** How many transactions are open (serverStatus, tests). */
  get openTransactions(): number {
    let n = 0;
    for (const s of this.sessions.values()) if (s.txn?.state === 'inProgress') n++;
    return n;
  }

  /**
   * Run a command that carries session fields. `run` runs a command outside any transaction (the
   * engine's own path); the caller commits the writes as one frame afterwards.
   */
  run(dbName: string, command: Document, fields: SessionFields, run: (cmd: Document) => Document): Document {
    const name = Object.keys(command)[0];
    const txnNumber = fields.txnNumber === undefined ? undefined : wholeNumber(fields.txnNumber, 'txnNumber');
    if (txnNumber !== undefined && fields.lsid === undefined)
      fail('InvalidOptions', 'Transaction number requires a session ID to also be specified. Start a session first.');
    if (fields.autocommit !== undefined && txnNumber === undefined)
      fail('InvalidOptions', "'autocommit' field requires a transaction number to also be specified.");
    if (fields.startTransaction !== undefined && fields.autocommit === undefined)
      fail('InvalidOptions', "'startTransaction' field requires 'autocommit' field to also be specified.");
    if (fields.autocommit !== undefined && fields.autocommit !== false)
      fail(
        'InvalidOptions',
        'Specifying autocommit=true is not allowed: send autocommit: false in a transaction, or leave it out.',
      );
    if (fields.startTransaction !== undefined && fields.startTransaction !== true)
      fail('InvalidOptions', "'startTransaction' field can only be set to true.");
    if (name === 'commitTransaction' || name === 'abortTransaction') {
      if (dbName !== 'admin') fail('Unauthorized', `${name} may only be run against the admin database.`);
      if (txnNumber === undefined)
        fail('InvalidOptions', `${name} needs the transaction's lsid, txnNumber and autocommit: false.`);
      // Without autocommit the txnNumber reads as a retryable write's, which this command is not.
      if (fields.autocommit === undefined) notRetryable(name);
      if (fields.startTransaction === true)
        fail(
          'OperationNotSupportedInTransaction',
          `Cannot start a transaction with a ${name}: run the transaction's first statement with startTransaction: true.`,
        );
    }
    if (txnNumber === undefined) return run(command);
    const session = this.sessionOf(fields.lsid);
    if (txnNumber < session.txnNumber)
      fail(
        'TransactionTooOld',
        `Cannot start transaction ${txnNumber} on session ${sessionName(session.lsid)} because a newer transaction ${session.txnNumber} has already started.`,
      );
    if (fields.autocommit === undefined) return this.retryableWrite(session, name, txnNumber, command, run);
    return this.inTransaction(session, dbName, name, txnNumber, fields.startTransaction === true, command);
  }

  private retryableWrite(
    session: SessionState,
    name: string,
    txnNumber: number,
    command: Document,
    run: (cmd: Document) => Document,
  ): Document {
    if (!RETRYABLE.has(name)) notRetryable(name);
    if (txnNumber === session.txnNumber && session.txn)
      fail(
        'IncompleteTransactionHistory',
        `Cannot retry a retryable write that has been converted into a transaction: txnNumber ${txnNumber} belongs to a transaction on this session. Send its statements with autocommit: false, or use a new txnNumber.`,
      );
    if (session.retry?.txnNumber === txnNumber) return session.retry.reply;
    this.advance(session, txnNumber);
    const reply = run(withoutRetryFields(command));
    session.retry = { txnNumber, reply };
    return reply;
  }

  private inTransaction(
    session: SessionState,
    dbName: string,
    name: string,
    txnNumber: number,
    start: boolean,
    command: Document,
  ): Document {
    checkConcerns(name, start, command);
    if (start) {
      if (txnNumber === session.txnNumber && session.txn)
        fail(
          'ConflictingOperationInProgress',
          `Cannot start transaction ${txnNumber} on session ${sessionName(session.lsid)} because a transaction with the same number is ${session.txn.state === 'inProgress' ? 'in progress' : session.txn.state}.`,
        );
      this.advance(session, txnNumber);
      session.txn = new Transaction(this, session.lsid, txnNumber);
    }
    const txn = session.txn;
    txn?.expireIfDue();
    if (!txn || txnNumber !== session.txnNumber)
      fail(
        'NoSuchTransaction',
        `Given transaction number ${txnNumber} does not match any in-progress transactions. The active transaction number is ${session.txnNumber}. Start the transaction again (startTransaction: true with a new txnNumber).`,
        TRANSIENT,
      );
    if (name === 'commitTransaction') {
      if (txn.state === 'aborted') fail('NoSuchTransaction', abortedMessage(txn), TRANSIENT);
      txn.commit();
      return { ok: 1 };
    }
    if (name === 'abortTransaction') {
      if (txn.state === 'committed') fail('TransactionCommitted', `Transaction ${txnNumber} has been committed.`);
      if (txn.state === 'aborted') fail('NoSuchTransaction', abortedMessage(txn), TRANSIENT);
      txn.abort();
      return { ok: 1 };
    }
    if (txn.state === 'committed')
      fail('TransactionCommitted', `Transaction ${txnNumber} has been committed: start a new one for more work.`);
    if (txn.state === 'aborted') fail('NoSuchTransaction', abortedMessage(txn), TRANSIENT);
    return txn.run(dbName, command);
  }

  /** A newer transaction number: the session's open transaction, if any, is aborted. */
  private advance(session: SessionState, txnNumber: number): void {
    if (txnNumber > session.txnNumber) {
      session.txn?.abort();
      session.txn = undefined;
      session.retry = undefined;
      session.txnNumber = txnNumber;
    }
  }

  private sessionOf(lsid: unknown): SessionState {
    const id = (lsid as Document | null)?.id;
    if (id === undefined) fail('InvalidOptions', 'lsid must be a document with an id (a UUID): {id: UUID("...")}.');
    const key = documentKey(id);
    let session = this.sessions.get(key);
    if (!session) {
      session = { lsid: lsid as Document, txnNumber: -1, txn: undefined, retry: undefined };
      this.sessions.set(key, session);
    }
    return session;
  }

  /** endSessions / killSessions: their open transactions are aborted and their state forgotten. */
  end(lsids: readonly unknown[] | undefined): void {
    for (const [key, s] of this.sessions) {
      if (lsids === undefined || lsids.some((l) => documentKey((l as Document | null)?.id) === key)) {
        s.txn?.abort();
        this.sessions.delete(key);
      }
    }
  }

  /** Whether a getMore/killCursors names a cursor of the session's open transaction. */
  ownsCursor(lsid: unknown, id: unknown): boolean {
    const key = documentKey((lsid as Document | null)?.id);
    const txn = this.sessions.get(key)?.txn;
    return txn?.state === 'inProgress' && txn.ownsCursor(String(id));
  }
}

/** Every read concern level mongod parses. */
const READ_CONCERN_LEVELS = new Set(['local', 'majority', 'linearizable', 'available', 'snapshot']);

/** Read concern levels a transaction may start with. */
const TRANSACTION_READ_CONCERNS = new Set(['local', 'majority', 'snapshot']);

/**
 * mongod's rules for concerns inside a transaction: a read concern only on the first statement (and
 * of a level a transaction takes), a write concern only on commitTransaction / abortTransaction.
 */
function checkConcerns(name: string, start: boolean, command: Document): void {
  const readConcern = command.readConcern as Document | undefined;
  if (readConcern !== undefined) {
    if (!start)
      fail(
        'InvalidOptions',
        'Only the first command in a transaction may specify a readConcern: give it to startTransaction, or to the first statement.',
      );
    const level = (readConcern as Document | null)?.level;
    if (level !== undefined && !READ_CONCERN_LEVELS.has(String(level)))
      fail(
        'FailedToParse',
        `${JSON.stringify(level)} is not a valid read concern level: use 'local', 'majority' or 'snapshot' in a transaction.`,
      );
    if (level !== undefined && !TRANSACTION_READ_CONCERNS.has(String(level)))
      fail(
        'InvalidOptions',
        `The readConcern level must be either 'local' (default), 'majority' or 'snapshot' in order to run in a transaction, got '${String(level)}'.`,
      );
  }
  if (command.writeConcern !== undefined && name !== 'commitTransaction' && name !== 'abortTransaction')
    fail(
      'InvalidOptions',
      `Cannot set a writeConcern on ${name} inside a transaction: give it to commitTransaction or abortTransaction.`,
    );
}

/** mongod's NoSuchTransaction message for an aborted transaction, with why when the server aborted it. */
function abortedMessage(txn: Transaction): string {
  const head = `Transaction ${txn.txnNumber} has been aborted.`;
  if (txn.abortCause === 'expired')
    return `${head} It stayed open longer than transactionLifetimeLimitSeconds and the server aborted it: start a new transaction, and commit sooner (or raise the limit with setParameter).`;
  return `${head} Start it again.`;
}

function wholeNumber(v: unknown, field: string): number {
  const n = v instanceof Long ? v.toNumber() : typeof v === 'number' ? v : Number((v as { value?: unknown })?.value);
  if (!Number.isInteger(n) || n < 0)
    fail('BadValue', `${field} must be a non-negative whole number, got ${String(v)}.`);
  return n;
}

function sessionName(lsid: Document): string {
  const id = lsid.id as { toHexString?: () => string } | undefined;
  return id?.toHexString ? id.toHexString() : String(id);
}

function withoutRetryFields(command: Document): Document {
  const out: Document = {};
  for (const key of Object.keys(command)) if (key !== 'stmtId' && key !== 'stmtIds') out[key] = command[key];
  return out;
}

function notRetryable(name: string): never {
  fail(
    50768,
    `txnNumber may only be provided for multi-document transactions and retryable write commands. autocommit:false was not provided, and ${name} is not a retryable write command.`,
  );
}
