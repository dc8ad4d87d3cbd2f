/**
 * Errors as a script sees them. Engine errors become `MongoServerError`s shaped like the Node
 * driver's (code, codeName, errmsg, the reply's extra fields) whose prototype chain runs through the
 * script realm's `Error`, so `e instanceof Error` holds inside the script and try/catch works as in
 * mongosh. Also: turning any thrown value into the `ShellErrorInfo` a caller reports, with the line
 * and column where it was thrown.
 */
import { EngineError } from '../engine';
import type { Document } from '../engine';

/** The error constructors of the script's realm (its own intrinsics, not the host's). */
export interface RealmErrorConstructors {
  Error: ErrorConstructor;
  TypeError: TypeErrorConstructor;
  RangeError: RangeErrorConstructor;
  SyntaxError: SyntaxErrorConstructor;
  ReferenceError: ReferenceErrorConstructor;
}

export interface ServerErrorLike extends Error {
  code: number;
  hasErrorLabel(label: string): boolean;
  codeName: string;
  readonly errmsg: string;
  errorResponse: Document;
}

export type ServerErrorConstructor = new (response: Document) => ServerErrorLike;

/** Fields of an error reply that are not copied onto the error object (they are the message). */
const RESERVED = new Set(['errmsg', 'message', 'name', 'stack', 'ok']);

export class ScriptErrors {
  readonly MongoServerError: ServerErrorConstructor;
  readonly MongoBulkWriteError: ServerErrorConstructor;

  constructor(readonly realm: RealmErrorConstructors) {
    const RealmError = realm.Error;
    // Defined here, extending the script realm's Error: one class per session context.
    class MongoServerError extends RealmError {
      declare code: number;
      declare codeName: string;
      declare errorResponse: Document;

      constructor(response: Document) {
        super(typeof response.errmsg === 'string' ? response.errmsg : 'unknown server error');
        for (const key of Object.keys(response)) {
          if (!RESERVED.has(key)) (this as unknown as Document)[key] = response[key];
        }
        this.errorResponse = response;
      }

      get errmsg(): string {
        return this.message;
      }

      /** The driver's test for a label (`TransientTransactionError`, `UnknownTransactionCommitResult`). */
      hasErrorLabel(label: unknown): boolean {
        const labels = (this as unknown as { errorLabels?: unknown }).errorLabels;
        return Array.isArray(labels) && labels.includes(label);
      }
    }
    class MongoBulkWriteError extends MongoServerError {}
    nameClass(MongoServerError, 'MongoServerError');
    nameClass(MongoBulkWriteError, 'MongoBulkWriteError');
    this.MongoServerError = MongoServerError;
    this.MongoBulkWriteError = MongoBulkWriteError;
  }

  /** A server error from a reply-shaped document `{errmsg, code, codeName, ...}`. */
  serverError(response: Document): ServerErrorLike {
    return new this.MongoServerError(response);
  }

  /** The first write error of a single-document write, thrown as the driver does. */
  writeError(writeError: Document): ServerErrorLike {
    const { index: _index, ...response } = writeError;
    return new this.MongoServerError(response);
  }

  /** insertMany's failure: the first error's code and message, every write error, what got in. */
  bulkWriteError(writeErrors: Document[], result: Document): ServerErrorLike {
    const first = writeErrors[0];
    return new this.MongoBulkWriteError({
      errmsg: first.errmsg,
      code: first.code,
      codeName: first.codeName,
      writeErrors,
      result,
    });
  }

  /** A shell-side refusal (bad arguments, unavailable feature), as an Error of the script realm. */
  error(message: string, name?: string): Error {
    const err = new this.realm.Error(message);
    if (name) Object.defineProperty(err, 'name', { value: name, configurable: true, writable: true });
    return err;
  }

  typeError(message: string): TypeError {
    return new this.realm.TypeError(message);
  }

  rangeError(message: string): RangeError {
    return new this.realm.RangeError(message);
  }

