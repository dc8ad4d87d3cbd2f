/**
 * `ttl-workbench check`: the editor's TTL diagnostics, headless for CI. Text output is one line
 * per problem, `file:line:col  severity  code  message`, then a count; `--json` prints one JSON
 * array of `{file, line, column, endLine, endColumn, severity, code, message}` (1-based). Exit code
 * 1 when any problem is an error.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeText, LineIndex, type Problem } from '../analysis';
import type { CheckOptions } from './args';
import { collectFiles } from './check-files';
import { workspaceImports } from './workspace-imports';

export interface CheckRecord {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  severity: Problem['severity'];
  code: string;
  message: string;
}

export interface CheckOutcome {
  records: CheckRecord[];
  files: number;
  errors: number;
  /** Files the parser could not read to the end (a TTL022 information says where it stopped). */
  partialFiles: number;
}

export function checkPaths(options: CheckOptions, cwd: string): CheckOutcome {
  const records: CheckRecord[] = [];
  const files = collectFiles(options.paths, cwd);
  let partialFiles = 0;
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    const { problems, partial } = analyzeText(text, file, {
      serverVersion: options.serverVersion,
      disabledRules: options.disabledRules,
      imports: workspaceImports(file, cwd),
    });
    if (partial) partialFiles++;
    if (problems.length === 0) continue;
    const index = new LineIndex(text);
    const shown = path.relative(cwd, file) || file;
    for (const p of problems) {
      const s = index.position(p.start);
      const e = index.position(p.end);
      records.push({
        file: shown,
        line: s.line + 1,
        column: s.character + 1,
        endLine: e.line + 1,
        endColumn: e.character + 1,
        severity: p.severity,
        code: p.code,
        message: p.message,
      });
    }
  }
  return { records, files: files.length, errors: records.filter((r) => r.severity === 'error').length, partialFiles };
}

export function formatText(outcome: CheckOutcome): string {
  const partial = outcome.partialFiles
    ? `${outcome.partialFiles} file${outcome.partialFiles === 1 ? '' : 's'} could not be fully read (see TTL022)`
    : '';
  if (outcome.records.length === 0) return partial ? `${partial}\n` : '';
  const lines = outcome.records.map((r) => `${r.file}:${r.line}:${r.column}  ${r.severity}  ${r.code}  ${r.message}`);
  const warnings = outcome.records.length - outcome.errors;
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  lines.push(
    '',
    `${plural(outcome.records.length, 'problem')} (${plural(outcome.errors, 'error')}, ${plural(warnings, 'warning')} or hint${warnings === 1 ? '' : 's'}) in ${plural(outcome.files, 'file')} checked${partial ? `; ${partial}` : ''}`,
  );
  return `${lines.join('\n')}\n`;
}

export function formatJson(outcome: CheckOutcome): string {
  return `${JSON.stringify(outcome.records, null, 2)}\n`;
}
