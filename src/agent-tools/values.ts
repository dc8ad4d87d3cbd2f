/** Small conversions every tool shares: dates in the input, engine values and errors in the output. */
import { EJSON } from 'bson';
import { ToolError } from './input';

/** An engine value as plain JSON (relaxed Extended JSON: numbers as numbers, dates as {$date}). */
export function plain(value: unknown): unknown {
  if (value === undefined) return undefined;
  return EJSON.serialize(value, { relaxed: true });
}

/** `now` of an input as milliseconds (the current time when absent). */
export function parseNow(now: string | undefined, tool: string): number {
  if (now === undefined) return Date.now();
  const ms = new Date(now).getTime();
  if (Number.isNaN(ms))
    throw new ToolError(
      `${tool}: now must be an ISO date such as '2026-01-01T00:00:00Z', got ${JSON.stringify(now)}.`,
      'input',
    );
  return ms;
}

/** An engine refusal as data: mongod's code and codeName with the message. */
export function errorFacts(err: unknown): { code?: number; codeName?: string; message: string } {
  const e = err as { code?: unknown; codeName?: unknown; message?: unknown };
  return {
    ...(typeof e?.code === 'number' ? { code: e.code } : {}),
    ...(typeof e?.codeName === 'string' ? { codeName: e.codeName } : {}),
    message: typeof e?.message === 'string' ? e.message : String(err),
  };
}

/** ` (code 85, IndexOptionsConflict)` or nothing. */
export function codeWords(e: { code?: number; codeName?: string }): string {
  return e.code !== undefined ? ` (code ${e.code}${e.codeName ? `, ${e.codeName}` : ''})` : '';
}
