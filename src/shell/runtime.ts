/**
 * What the shell's API objects share within one session: the engine, the current database, the
 * command path (every database call goes through `engine.runCommand`), value conversion at the
 * boundary, the script realm's errors, where printed lines go, and the cursor `it` continues.
 */
import type { Document, Engine } from '../engine';
import { InterruptFlag, withInterrupts, type InterruptSource, type OperationDeadline } from '../engine/interrupt';
import type { Boundary } from './boundary';
import type { ScriptErrors } from './errors';

/** Database objects as the runtime hands them out (database.ts implements this). */
export interface DatabaseLike {
  getName(): string;
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

  /** Run a command as given (already converted for the engine); engine errors become MongoServerErrors. */
  run(dbName: string, command: Document): Document {
    this.inEngine++;
    try {
      this.checkLimits();
      return withInterrupts(this.limits, () => this.engine.runCommand(dbName, command));
    } catch (err) {
      throw this.errors.fromHost(err);
    } finally {
      this.inEngine--;
    }
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
