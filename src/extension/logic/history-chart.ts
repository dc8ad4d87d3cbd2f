/**
 * What the TTL Monitor History panel draws, from the engine's ring of pass records
 * (`Backend.monitorHistory`, no `vscode`, no DOM): per pass, the documents deleted, the time
 * taken, the sub-passes and the backlog (eligible documents left when it ended), for the last N
 * passes, either over every TTL rule or narrowed to one collection or one index. The webview only
 * draws this model; tests compare it with `Backend.monitorHistory`.
 */
import { formatClockTime, formatCount, formatSeconds, plural } from './durations';

/** How many of the last passes the panel shows (the engine keeps 200). */
export const HISTORY_SIZES = [20, 50, 200] as const;
export type HistorySize = (typeof HISTORY_SIZES)[number];
export const DEFAULT_HISTORY_SIZE: HistorySize = 50;

export function isHistorySize(v: unknown): v is HistorySize {
  return typeof v === 'number' && (HISTORY_SIZES as readonly number[]).includes(v);
}

/**
 * A pass record as it comes from the Backend (dates as Date, ISO text or milliseconds). It restates
 * the engine's `PassRecord` rather than importing it because the webview's own compile reads this
 * file and must not pull in the engine; history-panel.ts passes `PassRecord[]` here, so the compiler
 * still holds the two shapes together.
 */
export interface PassLike {
  startedAt: Date | string | number;
  millis: number;
  subPasses: number;
  deleted: number;
  cutShort: number;
  backlog?: number;
  backlogAtLeast?: boolean;
  targets?: ReadonlyArray<{
    db: string;
    collection: string;
    target: string;
    visits: number;
    deleted: number;
    millis: number;
    backlog: number;
    backlogAtLeast?: boolean;
    skipped?: string;
  }>;
  skipped?: string;
}

/** Which passes' figures the panel shows: every rule's, one collection's, or one rule's. */
export interface HistoryScope {
  db?: string;
  collection?: string;
  /** `index <name>` or `collection` (a clustered or time-series collection's own TTL). */
  target?: string;
}

/** One pass as drawn, in the scope. */
export interface HistoryPoint {
  startedAt: number;
  deleted: number;
  millis: number;
  subPasses: number;
  /** Visits of the rules in scope (every visit when the scope is everything). */
  visits: number;
  backlog: number;
  backlogAtLeast: boolean;
  /** Why the pass, or the rule in scope, deleted nothing. */
  note: string;
}

export interface HistoryModel {
  title: string;
  subtitle: string;
  scope: HistoryScope;
  size: HistorySize;
  points: HistoryPoint[];
  /** Passes the engine holds in all (what "last N" is taken from). */
  available: number;
  summary: Array<{ label: string; value: string }>;
  table: { caption: string; headers: string[]; rows: string[][] };
  warnings: string[];
  cadence: string;
}

const ms = (v: Date | string | number): number => (v instanceof Date ? v.getTime() : new Date(v).getTime());

/** `index at_1` → `index at_1`; the collection's own rule reads `collection TTL`. */
function ruleWords(target: string): string {
  return target === 'collection' ? 'the collection TTL' : target;
}

function inScope(scope: HistoryScope, t: { db: string; collection: string; target: string }): boolean {
  return (
    (scope.db === undefined || t.db === scope.db) &&
    (scope.collection === undefined || t.collection === scope.collection) &&
    (scope.target === undefined || t.target === scope.target)
  );
}

function isEverything(scope: HistoryScope): boolean {
  return scope.db === undefined && scope.collection === undefined && scope.target === undefined;
}

/** A pass's figures for the scope: the pass's own totals, or the sum of its rules in scope. */
export function pointOf(pass: PassLike, scope: HistoryScope): HistoryPoint {
  const base = { startedAt: ms(pass.startedAt), subPasses: pass.subPasses };
  if (isEverything(scope)) {
    const visits = (pass.targets ?? []).reduce((a, t) => a + t.visits, 0);
    return {
      ...base,
      deleted: pass.deleted,
      millis: pass.millis,
      visits,
      backlog: pass.backlog ?? 0,
      backlogAtLeast: pass.backlogAtLeast === true,
      note: pass.skipped ?? (pass.cutShort > 0 ? `${plural(pass.cutShort, 'visit')} cut short (rule 7.3)` : ''),
    };
  }
  const mine = (pass.targets ?? []).filter((t) => inScope(scope, t));
  const skips = [...new Set(mine.map((t) => t.skipped).filter((s): s is string => s !== undefined))];
  return {
    ...base,
    deleted: mine.reduce((a, t) => a + t.deleted, 0),
    millis: Math.round(mine.reduce((a, t) => a + t.millis, 0) * 10) / 10,
    visits: mine.reduce((a, t) => a + t.visits, 0),
    backlog: mine.reduce((a, t) => a + t.backlog, 0),
    backlogAtLeast: mine.some((t) => t.backlogAtLeast === true),
    note: pass.skipped ?? skips.join('; '),
  };
}

