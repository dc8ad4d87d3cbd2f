/**
 * The TTL monitor, mongod's TTLMonitor on the engine's clock (rules 7.1–7.6, 7.12). It sleeps
 * `ttlMonitorSleepSecs`, then runs a pass: sub-passes over a snapshot of TTL targets, each visit
 * bounded by `ttlIndexDeleteTargetDocs` / `ttlIndexDeleteTargetTimeMS`, targets that hit a bound
 * revisited after the others while the sub-pass has time (`ttlMonitorSubPassTargetSecs`), and more
 * sub-passes until nothing expired is left. Deletions go through the normal write path and reach
 * listeners as one event batch per visit, with cause "ttl".
 */
import type { StoredRecord } from '../catalog/record';
import type { CancelTimer } from '../clock';
import type { EngineContext } from '../engine-context';
import { isInterruption } from '../interrupt';
import {
  ClusteredTTLTarget,
  IndexTTLTarget,
  type Backlog,
  type TargetFactory,
  type TTLTarget,
  type VisitOutcome,
} from './targets';
import { isTTLIndexSpec } from './validation';
import { isCosmosTimestampIndexSpec } from './cosmos'; // Cosmos flavor (§10)

export interface VisitReport {
  db: string;
  collection: string;
  target: string;
  deleted: number;
  /** Real milliseconds the visit took. */
  millis: number;
  outcome: VisitOutcome['kind'];
  reason?: string;
}

export interface PassReport {
  startedAt: Date;
  subPasses: number;
  deleted: number;
  visits: VisitReport[];
  /** Why no pass ran (disabled, secondary, local.system.replset), when none did. */
  skipped?: string;
}

/**
 * One TTL rule's share of a pass, kept only for rules that had something to show (deletes, a
 * backlog or a skip), so an idle pass over many collections stays small.
 */
export interface PassTargetRecord {
  db: string;
  collection: string;
  /** `index <name>` or `collection`. */
  target: string;
  visits: number;
  deleted: number;
  /** Real milliseconds its visits took. */
  millis: number;
  /** Eligible documents of this rule left when the pass ended. */
  backlog: number;
  backlogAtLeast?: boolean;
  /** Why its visits were skipped (rule 7.6), when they were. */
  skipped?: string;
}

/** One pass as the monitor history keeps it (no visit list: the history stays small). */
export interface PassRecord {
  startedAt: Date;
  /** Real milliseconds the pass took. */
  millis: number;
  subPasses: number;
  deleted: number;
  /** Visits that stopped at their document or time budget with expired documents left (rule 7.3). */
  cutShort: number;
  /**
   * Documents eligible when the pass ended that are still there: on a primary a complete pass
   * leaves none (rule 7.2); a secondary's (7.4), an interrupted one's, or documents that became
   * eligible while a host yielded between visits stay behind.
   */
  backlog: number;
  /** A count stopped at BACKLOG_COUNT_LIMIT: at least `backlog`. */
  backlogAtLeast?: boolean;
  targets: PassTargetRecord[];
  skipped?: string;
}

/** Passes the monitor history keeps, newest last. */
export const PASS_HISTORY = 200;

export interface MonitorStatus {
  enabled: boolean;
  running: boolean;
  role: string;
  sleepSecs: number;
  lastPassAt: Date | null;
  nextPassAt: Date | null;
  stoppedBecause: string | null;
  metrics: { passes: number; subPasses: number; deletedDocuments: number };
  lastPass: PassReport | null;
}

/**
 * Runs a timer-started pass's steps (one per visit) to the end: either at once, returning
 * undefined, or returning to the event loop between steps, returning a promise of the end. It
 * must call `next()` until done. Without a driver the monitor drains the steps itself.
 */
export type PassDriver = (steps: Iterator<void, PassReport>) => Promise<void> | undefined;

function targetKey(db: string, collection: string, target: string): string {
  return JSON.stringify([db, collection, target]);
}

export class TTLMonitor {
  private cancelTimer?: CancelTimer;
  private sleepStartedAt: number;
  private nextPassAt: number | null = null;
  private lastPass: PassReport | null = null;
  private lastPassAt: number | null = null;
  private readonly passes: PassRecord[] = [];
  private readonly factories: TargetFactory[] = [];
  private stopped = false;
  /** Between suspendSleep and restartSleep (a restore): no timer, whatever changes. */
  private suspended = false;
  private inPass = false;
  /** Set by a host that must not be held for a whole pass (see setPassDriver). */
  private driver?: PassDriver;
  /** The pass a driver is running, until it ends. */
  private running?: Promise<void>;

