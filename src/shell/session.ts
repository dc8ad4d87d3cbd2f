/**
 * The evaluation loop: mongosh-style snippets against an engine. Source is split into top-level
 * statements (statements.ts); each runs as its own vm.Script in the session's context, under a
 * time limit, and reports its value (rendered as mongosh prints it, and as relaxed EJSON), what it
 * printed, and how long it took. The first uncaught error ends the evaluation, like a script.
 * Top-level let/const/class/function declarations live in the context's script scope, so they
 * persist across statements and across evaluate() calls of one session.
 */
import * as vm from 'node:vm';
import type { Engine } from '../engine';
import { InterruptFlag, interruptDepth, OperationDeadline, unwindInterrupts } from '../engine/interrupt';
import {
  describeThrown,
  formatErrorLine,
  isTimeout,
  timeLimitMessage,
  timeoutMessage,
  type ThrownInfo,
} from './errors';
import { createShellWorld, CursorIterationResult, CURSOR_BATCH, MORE_HINT } from './globals';
import { ShellCursor } from './cursor';
import { render, toRelaxedEjson } from './render';
import type { ShellRuntime } from './runtime';
import { ShellSyntaxError, splitStatements, type Statement } from './statements';

export interface ShellSessionOptions {
  engine: Engine;
  /** Database `db` starts on; default 'test'. */
  dbName?: string;
  /** Time limit of one top-level statement, in milliseconds; default 10000. */
  timeoutMs?: number;
  /**
   * A cell another thread may set (non-zero) to interrupt the running statement at its next engine
   * safe point (Interrupted, 11601): the engine host's worker gets it from the extension host.
   */
  interruptCell?: Int32Array;
  /** Told each printed line as it is printed (a host streams them while the statement still runs). */
  onPrint?: (line: string) => void;
  /**
   * Globals the host adds to the script's world, replacing the shell's own of the same name: a
   * harness that runs legacy test files gives them a `load` that reads its files, for example.
   */
  hostGlobals?: Record<string, unknown>;
}

/** An error as the session reports it: line and column include `lineOffset`. */
export type ShellErrorInfo = ThrownInfo;

export interface StatementResult {
  /** 1-based line (plus `lineOffset`) and 1-based column where the statement starts. */
  line: number;
  column: number;
  endLine: number;
  source: string;
  ok: boolean;
  /** The statement's value; for a cursor, the documents shown (up to 20). */
  value?: unknown;
  /**
   * mongosh's text for the value (absent for undefined); for a failed statement, mongosh's error
   * line. A cursor's "Type "it" for more" is not part of it: see `hasMore` and MORE_HINT.
   */
  rendered?: string;
  /** The value as relaxed extended JSON (absent when it has none). */
  ejson?: unknown;
  /** A displayed cursor has documents left: `it` shows the next ones. */
  hasMore?: boolean;
  output: string[];
  error?: ShellErrorInfo;
  millis: number;
}

export interface EvaluateOptions {
  /** The name errors and stack frames give the code; default `<shell>`. */
  filename?: string;
  /** Lines before the source in its file (a notebook cell's position), added to every line number. */
  lineOffset?: number;
}

export interface EvaluationResult {
  ok: boolean;
  statements: StatementResult[];
  /** All printed lines, in order. */
  output: string[];
}

export { MORE_HINT };

const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * The `node:vm` timeout runs this much after the statement's deadline: engine operations stop at
 * their next safe point when the deadline passes (MaxTimeMSExpired, engine consistent), so the vm
 * timeout only ends code that never reaches the engine (an endless plain-JavaScript loop). Its
 * floor of 200 ms outlasts a scheduling pause on a loaded machine between two safe points (50 ms
 * did not: a short limit then struck mid-operation, leaving the engine in doubt).
 */
export function vmGraceMs(timeoutMs: number): number {
  return Math.min(1000, Math.max(200, Math.round(timeoutMs / 10)));
}
const DEFAULT_FILENAME = '<shell>';

interface Displayed {
  value: unknown;
  rendered?: string;
  hasMore?: boolean;
}

