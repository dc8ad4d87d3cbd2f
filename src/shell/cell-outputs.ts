/**
 * What one statement of a playground shows, as structured outputs: printed text, a value (with its
 * shape: a list of documents, one document, or anything else as text) or an error with MongoDB's
 * code and codeName. The CLI and the notebook controller both turn statement results into outputs
 * here and nowhere else, so a notebook cell and the same cell run by the CLI show the same thing:
 * the CLI writes `outputText`, the controller maps each output to notebook output items.
 */
import type { ThrownInfo } from './errors';
import { forecastContextOf, type ForecastContext } from './forecast-output';
import { shellDisplay } from './render';
import { MORE_HINT, type StatementResult } from './session';

/**
 * `documents`: a non-empty array of documents (a table); `document`: one document; `forecast`: a
 * `ttl.forecast(…)` result (a chart); `text`: the rest.
 */
export type ValueShape = 'documents' | 'document' | 'forecast' | 'text';

export type CellOutput =
  | { kind: 'print'; text: string }
  | {
      kind: 'value';
      shape: ValueShape;
      /** mongosh's rendering, with "Type "it" for more" under a cursor batch that has more. */
      text: string;
      /** Relaxed extended JSON (documents and document shapes only). */
      json?: unknown;
      /** A forecast's namespace and monitor facts, for its chart (`forecast` shape only). */
      forecast?: ForecastContext;
      hasMore: boolean;
    }
  | (ThrownInfo & {
      kind: 'error';
      /** mongosh's one-line form: `MongoServerError[DuplicateKey]: E11000 …`. */
      text: string;
    });

function isDocument(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  if ((value as { _bsontype?: unknown })._bsontype !== undefined) return false;
  if (Object.prototype.toString.call(value) === '[object Date]') return false;
  if (typeof (value as { [shellDisplay]?: unknown })[shellDisplay] === 'function') return false;
  // Plain objects of either realm (the script's own Object.prototype has a null prototype too).
  const proto = Object.getPrototypeOf(value);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

export function shapeOf(value: unknown): ValueShape {
  if (Array.isArray(value)) return value.length > 0 && value.every(isDocument) ? 'documents' : 'text';
  return isDocument(value) ? 'document' : 'text';
}

/** The outputs of one statement, in the order mongosh shows them: printed lines, then the value or the error. */
export function statementOutputs(s: StatementResult): CellOutput[] {
  const out: CellOutput[] = [];
  if (s.output.length > 0) out.push({ kind: 'print', text: s.output.join('\n') });
  if (!s.ok) {
    const e = s.error!;
    out.push({
      kind: 'error',
      name: e.name,
      message: e.message,
      ...(e.code !== undefined ? { code: e.code } : {}),
      ...(e.codeName !== undefined ? { codeName: e.codeName } : {}),
      line: e.line ?? s.line,
      ...(e.column !== undefined ? { column: e.column } : {}),
      text: s.rendered ?? `${e.name}: ${e.message}`,
    });
    return out;
  }
  // mongosh prints nothing for undefined or an empty cursor.
  if (s.rendered === undefined || s.rendered === '') return out;
  const forecast = forecastContextOf(s.value);
  const shape = forecast ? 'forecast' : shapeOf(s.value);
  const hasMore = s.hasMore === true;
  out.push({
    kind: 'value',
    shape,
    text: hasMore ? `${s.rendered}\n${MORE_HINT}` : s.rendered,
    ...(shape !== 'text' && s.ejson !== undefined ? { json: s.ejson } : {}),
    ...(forecast ? { forecast } : {}),
    hasMore,
  });
  return out;
}

/** What the outputs print on standard output (errors go to standard error, see `errorText`). */
export function outputText(outputs: readonly CellOutput[]): string {
  let text = '';
  for (const o of outputs) if (o.kind !== 'error') text += `${o.text}\n`;
  return text;
}

/** An error with where it happened and its MongoDB code: `file:3:1: MongoServerError: … (code 11000, DuplicateKey)`. */
export function errorText(o: Extract<CellOutput, { kind: 'error' }>, where: string): string {
  const at = `${where}${o.line !== undefined ? `:${o.line}` : ''}${o.column !== undefined ? `:${o.column}` : ''}`;
  return `${at}: ${o.name}: ${o.message}${codeSuffix(o)}`;
}

/** ` (code 11000, DuplicateKey)`, or nothing for an error without a code. */
export function codeSuffix(o: { code?: number; codeName?: string }): string {
  return o.code !== undefined ? ` (code ${o.code}${o.codeName ? `, ${o.codeName}` : ''})` : '';
}
