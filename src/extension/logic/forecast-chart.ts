/**
 * What the Expiry Forecast panel draws, worked out from the engine's figures (no `vscode`, no DOM):
 * the series (bars per bucket, the cumulative line), the monitor's pass times, where a bucket
 * asks more of the monitor than its 50,000-per-visit cap allows, and the same figures as table
 * rows. The webview only draws this model; tests compare it with `Backend.forecast`.
 */
import { formatClockTime, formatCount, formatSeconds } from './durations';

/** The panel's horizons: how far ahead, and in how many buckets. */
export const HORIZONS = {
  '24h': { ms: 24 * 3600_000, buckets: 24, label: '24 hours' },
  '7d': { ms: 7 * 24 * 3600_000, buckets: 168, label: '7 days' },
  '30d': { ms: 30 * 24 * 3600_000, buckets: 120, label: '30 days' },
} as const;
export type HorizonName = keyof typeof HORIZONS;

export function isHorizonName(v: unknown): v is HorizonName {
  return typeof v === 'string' && Object.prototype.hasOwnProperty.call(HORIZONS, v);
}

/** mongod deletes at most this many documents per TTL index per visit (ttlIndexDeleteTargetDocs). */
export const DEFAULT_VISIT_CAP = 50_000;
/** Pass times are drawn one by one up to this many; beyond, only the cadence is said in words. */
export const MAX_DRAWN_PASSES = 200;

/** A date as it arrives: a Date, ISO text, milliseconds, or relaxed extended JSON (`{$date: …}`). */
export type DateLike = Date | string | number | { $date: string | number };

/** A forecast as it comes from the Backend or a notebook output. */
export interface ForecastLike {
  index: string;
  kind?: string;
  expireAfterSeconds: number | null;
  whatIf: boolean;
  now: DateLike;
  horizon: DateLike;
  bucketMs: number;
  dueNow: number;
  buckets: ReadonlyArray<{ from: DateLike; to: DateLike; count: number }>;
  later: number;
  never: number;
  total: number;
  notes?: readonly string[];
}

/** One forecast as plain numbers (milliseconds since the epoch). */
export interface ForecastFigures {
  index: string;
  /** `index`, `clustered`, `timeseries` (an estimate: whole buckets), `cosmos`. */
  kind?: string;
  expireAfterSeconds: number | null;
  whatIf: boolean;
  now: number;
  horizon: number;
  bucketMs: number;
  dueNow: number;
  buckets: Array<{ from: number; to: number; count: number }>;
  later: number;
  never: number;
  total: number;
  notes: string[];
}

const ms = (v: DateLike): number =>
  v instanceof Date ? v.getTime() : typeof v === 'object' ? new Date(v.$date).getTime() : new Date(v).getTime();

export function toFigures(f: ForecastLike): ForecastFigures {
  return {
    index: f.index,
    ...(f.kind !== undefined ? { kind: f.kind } : {}),
    expireAfterSeconds: f.expireAfterSeconds,
    whatIf: f.whatIf,
    now: ms(f.now),
    horizon: ms(f.horizon),
    bucketMs: f.bucketMs,
    dueNow: f.dueNow,
    buckets: f.buckets.map((b) => ({ from: ms(b.from), to: ms(b.to), count: b.count })),
    later: f.later,
    never: f.never,
    total: f.total,
    notes: [...(f.notes ?? [])],
  };
}

/** The monitor as the chart needs it. */
export interface MonitorFacts {
  sleepSecs: number;
  nextPassAt: number | null;
  enabled: boolean;
  /** Documents per index per visit (ttlIndexDeleteTargetDocs; 0 = no cap). */
  visitCap: number;
}

export interface SeriesModel {
  /** "current (1 h)" / "what-if 10 min". */
  label: string;
  expireAfterSeconds: number | null;
  /** Count per bucket. */
  counts: number[];
  /** Eligible by the end of each bucket if nothing were deleted: dueNow + the buckets so far. */
  cumulative: number[];
  dueNow: number;
  later: number;
  never: number;
  total: number;
  /** Buckets (indexes into counts) where the documents due per pass exceed the visit cap. */
  overCap: number[];
  notes: string[];
}

