/**
 * What the shell's API objects share within one session: the engine, the current database, the
 * command path (every database call goes through `engine.runCommand`), value conversion at the
 * boundary, the script realm's errors, where printed lines go, and the cursor `it` continues.
 */
import { carriesClientMetadata, refuseClientMetadata, type Document, type Engine } from '../engine';
import { InterruptFlag, withInterrupts, type InterruptSource, type OperationDeadline } from '../engine/interrupt';
import type { SessionFields } from '../engine/replication/sessions';
import type { Boundary } from './boundary';
import type { ScriptErrors } from './errors';
import { isSessionCommand, runSessionCommand } from './session-commands';

/** Database objects as the runtime hands them out (database.ts implements this). */
export interface DatabaseLike {
  getName(): string;
}

/**
 * What a logical session adds to the commands sent under it (client-session.ts implements this):
 * its lsid, and inside a transaction the txnNumber / autocommit / startTransaction fields.
 */
export interface CommandSession {
  /** The command with the session's fields, before it runs (throws when the session has ended). */
  prepare(dbName: string, command: Document): { command: Document; fields: SessionFields };
  /** After a reply or an error: the session notes the cluster time (causal consistency). */
  observe(): void;
  /** A failed command's error, as the session's user should see it. */
  explain(err: unknown, fields: SessionFields): unknown;
}

/** A cursor that `it` can continue (cursor.ts implements this). */
export interface IterableCursor {
  takeBatch(max: number): unknown[];
  hasMoreBatched(): boolean;
}

export class ShellRuntime {
  private current: string;
  private readonly databases = new Map<string, DatabaseLike>();
  /** Receives each printed line of the running statement. */
  print: (line: string) => void = () => undefined;
  /** The cursor the last displayed result came from, for `it`. */
  lastCursor: IterableCursor | undefined;

  constructor(
    readonly engine: Engine,
    dbName: string,
    readonly errors: ScriptErrors,
    readonly boundary: Boundary,
    private readonly makeDatabase: (runtime: ShellRuntime, name: string) => DatabaseLike,
  ) {
    this.current = this.checkDbName(dbName);
  }

  get dbName(): string {
    return this.current;
  }

  /** The database object for `name`, one per name (collection wrappers are cached inside it). */
  database(name: string): DatabaseLike {
    let db = this.databases.get(name);
    if (!db) {
      db = this.makeDatabase(this, this.checkDbName(name));
      this.databases.set(name, db);
    }
    return db;
  }

  get db(): DatabaseLike {
    return this.database(this.current);
  }

  private readonly deprecationsShown = new Set<string>();

  /** mongosh's DeprecationWarning line for a legacy method, printed the first time the session uses it. */
  deprecated(method: string, instead: string): void {
    if (this.deprecationsShown.has(method)) return;
    this.deprecationsShown.add(method);
    this.print(`DeprecationWarning: ${method}() is deprecated. Use ${instead}.`);
  }

  /** `use(name)`: mongosh's reply text. */
  use(name: unknown): string {
    if (typeof name !== 'string')
      throw this.errors.typeError(`use() needs a database name, e.g. use("app"); got ${typeof name}.`);
    const checked = this.checkDbName(name);
    if (checked === this.current) return `already on db ${checked}`;
    this.current = checked;
    return `switched to db ${checked}`;
  }

  /** Set by the session's interrupt(): the next safe point of an engine call fails with Interrupted (11601). */
  interruptFlag = new InterruptFlag();
  /** The running statement's time limit (set by the session around each statement). */
  deadline: OperationDeadline | undefined;

  /**
   * What every engine call of a statement runs under: the statement's deadline (MaxTimeMSExpired,
   * 50) and the interrupt flag (Interrupted, 11601), polled at the engine's safe points.
   */
  private readonly limits: InterruptSource = {
    poll: () => {
      this.deadline?.poll();
      this.interruptFlag.poll();
    },
  };

  /** Fail now when the statement's time is up or an interrupt was requested (before an engine call). */
  private checkLimits(): void {
    this.deadline?.check();
    this.interruptFlag.poll();
  }

  /**
   * How many engine calls are under way. The vm time limit terminates execution without running
   * `finally` blocks, so a count left above zero after a timeout means the limit cut an engine
   * operation short (the session then says so).
   */
  inEngine = 0;

