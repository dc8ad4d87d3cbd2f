/**
 * Interruption at safe points, like mongod's `checkForInterrupt` at yield points. Long engine work
 * (scans, multi-document writes, index builds, TTL batches, aggregation, sort, count, distinct)
 * calls `checkForInterrupt()` between documents or batches, where every document and index is
 * consistent. When an installed source says stop, it throws an EngineError there:
 * MaxTimeMSExpired (50) for a deadline, Interrupted (11601) for an interrupt request. Writes done
 * before that point stay done (and are journaled), as in mongod.
 *
 * Sources are installed for the duration of a call with `withInterrupts(source, fn)`; they nest (a
 * command's maxTimeMS inside a shell statement's time limit), and every installed source is asked
 * at each check. With no source installed a check costs one array-length read.
 *
 * Time: a deadline is real elapsed time (mongod's maxTimeMS), read from a monotonic source
 * (`performance.now` by default), never from the engine's Clock: a VirtualClock is TTL's time
 * and does not move while an operation runs.
 */
import { EngineError, ErrorCode } from './errors';
import { toDouble } from './values/numbers';
import { bsonClassOf, isNumeric } from './values/types';

/** Monotonic milliseconds: only differences matter; unaffected by wall-clock or virtual-clock moves. */
export type ElapsedTime = () => number;

/** The default monotonic source. */
export const systemElapsedTime: ElapsedTime = () => performance.now();

/** Something that may stop an operation. `poll` runs at every safe point: keep it cheap. */
export interface InterruptSource {
  /** Throw (an EngineError 50 or 11601) to stop the operation at this safe point. */
  poll(): void;
}

/** How many polls a deadline lets pass between two reads of its time source. */
export const DEADLINE_CHECK_EVERY = 128;

/** mongod's reply for an operation past its time limit: MaxTimeMSExpired (50). */
export function timeLimitError(message = 'operation exceeded time limit'): EngineError {
  return new EngineError(ErrorCode.MaxTimeMSExpired, message);
}

/** mongod's reply for an operation that was killed: Interrupted (11601). */
export function interruptedError(message = 'operation was interrupted'): EngineError {
  return new EngineError(ErrorCode.Interrupted, message);
}

/**
 * A time limit of `limitMs` real milliseconds from construction. Reads its time source once every
 * `checkEvery` polls (and on `expired()`); once expired it fails every later poll.
 */
export class OperationDeadline implements InterruptSource {
  readonly expiresAt: number;
  private readonly time: ElapsedTime;
  private readonly every: number;
  private countdown: number;
  private fired = false;
  private readonly message: string;

  constructor(
    readonly limitMs: number,
    options: { time?: ElapsedTime; checkEvery?: number; message?: string } = {},
  ) {
    this.time = options.time ?? systemElapsedTime;
    this.expiresAt = this.time() + limitMs;
    this.every = Math.max(1, options.checkEvery ?? DEADLINE_CHECK_EVERY);
    this.countdown = this.every;
    this.message =
      options.message ??
      `operation exceeded time limit: it ran longer than its ${limitMs} ms (maxTimeMS); narrow the filter, add an index, or allow more time`;
  }

  /** Reads the time source now. */
  expired(): boolean {
    if (!this.fired && this.time() >= this.expiresAt) this.fired = true;
    return this.fired;
  }

  /** Milliseconds left (0 once expired). */
  remainingMs(): number {
    return Math.max(0, this.expiresAt - this.time());
  }

  poll(): void {
    if (--this.countdown > 0 && !this.fired) return;
    this.countdown = this.every;
    if (this.expired()) throw timeLimitError(this.message);
  }

  /** Read the time now (not only every `checkEvery` polls) and throw when expired: at an operation's start. */
  check(): void {
    if (this.expired()) throw timeLimitError(this.message);
  }
}

/**
 * An interrupt request (the notebook's Interrupt, killOp): set it and the next safe point of an
 * operation under it throws Interrupted (11601). Stays set until `reset()`.
 *
 * With a shared cell (an Int32Array over a SharedArrayBuffer), another thread can request the
 * interrupt while this one is busy inside an operation: the engine host's worker runs a statement
 * synchronously, and the extension host stores a non-zero value in the cell; the next safe point
 * sees it. The cell belongs to the thread that writes it: `reset()` leaves it alone, so a request
 * made just before an evaluation starts is not lost; that thread clears it before each run.
 */
export class InterruptFlag implements InterruptSource {
  private reason: string | undefined;

  constructor(private readonly cell?: Int32Array) {}

  get requested(): boolean {
    return this.reason !== undefined || (this.cell !== undefined && Atomics.load(this.cell, 0) !== 0);
  }

  request(message = 'operation was interrupted'): void {
    this.reason = message;
  }

