/**
 * Runs one playground file (a .js script or a .ttlbook notebook) against a fresh engine (or the one
 * kept in `--data DIR`) and writes what it prints and, for a notebook (or with `--echo`), what each
 * statement returns, as text or as JSON lines. A .js file prints only what it prints, as
 * `mongosh FILE.js` does, so a script gives the same text here and under mongosh. The same
 * ShellSession powers the notebook controller, so a notebook gives the same results here and in
 * VS Code.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openProcessEngine, type ProcessEngine } from '../storage/process-engine';
import { errorText, outputText, statementOutputs } from '../shell/cell-outputs';
import { ShellSession, type StatementResult } from '../shell/session';
import { codeCells, engineRequestOf, parseTtlbook, type EngineRequest, type TtlbookCell } from '../formats/ttlbook';
import type { RunOptions } from './args';

export interface RunOutcome {
  /** Every statement ran. */
  ok: boolean;
  statements: number;
}

type Write = (text: string) => void;

function engineFor(options: RunOptions, meta: EngineRequest): ProcessEngine {
  const now = options.now ?? meta.now;
  return openProcessEngine({
    // A kept engine runs on the clock mode stored with its data unless --clock says otherwise,
    // whatever a notebook asks for: a notebook does not switch a folder's clock.
    ...(options.data !== undefined
      ? options.clockGiven
        ? { clock: options.clock }
        : {}
      : { clock: options.clock === 'system' || meta.clock === 'system' ? 'system' : 'virtual' }),
    ...(now ? { now } : {}),
    flavor: options.flavor ?? meta.flavor ?? 'mongodb',
    ...((options.serverVersion ?? meta.serverVersion)
      ? { serverVersion: options.serverVersion ?? meta.serverVersion }
      : {}),
    ...(options.data !== undefined ? { data: options.data } : {}),
    ...((options.replSet ?? meta.replSet) !== undefined ? { replSetName: options.replSet ?? meta.replSet } : {}),
    ...(options.readOnly ? { readOnly: true } : {}),
    holder: 'ttl-workbench run',
  });
}

/** The code cells of a file: a notebook's code cells, or a script as one cell. */
export function cellsOf(file: string, text: string): { cells: TtlbookCell[]; meta: EngineRequest | { error: string } } {
  if (file.endsWith('.ttlbook')) {
    const book = parseTtlbook(text);
    return { cells: codeCells(book), meta: engineRequestOf(book.metadata) };
  }
  return { cells: [{ kind: 'code', source: text, line: 1 }], meta: { isolated: true } };
}

function jsonLine(file: string, s: StatementResult): string {
  if (s.ok) {
    const result = s.value === undefined ? null : (s.ejson ?? null);
    return JSON.stringify({ ok: true, file, line: s.line, result, output: s.output });
  }
  const e = s.error!;
  return JSON.stringify({
    ok: false,
    file,
    line: s.line,
    error: { code: e.code ?? null, codeName: e.codeName ?? null, message: e.message },
    output: s.output,
  });
}

export function runFile(file: string, options: RunOptions, out: Write, err: Write): RunOutcome {
  const shown = path.relative(process.cwd(), file) || file;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    err(`${shown}: cannot read the file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})\n`);
    return { ok: false, statements: 0 };
  }
  const { cells, meta } = cellsOf(file, text);
  // A script's values are not shown (mongosh FILE.js shows none); a notebook's are, as its cells do.
  const showValues = options.echo === true || file.endsWith('.ttlbook');
  if ('error' in meta) {
    err(`${shown}: ${meta.error}\n`);
    return { ok: false, statements: 0 };
  }
  let run: ProcessEngine;
  try {
    run = engineFor(options, meta);
  } catch (e) {
    err(`${shown}: ${(e as Error).message}\n`);
    return { ok: false, statements: 0 };
  }
  for (const note of run.notes) err(`${options.data}: ${note}\n`);
  const engine = run.engine;
  // Text output writes printed lines as they are printed (a long script shows its progress), as
  // the engine host streams them to a notebook; JSON lines carry them in their statement's record.
  const session = new ShellSession({
    engine,
    timeoutMs: options.timeoutMs,
    ...(options.json ? {} : { onPrint: (line: string) => out(`${line}\n`) }),
  });
  let statements = 0;
  try {
    for (const cell of cells) {
      for (const s of session.steps(cell.source, { filename: file, lineOffset: cell.line - 1 })) {
        statements++;
        const outputs = statementOutputs(s);
        if (options.json) out(`${jsonLine(shown, s)}\n`);
        else if (showValues) out(outputText(outputs.filter((o) => o.kind !== 'print')));
        const error = outputs.find((o) => o.kind === 'error');
        if (error?.kind === 'error') {
          err(`${errorText(error, shown)}\n`);
          return { ok: false, statements };
        }
      }
    }
    return { ok: true, statements };
  } finally {
    run.close();
  }
}