function scopeWords(scope: HistoryScope): string {
  if (isEverything(scope)) return 'every TTL rule';
  const ns = scope.collection !== undefined ? `${scope.db ?? '?'}.${scope.collection}` : `database ${scope.db}`;
  return scope.target !== undefined ? `${ns}, ${ruleWords(scope.target)}` : ns;
}

/** The monitor as the panel's words need it. */
export interface HistoryMonitor {
  enabled: boolean;
  sleepSecs: number;
  nextPassAt: number | null;
  stoppedBecause: string | null;
}

function millisText(n: number): string {
  return n < 10 ? n.toFixed(1) : formatCount(Math.round(n));
}

export function buildHistoryModel(input: {
  passes: readonly PassLike[];
  scope: HistoryScope;
  size: HistorySize;
  monitor: HistoryMonitor;
}): HistoryModel {
  const { scope, size, monitor } = input;
  const points = input.passes.slice(-size).map((p) => pointOf(p, scope));
  const filtered = !isEverything(scope);
  const backlogText = (p: HistoryPoint) => `${p.backlogAtLeast ? '≥ ' : ''}${formatCount(p.backlog)}`;
  const headers = [
    'Pass started (UTC)',
    'Deleted',
    'Time taken (ms)',
    'Sub-passes',
    ...(filtered ? ['Visits'] : []),
    'Backlog after',
    'Note',
  ];
  const rows = points.map((p) => [
    formatClockTime(new Date(p.startedAt)).replace(' UTC', ''),
    formatCount(p.deleted),
    millisText(p.millis),
    formatCount(p.subPasses),
    ...(filtered ? [formatCount(p.visits)] : []),
    backlogText(p),
    p.note,
  ]);
  const last = points.at(-1);
  const deleted = points.reduce((a, p) => a + p.deleted, 0);
  const summary = [
    { label: 'Passes shown', value: `${formatCount(points.length)} of ${formatCount(input.passes.length)}` },
    { label: 'Deleted', value: formatCount(deleted) },
    { label: 'Slowest pass (ms)', value: points.length ? millisText(Math.max(...points.map((p) => p.millis))) : '—' },
    { label: 'Most sub-passes', value: points.length ? formatCount(Math.max(...points.map((p) => p.subPasses))) : '—' },
    { label: 'Backlog now', value: last ? backlogText(last) : '—' },
  ];

  const warnings: string[] = [];
  if (monitor.stoppedBecause) warnings.push(`The monitor deletes nothing now: ${monitor.stoppedBecause}.`);
  // Three passes in a row leaving more behind than the one before: the monitor is not keeping up.
  const tail = points.slice(-4);
  if (tail.length === 4 && tail.every((p, i) => i === 0 || p.backlog > tail[i - 1].backlog))
    warnings.push(
      `The backlog grew over the last 3 passes (${tail.map((p) => formatCount(p.backlog)).join(' → ')}): the monitor is not keeping up.`,
    );
  else if (last && last.backlog > 0 && !last.note)
    warnings.push(
      `${plural(last.backlog, 'eligible document')} stayed after the last pass: documents fell due while it ran, or a visit was interrupted.`,
    );
  const skipped = [...new Set(points.map((p) => p.note).filter((n) => n && !/cut short/.test(n)))];
  for (const s of skipped.slice(-3)) warnings.push(`Passes noted: ${s}.`);

  const cadence = !monitor.enabled
    ? 'The TTL monitor is off (ttlMonitorEnabled: false): no passes run until it is turned on.'
    : `A pass every ${formatSeconds(monitor.sleepSecs)} (ttlMonitorSleepSecs)` +
      (monitor.nextPassAt !== null ? `; the next at ${formatClockTime(new Date(monitor.nextPassAt))}.` : '.') +
      ' Moving the virtual clock runs the passes that fall due; this panel follows them.';

  return {
    title: `TTL monitor history: ${scopeWords(scope)}`,
    subtitle: points.length
      ? `The last ${plural(points.length, 'pass', 'passes')}, ${formatClockTime(new Date(points[0].startedAt))} to ${formatClockTime(new Date(points[points.length - 1].startedAt))}`
      : 'No pass has run yet: advance the virtual clock, or run a TTL pass.',
    scope,
    size,
    points,
    available: input.passes.length,
    summary,
    table: {
      caption: filtered
        ? `Per pass: what the rules of ${scopeWords(scope)} deleted, their visits' time, the pass's sub-passes, and their eligible documents left after it`
        : 'Per pass: documents deleted, time taken, sub-passes, and eligible documents left after it (the backlog)',
      headers,
      rows,
    },
    warnings,
    cadence,
  };
}
