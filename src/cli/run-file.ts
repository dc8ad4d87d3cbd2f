/**
 * Runs one playground file (a .js script or a .ttlbook notebook) against a fresh engine and writes
 * what each statement printed and returned, as text or as JSON lines. The same ShellSession powers
 * the notebook controller, so a notebook gives the same results here and in VS Code.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Engine, SystemClock, VirtualClock } from '../engine';
import { ShellSession, type StatementResult } from '../shell/session';
import { codeCells, parseTtlbook, type TtlbookCell } from '../shell/ttlbook';
import type { RunOptions } from './args';

export interface RunOutcome {
  /** Every statement ran. */
  ok: boolean;
  statements: number;
}

type Write = (text: string) => void;

interface EngineMetadata {
  now?: string;
  flavor?: 'mongodb' | 'cosmos';
}

function engineFor(options: RunOptions, meta: EngineMetadata): Engine {
  const flavor = options.flavor ?? meta.flavor ?? 'mongodb';
  if (options.clock === 'system') return new Engine({ clock: new SystemClock(), flavor, serverVersion: options.serverVersion });
  const start = options.now ?? (meta.now ? new Date(meta.now) : new Date());
  if (Number.isNaN(start.getTime())) throw new Error(`the notebook's engine.now metadata is not a date: ${String(meta.now)}`);
  return new Engine({ clock: new VirtualClock(start), flavor, serverVersion: options.serverVersion });
}

/** The code cells of a file: a notebook's code cells, or a script as one cell. */
export function cellsOf(file: string, text: string): { cells: TtlbookCell[]; meta: EngineMetadata } {
  if (file.endsWith('.ttlbook')) {
    const book = parseTtlbook(text);
    const engineMeta = (book.metadata.engine ?? {}) as EngineMetadata;
    return { cells: codeCells(book), meta: engineMeta };
  }
  return { cells: [{ kind: 'code', source: text, line: 1 }], meta: {} };
}

function jsonLine(file: string, s: StatementResult): string {
  if (s.ok) {
    const result = s.value === undefined ? null : s.ejson ?? null;
    return JSON.stringify({ ok: true, file, line: s.line, result, output: s.output });
  }
  const e = s.error!;
  return JSON.stringify({ ok: false, file, line: s.line, error: { code: e.code ?? null, codeName: e.codeName ?? null, message: e.message }, output: s.output });
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
  const engine = engineFor(options, meta);
  const session = new ShellSession({ engine, timeoutMs: options.timeoutMs });
  let statements = 0;
  try {
    for (const cell of cells) {
      const result = session.evaluate(cell.source, { filename: file, lineOffset: cell.line - 1 });
      for (const s of result.statements) {
        statements++;
        if (options.json) {
          out(`${jsonLine(shown, s)}\n`);
        } else {
          for (const line of s.output) out(`${line}\n`);
          if (s.ok && s.rendered !== undefined) out(`${s.rendered}\n`);
          if (s.ok && s.hasMore) out('Type "it" for more\n');
        }
        if (!s.ok) {
          const e = s.error!;
          const where = `${shown}:${e.line ?? s.line}${e.column !== undefined ? `:${e.column}` : ''}`;
          const code = e.code !== undefined ? ` (code ${e.code}${e.codeName ? `, ${e.codeName}` : ''})` : '';
          err(`${where}: ${e.name}: ${e.message}${code}\n`);
          return { ok: false, statements };
        }
      }
    }
    return { ok: true, statements };
  } finally {
    engine.close();
  }
}