  constructor(private readonly engine: EngineContext) {
    this.sleepStartedAt = engine.clock.now();
    engine.parameters.onDidChange((name) => {
      // Changing the sleep interval wakes the sleeper and recomputes its deadline (rule 7.1).
      if (name === 'ttlMonitorSleepSecs') this.schedule();
    });
    this.schedule();
  }

  registerTargets(factory: TargetFactory): void {
    this.factories.push(factory);
  }

  /**
   * Start the sleep over from now (after a restore moved the clock: a reopened engine, like a
   * restarted mongod, runs its first pass one sleep after opening, not once per skipped interval).
   */
  restartSleep(): void {
    if (this.stopped) return;
    this.suspended = false;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.sleepStartedAt = this.engine.clock.now();
    this.schedule();
  }

  /** Cancel the pending timer until restartSleep (so a clock moved meanwhile fires nothing). */
  suspendSleep(): void {
    this.suspended = true;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.nextPassAt = null;
  }

  stop(): void {
    this.stopped = true;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.nextPassAt = null;
  }

  private get sleepMs(): number {
    return this.engine.parameters.getNumber('ttlMonitorSleepSecs') * 1000;
  }

  private schedule(): void {
    if (this.stopped || this.suspended) return;
    this.cancelTimer?.();
    const at = this.sleepStartedAt + this.sleepMs;
    this.nextPassAt = at;
    this.cancelTimer = this.engine.clock.setTimer(at, () => this.wake());
  }

  /**
   * Set (or clear) the driver of timer-started passes. The extension host uses one that yields
   * between visits, so a pass over many collections does not hold it in one piece; other commands
   * may then run between two visits of a pass, as they do on mongod (each visit re-checks its
   * collection and index, rules 7.5/7.6).
   */
  setPassDriver(driver: PassDriver | undefined): void {
    this.driver = driver;
  }

