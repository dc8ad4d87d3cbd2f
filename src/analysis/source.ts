/**
 * From text to parsed units. A script is one unit; a `.ttlbook` is one unit per code cell (each
 * cell is its own script, so a syntax error in one cell leaves the others analysed), with the
 * cell's offset in the file so every position lands on the right line. Notebook cells handed in
 * by the editor are units of their own texts.
 *
 * @babel/parser 7.x is used with `errorRecovery`: half-typed code still yields a tree, which is
 * what an editor sees most of the time. (8.x is ESM-only and needs Node 22; this project runs
 * its tests on Node 20 with CommonJS output.)
 *
 * Decorators are parsed as TypeScript's `experimentalDecorators` write them (NestJS, Typegoose:
 * parameter decorators included); a text that only the standard proposal reads (`export @dec
 * class`) is parsed again with it. Where the parser still gives up, the unit says where reading
 * stopped, so the analysis can say so instead of checking half a file in silence.
 */
import { parse, type ParseResult, type ParserPlugin } from '@babel/parser';
import type { File } from '@babel/types';
import { parseTtlbook } from '../formats/ttlbook';
import { lineStarts } from './line-index';

export type SourceKind = 'js' | 'jsx' | 'ts' | 'tsx' | 'ttlbook';

export interface Unit {
  /** The unit's source text. */
  text: string;
  /** Offset of `text` in the analysed text (the file, or the cell). */
  base: number;
  /** Notebook cell index (cells handed in by the editor). */
  cell?: number;
  ast: File | undefined;
  syntaxErrors: number;
  /** Offset in `text` from which nothing was analysed (the parser could not recover there). */
  unreadFrom?: number;
  /** The parser's reason for giving up there. */
  unreadReason?: string;
  /**
   * Where a position of a tree node lies in `text`. Absent: node positions are offsets in `text`.
   * Incremental re-analysis reuses trees parsed from earlier texts and maps their positions.
   */
  offsetOf?: (position: number) => number;
}

/** The kind of a file by its name or an editor language id; undefined: not analysed. */
export function sourceKindOf(fileNameOrLanguage: string): SourceKind | undefined {
  const s = fileNameOrLanguage.toLowerCase();
  switch (s) {
    // ttl-mongosh: a playground notebook's code cells in the notebook editor (mongosh is JavaScript).
    case 'javascript':
    case 'ttl-mongosh':
      return 'js';
    case 'javascriptreact':
      return 'jsx';
    case 'typescript':
      return 'ts';
    case 'typescriptreact':
      return 'tsx';
    case 'ttlbook':
      return 'ttlbook';
  }
  const dot = s.lastIndexOf('.');
  const ext = dot >= 0 ? s.slice(dot + 1) : '';
  if (ext === 'js' || ext === 'mjs' || ext === 'cjs') return 'js';
  if (ext === 'jsx') return 'jsx';
  if (ext === 'ts' || ext === 'mts' || ext === 'cts') return s.endsWith('.d.ts') ? undefined : 'ts';
  if (ext === 'tsx') return 'tsx';
  if (ext === 'ttlbook') return 'ttlbook';
  return undefined;
}

type Decorators = 'legacy' | 'standard';

function pluginsFor(kind: SourceKind, decorators: Decorators): ParserPlugin[] {
  const dec: ParserPlugin = decorators === 'legacy' ? 'decorators-legacy' : 'decorators';
  switch (kind) {
    case 'ts':
      return ['typescript', dec];
    case 'tsx':
      return ['typescript', 'jsx', dec];
    case 'jsx':
      return ['jsx', dec];
    default:
      // Plain .js is often JSX too (React projects); the plugin costs nothing on non-JSX code.
      return kind === 'js' ? ['jsx', dec] : [dec];
  }
}

/**
 * Parse with legacy decorators, then with standard ones if that fails; when both fail, throws the
 * error that came later in the text (the one that reads more of it).
 */
function parseDecorated(text: string, kind: SourceKind, options: Record<string, unknown>): ParseResult<File> {
  try {
    return parse(text, { ...PARSE_OPTIONS, ...options, plugins: pluginsFor(kind, 'legacy') });
  } catch (legacyError) {
    try {
      return parse(text, { ...PARSE_OPTIONS, ...options, plugins: pluginsFor(kind, 'standard') });
    } catch (standardError) {
      const at = (e: unknown) => (e as { pos?: number }).pos ?? -1;
      throw at(standardError) > at(legacyError) ? standardError : legacyError;
    }
  }
}

const PARSE_OPTIONS = {
  sourceType: 'unambiguous',
  errorRecovery: true,
  // Playgrounds and notebook cells are run as scripts with top-level await and return.
  allowAwaitOutsideFunction: true,
  allowReturnOutsideFunction: true,
  allowImportExportEverywhere: true,
  allowUndeclaredExports: true,
  attachComment: false,
} as const;

/**
 * Parse as a module, as `sourceType: 'unambiguous'` first does: when that succeeds, unambiguous
 * parsing returns this very tree (only its `sourceType` label may say "script"; with top-level
 * await allowed nothing makes babel parse again as a script). Throws where the parser cannot
 * recover. `startIndex` shifts every position (a slice parsed where it lies in a file).
 */
export function parseModule(text: string, kind: SourceKind, startIndex = 0): ParseResult<File> {
  return parseDecorated(text, kind, { sourceType: 'module', ...(startIndex ? { startIndex } : {}) });
}

/** Retries after an error the parser cannot recover from; each drops the text from the error line on. */
const MAX_RETRIES = 4;

export function parseUnit(text: string, kind: SourceKind, base = 0, cell?: number): Unit {
  let source = text;
  let stoppedAt: number | undefined;
  let reason = '';
  for (let attempt = 0; attempt <= MAX_RETRIES; attempt++) {
    try {
      const ast = parseDecorated(source, kind, {});
      const unit: Unit = { text, base, cell, ast, syntaxErrors: (ast.errors?.length ?? 0) + attempt };
      if (stoppedAt !== undefined) {
        unit.unreadFrom = stoppedAt;
        unit.unreadReason = reason;
      }
      return unit;
    } catch (err) {
      // What the user is typing is usually the last statement, left open (`{ expireAfterSeconds: `):
      // analyse what comes before it, at unchanged offsets, rather than nothing.
      const pos = (err as { pos?: number }).pos;
      if (typeof pos !== 'number') break;
      stoppedAt = Math.min(pos, source.length);
      reason = String((err as Error).message).replace(/\s*\(\d+:\d+\)$/, '');
      const cut = source.lastIndexOf('\n', stoppedAt - 1);
      if (cut <= 0) break;
      source = source.slice(0, cut);
    }
  }
  return {
    text,
    base,
    cell,
    ast: undefined,
    syntaxErrors: 1,
    unreadFrom: Math.min(stoppedAt ?? 0, text.length),
    unreadReason: reason,
  };
}

/** The parsed units of one file's text. */
export function unitsOfFile(text: string, kind: SourceKind): Unit[] {
  if (kind !== 'ttlbook') return [parseUnit(text, kind)];
  const starts = lineStarts(text);
  return parseTtlbook(text)
    .cells.filter((c) => c.kind === 'code' && c.source.trim() !== '')
    .map((c) => parseUnit(c.source, 'js', starts[c.line - 1] ?? 0));
}

export { LineIndex, lineStarts } from './line-index';
