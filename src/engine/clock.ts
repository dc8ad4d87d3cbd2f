/**
 * The engine's only source of time. Everything that reads "now" (TTL thresholds, $currentDate,
 * Cosmos `_ts`) and everything that waits (the TTL monitor's sleep) goes through a Clock, so a
 * virtual clock makes expiry deterministic and an hour of it takes a millisecond.
 */
import { checkForInterrupt } from './interrupt';

export type CancelTimer = () => void;

export interface Clock {
  readonly kind: 'system' | 'virtual';
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Run `fn` once the clock reaches `atMs`; returns a function that cancels it. */
  setTimer(atMs: number, fn: () => void): CancelTimer;
  /** Cancel every pending timer (engine.close()). */
  dispose(): void;
}

/** Wall-clock time; timers are unref'd so they never keep a process alive. */
export class SystemClock implements Clock {
  readonly kind = 'system' as const;
  private readonly timers = new Set<NodeJS.Timeout>();

  now(): number {
    return Date.now();
  }

  setTimer(atMs: number, fn: () => void): CancelTimer {
    const handle = setTimeout(
      () => {
        this.timers.delete(handle);
        fn();
      },
      Math.max(0, atMs - Date.now()),
    );
    handle.unref?.();
    this.timers.add(handle);
    return () => {
      clearTimeout(handle);
      this.timers.delete(handle);
    };
  }

  dispose(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}

interface VirtualTimer {
  at: number;
  seq: number;
  fn: () => void;
}

/**
 * Time that moves only when told to. `advance` runs every timer that falls due on the way, in time
 * order, with `now()` reading each timer's own due time while it runs, so "advance 61 s" gives the
 * same TTL passes as a real minute would. Time never runs backwards. Between two timers is a safe
 * point (checkForInterrupt): a move stopped there by a time limit keeps the time of the last timer run.
 */
export class VirtualClock implements Clock {
  readonly kind = 'virtual' as const;
  private current: number;
  private timers: VirtualTimer[] = [];
  private seq = 0;
  private advancing = false;

  constructor(start: number | Date = Date.now()) {
    this.current = typeof start === 'number' ? start : start.getTime();
    if (!Number.isFinite(this.current)) throw new RangeError('VirtualClock needs a valid start time.');
  }

  now(): number {
    return this.current;
  }

  setTimer(atMs: number, fn: () => void): CancelTimer {
    const timer: VirtualTimer = { at: Math.max(atMs, this.current), seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Move forward by `ms` milliseconds, running due timers in order. Returns the new time. */
  advance(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0)
      throw new RangeError(
        `VirtualClock.advance needs a non-negative number of milliseconds, got ${ms}; time never runs backwards.`,
      );
    return this.runUntil(this.current + ms);
  }

  /** Move forward to `target` (a time at or after now). */
  set(target: number | Date): number {
    const t = typeof target === 'number' ? target : target.getTime();
    if (!Number.isFinite(t)) throw new RangeError('VirtualClock.set needs a valid date.');
    if (t < this.current) {
      throw new RangeError(
        `VirtualClock.set cannot move backwards (now ${new Date(this.current).toISOString()}, asked for ${new Date(t).toISOString()}); time never runs backwards.`,
      );
    }
    return this.runUntil(t);
  }

  /** When the next timer is due, if any. */
  nextTimerAt(): number | undefined {
    let min: number | undefined;
    for (const t of this.timers) if (min === undefined || t.at < min) min = t.at;
    return min;
  }

  private runUntil(target: number): number {
    if (this.advancing)
      throw new Error('VirtualClock.advance was called from a timer it is running; schedule a timer instead.');
    this.advancing = true;
    try {
      for (;;) {
        checkForInterrupt();
        const next = this.popDue(target);
        if (!next) break;
        this.current = Math.max(this.current, next.at);
        next.fn();
      }
      this.current = Math.max(this.current, target);
      return this.current;
    } finally {
      this.advancing = false;
    }
  }

  private popDue(target: number): VirtualTimer | undefined {
    let best = -1;
    for (let i = 0; i < this.timers.length; i++) {
      const t = this.timers[i];
      if (t.at > target) continue;
      if (best < 0 || t.at < this.timers[best].at || (t.at === this.timers[best].at && t.seq < this.timers[best].seq))
        best = i;
    }
    if (best < 0) return undefined;
    return this.timers.splice(best, 1)[0];
  }

  dispose(): void {
    this.timers = [];
  }

  /**
   * After a host interrupted a timer mid-run (a vm time limit ends execution without running
   * `finally` blocks), clear the guard so the clock can advance again.
   */
  recoverFromInterruption(): void {
    this.advancing = false;
  }
}