  reset(): void {
    this.reason = undefined;
  }

  poll(): void {
    if (this.reason !== undefined) throw interruptedError(this.reason);
    if (this.cell !== undefined && Atomics.load(this.cell, 0) !== 0) throw interruptedError(SHARED_INTERRUPT_MESSAGE);
  }
}

/** What an interrupt requested through a shared cell says (the cell carries no text). */
export const SHARED_INTERRUPT_MESSAGE = 'operation was interrupted: the notebook run was interrupted';

/**
 * Fires at exactly the `checks`-th poll (and every poll after): a deterministic stop for tests
 * and fault injection, independent of time. `polls` counts how many checks it saw.
 */
export class InterruptAfterChecks implements InterruptSource {
  polls = 0;
  constructor(
    readonly checks: number,
    private readonly code: 50 | 11601 = 11601,
  ) {}

  get fired(): boolean {
    return this.polls >= this.checks;
  }

  poll(): void {
    if (++this.polls >= this.checks) throw this.code === 50 ? timeLimitError() : interruptedError();
  }
}

const active: InterruptSource[] = [];

/**
 * A safe point: every document and index is consistent here. Throws EngineError 50 / 11601 when
 * an installed source says stop; otherwise returns (cheaply when none is installed).
 */
export function checkForInterrupt(): void {
  const n = active.length;
  if (n === 0) return;
  for (let i = 0; i < n; i++) active[i].poll();
}

/**
 * The error `checkForInterrupt` would throw here, returned instead (undefined: go on). For loops
 * that must account for the work done before they stop (a TTL visit counts its deletes).
 */
export function pendingInterrupt(): EngineError | undefined {
  if (active.length === 0) return undefined;
  try {
    checkForInterrupt();
    return undefined;
  } catch (err) {
    if (isInterruption(err)) return err;
    throw err;
  }
}

/** Whether any source is installed (callers may skip building per-batch bookkeeping when none is). */
export function interruptsInstalled(): boolean {
  return active.length > 0;
}

/** Run `fn` with `source` installed (nothing when undefined); removed afterwards, also on throw. */
export function withInterrupts<T>(source: InterruptSource | undefined, fn: () => T): T {
  if (source === undefined) return fn();
  const depth = active.length;
  active.push(source);
  try {
    return fn();
  } finally {
    active.length = depth;
  }
}

/**
 * The installed deadline that expires first, for work that cannot stop at a safe point of its
 * own (one backtracking regular-expression match runs under a timeout of the time left).
 */
export function nearestDeadline(): OperationDeadline | undefined {
  let nearest: OperationDeadline | undefined;
  for (const source of active)
    if (source instanceof OperationDeadline && (!nearest || source.expiresAt < nearest.expiresAt)) nearest = source;
  return nearest;
}

/** How many sources are installed (see unwindInterrupts). */
export function interruptDepth(): number {
  return active.length;
}

/**
 * Remove every source above `depth`. For hosts that can stop engine code without unwinding it (a
 * `node:vm` time limit skips `finally` blocks, so withInterrupts cannot remove its source).
 */
export function unwindInterrupts(depth: number): void {
  if (active.length > depth) active.length = Math.max(0, depth);
}

/** Whether `err` is an interruption (50 or 11601): such errors fail a whole write command, as in mongod. */
export function isInterruption(err: unknown): err is EngineError {
  return err instanceof EngineError && (err.code === ErrorCode.MaxTimeMSExpired || err.code === ErrorCode.Interrupted);
}

/**
 * maxTimeMS as mongod parses it: a number (else BadValue "must be a number"), whose whole part is
 * 0..2^31-1 (else BadValue "out of range"), and a double without a fractional part (else BadValue
 * "non-integral value"). 0 or absent means no limit: returns undefined.
 */
export function parseMaxTimeMS(value: unknown, field = 'maxTimeMS'): number | undefined {
  if (value === undefined) return undefined;
  if (!isNumeric(value)) throw new EngineError(ErrorCode.BadValue, `${field} must be a number`);
  const n = toDouble(value);
  // mongod reads the whole part as a long (NaN reads as 0), then checks a double's fraction.
  const whole = Number.isNaN(n) ? 0 : Math.trunc(n);
  if (whole < 0 || whole > 2147483647)
    throw new EngineError(
      ErrorCode.BadValue,
      `${whole} value for ${field} is out of range: use 0 (no limit) up to 2147483647 ms`,
    );
  const isDouble = typeof value === 'number' || bsonClassOf(value) === 'Double';
  if (isDouble && Math.floor(n) !== n)
    throw new EngineError(ErrorCode.BadValue, `${field} has non-integral value: pass whole milliseconds`);
  return whole === 0 ? undefined : whole;
}
