/**
 * The engine's only source of time. Everything that reads "now" (TTL thresholds, $currentDate,
 * Cosmos `_ts`) asks the clock, so a virtual clock makes expiry deterministic and fast to watch.
 */
export interface Clock {
  readonly kind: 'system' | 'virtual';
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export class SystemClock implements Clock {
  readonly kind = 'system' as const;
  now(): number {
    return Date.now();
  }
}
