/**
 * Which field of a compound key the user meant as the TTL field, for the advice that goes with a
 * refused compound TTL index (rule 1.6): the engine's refusal and the TTL006 quick fix both name
 * it. Evidence first, then names, then a plain admission: the field that holds dates in the
 * documents seen (the collection's, or those a file inserts); else the field whose name reads like
 * a time (`createdAt`, `expiryDate`, `startTime`, `ts`, `expiresAt`); else the first field, saying
 * it was assumed. Pure, so the engine and the analysis agree.
 */

/** How many of the documents seen hold the field, and how many of those hold a date there (or an array with one, rule 7.8). */
export interface FieldSample {
  seen: number;
  dates: number;
}

export interface TTLFieldChoice {
  field: string;
  /** sampled: documents hold dates there; name: the name reads like a time; assumed: no evidence. */
  reason: 'sampled' | 'name' | 'assumed';
  /** Why, as a clause for a message ("createdAt holds dates in 3 of 3 documents"). */
  because: string;
}

/** The last word of a field path reads like a point in time. */
export function hasTimeName(field: string): boolean {
  const last = field.slice(field.lastIndexOf('.') + 1);
  return (
    /(?:[a-z0-9]At|_at|Date|_date|Time|_time|stamp)$/.test(last) ||
    /^(?:at|date|time|ts|timestamp)$/i.test(last) ||
    /^expir/i.test(last)
  );
}

/**
 * The TTL field among `fields` (in key order). `sample` tells, per field, what the documents seen
 * hold there; without documents (no collection yet, nothing inserted) it is left out.
 */
export function chooseTTLField(fields: readonly string[], sample?: (field: string) => FieldSample): TTLFieldChoice {
  if (sample) {
    let best: { field: string; s: FieldSample } | undefined;
    for (const field of fields) {
      const s = sample(field);
      if (s.dates > 0 && (!best || s.dates > best.s.dates)) best = { field, s };
    }
    if (best)
      return {
        field: best.field,
        reason: 'sampled',
        because: `${best.field} holds dates in ${best.s.dates} of the ${best.s.seen} document${best.s.seen === 1 ? '' : 's'} seen with it`,
      };
  }
  const named = fields.find(hasTimeName);
  if (named !== undefined) return { field: named, reason: 'name', because: `${named} is named like a date field` };
  return {
    field: fields[0],
    reason: 'assumed',
    because: `${fields[0]} assumed: no field of the key ${sample ? 'holds dates in the documents seen or ' : ''}is named like a date field; put the field that holds the date documents expire by`,
  };
}