export class ShellSession {
  private readonly context: vm.Context;
  private readonly runtime: ShellRuntime;
  private readonly timeoutMs: number;
  private readonly onPrint: ((line: string) => void) | undefined;

  constructor(options: ShellSessionOptions) {
    if (!options || !options.engine) throw new TypeError('ShellSession needs an engine: new ShellSession({ engine }).');
    const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isInteger(timeout) || timeout <= 0)
      throw new RangeError(`timeoutMs must be a positive whole number of milliseconds, got ${timeout}.`);
    this.timeoutMs = timeout;
    const world = createShellWorld(options.engine, options.dbName ?? 'test');
    this.context = world.context;
    this.runtime = world.runtime;
    for (const [name, value] of Object.entries(options.hostGlobals ?? {})) {
      Object.defineProperty(this.context, name, { value, writable: true, configurable: true, enumerable: false });
    }
    if (options.interruptCell) this.runtime.interruptFlag = new InterruptFlag(options.interruptCell);
    this.onPrint = options.onPrint;
  }

  /**
   * Ask the running statement to stop: its next engine safe point fails with Interrupted (11601),
   * leaving documents and indexes consistent. A statement holds the thread while it runs, so a
   * host on the same thread can only call this between statements (a notebook's Interrupt also
   * stops the remaining statements); within a statement the time limit is what ends it. The
   * request lasts until the next evaluation starts.
   */
  interrupt(message?: string): void {
    this.runtime.interruptFlag.request(message);
  }

  /** The current database (changes with use()). */
  get dbName(): string {
    return this.runtime.dbName;
  }

  evaluate(source: string, options: EvaluateOptions = {}): EvaluationResult {
    const steps = this.steps(source, options);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  }

  /**
   * The same evaluation one statement at a time: each `next()` runs one top-level statement and
   * yields its result (hoisted function declarations first, as JavaScript runs them), and the
   * generator's return value is what `evaluate` returns. A caller that awaits between steps lets
   * its event loop (a notebook's cancellation, the tree's refresh) in between statements; stopping
   * the iteration leaves the remaining statements unrun.
   */
  *steps(source: string, options: EvaluateOptions = {}): Generator<StatementResult, EvaluationResult, void> {
    const filename = options.filename ?? DEFAULT_FILENAME;
    const lineOffset = options.lineOffset ?? 0;
    const output: string[] = [];
    this.runtime.interruptFlag.reset();
    let statements: Statement[];
    try {
      statements = splitStatements(source);
    } catch (err) {
      if (!(err instanceof ShellSyntaxError)) throw err;
      const failed = syntaxErrorResult(source, err, lineOffset);
      yield failed;
      return { ok: false, statements: [failed], output };
    }

    const results: StatementResult[] = new Array(statements.length);
    // Function declarations first, as JavaScript hoists them within a script.
    for (let i = 0; i < statements.length; i++) {
      if (!statements[i].hoisted) continue;
      results[i] = this.runStatement(statements[i], filename, lineOffset, output);
      yield results[i];
      if (!results[i].ok) return { ok: false, statements: [results[i]], output };
    }
    const done: StatementResult[] = [];
    for (let i = 0; i < statements.length; i++) {
      let result = results[i];
      if (!result) {
        result = this.runStatement(statements[i], filename, lineOffset, output);
        yield result;
      }
      done.push(result);
      if (!result.ok) return { ok: false, statements: done, output };
    }
    return { ok: true, statements: done, output };
  }

  private runStatement(stmt: Statement, filename: string, lineOffset: number, all: string[]): StatementResult {
    const out: string[] = [];
    const onPrint = this.onPrint;
    this.runtime.print = (line) => {
      out.push(line);
      all.push(line);
      onPrint?.(line);
    };
    const base = {
      line: stmt.line + lineOffset,
      column: stmt.column,
      endLine: stmt.endLine + lineOffset,
      source: stmt.source,
      output: out,
    };
    const started = performance.now();
    // The statement's engine calls run under its deadline: a long one stops at a safe point.
    const deadline = new OperationDeadline(this.timeoutMs, { message: timeLimitMessage(this.timeoutMs) });
    this.runtime.deadline = deadline;
    const depth = interruptDepth();
    try {
      const script = new vm.Script(stmt.source, {
        filename,
        lineOffset: lineOffset + stmt.line - 1,
        columnOffset: stmt.column - 1,
      });
      const value = script.runInContext(this.context, {
        timeout: this.timeoutMs + vmGraceMs(this.timeoutMs),
        displayErrors: false,
      });
      const shown = this.display(value);
      return withLazyEjson({ ...base, ok: true, ...shown, millis: performance.now() - started });
    } catch (err) {
      const millis = performance.now() - started;
      const error = this.describe(err, filename, base);
      return { ...base, ok: false, error, rendered: formatErrorLine(error), millis };
    } finally {
      this.runtime.print = () => undefined;
      this.runtime.deadline = undefined;
      // A vm timeout skips `finally` blocks inside the engine call it cut: drop what it left installed.
      unwindInterrupts(depth);
    }
  }

  private describe(err: unknown, filename: string, where: { line: number; column: number }): ShellErrorInfo {
    if (isTimeout(err)) {
      const interrupted = this.runtime.inEngine > 0;
      this.runtime.inEngine = 0;
      if (interrupted) this.runtime.engine.recoverFromInterruption();
      // mongod's code for an operation stopped by its time limit, so outputs carry code and codeName.
      return {
        name: 'TimeoutError',
        message: timeoutMessage(this.timeoutMs, interrupted),
        code: 50,
        codeName: 'MaxTimeMSExpired',
        line: where.line,
        column: where.column,
      };
    }
    const info: ThrownInfo = describeThrown(err, filename, (v) => render(v) ?? 'undefined');
    // The statement's own time limit, reached inside the engine and ended at a safe point: reported
    // as the time limit is, with mongod's code.
    if (info.code === 50 && info.message === timeLimitMessage(this.timeoutMs)) info.name = 'TimeoutError';
    return {
      ...info,
      line: info.line ?? where.line,
      column: info.column ?? (info.line === undefined ? where.column : undefined),
    };
  }

  /** A value as mongosh shows it: cursors iterate (20 documents), shell objects print as names. */
  private display(value: unknown): Displayed {
    if (value instanceof ShellCursor) {
      const documents = value.takeBatch(CURSOR_BATCH);
      const hasMore = value.hasMoreBatched();
      this.runtime.lastCursor = value;
      // mongosh prints nothing for an empty cursor.
      return { value: documents, rendered: documents.length ? render(documents, { full: true }) : '', hasMore };
    }
    if (value instanceof CursorIterationResult) {
      const { documents, hasMore } = value;
      return {
        value: documents,
        rendered: documents.length ? render(documents, { full: true }) : 'no cursor',
        hasMore,
      };
    }
    const rendered = render(value);
    return { value, ...(rendered !== undefined ? { rendered } : {}) };
  }
}

/**
 * `ejson` is computed when first read (then kept): serializing a large result costs as much as
 * rendering it, and many callers only want the text. Absent for an undefined value.
 */
function withLazyEjson(result: StatementResult): StatementResult {
  if (result.value === undefined) return result;
  let cached: { ejson: unknown } | undefined;
  Object.defineProperty(result, 'ejson', {
    enumerable: true,
    configurable: true,
    get: () => (cached ??= { ejson: toRelaxedEjson(result.value) }).ejson,
  });
  return result;
}

function syntaxErrorResult(source: string, err: ShellSyntaxError, lineOffset: number): StatementResult {
  const line = err.line + lineOffset;
  const error: ShellErrorInfo = {
    name: 'SyntaxError',
    message: `${err.reason} (line ${line}, column ${err.column})`,
    line,
    column: err.column,
  };
  const lines = source.split('\n');
  return {
    line,
    column: err.column,
    endLine: line,
    source: lines[err.line - 1] ?? '',
    ok: false,
    error,
    rendered: formatErrorLine(error),
    output: [],
    millis: 0,
  };
}