  /**
   * Run a command as given (already converted for the engine); engine errors become
   * MongoServerErrors. A command that carries session fields of its own (`db.runCommand({…,
   * lsid, txnNumber, autocommit: false})`) runs in that session, as it would over the wire.
   */
  run(dbName: string, command: Document): Document {
    const fields = sessionFieldsOf(command);
    return fields ? this.runInSession(dbName, withoutLsid(command), fields) : this.runPlain(dbName, command);
  }

  private runPlain(dbName: string, command: Document): Document {
    this.inEngine++;
    try {
      this.checkLimits();
      return withInterrupts(this.limits, () => this.dispatch(dbName, command, undefined));
    } catch (err) {
      throw this.errors.fromHost(err);
    } finally {
      this.inEngine--;
    }
  }

  private dispatch(dbName: string, command: Document, fields: SessionFields | undefined): Document {
    const name = Object.keys(command)[0];
    if (isSessionCommand(name)) return runSessionCommand(this.engine, name, command);
    // The shell's connection sent its client metadata when it opened, as mongosh's driver does.
    if (carriesClientMetadata(command)) refuseClientMetadata();
    return fields ? this.engine.runInSession(dbName, command, fields) : this.engine.runCommand(dbName, command);
  }

  /** A command of a logical session: the engine's session path (transactions, retryable writes). */
  runInSession(dbName: string, command: Document, fields: SessionFields): Document {
    this.inEngine++;
    try {
      this.checkLimits();
      return withInterrupts(this.limits, () => this.dispatch(dbName, command, fields));
    } catch (err) {
      throw this.errors.fromHost(err);
    } finally {
      this.inEngine--;
    }
  }

  /**
   * This runtime as seen through a session (`session.getDatabase(name)`): every command carries
   * the session's fields. The view shares everything else (the current database, the running
   * statement's limits, printing, the cursor `it` continues) by delegating to this runtime, which
   * the evaluating shell session keeps up to date; only the database objects are its own.
   */
  inSession(session: CommandSession): ShellRuntime {
    const view = Object.create(this) as ShellRuntime;
    Object.defineProperty(view, 'databases', { value: new Map<string, DatabaseLike>() });
    Object.defineProperty(view, 'run', {
      value: (dbName: string, command: Document): Document => {
        const prepared = session.prepare(dbName, command);
        try {
          return this.runInSession(dbName, prepared.command, prepared.fields);
        } catch (err) {
          throw session.explain(err, prepared.fields);
        } finally {
          session.observe();
        }
      },
    });
    return view;
  }

  /** Any other engine call (clock moves, TTL passes), counted and with errors mapped like run(). */
  call<T>(fn: () => T): T {
    this.inEngine++;
    try {
      this.checkLimits();
      return withInterrupts(this.limits, fn);
    } catch (err) {
      throw this.errors.fromHost(err);
    } finally {
      this.inEngine--;
    }
  }

  /** Script value → engine value. */
  in<T>(value: T): T {
    return this.boundary.toEngine(value);
  }

  /** Engine value → script value (a copy). */
  out<T>(value: T): T {
    return this.boundary.fromEngine(value);
  }

  private checkDbName(name: string): string {
    if (typeof name !== 'string') throw this.errors.typeError(`A database name must be a string, got ${typeof name}.`);
    try {
      // The engine's own name rules (engine.db validates without creating anything).
      return this.engine.db(name).name;
    } catch (err) {
      throw this.errors.fromHost(err);
    }
  }
}

/** Fields that make a command part of a session, when the command carries any of its own. */
export function sessionFieldsOf(command: Document): SessionFields | undefined {
  if (
    command.lsid === undefined &&
    command.txnNumber === undefined &&
    command.autocommit === undefined &&
    command.startTransaction === undefined
  )
    return undefined;
  const fields: SessionFields = {};
  for (const key of ['lsid', 'txnNumber', 'autocommit', 'startTransaction'] as const)
    if (command[key] !== undefined) fields[key] = command[key];
  return fields;
}

/** The command without its lsid (the session fields travel beside the command, as over the wire). */
export function withoutLsid(command: Document): Document {
  if (command.lsid === undefined) return command;
  const out: Document = {};
  for (const key of Object.keys(command)) if (key !== 'lsid') out[key] = command[key];
  return out;
}