export interface ChartModel {
  title: string;
  subtitle: string;
  horizon: HorizonName | 'custom';
  now: number;
  bucketMs: number;
  /** Bucket ends (ms); bucket i covers (from[i], to[i]]. */
  from: number[];
  to: number[];
  /** The forecast the panel is about: the index's own, or the what-if value when there is no "before". */
  primary: SeriesModel;
  /** With a what-if value on an existing TTL rule: the rule as it is (drawn underneath). */
  before?: SeriesModel;
  /** The documents a bucket may hold before one pass per visit cannot take them: cap × passes in the bucket. */
  capPerBucket: number | null;
  visitCap: number;
  /** Monitor pass times within the horizon (empty when there would be more than MAX_DRAWN_PASSES). */
  passTimes: number[];
  cadence: string;
  /** Summary figures shown beside the chart. */
  summary: Array<{ label: string; primary: string; before?: string }>;
  table: { caption: string; headers: string[]; rows: string[][] };
  warnings: string[];
}

/** Monitor pass times from the next pass on, every sleepSecs, within (now, horizon]. */
export function passTimes(m: MonitorFacts, now: number, horizon: number, max = MAX_DRAWN_PASSES): number[] | null {
  if (!m.enabled || m.sleepSecs <= 0) return [];
  const step = m.sleepSecs * 1000;
  let t = m.nextPassAt ?? now + step;
  if (t <= now) t = now + (step - ((now - t) % step) || step);
  const n = Math.floor((horizon - t) / step) + 1;
  if (n > max) return null;
  const out: number[] = [];
  for (; t <= horizon; t += step) out.push(t);
  return out;
}

/**
 * The documents a bucket can hold before the monitor falls behind: one visit per pass, each
 * taking at most `cap` (null when there is no cap or no pass).
 */
export function capacityPerBucket(bucketMs: number, m: MonitorFacts): number | null {
  if (m.visitCap <= 0 || !m.enabled || m.sleepSecs <= 0) return null;
  const passes = Math.max(1, bucketMs / (m.sleepSecs * 1000));
  return Math.round(m.visitCap * passes);
}

/** Indexes of the buckets holding more than `capacity`. */
export function bucketsOverCap(counts: readonly number[], capacity: number | null): number[] {
  if (capacity === null) return [];
  const out: number[] = [];
  counts.forEach((c, i) => {
    if (c > capacity) out.push(i);
  });
  return out;
}

export function cumulative(dueNow: number, counts: readonly number[]): number[] {
  let sum = dueNow;
  return counts.map((c) => (sum += c));
}

/** `2025-01-02 03:04` (UTC), seconds only when the bucket is shorter than a minute. */
export function formatBucketTime(t: number, bucketMs: number): string {
  const text = formatClockTime(new Date(t)).replace(' UTC', '');
  return bucketMs < 60_000 ? text : text.slice(0, 16);
}

function secondsLabel(s: number | null): string {
  if (s === null) return 'no expiry';
  return s === 0 ? 'at the stored date' : formatSeconds(s);
}

function series(f: ForecastFigures, label: string, capacity: number | null): SeriesModel {
  const counts = f.buckets.map((b) => b.count);
  return {
    label,
    expireAfterSeconds: f.expireAfterSeconds,
    counts,
    cumulative: cumulative(f.dueNow, counts),
    dueNow: f.dueNow,
    later: f.later,
    never: f.never,
    total: f.total,
    overCap: bucketsOverCap(counts, capacity),
    notes: f.notes,
  };
}

export interface ModelInput {
  db: string;
  collection: string;
  /** One of the panel's horizons, or `custom` (a notebook's `ttl.forecast(…)`: said from the figures). */
  horizon: HorizonName | 'custom';
  /** The forecast shown: the index as it is, or with the what-if value. */
  primary: ForecastFigures;
  /** The index as it is, when `primary` is a what-if over an existing TTL rule. */
  before?: ForecastFigures;
  monitor: MonitorFacts;
}