  /** Resolves when the pass a driver is running (if any) has ended. */
  whenPassEnded(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private wake(synchronous = false): void {
    this.cancelTimer = undefined;
    const driver = synchronous ? undefined : this.driver;
    try {
      const ending = driver && !this.inPass ? driver(this.passSteps()) : (this.runPass(), undefined);
      if (ending) {
        // The next sleep starts when this pass ends, as mongod's monitor thread sleeps after a pass.
        this.nextPassAt = null;
        this.running = ending
          .catch((err) => console.error('TTL Workbench: TTL pass failed', err))
          .finally(() => {
            this.running = undefined;
            this.sleepAgain();
          });
        return;
      }
    } catch (err) {
      // A pass stopped at a safe point (a statement's time limit or interrupt, when a clock move
      // inside it ran the pass) ends the statement too; the monitor sleeps again first.
      if (isInterruption(err)) {
        this.sleepAgain();
        throw err;
      }
      console.error('TTL Workbench: TTL pass failed', err);
    }
    this.sleepAgain();
  }

  private sleepAgain(): void {
    this.sleepStartedAt = this.engine.clock.now();
    this.schedule();
  }

  /**
   * Run the passes whose time has come, as their timers would: for callers that held the thread
   * (a synchronous `sleep` on the system clock), so TTL work is not lost to a blocked timer.
   * Returns how many passes ran.
   */
  runDuePasses(): number {
    let n = 0;
    while (!this.stopped && this.nextPassAt !== null && this.engine.clock.now() >= this.nextPassAt) {
      this.cancelTimer?.();
      this.wake(true);
      n++;
    }
    return n;
  }

  /** Clear the in-pass guard after a host interrupted a pass (see Engine.recoverFromInterruption). */
  recoverFromInterruption(): void {
    this.inPass = false;
  }

  /** Why the monitor would not delete right now, or null when it would. */
  stoppedBecause(): string | null {
    if (this.engine.isClosed) return 'the engine is closed';
    if (this.engine.readOnly !== undefined) return `the engine is read-only (${this.engine.readOnly})`;
    if (!this.engine.parameters.getBool('ttlMonitorEnabled')) return 'ttlMonitorEnabled is false';
    const replset = this.engine.getCollection('local', 'system.replset');
    if (replset && replset.count > 0) {
      return 'local.system.replset holds a replica set configuration: a standalone started from a replica-set member does not run the TTL monitor (rule 7.4)';
    }
    return null;
  }

  /**
   * One complete pass now (rule 7.2). A disabled monitor counts no pass; an enabled one counts a
   * pass even when nothing is deleted. Returns what was deleted, visit by visit.
   */
  runPass(): PassReport {
    const steps = this.passSteps();
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  }

  /** The pass of runPass, one step per visit (a driver may return to the event loop between them). */
  *passSteps(): Generator<void, PassReport> {
    const startedAt = new Date(this.engine.clock.now());
    const began = performance.now();
    const skipped = this.stoppedBecause();
    if (skipped) return { startedAt, subPasses: 0, deleted: 0, visits: [], skipped };
    if (this.inPass) return { startedAt, subPasses: 0, deleted: 0, visits: [], skipped: 'a pass is already running' };
    this.inPass = true;
    const report: PassReport = { startedAt, subPasses: 0, deleted: 0, visits: [] };
    const opid = this.engine.operations.begin({ desc: 'TTLMonitor', op: 'none', ns: '' });
    try {
      if (this.engine.role !== 'primary') {
        // A secondary attempts the pass but deletes nothing: deletes replicate from the primary (rule 7.4).
        report.subPasses = 1;
        this.engine.ttlMetrics.subPasses++;
        report.skipped = 'this node is a secondary: deletes replicate from the primary (rule 7.4)';
        return report;
      }
      let more = true;
      while (more) {
        more = yield* this.subPassSteps(report);
        report.subPasses++;
        this.engine.ttlMetrics.subPasses++;
        // The engine may have closed (or the monitor stopped) while a driver yielded.
        if (this.stopped || this.engine.isClosed) break;
      }
    } finally {
      this.engine.operations.end(opid);
      this.inPass = false;
      this.engine.ttlMetrics.passes++;
      this.lastPass = report;
      this.lastPassAt = this.engine.clock.now();
      this.remember(report, performance.now() - began);
      this.engine.flushEvents();
    }
    return report;
  }

  /** Rule 7.3: one sub-pass; returns whether expired work remains for another sub-pass. */
  private *subPassSteps(report: PassReport): Generator<void, boolean> {
    const params = this.engine.parameters;
    const subPassBudgetMs = params.getNumber('ttlMonitorSubPassTargetSecs') * 1000;
    const batched = params.getBool('ttlMonitorBatchDeletes');
    const started = performance.now();
    let queue = this.snapshotTargets();
    let firstRound = true;
    while (queue.length > 0) {
      if (!firstRound && (subPassBudgetMs === 0 || performance.now() - started >= subPassBudgetMs)) return true;
      firstRound = false;
      const again: TTLTarget[] = [];
      for (const target of queue) {
        const budget = {
          // ttlMonitorBatchDeletes: false is the legacy unbounded delete per index.
          maxDocs: batched ? params.getNumber('ttlIndexDeleteTargetDocs') : 0,
          maxMillis: batched ? params.getNumber('ttlIndexDeleteTargetTimeMS') : 0,
          now: this.engine.clock.now(),
          batchStats: batched ? this.engine.batchedDeletes : undefined,
        };
        const visitStarted = performance.now();
        const outcome = this.visit(target, budget);
        report.visits.push({
          millis: performance.now() - visitStarted,
          db: target.collection.dbName,
          collection: target.collection.name,
          target: target.label,
          deleted: outcome.kind === 'skipped' ? 0 : outcome.deleted,
          outcome: outcome.kind,
          ...(outcome.kind === 'skipped' ? { reason: outcome.reason } : {}),
        });
        if (outcome.kind !== 'skipped') report.deleted += outcome.deleted;
        // A time limit or an interrupt stopped the visit between batches: its deletes are counted
        // and committed (visit flushed them); the pass ends here with the error.
        if (outcome.kind !== 'skipped' && outcome.interrupted) throw outcome.interrupted;
        if (outcome.kind === 'more') again.push(target);
        yield;
        if (this.stopped || this.engine.isClosed) return false;
      }
      queue = again;
    }
    return false;
  }

  private visit(target: TTLTarget, budget: { maxDocs: number; maxMillis: number; now: number }): VisitOutcome {
    const coll = target.collection;
    // The collection may have been dropped since the snapshot (rule 7.5).
    if (this.engine.getCollection(coll.dbName, coll.name) !== coll)
      return { kind: 'skipped', reason: 'collection dropped', logId: 0 };
    // mongod's TTL delete meets a write conflict on a document an open transaction wrote and
    // retries until the transaction ends; this engine cannot wait, so the visit comes next pass.
    if (this.engine.heldByTransaction?.(coll.ns))
      return { kind: 'skipped', reason: 'an open transaction has written to the collection (rule 7.11)', logId: 0 };
    const remove = (record: StoredRecord) => {
      coll.remove(record, 'ttl');
      this.engine.ttlMetrics.deletedDocuments++;
    };
    const outcome = target.visit(budget, remove);
    if (outcome.kind === 'skipped' && outcome.logId) {
      // mongod logs every skip, every pass (rules 4.2, 7.6: ids 6909100, 22540, 22541).
      this.engine.log(outcome.logId, outcome.reason, { ns: coll.ns, target: target.label });
    }
    // Targets that remove records themselves report the metric count (time-series: buckets, rule 7.12).
    if (outcome.kind !== 'skipped' && outcome.metricCount)
      this.engine.ttlMetrics.deletedDocuments += outcome.metricCount;
    // One event batch per visit, never one per document.
    this.engine.flushEvents();
    return outcome;
  }

  /** Every TTL target of every collection, as of now (new indexes join at the next sub-pass). */
  snapshotTargets(): TTLTarget[] {
    const targets: TTLTarget[] = [];
    for (const db of this.engine.databases.values()) {
      for (const coll of db.collections.values()) {
        for (const index of coll.indexes.values()) {
          // Cosmos flavor (§10.1): a TTL index on `_ts` is the collection default, handled by the
          // CosmosTTLTarget that ttl/cosmos.ts registers; documents hold no `_ts` for this target to walk.
          if (this.engine.flavor === 'cosmos' && isCosmosTimestampIndexSpec(index.spec)) continue;
          if (isTTLIndexSpec(index.spec) && !coll.options.timeseries)
            targets.push(new IndexTTLTarget(coll, index.name));
        }
        if (coll.isClustered && coll.options.expireAfterSeconds !== undefined)
          targets.push(new ClusteredTTLTarget(coll));
        for (const factory of this.factories) targets.push(...factory(coll));
      }
    }
    return targets;
  }

  /** The last PASS_HISTORY passes that ran, oldest first (copies). */
  history(): PassRecord[] {
    return this.passes.map((p) => ({
      ...p,
      startedAt: new Date(p.startedAt),
      targets: p.targets.map((t) => ({ ...t })),
    }));
  }

  /** Each TTL rule's eligible documents still there at `nowMs`, keyed like targetKey. */
  private backlogs(nowMs: number): Map<string, Backlog> {
    const out = new Map<string, Backlog>();
    if (this.engine.isClosed) return out;
    for (const target of this.snapshotTargets()) {
      const b = target.backlog(nowMs);
      if (b.count > 0) out.set(targetKey(target.collection.dbName, target.collection.name, target.label), b);
    }
    return out;
  }

  private remember(report: PassReport, millis: number): void {
    const perTarget = new Map<string, PassTargetRecord>();
    const entry = (db: string, collection: string, target: string): PassTargetRecord => {
      const key = targetKey(db, collection, target);
      let t = perTarget.get(key);
      if (!t) perTarget.set(key, (t = { db, collection, target, visits: 0, deleted: 0, millis: 0, backlog: 0 }));
      return t;
    };
    let cutShort = 0;
    for (const v of report.visits) {
      const t = entry(v.db, v.collection, v.target);
      t.visits++;
      t.deleted += v.deleted;
      t.millis += v.millis;
      if (v.outcome === 'more') cutShort++;
      if (v.outcome === 'skipped' && v.reason) t.skipped = v.reason;
    }
    let backlog = 0;
    let backlogAtLeast = false;
    for (const [key, b] of this.backlogs(this.engine.clock.now())) {
      const [db, collection, target] = JSON.parse(key) as [string, string, string];
      const t = entry(db, collection, target);
      t.backlog = b.count;
      if (b.atLeast) t.backlogAtLeast = backlogAtLeast = true;
      backlog += b.count;
    }
    const targets: PassTargetRecord[] = [];
    for (const t of perTarget.values()) {
      if (t.deleted === 0 && t.backlog === 0 && t.skipped === undefined) continue;
      t.millis = Math.round(t.millis * 10) / 10;
      targets.push(t);
    }
    this.passes.push({
      startedAt: report.startedAt,
      millis: Math.round(millis * 10) / 10,
      subPasses: report.subPasses,
      deleted: report.deleted,
      cutShort,
      backlog,
      ...(backlogAtLeast ? { backlogAtLeast } : {}),
      targets,
      ...(report.skipped ? { skipped: report.skipped } : {}),
    });
    if (this.passes.length > PASS_HISTORY) this.passes.splice(0, this.passes.length - PASS_HISTORY);
  }

  status(): MonitorStatus {
    const m = this.engine.ttlMetrics;
    return {
      enabled: this.engine.parameters.getBool('ttlMonitorEnabled'),
      running: !this.stopped,
      role: this.engine.role,
      sleepSecs: this.engine.parameters.getNumber('ttlMonitorSleepSecs'),
      lastPassAt: this.lastPassAt === null ? null : new Date(this.lastPassAt),
      nextPassAt: this.nextPassAt === null ? null : new Date(this.nextPassAt),
      stoppedBecause: this.stoppedBecause(),
      metrics: { passes: m.passes, subPasses: m.subPasses, deletedDocuments: m.deletedDocuments },
      lastPass: this.lastPass,
    };
  }
}
