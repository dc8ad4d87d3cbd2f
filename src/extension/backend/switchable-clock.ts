/**
 * The engine's clock in the extension: virtual (moves only when told, the default) or system (wall
 * time), switchable while the engine runs, because an engine's clock is fixed at construction and
 * switching should not lose the data. Time never runs backwards: after virtual time went ahead of
 * the wall clock, "system" time keeps that lead and flows at real speed. Pending timers (the TTL
 * monitor's sleep) move to the new mode with their due times. No `vscode` import.
 *
 * In virtual mode `kind` is "virtual" and `advance`/`set` exist, so the shell's `sleep()` and
 * `clock.advance()` treat it as the VirtualClock it wraps.
 */
import { VirtualClock, type Clock } from '../../engine';
import type { CancelTimer } from '../../engine/clock';
import type { ClockMode } from './backend';

interface Timer {
  at: number;
  fn: () => void;
  cancel: () => void;
}

/** setTimeout's longest delay; longer waits re-arm. */
const MAX_DELAY = 2 ** 31 - 1;

export class SwitchableClock implements Clock {
  private virtual: VirtualClock | undefined;
  private offsetMs = 0;
  private readonly timers = new Set<Timer>();
  private disposed = false;
  /** Called after a timer ran (the TTL monitor woke): the backend tells the UI. */
  onTimerFired?: () => void;

  constructor(mode: ClockMode, startMs: number = Date.now()) {
    if (mode === 'virtual') this.virtual = new VirtualClock(startMs);
    else this.offsetMs = Math.max(0, startMs - Date.now());
  }

  get kind(): ClockMode {
    return this.virtual ? 'virtual' : 'system';
  }

  /** How far ahead of the wall clock system time runs (0 in virtual mode). */
  get aheadMs(): number {
    return this.virtual ? 0 : this.offsetMs;
  }

  /** Pending timers (for tests: none may be left after dispose). */
  get pendingTimers(): number {
    return this.timers.size;
  }

  now(): number {
    return this.virtual ? this.virtual.now() : Date.now() + this.offsetMs;
  }

  setTimer(atMs: number, fn: () => void): CancelTimer {
    const timer: Timer = { at: atMs, fn, cancel: () => undefined };
    if (this.disposed) return () => undefined;
    this.timers.add(timer);
    this.arm(timer);
    return () => {
      timer.cancel();
      this.timers.delete(timer);
    };
  }

  private arm(timer: Timer): void {
    const run = () => {
      this.timers.delete(timer);
      timer.fn();
      this.onTimerFired?.();
    };
    if (this.virtual) {
      timer.cancel = this.virtual.setTimer(timer.at, run);
      return;
    }
    const wait = (): void => {
      const delay = timer.at - this.now();
      const handle = setTimeout(
        () => {
          if (timer.at - this.now() > 0) wait();
          else run();
        },
        Math.min(MAX_DELAY, Math.max(0, delay)),
      );
      handle.unref?.();
      timer.cancel = () => clearTimeout(handle);
    };
    wait();
  }

  /** Virtual mode only: move forward, running due timers in order (VirtualClock.advance). */
  advance(ms: number): number {
    return this.requireVirtual('advance').advance(ms);
  }

  /** Virtual mode only: move forward to a date. */
  set(target: number | Date): number {
    return this.requireVirtual('set').set(target);
  }

  nextTimerAt(): number | undefined {
    let min: number | undefined;
    for (const t of this.timers) if (min === undefined || t.at < min) min = t.at;
    return min;
  }

  setMode(mode: ClockMode): void {
    if (mode === this.kind || this.disposed) return;
    const now = this.now();
    for (const t of this.timers) t.cancel();
    if (mode === 'virtual') {
      this.virtual = new VirtualClock(now);
    } else {
      this.virtual = undefined;
      // Keep time monotonic: a virtual clock that went ahead keeps its lead.
      this.offsetMs = Math.max(0, now - Date.now());
    }
    for (const t of this.timers) this.arm(t);
  }

  private requireVirtual(what: string): VirtualClock {
    if (!this.virtual)
      throw new Error(
        `Cannot ${what} the clock: the engine runs on the system clock, where time passes by itself. Switch to the virtual clock first (TTL Workbench: Switch Clock).`,
      );
    return this.virtual;
  }

  recoverFromInterruption(): void {
    this.virtual?.recoverFromInterruption();
  }

  dispose(): void {
    this.disposed = true;
    for (const t of this.timers) t.cancel();
    this.timers.clear();
    this.virtual?.dispose();
  }
}