/** Everything the webview draws and the table shows. Both forecasts must have the same buckets. */
export function buildChartModel(input: ModelInput): ChartModel {
  const { primary: p, before: b, monitor: m } = input;
  // On the system clock the two forecasts may be a few milliseconds apart: the after's buckets are drawn.
  if (b && (b.buckets.length !== p.buckets.length || b.bucketMs !== p.bucketMs))
    throw new Error('The before and after forecasts must have the same buckets.');
  const capacity = capacityPerBucket(p.bucketMs, m);
  const horizonLabel =
    input.horizon === 'custom' ? formatSeconds(Math.round((p.horizon - p.now) / 1000)) : HORIZONS[input.horizon].label;
  const primaryLabel = p.whatIf
    ? `${b ? 'after' : 'what-if'}: ${secondsLabel(p.expireAfterSeconds)}`
    : `current: ${secondsLabel(p.expireAfterSeconds)}`;
  const primary = series(p, primaryLabel, capacity);
  const before = b ? series(b, `before: ${secondsLabel(b.expireAfterSeconds)}`, capacity) : undefined;
  const times = passTimes(m, p.now, p.horizon);
  const passesInView = m.enabled && m.sleepSecs > 0 ? Math.floor((p.horizon - p.now) / (m.sleepSecs * 1000)) : 0;
  const cadence = !m.enabled
    ? 'The TTL monitor is off (ttlMonitorEnabled: false): nothing is deleted until it is turned on.'
    : `The TTL monitor runs a pass every ${formatSeconds(m.sleepSecs)} (ttlMonitorSleepSecs)` +
      (m.nextPassAt !== null ? `, next at ${formatClockTime(new Date(m.nextPassAt))}` : '') +
      (times === null ? `; ${formatCount(passesInView)} passes in this horizon` : '') +
      (m.visitCap > 0 ? `; each visit of an index deletes at most ${formatCount(m.visitCap)} documents.` : '.');

  const fmtBefore = (pick: (s: SeriesModel) => number) => (before ? { before: formatCount(pick(before)) } : {});
  const summary = [
    { label: 'Due now', primary: formatCount(primary.dueNow), ...fmtBefore((s) => s.dueNow) },
    {
      label: `Within ${horizonLabel}`,
      primary: formatCount(primary.counts.reduce((a, c) => a + c, 0)),
      ...fmtBefore((s) => s.counts.reduce((a, c) => a + c, 0)),
    },
    { label: 'Later', primary: formatCount(primary.later), ...fmtBefore((s) => s.later) },
    { label: 'Never', primary: formatCount(primary.never), ...fmtBefore((s) => s.never) },
    { label: 'Total', primary: formatCount(primary.total), ...fmtBefore((s) => s.total) },
  ];

  const headers = ['From (UTC)', 'To (UTC)', before ? 'Before' : 'Documents', ...(before ? ['After'] : [])];
  headers.push('Eligible by then', 'Over the visit cap');
  const rows = p.buckets.map((bucket, i) => {
    const over = primary.overCap.includes(i) || (before?.overCap.includes(i) ?? false);
    return [
      formatBucketTime(bucket.from, p.bucketMs),
      formatBucketTime(bucket.to, p.bucketMs),
      ...(before ? [formatCount(before.counts[i])] : []),
      formatCount(primary.counts[i]),
      formatCount(primary.cumulative[i]),
      over ? 'yes' : '',
    ];
  });

  const warnings: string[] = [];
  if (m.visitCap > 0 && primary.dueNow > m.visitCap)
    warnings.push(
      `${formatCount(primary.dueNow)} documents are due now: more than one visit takes (${formatCount(m.visitCap)}), so the monitor needs several passes or sub-passes to catch up.`,
    );
  if (primary.overCap.length > 0)
    warnings.push(
      `${primary.overCap.length === 1 ? 'One bucket holds' : `${primary.overCap.length} buckets hold`} more than the monitor deletes in the passes it runs then (${formatCount(capacity ?? 0)} per bucket): a backlog builds up.`,
    );
  warnings.push(...primary.notes);

  const what = p.index === 'collection' ? 'the collection TTL' : `index ${p.index}`;
  // A time series goes by whole buckets, which mongod may cut differently: the figures are an estimate.
  const estimate = p.kind === 'timeseries' ? ' (an estimate: whole buckets)' : '';
  return {
    title: `Expiry forecast: ${input.db}.${input.collection}, ${what}${estimate}`,
    subtitle: before
      ? `Before (${secondsLabel(before.expireAfterSeconds)}) vs after (${secondsLabel(primary.expireAfterSeconds)}), from ${formatClockTime(new Date(p.now))}, next ${horizonLabel}`
      : `expireAfterSeconds ${secondsLabel(primary.expireAfterSeconds)}${p.whatIf ? ' (what-if)' : ''}, from ${formatClockTime(new Date(p.now))}, next ${horizonLabel}`,
    horizon: input.horizon,
    now: p.now,
    bucketMs: p.bucketMs,
    from: p.buckets.map((x) => x.from),
    to: p.buckets.map((x) => x.to),
    primary,
    ...(before ? { before } : {}),
    capPerBucket: capacity,
    visitCap: m.visitCap,
    passTimes: times ?? [],
    cadence,
    summary,
    table: {
      caption: `Documents becoming eligible for deletion per ${formatSeconds(Math.round(p.bucketMs / 1000))}`,
      headers,
      rows,
    },
    warnings,
  };
}

/** The bucket counts a table shows, read back as numbers (`1,234` → 1234; tests and the panel's self-check). */
export function parseCount(text: string): number {
  return Number(text.replace(/,/g, ''));
}
