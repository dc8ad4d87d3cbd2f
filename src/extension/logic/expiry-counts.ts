/**
 * The count requests behind "how many documents are expired now / due within the next hour" and
 * the eligibility preview before a TTL change. Each is a `count` command with a range on the TTL
 * field, hinted to the index itself, so the planner answers from the index range (rule 7.7: the
 * monitor deletes what lies in [min date, now − expireAfterSeconds], both ends inclusive; only
 * dates count, and a range on a date is type-bracketed to dates). A partial index's filter goes in
 * verbatim, so the hinted partial index can serve the query.
 */
import type { Document } from '../../engine';
import { formatCount } from './durations';

export interface ExpiryTarget {
  collection: string;
  /** The indexed date field (`_id` for a clustered collection's own TTL). */
  field: string;
  /** Hint: the index that holds the field's dates (none: the planner chooses, maybe a scan). */
  indexName?: string;
  partialFilterExpression?: Document;
  /** Dates before 1970 never expire through a clustered collection's TTL (rule 5.4). */
  notBeforeEpoch?: boolean;
}

/** The moment at or before which a date is expired: now − seconds. */
export function expiryThreshold(nowMs: number, seconds: number): Date {
  return new Date(nowMs - seconds * 1000);
}

function withPartial(target: ExpiryTarget, range: Document): Document {
  const clause = { [target.field]: range };
  return target.partialFilterExpression ? { $and: [target.partialFilterExpression, clause] } : clause;
}

function countOf(target: ExpiryTarget, range: Document, limit?: number): Document {
  return {
    count: target.collection,
    query: withPartial(target, range),
    ...(target.indexName ? { hint: target.indexName } : {}),
    ...(limit ? { limit } : {}),
  };
}

/** Documents the next pass deletes: field ≤ now − seconds. */
export function expiredNowCount(target: ExpiryTarget, seconds: number, nowMs: number, limit?: number): Document {
  const range: Document = { $lte: expiryThreshold(nowMs, seconds) };
  if (target.notBeforeEpoch) range.$gte = new Date(0);
  return countOf(target, range, limit);
}

/** Documents that expire within `windowSeconds` from now: now − seconds < field ≤ now + window − seconds. */
export function dueWithinCount(
  target: ExpiryTarget,
  seconds: number,
  nowMs: number,
  windowSeconds: number,
  limit?: number,
): Document {
  const range: Document = {
    $gt: expiryThreshold(nowMs, seconds),
    $lte: expiryThreshold(nowMs + windowSeconds * 1000, seconds),
  };
  if (target.notBeforeEpoch && (range.$gt as Date).getTime() < 0) range.$gte = new Date(0);
  return countOf(target, range, limit);
}

/**
 * Documents that become eligible at once when expireAfterSeconds changes from `oldSeconds` (or no
 * TTL / an invalid value the monitor skipped: undefined) to `newSeconds`: those now past the new
 * threshold that were not past the old one. Undefined when nothing can become eligible (growing).
 */
export function newlyEligibleCount(
  target: ExpiryTarget,
  oldSeconds: number | undefined,
  newSeconds: number,
  nowMs: number,
): Document | undefined {
  if (oldSeconds === undefined) return expiredNowCount(target, newSeconds, nowMs);
  if (newSeconds >= oldSeconds) return undefined;
  const range: Document = { $gt: expiryThreshold(nowMs, oldSeconds), $lte: expiryThreshold(nowMs, newSeconds) };
  return countOf(target, range);
}

/** `n` of a count reply. */
export function countReplyN(reply: Document): number {
  return Number(reply.n ?? 0);
}

/** Input boxes count eligible documents up to this, so a keystroke never waits for a big count. */
export const PREVIEW_CAP = 100_000;

/** The eligibility preview in words (a count at `cap` is "at least"). */
export function eligibleWords(n: number, cap = Infinity): string {
  if (n === 0) return 'No existing document becomes eligible at once.';
  const count = n >= cap ? `At least ${formatCount(cap)}` : formatCount(n);
  const one = n === 1;
  return `${count} existing document${one ? '' : 's'} become${one ? 's' : ''} eligible at once: the next TTL pass deletes ${one ? 'it' : 'them'}.`;
}
