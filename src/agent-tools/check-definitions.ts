/**
 * ttl_check_definitions: the editor's TTL diagnostics (src/analysis) over a snippet, a file or a
 * line range of a file, as plain records. A selection is analysed with its whole file (a `const`
 * above it still gives a value) and only the problems that start in it are reported.
 */
import type { Problem } from '../analysis';
import { LineIndex } from '../analysis/line-index';
import type { ToolHost } from './host';
import { ToolError } from './input';
import { capList, capText, LIMITS } from './limits';

export interface CheckDefinitionsInput {
  code?: string;
  path?: string;
  language?: 'javascript' | 'typescript' | 'javascriptreact' | 'typescriptreact' | 'ttlbook';
  startLine?: number;
  endLine?: number;
  serverVersion?: '8.0' | '7.0';
  disabledRules?: string[];
}

const CHECKED_EXTENSIONS = /\.(js|mjs|cjs|jsx|ts|mts|cts|tsx|ttlbook)$/i;

export async function checkDefinitions(host: Pick<ToolHost, 'readSource' | 'analyze'>, input: CheckDefinitionsInput) {
  if ((input.code === undefined) === (input.path === undefined))
    throw new ToolError(
      "ttl_check_definitions: give either 'code' (source text) or 'path' (a file), not both or neither.",
      'input',
    );
  if (input.startLine !== undefined && input.endLine !== undefined && input.endLine < input.startLine)
    throw new ToolError(
      `ttl_check_definitions: endLine (${input.endLine}) is before startLine (${input.startLine}).`,
      'input',
    );
  let text: string;
  let nameOrLanguage: string;
  let shown: string;
  if (input.path !== undefined) {
    if (!CHECKED_EXTENSIONS.test(input.path))
      throw new ToolError(
        `ttl_check_definitions: ${input.path} is not a file the analysis reads (.js .mjs .cjs .jsx .ts .mts .cts .tsx .ttlbook); pass its text as 'code' with a 'language' instead.`,
        'input',
      );
    const source = await host.readSource(input.path);
    text = source.text;
    nameOrLanguage = source.name;
    shown = input.path;
  } else {
    text = input.code!;
    nameOrLanguage = input.language ?? 'javascript';
    shown = 'the snippet';
  }
  const { problems, syntaxErrors } = host.analyze(text, nameOrLanguage, {
    serverVersion: input.serverVersion ?? '8.0',
    disabledRules: input.disabledRules ?? [],
  });
  const lines = new LineIndex(text);
  const from = input.startLine ?? 1;
  const to = input.endLine ?? Infinity;
  const records = problems.map((p) => record(p, text, lines)).filter((r) => r.line >= from && r.line <= to);
  const { items, omitted } = capList(records, LIMITS.problems);
  const errors = records.filter((r) => r.severity === 'error').length;
  const range =
    input.startLine !== undefined || input.endLine !== undefined
      ? ` lines ${from}-${to === Infinity ? 'end' : to} of`
      : '';
  return {
    summary:
      records.length === 0
        ? `No TTL problems in${range} ${shown}.`
        : `${records.length} TTL problem${records.length === 1 ? '' : 's'} (${errors} error${errors === 1 ? '' : 's'}) in${range} ${shown}.`,
    problems: items,
    ...(omitted ? { omittedProblems: omitted } : {}),
    ...(syntaxErrors
      ? { syntaxErrors, note: 'The parser recovered from syntax errors; code after them may be unchecked.' }
      : {}),
  };
}

function record(p: Problem, text: string, lines: LineIndex) {
  const s = lines.position(p.start);
  const e = lines.position(p.end);
  return {
    code: p.code,
    severity: p.severity,
    message: p.message,
    line: s.line + 1,
    column: s.character + 1,
    endLine: e.line + 1,
    endColumn: e.character + 1,
    source: capText(text.slice(p.start, p.end), 200),
    docs: p.docs,
    fixes: p.fixes.map((f) => ({
      title: f.title,
      edits: f.edits.map((edit) => {
        const at = lines.position(edit.start);
        return {
          line: at.line + 1,
          column: at.character + 1,
          replace: capText(text.slice(edit.start, edit.end), 500),
          with: edit.fromInput ? `<${f.input?.prompt ?? 'a value you choose'}>` : capText(edit.newText, 500),
        };
      }),
    })),
  };
}
