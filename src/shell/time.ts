/**
 * Time inside the shell is the engine's time. `Date`, `Date.now()`, `Date()` and `ISODate()` read
 * the engine's clock; `sleep(ms)` moves a virtual clock forward (running every TTL pass that falls
 * due on the way) or, on the system clock, blocks for real and then runs the passes the blocked
 * timers missed. `clock` and `ttl` are the helpers a TTL playground needs on top.
 */
import { findInvalidTTLIndexes, findNaNTTLIndexes, forecastExpiry, loadLegacyIndexSpec } from '../engine';
import type {
  Document,
  Engine,
  Forecast,
  MonitorStatus,
  PassRecord,
  PassReport,
  TTLIndexProblem,
  VirtualClock,
} from '../engine';
import { readForecastOptions } from '../formats/forecast-options';
import type { ScriptErrors } from './errors';
import { markForecast, type ForecastMonitorFacts } from './forecast-output';
import type { ShellRuntime } from './runtime';
import { parseDuration } from '../formats/duration';

/**
 * The script's `Date`: built in the host realm, so the engine's `instanceof Date` accepts what it
 * makes, and its argument-less forms read `now()` (the engine's clock).
 *
 * Its prototype is a per-session object inheriting the host's `Date.prototype`: a script that adds
 * to `Date.prototype` (an old shell idiom) changes its own session only, never the host's dates.
 * `instanceof` answers for every date, including host dates that never passed through here.
 */
export function createClockDate(now: () => number): DateConstructor {
  const HostDate = Date;
  function ClockDate(this: unknown, ...args: unknown[]): unknown {
    // Called without `new`, Date() is the current time as a string.
    if (new.target === undefined) return new HostDate(now()).toString();
    return Reflect.construct(HostDate, args.length === 0 ? [now()] : args, new.target);
  }
  const proto = Object.create(HostDate.prototype) as object;
  Object.defineProperty(proto, 'constructor', { value: ClockDate, writable: true, configurable: true });
  ClockDate.prototype = proto;
  Object.defineProperty(ClockDate, 'name', { value: 'Date' });
  Object.defineProperty(ClockDate, 'length', { value: 7 });
  Object.defineProperty(ClockDate, Symbol.hasInstance, {
    value: function (this: unknown, value: unknown): boolean {
      // Subclasses made in the script keep the ordinary prototype-chain test.
      if (this !== ClockDate) return Function.prototype[Symbol.hasInstance].call(this, value);
      return value instanceof HostDate || Object.prototype.toString.call(value) === '[object Date]';
    },
  });
  const statics = ClockDate as unknown as { now: () => number; parse: typeof Date.parse; UTC: typeof Date.UTC };
  statics.now = () => now();
  statics.parse = HostDate.parse;
  statics.UTC = HostDate.UTC;
  return ClockDate as unknown as DateConstructor;
}

/** What a clock move did: where time is now, and what the TTL monitor did meanwhile. */
export interface ClockMove {
  now: Date;
  ttlPasses: number;
  deletedDocuments: number;
}

export interface ClockHelper {
  readonly kind: 'system' | 'virtual';
  now(): Date;
  advance(duration: unknown): ClockMove;
  set(date: unknown): ClockMove;
}

export interface TTLHelper {
  runPass(): PassReport;
  status(): MonitorStatus;
  /** TTL indexes whose stored expireAfterSeconds is NaN (the docs' getNaNIndexes()), in every database. */
  nanIndexes(): TTLIndexProblem[];
  /** TTL indexes whose stored expireAfterSeconds is not a valid value (rules 4.1–4.3). */
  invalidIndexes(): TTLIndexProblem[];
  /** Put an index spec into the current database's catalog as an older server left it (rule 4.3). */
  loadLegacyIndex(collection: unknown, spec: unknown): string;
  /** What a TTL rule of a collection of the current database will delete, per time bucket. */
  forecast(collection: unknown, options?: unknown): Forecast;
  /** The monitor's last passes, oldest first: when, how long, sub-passes, deleted, visits cut short. */
  history(): PassRecord[];
}

/** Blocks the thread; the vm time limit still interrupts it (Atomics.wait is interruptible). */
const waitCell = new Int32Array(new SharedArrayBuffer(4));
function blockFor(ms: number): void {
  if (ms > 0) Atomics.wait(waitCell, 0, 0, ms);
}

export class ShellTime {
  private readonly engine: Engine;
  private readonly errors: ScriptErrors;

  constructor(readonly runtime: ShellRuntime) {
    this.engine = runtime.engine;
    this.errors = runtime.errors;
  }

  private get virtual(): VirtualClock | undefined {
    return this.engine.clock.kind === 'virtual' ? (this.engine.clock as VirtualClock) : undefined;
  }

  now(): number {
    return this.engine.clock.now();
  }

