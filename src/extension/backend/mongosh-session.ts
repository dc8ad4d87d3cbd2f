/**
 * A playground session on a real deployment, run by mongosh's own runtime: the node driver's
 * service provider, mongosh's shell API and evaluator (its async rewriter), and mongosh's output
 * formatter, so a cell prints what mongosh prints. A cell is one evaluation, as mongosh evaluates a
 * script it loads: what the cell prints, then the value of its last expression. Bundled apart
 * (dist/mongosh.js, mongosh-bundle.ts) and loaded on the first cell run on a connection. No
 * `vscode` import.
 */
import { EventEmitter } from 'node:events';
import * as vm from 'node:vm';
import { formatError, formatOutput } from '@mongosh/cli-repl/lib/format-output';
import { NodeDriverServiceProvider } from '@mongosh/service-provider-node-driver';
import { ShellInstanceState, toShellResult } from '@mongosh/shell-api';
import { ShellEvaluator } from '@mongosh/shell-evaluator';
import { EJSON } from 'bson';
import type { MongoClientOptions } from 'mongodb';
import type { CellOutput, ValueShape } from '../../shell/cell-outputs';
import { splitStatements, type Statement } from '../../shell/statements';
import type { PlaygroundEvent, PlaygroundRunOptions, PlaygroundSession } from './backend';

export interface MongoshSessionOptions {
  uri: string;
  clientOptions?: MongoClientOptions;
  /** Removes the password from any text a failure to connect shows. */
  redact?: (text: string) => string;
}

/** mongosh's shell-result types whose printable is a batch of documents (`{documents, cursorHasMore}`). */
const CURSOR_TYPES = new Set([
  'Cursor',
  'AggregationCursor',
  'RunCommandCursor',
  'ChangeStreamCursor',
  'ExplainableCursor',
]);

/**
 * The cell's top-level statements, each evaluated and answered on its own as mongosh's REPL answers
 * line by line (function declarations first, as JavaScript hoists them). A cell that is not plain
 * JavaScript (`use app`, `show dbs`) goes to mongosh's evaluator whole, which runs its shell
 * commands as the REPL does.
 */
function statementsOf(source: string): Array<Pick<Statement, 'source' | 'line'>> {
  try {
    const all = splitStatements(source);
    return [...all.filter((s) => s.hoisted), ...all.filter((s) => !s.hoisted)];
  } catch {
    return [{ source, line: 1 }];
  }
}

/** Plain text, as in a terminal without colours (a notebook output has none). */
const PLAIN = { colors: false } as const;

interface ShellResultLike {
  type: string | null;
  printable: unknown;
}

function isPlainDocument(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  if ((value as { _bsontype?: unknown })._bsontype !== undefined) return false;
  if (Object.prototype.toString.call(value) === '[object Date]') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

function shapeOf(value: unknown): ValueShape {
  if (Array.isArray(value)) return value.length > 0 && value.every(isPlainDocument) ? 'documents' : 'text';
  return isPlainDocument(value) ? 'document' : 'text';
}

/** The value output of a cell, as mongosh prints it (nothing for undefined or an empty cursor). */
export function valueOutputOf(result: ShellResultLike): CellOutput[] {
  if (result.printable === undefined) return [];
  const text = formatOutput({ type: result.type, value: result.printable }, PLAIN);
  if (text === '') return [];
  const batch =
    result.type !== null && CURSOR_TYPES.has(result.type)
      ? (result.printable as { documents?: unknown[]; cursorHasMore?: boolean })
      : undefined;
  const value = batch ? batch.documents : result.printable;
  const shape = shapeOf(value);
  let json: unknown;
  if (shape !== 'text') {
    try {
      json = EJSON.serialize(value, { relaxed: true });
    } catch {
      // A value EJSON cannot write (a function inside): the text is still mongosh's.
    }
  }
  return [
    {
      kind: 'value',
      shape,
      text,
      ...(json !== undefined ? { json } : {}),
      hasMore: batch?.cursorHasMore === true,
    },
  ];
}

/** An error as mongosh shows it: `MongoServerError[DuplicateKey]: E11000 …`, with its code and codeName. */
export function errorOutputOf(err: unknown): Extract<CellOutput, { kind: 'error' }> {
  const e = (err !== null && typeof err === 'object' ? err : { message: String(err) }) as {
    name?: unknown;
    message?: unknown;
    code?: unknown;
    codeName?: unknown;
  };
  const name = typeof e.name === 'string' ? e.name : 'Error';
  const message = typeof e.message === 'string' ? e.message : String(err);
  // The REPL's formatter starts with a carriage return (it clears the prompt line): not in a cell.
  const text = err instanceof Error ? formatError(err, PLAIN).replace(/^\r/, '') : `${name}: ${message}`;
  return {
    kind: 'error',
    name,
    message,
    ...(typeof e.code === 'number' ? { code: e.code } : {}),
    ...(typeof e.codeName === 'string' ? { codeName: e.codeName } : {}),
    text,
  };
}

/** Prints waiting to be yielded, and a wake-up for the generator that yields them. */
class PrintQueue {
  private lines: string[] = [];
  private wake: (() => void) | undefined;

  push(line: string): void {
    this.lines.push(line);
    this.wake?.();
  }

  take(): string[] {
    const out = this.lines;
    this.lines = [];
    return out;
  }

  /** Resolves at the next print or when `done` settles. */
  next(done: Promise<unknown>): Promise<void> {
    if (this.lines.length) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.wake = () => {
        this.wake = undefined;
        resolve();
      };
      void done.then(this.wake, this.wake);
    });
  }
}

