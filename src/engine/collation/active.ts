/**
 * The collation an operation runs under. A query, sort, `$group` or `distinct` compares strings in
 * dozens of places (the matcher, sort keys, expression operators, accumulators); mongod hands its
 * collator to each of them. Here the command installs it for the span of its work, like an
 * interrupt source (interrupt.ts), and `compareValues` reads it, so no call site changes.
 *
 * What must stay binary whatever the operation's collation (index entry order of an index without a
 * collation, field names, `$regex`, byte-wise string operators) does not go through the scope:
 * indexes compare with their own collator (`compareUnder`).
 */
import type { Collator } from './collator';

/**
 * One activation of a collator. Hashing needs equal strings to share one key, but ICU's sort keys
 * are not available through Intl: each string is mapped to the first string met that compares equal
 * to it (a sorted list of representatives, searched with the collator), kept for this activation only.
 */
export class CollationScope {
  private readonly representatives: string[] = [];

  constructor(readonly collator: Collator) {}

  /** The first string seen in this scope that the collation holds equal to `s`. */
  representative(s: string): string {
    const reps = this.representatives;
    let lo = 0;
    let hi = reps.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.collator.compare(reps[mid], s);
      if (c === 0) return reps[mid];
      if (c < 0) lo = mid + 1;
      else hi = mid;
    }
    reps.splice(lo, 0, s);
    return s;
  }
}

/** The scope in force; null compares strings as UTF-8 bytes (the "simple" collation). */
export const activeCollation: { scope: CollationScope | null } = { scope: null };

/** Runs `fn` with strings compared under `collator` (null: binary), then restores the previous scope. */
export function withCollator<T>(collator: Collator | null, fn: () => T): T {
  const saved = activeCollation.scope;
  activeCollation.scope = collator === null ? null : new CollationScope(collator);
  try {
    return fn();
  } finally {
    activeCollation.scope = saved;
  }
}

/** The collator of the operation in progress, or null for binary comparison. */
export function currentCollator(): Collator | null {
  return activeCollation.scope?.collator ?? null;
}