  /** mongosh's sleep(ms): always milliseconds. */
  sleep(ms: unknown): void {
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
      throw this.errors.typeError(
        `sleep() needs a number of milliseconds >= 0, got ${typeof ms === 'number' ? ms : typeof ms}.`,
      );
    }
    const clock = this.virtual;
    if (clock) {
      this.guard(() => clock.advance(ms));
      return;
    }
    // Within the statement's time limit: the wait ends at the deadline, with the limit's error.
    const deadline = this.runtime.deadline;
    if (deadline && ms >= deadline.remainingMs()) {
      while (!deadline.expired()) blockFor(Math.max(1, Math.ceil(deadline.remainingMs())));
      this.guard(() => undefined); // fails with the time limit's error
    }
    blockFor(ms);
    // The monitor's timer could not fire while the thread was blocked: run what fell due.
    this.guard(() => this.engine.ttl.runDuePasses());
  }

  readonly clock: ClockHelper = ((time: ShellTime): ClockHelper => ({
    get kind() {
      return time.engine.clock.kind;
    },
    now: () => time.runtime.boundary.date(time.now()),
    advance: (duration: unknown) => time.advance(duration),
    set: (date: unknown) => time.setTo(date),
  }))(this);

  readonly ttl: TTLHelper = {
    // Copies: the monitor keeps its last report, which a script must not be able to change.
    runPass: () => this.runtime.out(this.guard(() => this.engine.ttl.runPass())),
    status: () => this.runtime.out(this.engine.ttl.status()),
    nanIndexes: () => this.runtime.out(findNaNTTLIndexes(this.engine)),
    invalidIndexes: () => this.runtime.out(findInvalidTTLIndexes(this.engine)),
    loadLegacyIndex: (collection: unknown, spec: unknown) => this.loadLegacyIndex(collection, spec),
    forecast: (collection: unknown, options?: unknown) => this.forecast(collection, options),
    history: () => this.runtime.out(this.engine.ttl.history()),
  };

  private forecast(collection: unknown, options: unknown): Forecast {
    const name =
      typeof collection === 'string'
        ? collection
        : typeof (collection as { getName?: unknown } | null)?.getName === 'function'
          ? String((collection as { getName(): unknown }).getName())
          : undefined;
    if (name === undefined)
      throw this.errors.typeError(
        'ttl.forecast(collection, options) needs a collection name or db.<collection>, e.g. ttl.forecast("sessions", { horizon: "24h", buckets: 24 }).',
      );
    const request = readForecastOptions(options === undefined ? undefined : this.runtime.in(options as Document));
    if ('error' in request) throw this.errors.typeError(`ttl.forecast(): ${request.error}.`);
    const forecast = this.runtime.out(
      this.guard(() =>
        forecastExpiry(
          this.engine.requireCollection(this.runtime.dbName, name),
          request,
          this.engine.clock.now(),
          this.engine.flavor,
        ),
      ),
    );
    // A notebook draws it as a chart with the monitor's passes and visit cap of this moment.
    return markForecast(forecast, { db: this.runtime.dbName, collection: name, monitor: this.monitorFacts() });
  }

  private monitorFacts(): ForecastMonitorFacts {
    const status = this.engine.ttl.status();
    const params = this.engine.parameters;
    return {
      sleepSecs: status.sleepSecs,
      nextPassAt: status.nextPassAt?.getTime() ?? null,
      enabled: status.enabled,
      visitCap: params.getBool('ttlMonitorBatchDeletes') ? params.getNumber('ttlIndexDeleteTargetDocs') : 0,
    };
  }

  private loadLegacyIndex(collection: unknown, spec: unknown): string {
    if (typeof collection !== 'string' || spec === null || typeof spec !== 'object' || Array.isArray(spec)) {
      throw this.errors.typeError(
        'ttl.loadLegacyIndex(collection, spec) needs a collection name and an index spec, e.g. ("events", { key: { t: 1 }, name: "t_1", expireAfterSeconds: NaN }).',
      );
    }
    const doc = this.runtime.in(spec as Document);
    this.guard(() => loadLegacyIndexSpec(this.engine, this.runtime.dbName, collection, doc));
    return String(doc.name);
  }

  private requireVirtual(what: string): VirtualClock {
    const clock = this.virtual;
    if (!clock) {
      throw this.errors.error(
        `clock.${what}() needs the virtual clock, but this engine runs on the system clock, where time passes by itself. ` +
          'Use sleep(ms) to wait for real, or run the playground on the virtual clock.',
        'ClockError',
      );
    }
    return clock;
  }

  private advance(duration: unknown): ClockMove {
    const clock = this.requireVirtual('advance');
    const ms = parseDuration(duration);
    if (typeof ms !== 'number') throw this.errors.rangeError(`clock.advance(): ${ms.error}.`);
    return this.move(() => clock.advance(ms));
  }

  private setTo(date: unknown): ClockMove {
    const clock = this.requireVirtual('set');
    const target = toMillis(date);
    if (target === undefined) {
      throw this.errors.typeError('clock.set() needs a date, e.g. clock.set(ISODate("2026-01-01T00:00:00Z")).');
    }
    const current = clock.now();
    if (target < current) {
      throw this.errors.rangeError(
        `clock.set() only moves forward: the clock reads ${new Date(current).toISOString()} and ${new Date(target).toISOString()} is earlier. ` +
          'Time never runs backwards on the engine (TTL deletions cannot be undone).',
      );
    }
    return this.move(() => clock.set(target));
  }

  private move(step: () => number): ClockMove {
    const metrics = this.engine.ttlMetrics;
    const passes = metrics.passes;
    const deleted = metrics.deletedDocuments;
    this.guard(step);
    return {
      now: this.runtime.boundary.date(this.now()),
      ttlPasses: metrics.passes - passes,
      deletedDocuments: metrics.deletedDocuments - deleted,
    };
  }

  /** Engine and clock calls: failures reach the script as script-realm errors. */
  private guard<T>(fn: () => T): T {
    return this.runtime.call(fn);
  }
}

/** A date of either realm, an ISO string or epoch milliseconds. */
function toMillis(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string') {
    const t = Date.parse(value);
    return Number.isNaN(t) ? undefined : t;
  }
  if (Object.prototype.toString.call(value) === '[object Date]') {
    const t = (value as Date).getTime();
    return Number.isNaN(t) ? undefined : t;
  }
  return undefined;
}