class MongoshSession implements PlaygroundSession {
  readonly restarted = false;
  private current: PrintQueue | undefined;

  constructor(
    private readonly provider: NodeDriverServiceProvider,
    private readonly state: ShellInstanceState,
    private readonly evaluator: ShellEvaluator,
    private readonly context: vm.Context,
  ) {
    state.setEvaluationListener({
      onPrint: (values, type) => {
        // As mongosh's REPL prints: printjson at full depth, print as the value would show.
        const options =
          type === 'printjson'
            ? { ...PLAIN, compact: false, depth: Infinity, maxArrayLength: Infinity, maxStringLength: Infinity }
            : PLAIN;
        this.current?.push(values.map((v) => formatOutput({ type: v.type, value: v.printable }, options)).join(' '));
      },
    });
  }

  get dbName(): string {
    return this.state.currentDb.getName();
  }

  async *run(
    source: string,
    options: PlaygroundRunOptions = {},
  ): AsyncGenerator<PlaygroundEvent, { complete: boolean }> {
    const offset = options.lineOffset ?? 0;
    const onAbort = () => void this.state.onInterruptExecution();
    options.signal?.addEventListener('abort', onAbort);
    try {
      for (const statement of statementsOf(source)) {
        const r = yield* this.evaluate(statement.source, options.filename ?? 'cell');
        if (options.signal?.aborted) return { complete: false };
        const line = statement.line + offset;
        if (r.ok) yield { kind: 'statement', ok: true, line, outputs: valueOutputOf(r.value), millis: r.millis };
        else {
          yield {
            kind: 'statement',
            ok: false,
            line,
            outputs: [{ ...errorOutputOf(r.error), line }],
            millis: r.millis,
          };
          return { complete: true };
        }
      }
      return { complete: true };
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      if (this.state.interrupted.isSet()) await this.state.onResumeExecution();
    }
  }

  /** One statement through mongosh's evaluator, yielding its prints as they happen. */
  private async *evaluate(
    code: string,
    filename: string,
  ): AsyncGenerator<
    PlaygroundEvent,
    { ok: true; value: ShellResultLike; millis: number } | { ok: false; error: unknown; millis: number }
  > {
    const queue = new PrintQueue();
    this.current = queue;
    const started = performance.now();
    const settled = (
      this.evaluator.customEval(
        (c: string, context: object, f: string) => vm.runInContext(c, context as vm.Context, { filename: f }),
        code,
        this.context,
        filename,
      ) as Promise<ShellResultLike>
    ).then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    try {
      let finished = false;
      void settled.then(() => (finished = true));
      while (!finished) {
        await queue.next(settled);
        for (const text of queue.take()) yield { kind: 'print', text };
      }
      const result = await settled;
      for (const text of queue.take()) yield { kind: 'print', text };
      return { ...result, millis: performance.now() - started };
    } finally {
      if (this.current === queue) this.current = undefined;
    }
  }

  dispose(): void {
    void this.provider.close().catch(() => undefined);
  }
}

/** Connects mongosh's service provider and opens a session with `db` on the connection string's database. */
export async function openMongoshSession(options: MongoshSessionOptions): Promise<PlaygroundSession> {
  const bus = new EventEmitter();
  let provider: NodeDriverServiceProvider;
  try {
    provider = await NodeDriverServiceProvider.connect(
      options.uri,
      {
        productName: 'TTL Workbench',
        productDocsLink: 'https://github.com/ttl-workbench/ttl-workbench#readme',
        appName: 'TTL Workbench playground',
        serverSelectionTimeoutMS: 10_000,
        ...options.clientOptions,
      },
      {},
      bus,
    );
  } catch (err) {
    const redact = options.redact ?? ((s: string) => s);
    throw Object.assign(new Error(redact(`mongosh could not connect: ${(err as Error).message}`)), {
      name: 'MongoshConnectionError',
      code: 6,
      codeName: 'HostUnreachable',
    });
  }
  const state = new ShellInstanceState(provider, bus);
  const evaluator = new ShellEvaluator(state, toShellResult);
  const context = vm.createContext({});
  state.setCtx(context);
  return new MongoshSession(provider, state, evaluator, context);
}
