/**
 * The options of an expiry forecast as users write them — `ttl.forecast("events", {horizon: "7d",
 * buckets: 7, expireAfterSeconds: 3600})` in the shell, `{ttlWorkbench: "forecast", ...}` over the
 * wire — read into the engine's request (src/engine/ttl/forecast.ts). One reader for both, so
 * the two accept and refuse the same things.
 */
import { parseDuration } from './duration';

export interface ForecastOptions {
  index?: string | Record<string, unknown>;
  expireAfterSeconds?: unknown;
  partialFilterExpression?: Record<string, unknown>;
  horizonMs?: number;
  buckets?: number;
}

const KNOWN = ['index', 'expireAfterSeconds', 'horizon', 'buckets', 'partialFilterExpression'];

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * `toNumber` reads a number in the caller's representation (BSON Int32 / Long / Double over the
 * wire); `skip` names fields of the caller's own (the wire command's `db`, `collection`).
 */
export function readForecastOptions(
  input: unknown,
  toNumber: (v: unknown) => unknown = (v) => v,
  skip: readonly string[] = [],
): ForecastOptions | { error: string } {
  if (input === undefined || input === null) return {};
  if (!isObject(input)) return { error: 'the forecast options are a document, e.g. { horizon: "24h", buckets: 24 }' };
  const out: ForecastOptions = {};
  for (const key of Object.keys(input)) {
    if (skip.includes(key)) continue;
    if (!KNOWN.includes(key)) return { error: `unknown forecast option "${key}"; the options are ${KNOWN.join(', ')}` };
  }
  const { index, expireAfterSeconds, horizon, buckets, partialFilterExpression } = input;
  if (index !== undefined) {
    if (typeof index !== 'string' && !isObject(index))
      return { error: 'index is an index name or a key pattern, e.g. "createdAt_1" or { createdAt: 1 }' };
    out.index = index;
  }
  if (expireAfterSeconds !== undefined) out.expireAfterSeconds = toNumber(expireAfterSeconds);
  if (horizon !== undefined) {
    const ms = parseDuration(toNumber(horizon));
    if (typeof ms !== 'number') return { error: `horizon: ${ms.error}` };
    out.horizonMs = ms;
  }
  if (buckets !== undefined) {
    const n = toNumber(buckets);
    if (typeof n !== 'number') return { error: 'buckets is a whole number from 1 to 10000' };
    out.buckets = n;
  }
  if (partialFilterExpression !== undefined) {
    if (!isObject(partialFilterExpression))
      return { error: 'partialFilterExpression is a query document, e.g. { status: "done" }' };
    out.partialFilterExpression = partialFilterExpression;
  }
  return out;
}
