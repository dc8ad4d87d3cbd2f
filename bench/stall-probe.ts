/**
 * How long this thread's event loop was held while an operation ran: what the user of the
 * extension host feels (a frozen tree, late keystrokes), whatever thread does the work.
 * perf_hooks' monitorEventLoopDelay samples every millisecond; each sample is the time between
 * two turns of its timer, so an idle loop reads ~1 ms and a 300 ms block reads one 300 ms sample.
 *
 * On a shared machine a long gap is not always this thread's work: the thread may have been
 * ready and waiting for a core. So a second timer follows the same gaps and splits the longest
 * one with Linux's per-thread schedstat: time on a CPU (this thread's own work, GC included),
 * time runnable but waiting for a core (the machine's load), and the rest asleep or blocked in a
 * system call (a synchronous fsync, a wait). The file stays open and is read in place (~2 µs a
 * tick; opening it each time cost ~30 µs, 3% of the thread at 1 kHz).
 */
import * as fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface Stalls {
  /** Wall-clock time of the operation alone. */
  wallMs: number;
  /** Longest gap between two turns of the event loop while it ran (includes the 1 ms timer interval). */
  maxMs: number;
  p99Ms: number;
  /** Samples taken (about one per millisecond of a free loop). */
  samples: number;
  /** This thread's CPU time during the operation (absent where schedstat is not available). */
  cpuMs?: number;
  /** The longest gap the second timer saw, split by what the thread was doing. */
  worstGap?: Gap;
  /** The process's resident memory at its highest sample (every ~50 ms): both threads' heaps, buffers, code. */
  peakRssBytes: number;
}

export interface Gap {
  ms: number;
  /** On a CPU: this thread's own work. */
  cpuMs: number;
  /** Runnable, waiting for a core: other threads and processes had them. */
  waitMs: number;
}

/** Opened by this (the main) thread: `thread-self` names the thread that opens it. */
let schedstat: number | undefined | null;
const buffer = Buffer.alloc(128);

/** This thread's time on a CPU and waiting in the run queue, in ms; undefined off Linux. */
function threadTimes(): { cpu: number; wait: number } | undefined {
  try {
    if (schedstat === undefined) schedstat = fs.openSync('/proc/thread-self/schedstat', 'r');
    if (schedstat === null) return undefined;
    const n = fs.readSync(schedstat, buffer, 0, buffer.length, 0);
    const [cpu, wait] = buffer.toString('latin1', 0, n).split(' ', 2).map(Number);
    return Number.isFinite(cpu) && Number.isFinite(wait) ? { cpu: cpu / 1e6, wait: wait / 1e6 } : undefined;
  } catch {
    schedstat = null;
    return undefined;
  }
}

/** A 1 ms timer that remembers its longest gap and what the thread did in it. */
class GapTracer {
  worst: Gap | undefined;
  peakRss = process.memoryUsage.rss();
  private rssAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private last = { at: performance.now(), times: threadTimes() };

  start(): void {
    const tick = () => {
      const at = performance.now();
      const times = threadTimes();
      const ms = at - this.last.at;
      if (times && this.last.times && ms > (this.worst?.ms ?? 0)) {
        this.worst = { ms, cpuMs: times.cpu - this.last.times.cpu, waitMs: times.wait - this.last.times.wait };
      }
      this.last = { at, times };
      if (at - this.rssAt > 50) {
        this.peakRss = Math.max(this.peakRss, process.memoryUsage.rss());
        this.rssAt = at;
      }
      this.timer = setTimeout(tick, 1);
    };
    this.last = { at: performance.now(), times: threadTimes() };
    this.timer = setTimeout(tick, 1);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.peakRss = Math.max(this.peakRss, process.memoryUsage.rss());
  }
}

const turn = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `work` with the probe enabled. A block the operation ends with is only recorded when the
 * probe's timer fires afterwards, so the probe stays on for a few more milliseconds: without
 * that, an in-thread call that blocks and then resolves would read as no stall at all.
 */
export async function withStallProbe<T>(work: () => Promise<T>): Promise<{ value: T; stalls: Stalls }> {
  const h = monitorEventLoopDelay({ resolution: 1 });
  const tracer = new GapTracer();
  h.enable();
  tracer.start();
  // Let the timers start before the work does, or a synchronous start would go unseen.
  await turn(2);
  const cpu0 = threadTimes()?.cpu;
  const t0 = performance.now();
  let value: T;
  let wallMs: number;
  let cpuMs: number | undefined;
  try {
    value = await work();
    wallMs = performance.now() - t0;
    const cpu1 = threadTimes()?.cpu;
    if (cpu0 !== undefined && cpu1 !== undefined) cpuMs = cpu1 - cpu0;
    await turn(5);
  } finally {
    h.disable();
    tracer.stop();
  }
  return {
    value,
    stalls: {
      wallMs,
      maxMs: h.max / 1e6,
      p99Ms: h.percentile(99) / 1e6,
      samples: h.count,
      peakRssBytes: tracer.peakRss,
      ...(cpuMs !== undefined ? { cpuMs } : {}),
      ...(tracer.worst ? { worstGap: tracer.worst } : {}),
    },
  };
}