  /**
   * Whatever host code threw, as the script should see it: engine errors become MongoServerErrors,
   * host-realm Errors become script-realm Errors of the same kind (so `instanceof Error` holds).
   */
  fromHost(err: unknown): unknown {
    if (err instanceof EngineError) return this.serverError(err.toReply());
    if (err instanceof Error) {
      const realm = this.realm as unknown as Record<string, ErrorConstructor | undefined>;
      const Ctor = Object.prototype.hasOwnProperty.call(realm, err.name) ? realm[err.name] : undefined;
      return Ctor ? new Ctor(err.message) : this.error(err.message, err.name);
    }
    return err;
  }
}

function nameClass(cls: { prototype: object }, name: string): void {
  Object.defineProperty(cls, 'name', { value: name });
  Object.defineProperty(cls.prototype, 'name', { value: name, writable: true, configurable: true });
}

// ---- reporting ----------------------------------------------------------------------------

export interface ThrownInfo {
  name: string;
  message: string;
  code?: number;
  codeName?: string;
  /** Where it was thrown in the user's code (1-based), when the stack says. */
  line?: number;
  column?: number;
}

const TIMEOUT_CODE = 'ERR_SCRIPT_EXECUTION_TIMEOUT';

export function isTimeout(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === TIMEOUT_CODE;
}

/** The statement's time limit, reached inside an engine operation that then stopped at a safe point. */
export function timeLimitMessage(timeoutMs: number): string {
  return `Execution stopped after ${timeoutMs} ms: the statement exceeded the time limit. The engine operation under way stopped at a safe point, so every document and index is consistent (a multi-document write keeps the documents it wrote before that point). If it needs longer, raise the time limit (timeoutMs; --timeout in the CLI).`;
}

export function timeoutMessage(timeoutMs: number, interruptedEngine: boolean): string {
  const text = `Execution stopped after ${timeoutMs} ms: the statement exceeded the time limit (an endless loop?). If it needs longer, raise the time limit (timeoutMs; --timeout in the CLI).`;
  if (!interruptedEngine) return text;
  // Engine operations stop at safe points once the statement's deadline passes; the vm timeout
  // (a little later) cut one short only if it ran that long without reaching a safe point.
  return `${text} The limit struck in the middle of an engine operation (a command, a clock move or a TTL pass), which may have left the engine inconsistent: start a fresh engine to be safe.`;
}

/**
 * Describe a thrown value. `filename` is the name the statement's vm.Script was compiled with; the
 * first stack frame in it is the innermost user code, which gives the line and column.
 */
export function describeThrown(err: unknown, filename: string, render: (v: unknown) => string): ThrownInfo {
  if (err === null || typeof err !== 'object') {
    return { name: 'Uncaught', message: typeof err === 'string' ? err : render(err) };
  }
  const e = err as { name?: unknown; message?: unknown; code?: unknown; codeName?: unknown; stack?: unknown };
  const info: ThrownInfo = {
    name: typeof e.name === 'string' && e.name !== '' ? e.name : 'Error',
    message: typeof e.message === 'string' ? e.message : render(err),
  };
  if (typeof e.code === 'number') info.code = e.code;
  if (typeof e.codeName === 'string') info.codeName = e.codeName;
  if (typeof e.stack === 'string') Object.assign(info, locateInStack(e.stack, filename));
  return info;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Line and column of the first frame in `filename` (V8 numbers both from 1). */
export function locateInStack(stack: string, filename: string): { line?: number; column?: number } {
  const name = escapeRegExp(filename);
  // Compile-time errors (a redeclared `let`) start with "<file>:<line>" and carry no column.
  const head = new RegExp(`^${name}:(\\d+)\\n`).exec(stack);
  if (head) return { line: Number(head[1]) };
  const frame = new RegExp(`(?:\\(|at )${name}:(\\d+):(\\d+)\\)?$`, 'm').exec(stack);
  if (frame) return { line: Number(frame[1]), column: Number(frame[2]) };
  return {};
}

/** mongosh's one-line error form: `MongoServerError[DuplicateKey]: E11000 …`. */
export function formatErrorLine(info: { name: string; message: string; codeName?: string }): string {
  return `${info.name}${info.codeName ? `[${info.codeName}]` : ''}: ${info.message}`;
}
