/**
 * Notebook outputs of a playground cell, without `vscode`: each structured output of the shell
 * (src/shell/cell-outputs.ts, shared with the CLI) becomes the items of one notebook output. The
 * VS Code glue turns a spec into `NotebookCellOutput`s one to one.
 *
 * - printed text: a stdout stream (consecutive prints merge into one block);
 * - a document or a list of documents: the documents renderer's own mime first (VS Code prefers
 *   mime types it has no built-in order for), which draws mongosh's text by default with a Table
 *   view one click away, then mongosh's text as plain text. No application/json item: VS Code
 *   ranks it above text/plain and would show the value as JSON with tab indents, not as mongosh
 *   prints it;
 * - a `ttl.forecast(…)` result: the forecast renderer's mime first (the chart and its table),
 *   then JSON, then mongosh's text;
 * - anything else: mongosh's text;
 * - an error: an error output (VS Code draws it as an error) whose message carries the MongoDB code
 *   and codeName; its text is wrapped, since the error view does not wrap long lines.
 */
import { codeSuffix, type CellOutput } from '../../shell/cell-outputs';

/** The table renderer's mime type: relaxed extended JSON of an array of documents. */
export const DOCUMENTS_MIME = 'application/vnd.ttl-workbench.documents+json';
/** The forecast renderer's mime type: `{db, collection, monitor, forecast}` (the forecast as relaxed EJSON). */
export const FORECAST_MIME = 'application/vnd.ttl-workbench.forecast+json';
export const JSON_MIME = 'application/json';
export const TEXT_MIME = 'text/plain';

export type OutputItemSpec = { mime: string; json: unknown } | { mime: string; text: string };

export type OutputSpec =
  | { kind: 'stdout'; text: string }
  | { kind: 'items'; items: OutputItemSpec[] }
  | { kind: 'error'; name: string; message: string; stack: string };

export function outputSpecOf(o: CellOutput): OutputSpec {
  switch (o.kind) {
    case 'print':
      return { kind: 'stdout', text: `${o.text}\n` };
    case 'value': {
      const text: OutputItemSpec = { mime: TEXT_MIME, text: o.text };
      if (o.json === undefined || o.shape === 'text') return { kind: 'items', items: [text] };
      if (o.shape === 'forecast' && o.forecast)
        return {
          kind: 'items',
          items: [
            { mime: FORECAST_MIME, json: { ...o.forecast, forecast: o.json } },
            { mime: JSON_MIME, json: o.json },
            text,
          ],
        };
      const documents = o.shape === 'documents' ? o.json : [o.json];
      return {
        kind: 'items',
        items: [{ mime: DOCUMENTS_MIME, json: { documents, hasMore: o.hasMore, text: o.text, shape: o.shape } }, text],
      };
    }
    case 'error': {
      const name = o.codeName ? `${o.name}[${o.codeName}]` : o.name;
      const message = `${o.message}${codeSuffix(o)}`;
      const where =
        o.line !== undefined ? `\n    at line ${o.line}${o.column !== undefined ? `, column ${o.column}` : ''}` : '';
      return { kind: 'error', name, message, stack: `${wrapText(`${name}: ${message}`, ERROR_WIDTH)}${where}` };
    }
  }
}

/** Columns of an error's text: the notebook's error view neither wraps nor scrolls far enough to read a long line. */
export const ERROR_WIDTH = 100;

/** Text broken at spaces into lines of at most `width` characters (a longer word keeps its own line). */
export function wrapText(text: string, width: number): string {
  return text
    .split('\n')
    .map((line) => {
      const out: string[] = [];
      let current = '';
      for (const word of line.split(' ')) {
        if (current && current.length + 1 + word.length > width) {
          out.push(current);
          current = word;
        } else current = current ? `${current} ${word}` : word;
      }
      out.push(current);
      return out.join('\n');
    })
    .join('\n');
}

/** MongoDB's code for an operation stopped by the user (killOp, or here the notebook's interrupt). */
export const INTERRUPTED = { code: 11601, codeName: 'Interrupted' } as const;

/** The error output of a cell interrupted between two statements. */
export function interruptedSpec(ranStatements: number): OutputSpec {
  const message = `Execution interrupted after ${ranStatements} statement${ranStatements === 1 ? '' : 's'}: the rest of the cell did not run (code ${INTERRUPTED.code}, ${INTERRUPTED.codeName})`;
  return {
    kind: 'error',
    name: `MongoshInterruptedError[${INTERRUPTED.codeName}]`,
    message,
    stack: wrapText(`MongoshInterruptedError[${INTERRUPTED.codeName}]: ${message}`, ERROR_WIDTH),
  };
}

/** The text a run of outputs shows as plain text, as the CLI prints it (for comparing the two). */
export function plainTextOf(specs: readonly OutputSpec[]): string {
  let out = '';
  for (const s of specs) {
    if (s.kind === 'stdout') out += s.text;
    else if (s.kind === 'items') {
      const t = s.items.find((i) => i.mime === TEXT_MIME);
      if (t && 'text' in t) out += `${t.text}\n`;
    }
  }
  return out;
}

/**
 * Text with each ObjectId's random and counter bytes masked, keeping its 4-byte timestamp (which
 * comes from the engine's clock): two runs of the same notebook, in two processes, differ only there.
 */
export function maskObjectIds(text: string): string {
  return text.replace(/ObjectId\('([0-9a-f]{8})[0-9a-f]{16}'\)/g, "ObjectId('$1…')");
}
