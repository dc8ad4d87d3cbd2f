/**
 * A count on a real server that never runs unbounded: each step is a `countDocuments` with a
 * `limit` and the time left of one `maxTimeMS` budget. Steps grow tenfold (1,000, 10,000, …, the
 * cap), so a small answer is exact and fast, and when the budget runs out the answer is still
 * useful: "more than N", N being the last limit the server reached in time. Pure over the count
 * function it is given (the driver's in production, any function in tests).
 */

/** One count step: resolves with n ≤ limit, or rejects (MaxTimeMSExpired, code 50, when out of time). */
export type CountStep = (limit: number, maxTimeMS: number) => Promise<number>;

export type BoundedCount =
  /** The exact count (below the cap), or `atLeast` when it reached the cap. */
  | { kind: 'exact'; n: number }
  | { kind: 'atLeast'; n: number }
  /** The budget ran out: there are more than `n` (0 when even the first step did not finish). */
  | { kind: 'moreThan'; n: number; maxTimeMS: number };

export function isTimeLimitError(err: unknown): boolean {
  const e = err as { code?: unknown; codeName?: unknown } | undefined;
  return e?.code === 50 || e?.codeName === 'MaxTimeMSExpired';
}

export function stepLimits(cap: number, first = 1_000): number[] {
  const out: number[] = [];
  for (let l = Math.min(first, cap); l < cap; l *= 10) out.push(l);
  out.push(cap);
  return out;
}

export async function boundedCount(
  step: CountStep,
  options: { cap: number; maxTimeMS: number; now?: () => number },
): Promise<BoundedCount> {
  const now = options.now ?? (() => performance.now());
  const deadline = now() + options.maxTimeMS;
  let reached = 0;
  for (const limit of stepLimits(options.cap)) {
    const left = Math.floor(deadline - now());
    if (left <= 0) return { kind: 'moreThan', n: reached, maxTimeMS: options.maxTimeMS };
    let n: number;
    try {
      n = await step(limit, left);
    } catch (err) {
      if (isTimeLimitError(err)) return { kind: 'moreThan', n: reached, maxTimeMS: options.maxTimeMS };
      throw err;
    }
    if (n < limit) return { kind: 'exact', n };
    if (limit === options.cap) return { kind: 'atLeast', n };
    reached = n;
  }
  return { kind: 'atLeast', n: options.cap };
}

/** The count in words for messages: `1,234`, `at least 100,000`, `more than 10,000 (counting stopped at 2 s)`. */
export function boundedCountWords(c: BoundedCount): string {
  const f = (n: number) => n.toLocaleString('en-US');
  switch (c.kind) {
    case 'exact':
      return f(c.n);
    case 'atLeast':
      return `at least ${f(c.n)}`;
    case 'moreThan':
      return `more than ${f(c.n)} (counting stopped at its ${f(c.maxTimeMS)} ms limit)`;
  }
}
