/**
 * The operations in progress, for $currentOp: the commands being run (the engine is synchronous,
 * so these are the running command and any command it runs inside itself) and a TTL monitor pass
 * that a host driver spreads over several turns of the event loop. Each gets an opid when it
 * starts and leaves when it ends, whatever way it ends.
 */
import type { Document } from '../values/types';

export interface OperationStart {
  /** mongod's `desc`: "TTLMonitor" for the monitor's pass. */
  desc: string;
  /** mongod's `op`: "command" for a command, "none" for the monitor's pass. */
  op: string;
  /** The namespace (db.$cmd for a command, "" for the monitor's pass). */
  ns: string;
  command?: Document;
}

export interface Operation extends OperationStart {
  opid: number;
  /** Clock time it started at (the engine's clock: what currentOpTime shows). */
  startedAt: Date;
  /** Monotonic time it started at (what secs_running measures: real time, not the clock). */
  startedElapsed: number;
}

export class OperationRegistry {
  private nextOpid = 1;
  private readonly active = new Map<number, Operation>();

  constructor(
    private readonly now: () => Date,
    private readonly elapsed: () => number,
  ) {}

  /** Registers an operation; returns its opid, which `end` takes. */
  begin(start: OperationStart): number {
    const opid = this.nextOpid++;
    this.active.set(opid, { ...start, opid, startedAt: this.now(), startedElapsed: this.elapsed() });
    return opid;
  }

  end(opid: number): void {
    this.active.delete(opid);
  }

  /** The operations in progress, oldest first, with the real microseconds each has been running. */
  list(): (Operation & { microsRunning: number })[] {
    const at = this.elapsed();
    return [...this.active.values()].map((op) => ({
      ...op,
      microsRunning: Math.max(0, Math.round((at - op.startedElapsed) * 1000)),
    }));
  }
}
