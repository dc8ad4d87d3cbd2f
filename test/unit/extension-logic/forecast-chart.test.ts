/** The Expiry Forecast panel's model: series, pass times, the visit cap, the table's figures. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildChartModel,
  bucketsOverCap,
  capacityPerBucket,
  cumulative,
  formatBucketTime,
  HORIZONS,
  parseCount,
  passTimes,
  toFigures,
  type ForecastLike,
  type MonitorFacts,
} from '../../../src/extension/logic/forecast-chart';

const NOW = Date.UTC(2025, 0, 1, 12, 0, 0);
const HOUR = 3600_000;

function forecast(counts: number[], extra: Partial<ForecastLike> = {}): ForecastLike {
  return {
    index: 'createdAt_1',
    expireAfterSeconds: 3600,
    whatIf: false,
    now: new Date(NOW),
    horizon: new Date(NOW + counts.length * HOUR),
    bucketMs: HOUR,
    dueNow: 5,
    buckets: counts.map((count, i) => ({
      from: new Date(NOW + i * HOUR),
      to: new Date(NOW + (i + 1) * HOUR),
      count,
    })),
    later: 7,
    never: 2,
    total: 5 + 7 + 2 + counts.reduce((a, b) => a + b, 0),
    notes: [],
    ...extra,
  };
}

const monitor: MonitorFacts = { sleepSecs: 60, nextPassAt: NOW + 30_000, enabled: true, visitCap: 50_000 };

describe('forecast chart model', () => {
  it('reads dates as Date, ISO text or milliseconds', () => {
    const f = forecast([1, 2]);
    const iso = { ...f, now: new Date(NOW).toISOString(), horizon: NOW + 2 * HOUR };
    assert.deepEqual(toFigures(iso), toFigures(f));
    assert.equal(toFigures(f).buckets[1].to, NOW + 2 * HOUR);
  });

  it('accumulates from the documents due now', () => {
    assert.deepEqual(cumulative(5, [1, 0, 3]), [6, 6, 9]);
    assert.deepEqual(cumulative(0, []), []);
  });

  it('lists the monitor passes from the next one, every ttlMonitorSleepSecs, up to the horizon', () => {
    assert.deepEqual(passTimes(monitor, NOW, NOW + 150_000), [NOW + 30_000, NOW + 90_000, NOW + 150_000]);
    // A next pass already past (the clock jumped): the cadence continues from it.
    assert.deepEqual(passTimes({ ...monitor, nextPassAt: NOW - 10_000 }, NOW, NOW + 120_000), [
      NOW + 50_000,
      NOW + 110_000,
    ]);
    assert.deepEqual(passTimes({ ...monitor, enabled: false }, NOW, NOW + HOUR), []);
    assert.equal(passTimes(monitor, NOW, NOW + 24 * HOUR), null, 'too many to draw one by one');
  });

  it('finds the buckets holding more than one visit per pass can delete (50,000 per visit)', () => {
    assert.equal(capacityPerBucket(HOUR, monitor), 3_000_000);
    // A bucket shorter than a pass still gets one visit.
    assert.equal(capacityPerBucket(10_000, monitor), 50_000);
    assert.equal(capacityPerBucket(HOUR, { ...monitor, visitCap: 0 }), null);
    assert.deepEqual(bucketsOverCap([10, 3_000_001, 3_000_000], 3_000_000), [1]);
    assert.deepEqual(bucketsOverCap([10], null), []);
  });

  it('builds series, summary and table rows with the forecast figures', () => {
    const model = buildChartModel({
      db: 'app',
      collection: 'events',
      horizon: '24h',
      primary: toFigures(forecast([1, 2_000, 3_000_500])),
      monitor,
    });
    assert.deepEqual(model.primary.counts, [1, 2_000, 3_000_500]);
    assert.deepEqual(model.primary.cumulative, [6, 2_006, 3_002_506]);
    assert.deepEqual(model.primary.overCap, [2]);
    assert.equal(model.capPerBucket, 3_000_000);
    assert.equal(model.before, undefined);
    assert.deepEqual(
      model.table.rows.map((r) => r.slice(2).map((c, i) => (i < 2 ? parseCount(c) : c))),
      [
        [1, 6, ''],
        [2_000, 2_006, ''],
        [3_000_500, 3_002_506, 'yes'],
      ],
    );
    assert.equal(model.table.rows[0][0], '2025-01-01 12:00');
    assert.deepEqual(
      model.summary.map((s) => [s.label, parseCount(s.primary)]),
      [
        ['Due now', 5],
        ['Within 24 hours', 3_002_501],
        ['Later', 7],
        ['Never', 2],
        ['Total', 3_002_515],
      ],
    );
    assert.match(model.cadence, /every 1 min \(ttlMonitorSleepSecs\)/);
    assert.ok(model.warnings.some((w) => /backlog/.test(w)));
  });

  it('overlays before and after, both in the table', () => {
    const model = buildChartModel({
      db: 'app',
      collection: 'events',
      horizon: '24h',
      primary: toFigures(forecast([4, 5], { expireAfterSeconds: 60, whatIf: true, dueNow: 9 })),
      before: toFigures(forecast([1, 2])),
      monitor,
    });
    assert.deepEqual(model.table.headers.slice(2, 4), ['Before', 'After']);
    assert.deepEqual(
      model.table.rows.map((r) => [parseCount(r[2]), parseCount(r[3])]),
      [
        [1, 4],
        [2, 5],
      ],
    );
    assert.equal(model.summary[0].before, '5');
    assert.equal(model.summary[0].primary, '9');
    assert.match(model.subtitle, /Before \(1 h\) vs after \(1 min\)/);
    assert.throws(() =>
      buildChartModel({
        db: 'a',
        collection: 'b',
        horizon: '24h',
        primary: toFigures(forecast([1])),
        before: toFigures(forecast([1, 2])),
        monitor,
      }),
    );
  });

  it('says a time-series forecast is an estimate (whole buckets), and names a custom horizon from the figures', () => {
    const ts = toFigures(forecast([1, 2, 3], { kind: 'timeseries', index: 'collection' }));
    const model = buildChartModel({ db: 'app', collection: 'm', horizon: 'custom', primary: ts, monitor });
    assert.equal(model.title, 'Expiry forecast: app.m, the collection TTL (an estimate: whole buckets)');
    assert.match(model.subtitle, /next 3 h$/);
    assert.equal(model.summary[1].label, 'Within 3 h');
    const plain = buildChartModel({
      db: 'app',
      collection: 'e',
      horizon: '24h',
      primary: toFigures(forecast([1])),
      monitor,
    });
    assert.doesNotMatch(plain.title, /estimate/);
    // Relaxed extended JSON dates, as a notebook output carries them.
    const ejson = toFigures(forecast([1], { now: { $date: new Date(NOW).toISOString() } }));
    assert.equal(ejson.now, NOW);
  });

  it('formats bucket times in UTC, with seconds only for sub-minute buckets', () => {
    assert.equal(formatBucketTime(NOW, HOUR), '2025-01-01 12:00');
    assert.equal(formatBucketTime(NOW + 5_000, 10_000), '2025-01-01 12:00:05');
    assert.deepEqual(
      Object.values(HORIZONS).map((h) => h.ms / h.buckets / HOUR),
      [1, 1, 6],
    );
  });
});
