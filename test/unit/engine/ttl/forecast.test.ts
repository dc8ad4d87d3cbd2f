/**
 * The expiry forecast (src/engine/ttl/forecast.ts) against a brute-force count written here from
 * the rules alone: every document's expiry time from its own fields, bucketed by hand. Random data
 * (dates, arrays of dates, non-dates, missing fields, dates before 1970), random index directions,
 * partial filters, expireAfterSeconds (0 included), horizons and bucket counts, and what-if values.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Int32 } from 'bson';
import { Engine, type Document } from '../../../../src/engine';
import { VirtualClock } from '../../../../src/engine/clock';
import { loadLegacyIndexSpec } from '../../../../src/engine/ttl/legacy';
import {
  forecastExpiry,
  TIMESERIES_ESTIMATE_NOTE,
  type Forecast,
  type ForecastRequest,
} from '../../../../src/engine/ttl/forecast';
import { prng } from '../../helpers/prng';

const DB = 'app';
const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3600_000;

function engineAt(now: number, flavor: 'mongodb' | 'cosmos' = 'mongodb'): { engine: Engine; clock: VirtualClock } {
  const clock = new VirtualClock(now);
  const engine = new Engine({ flavor, clock });
  // No pass may run behind the test's back: the forecast reads what is there.
  engine.runCommand('admin', { setParameter: 1, ttlMonitorEnabled: false });
  return { engine, clock };
}

/** The earliest Date directly in a value (top-level array elements count; rule 7.8), if any. */
function earliestDate(value: unknown): number | undefined {
  let min: number | undefined;
  for (const v of Array.isArray(value) ? value : [value])
    if (v instanceof Date && (min === undefined || v.getTime() < min)) min = v.getTime();
  return min;
}

interface Expected {
  dueNow: number;
  buckets: number[];
  later: number;
  never: number;
}

/** Buckets expiry times by hand: (now + i·w, now + (i+1)·w], the last one ending at the horizon. */
function bucketByHand(times: Array<number | undefined>, now: number, horizonMs: number, n: number): Expected {
  const out: Expected = { dueNow: 0, buckets: new Array<number>(n).fill(0), later: 0, never: 0 };
  const w = horizonMs / n;
  for (const t of times) {
    if (t === undefined) out.never++;
    else if (t <= now) out.dueNow++;
    else if (t > now + horizonMs) out.later++;
    else {
      let i = 0;
      while (i < n - 1 && t > now + (i + 1) * w) i++;
      out.buckets[i]++;
    }
  }
  return out;
}

function figures(f: Forecast): Expected {
  return { dueNow: f.dueNow, buckets: f.buckets.map((b) => b.count), later: f.later, never: f.never };
}

function randomValue(rand: () => number, now: number, grid: boolean, arrays: boolean): unknown {
  // On a grid of half hours, dates fall exactly on bucket ends and on now, where a bound that is
  // off by one shows.
  const date = () =>
    new Date(grid ? now + Math.round((rand() - 0.6) * 80) * 1800_000 : now + Math.floor((rand() - 0.6) * 40 * HOUR));
  const r = rand();
  if (r < 0.45) return date();
  if (r < 0.6 && arrays) return Array.from({ length: Math.floor(rand() * 4) }, () => (rand() < 0.8 ? date() : 'x'));
  if (r < 0.7) return 'not a date';
  if (r < 0.75) return 42;
  if (r < 0.8) return null;
  if (r < 0.83) return new Date(-86400_000 * Math.ceil(rand() * 1000)); // before 1970
  return undefined; // missing
}

describe('expiry forecast', () => {
  it('rules 7.7–7.9: equals a brute-force count on random data, indexes, partial filters, horizons and what-ifs (200 rounds)', () => {
    const rand = prng(20261125);
    for (let round = 0; round < 200; round++) {
      const now = T0 + Math.floor(rand() * 1000) * 1000;
      const grid = rand() < 0.5;
      // Arrays make the index multikey, which is counted another way than a single-key one.
      const multikey = rand() < 0.4;
      const { engine } = engineAt(now);
      const docs: Document[] = [];
      const count = Math.floor(rand() * 300);
      for (let i = 0; i < count; i++) {
        const doc: Document = { _id: i, status: rand() < 0.5 ? 'done' : 'open' };
        const v = randomValue(rand, now, grid, multikey);
        if (v !== undefined) doc.at = v;
        docs.push(doc);
      }
      if (docs.length) engine.runCommand(DB, { insert: 'c', documents: docs });
      const direction = rand() < 0.5 ? 1 : -1;
      const partial = rand() < 0.3;
      const seconds = rand() < 0.2 ? 0 : grid ? Math.floor(rand() * 40) * 1800 : Math.floor(rand() * 20 * 3600);
      engine.runCommand(DB, {
        createIndexes: 'c',
        indexes: [
          {
            key: { at: direction },
            name: 'at_ttl',
            expireAfterSeconds: seconds,
            ...(partial ? { partialFilterExpression: { status: 'done' } } : {}),
          },
        ],
      });
      const horizonMs = grid ? 24 * HOUR : Math.ceil(rand() * 48) * HOUR + Math.floor(rand() * 1000);
      const buckets = grid ? [1, 2, 3, 4, 6, 8, 12, 24, 48][Math.floor(rand() * 9)] : 1 + Math.floor(rand() * 60);
      const whatIf =
        rand() < 0.3 ? (grid ? Math.floor(rand() * 40) * 1800 : Math.floor(rand() * 30 * 3600)) : undefined;
      const whatIfFilter = rand() < 0.15 ? { status: 'open' } : undefined;
      const request: ForecastRequest = {
        index: rand() < 0.5 ? 'at_ttl' : undefined,
        horizonMs,
        buckets,
        ...(whatIf !== undefined ? { expireAfterSeconds: whatIf } : {}),
        ...(whatIfFilter ? { partialFilterExpression: whatIfFilter } : {}),
      };
      const collection = engine.requireCollection(DB, 'c');
      const got = forecastExpiry(collection, request, now);

      const filter = whatIfFilter?.status ?? (partial ? 'done' : undefined);
      const eas = whatIf ?? seconds;
      const covered = docs.filter((d) => filter === undefined || d.status === filter);
      const times = covered.map((d) => {
        const e = earliestDate(d.at);
        return e === undefined ? undefined : e + eas * 1000;
      });
      const context = `round ${round}: ${JSON.stringify({ grid, multikey, direction, partial, seconds, horizonMs, buckets, whatIf, whatIfFilter })}`;
      assert.deepEqual(figures(got), bucketByHand(times, now, horizonMs, buckets), context);
      assert.equal(got.total, covered.length, context);
      assert.equal(got.expireAfterSeconds, eas, context);
      assert.equal(got.whatIf, whatIf !== undefined || whatIfFilter !== undefined, context);
      assert.equal(got.buckets.length, buckets);
      assert.equal(got.buckets[0].from.getTime(), now);
      assert.equal(got.buckets.at(-1)!.to.getTime(), now + horizonMs);
      for (let i = 1; i < buckets; i++) assert.equal(got.buckets[i].from.getTime(), got.buckets[i - 1].to.getTime());
    }
  });

  it('rule 7.8: an array counts once, at its earliest date, in an ascending and a descending multikey index', () => {
    for (const direction of [1, -1]) {
      const { engine } = engineAt(T0);
      engine.runCommand(DB, {
        insert: 'c',
        documents: [
          { _id: 1, at: [new Date(T0 + 5 * HOUR), new Date(T0 + 1 * HOUR), new Date(T0 + 30 * HOUR)] },
          { _id: 2, at: [new Date(T0 - HOUR), new Date(T0 + 2 * HOUR)] },
          { _id: 3, at: ['x', 1] },
          { _id: 4, at: [] },
          { _id: 5, at: [new Date(T0), new Date(T0 + 3 * HOUR)] },
        ],
      });
      engine.runCommand(DB, {
        createIndexes: 'c',
        indexes: [{ key: { at: direction }, name: 'at', expireAfterSeconds: 0 }],
      });
      const f = forecastExpiry(engine.requireCollection(DB, 'c'), { horizonMs: 24 * HOUR, buckets: 24 }, T0);
      assert.equal(f.dueNow, 2, 'documents 2 (an hour ago) and 5 (now exactly) are due now');
      assert.equal(f.buckets[0].count, 1, 'document 1 goes in the first hour, at its earliest date');
      assert.equal(
        f.buckets.reduce((a, b) => a + b.count, 0),
        1,
      );
      assert.equal(f.later, 0);
      assert.equal(f.never, 2, 'no date in the array, or an empty array: never');
      assert.equal(f.total, 5);
    }
  });

  it('rule 1.4 / 7.7: expireAfterSeconds 0 expires each document at its own clock time; a what-if moves them all', () => {
    const { engine } = engineAt(T0);
    engine.runCommand(DB, {
      insert: 'c',
      documents: [1, 2, 3, 10, 30].map((h) => ({ _id: h, expireAt: new Date(T0 + h * HOUR) })),
    });
    engine.runCommand(DB, {
      createIndexes: 'c',
      indexes: [{ key: { expireAt: 1 }, name: 'e', expireAfterSeconds: 0 }],
    });
    const coll = engine.requireCollection(DB, 'c');
    const f = forecastExpiry(coll, { horizonMs: 24 * HOUR, buckets: 4 }, T0);
    assert.deepEqual(
      f.buckets.map((b) => b.count),
      [3, 1, 0, 0],
    );
    assert.equal(f.later, 1);
    assert.equal(f.whatIf, false);
    // What-if: 12 hours later each.
    const g = forecastExpiry(coll, { horizonMs: 24 * HOUR, buckets: 4, expireAfterSeconds: 12 * 3600 }, T0);
    assert.deepEqual(
      g.buckets.map((b) => b.count),
      [0, 0, 3, 1],
    );
    assert.equal(g.whatIf, true);
    assert.equal(g.expireAfterSeconds, 12 * 3600);
  });

  it('a key with no index yet: forecast as the TTL index it would be, from the documents', () => {
    const { engine } = engineAt(T0);
    engine.runCommand(DB, {
      insert: 'c',
      documents: [
        { _id: 1, t: new Date(T0 - 2 * HOUR) },
        { _id: 2, t: new Date(T0 + HOUR) },
        { _id: 3, t: 'x' },
      ],
    });
    const coll = engine.requireCollection(DB, 'c');
    const f = forecastExpiry(coll, { index: { t: 1 }, expireAfterSeconds: 3600, horizonMs: 4 * HOUR, buckets: 2 }, T0);
    assert.equal(f.dueNow, 1);
    assert.deepEqual(
      f.buckets.map((b) => b.count),
      [1, 0],
    );
    assert.equal(f.never, 1);
    assert.ok(f.notes.some((n) => n.includes('no index holds this key yet')));
  });

  it('rule 7.6: an index whose stored expireAfterSeconds is invalid expires nothing, and says why', () => {
    const { engine } = engineAt(T0);
    engine.runCommand(DB, { insert: 'c', documents: [{ _id: 1, t: new Date(T0 - HOUR) }] });
    // A NaN spec as an older server left it (createIndex refuses one now).
    loadLegacyIndexSpec(engine, DB, 'c', { key: { t: 1 }, name: 't_1', expireAfterSeconds: Number.NaN });
    const coll = engine.requireCollection(DB, 'c');
    const f = forecastExpiry(coll, { index: 't_1' }, T0);
    assert.equal(f.dueNow, 0);
    assert.equal(f.never, 1);
    assert.equal(f.expireAfterSeconds, null);
    assert.ok(f.notes.some((n) => n.includes('skips this index')));
  });

  it('rules 5.4 / 7.10: a clustered collection counts its _id dates from 1970 on; other _ids never', () => {
    const { engine } = engineAt(T0);
    engine.runCommand(DB, {
      create: 'cl',
      clusteredIndex: { key: { _id: 1 }, unique: true },
      expireAfterSeconds: 3600,
    });
    engine.runCommand(DB, {
      insert: 'cl',
      documents: [
        { _id: new Date(-1000) },
        { _id: new Date(0) },
        { _id: new Date(T0 - 30 * 60_000) },
        { _id: new Date(T0 + 5 * HOUR) },
        { _id: 'not a date' },
      ],
    });
    const f = forecastExpiry(engine.requireCollection(DB, 'cl'), { horizonMs: 24 * HOUR, buckets: 24 }, T0);
    assert.equal(f.kind, 'clustered');
    assert.equal(f.dueNow, 1, 'Date(0) expired long ago; the date before 1970 never does');
    assert.equal(f.buckets[0].count, 1, 'half an hour old + 1 h: in the first hour');
    assert.equal(f.buckets[5].count, 1, 'T0 + 5 h + 1 h: the sixth hour');
    assert.equal(f.never, 2);
    assert.equal(f.total, 5);
    assert.deepEqual(
      [f.whatIf, f.expireAfterSeconds, f.notes],
      [false, 3600, ['_id values that are not dates, or dates before 1970, never expire (rule 5.4)']],
    );
    const g = forecastExpiry(engine.requireCollection(DB, 'cl'), { expireAfterSeconds: 60 }, T0);
    assert.deepEqual([g.whatIf, g.expireAfterSeconds], [true, 60]);
  });

  it('rule 5.4: near 1970, a clustered forecast starts at Date(0): earlier _ids never expire, even in a bucket that reaches back before it', () => {
    const now = 30 * 60_000; // 1970-01-01T00:30Z: now − expireAfterSeconds lies before 1970
    const { engine } = engineAt(now);
    engine.runCommand(DB, {
      create: 'cl',
      clusteredIndex: { key: { _id: 1 }, unique: true },
      expireAfterSeconds: 1800, // the most createIndex allows here (rule 5.4); the what-if asks about 3600
    });
    engine.runCommand(DB, {
      insert: 'cl',
      documents: [{ _id: new Date(-1000) }, { _id: new Date(0) }, { _id: new Date(HOUR) }],
    });
    const f = forecastExpiry(
      engine.requireCollection(DB, 'cl'),
      { horizonMs: 2 * HOUR, buckets: 2, expireAfterSeconds: 3600 },
      now,
    );
    assert.equal(f.dueNow, 0);
    assert.deepEqual(
      f.buckets.map((b) => b.count),
      [1, 1],
      'Date(0) goes at 01:00, Date(1 h) at 02:00',
    );
    assert.equal(f.never, 1, 'the _id before 1970');
    // An hour later the first bucket starts exactly at Date(0) + 1 h: Date(0) is due, counted once.
    const g = forecastExpiry(
      engine.requireCollection(DB, 'cl'),
      { horizonMs: 2 * HOUR, buckets: 2, expireAfterSeconds: 3600 },
      HOUR,
    );
    assert.equal(g.dueNow, 1);
    assert.deepEqual(
      g.buckets.map((b) => b.count),
      [1, 0],
    );
    assert.equal(g.total, 3);
  });

  it('rules 6.1 / 6.2: a time-series collection counts measurements by whole bucket, and says it is an estimate', () => {
    const { engine } = engineAt(T0);
    engine.runCommand(DB, {
      create: 'ts',
      timeseries: { timeField: 't', bucketMaxSpanSeconds: 3600, bucketRoundingSeconds: 3600 },
      expireAfterSeconds: 3600,
    });
    engine.runCommand(DB, {
      insert: 'ts',
      documents: [
        { t: new Date(T0 - 3 * HOUR + 60_000) },
        { t: new Date(T0 - 3 * HOUR + 120_000) },
        { t: new Date(T0 - HOUR + 60_000) },
      ],
    });
    const f = forecastExpiry(engine.requireCollection(DB, 'ts'), { horizonMs: 4 * HOUR, buckets: 4 }, T0);
    assert.equal(f.kind, 'timeseries');
    // Bucket at T0 − 3 h goes at T0 − 3 h + 1 h + 1 h = T0 − 1 h (due); bucket at T0 − 1 h at T0 + 1 h.
    assert.equal(f.dueNow, 2);
    assert.equal(f.buckets[0].count, 1);
    assert.ok(f.notes[0].includes('estimate'));
  });

  it("rule 6.4: a time series' partial TTL index is forecast by whole bucket for the meta it selects, as the monitor deletes", () => {
    const { engine, clock } = engineAt(T0);
    engine.runCommand(DB, {
      create: 'ts',
      timeseries: { timeField: 't', metaField: 'm', bucketMaxSpanSeconds: 3600, bucketRoundingSeconds: 3600 },
    });
    // Per measurement, t + 60 s is past for all of them; per bucket, minTime + 60 s + 1 h is not for the newest.
    const documents = [
      { t: new Date(T0 - 3 * HOUR), m: 'a' },
      { t: new Date(T0 - 3 * HOUR + 60_000), m: 'a' },
      { t: new Date(T0 - 30 * 60_000), m: 'a' },
      { t: new Date(T0 - 3 * HOUR), m: 'b' },
    ];
    engine.runCommand(DB, { insert: 'ts', documents });
    engine.runCommand(DB, {
      createIndexes: 'ts',
      indexes: [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 60, partialFilterExpression: { m: 'a' } }],
    });
    const f = forecastExpiry(engine.requireCollection(DB, 'ts'), { index: 't_1', horizonMs: 2 * HOUR, buckets: 2 }, T0);
    assert.equal(f.kind, 'timeseries');
    assert.equal(f.index, 't_1');
    assert.equal(f.expireAfterSeconds, 60);
    // The bucket of T0 − 3 h (two measurements of "a") is due; the one of T0 − 1 h goes at T0 + 1 min.
    assert.deepEqual([f.dueNow, f.buckets.map((b) => b.count), f.later, f.never, f.total], [2, [1, 0], 0, 0, 3]);
    assert.ok(f.notes.some((n) => n.includes('estimate')));
    // What the monitor deletes agrees: the due bucket now, the other a minute later.
    engine.runCommand('admin', { setParameter: 1, ttlMonitorEnabled: true });
    engine.ttl.runPass();
    assert.equal(engine.requireCollection(DB, 'ts').count, 2, 'the two due measurements of "a" went');
    clock.set(T0 + 60_000);
    engine.ttl.runPass();
    assert.equal(engine.requireCollection(DB, 'ts').count, 1, 'then the bucket due in the first hour');
    // A what-if value moves the same buckets.
    const w = forecastExpiry(
      engine.requireCollection(DB, 'ts'),
      { index: 't_1', expireAfterSeconds: 7200, horizonMs: 2 * HOUR, buckets: 2 },
      T0 - 4 * HOUR,
    );
    assert.equal(w.whatIf, true);
    assert.equal(w.expireAfterSeconds, 7200);
  });

  it('rule 6.3: a time series with extended-range dates is forecast to expire nothing, with the reason', () => {
    const { engine } = engineAt(T0);
    engine.runCommand(DB, { create: 'ts', timeseries: { timeField: 't' }, expireAfterSeconds: 60 });
    engine.runCommand(DB, {
      insert: 'ts',
      documents: [{ t: new Date(T0 - 3 * HOUR) }, { t: new Date(Date.UTC(1960, 0, 1)) }],
    });
    const f = forecastExpiry(engine.requireCollection(DB, 'ts'), {}, T0);
    assert.deepEqual([f.dueNow, f.never, f.total], [0, 2, 2]);
    assert.equal(f.notes.length, 1);
    assert.match(f.notes[0], /^the monitor skips this rule \(.*extended range.*\): nothing expires$/);
    assert.deepEqual([f.whatIf, f.expireAfterSeconds], [false, null]);
    const g = forecastExpiry(engine.requireCollection(DB, 'ts'), { expireAfterSeconds: 5 }, T0);
    assert.deepEqual([g.whatIf, g.expireAfterSeconds, g.never], [true, 5, 2]);
  });

  it('a what-if partial filter on a time series is refused with BadValue and what to do instead', () => {
    const { engine } = engineAt(T0);
    engine.runCommand(DB, { create: 'ts', timeseries: { timeField: 't', metaField: 'm' }, expireAfterSeconds: 60 });
    assert.throws(
      () => forecastExpiry(engine.requireCollection(DB, 'ts'), { partialFilterExpression: { m: 'a' } }, T0),
      (e: { code?: number; codeName?: string; message: string }) =>
        e.code === 2 && e.codeName === 'BadValue' && /time-series/.test(e.message),
    );
  });

  it("rules 10.1–10.4: the Cosmos flavor reads _ts plus each document's own ttl, -1 never, and a what-if default", () => {
    const { engine } = engineAt(T0, 'cosmos');
    engine.runCommand(DB, {
      insert: 'c',
      documents: [{ _id: 1 }, { _id: 2, ttl: new Int32(7200) }, { _id: 3, ttl: -1 }],
    });
    engine.runCommand(DB, {
      createIndexes: 'c',
      indexes: [{ key: { _ts: 1 }, name: '_ts_1', expireAfterSeconds: 60 }],
    });
    const coll = engine.requireCollection(DB, 'c');
    const f = forecastExpiry(coll, { horizonMs: 4 * HOUR, buckets: 4 }, T0, 'cosmos');
    assert.equal(f.kind, 'cosmos');
    assert.deepEqual(
      f.buckets.map((b) => b.count),
      [1, 1, 0, 0],
    );
    assert.equal(f.never, 1);
    assert.deepEqual(
      [f.whatIf, f.expireAfterSeconds, f.notes],
      [
        false,
        60,
        [
          "each document's _ts (last write) plus its own ttl where valid, else the collection's default (rules 10.1–10.4); ttl: -1 never expires",
        ],
      ],
    );
    const g = forecastExpiry(coll, { horizonMs: 4 * HOUR, buckets: 4, expireAfterSeconds: 3 * 3600 }, T0, 'cosmos');
    assert.deepEqual([g.whatIf, g.expireAfterSeconds], [true, 3 * 3600]);
    assert.deepEqual(
      g.buckets.map((b) => b.count),
      [0, 1, 1, 0],
      'the default moves to 3 h; the document with its own ttl keeps 2 h',
    );
  });

  it('bad requests get a code and a message that says what to do', () => {
    const { engine } = engineAt(T0);
    engine.runCommand(DB, { insert: 'c', documents: [{ _id: 1, t: new Date(T0) }] });
    engine.runCommand(DB, { createIndexes: 'c', indexes: [{ key: { t: 1 }, name: 't_1' }] });
    const coll = engine.requireCollection(DB, 'c');
    const fails = (request: ForecastRequest, code: number, text: RegExp) =>
      assert.throws(
        () => forecastExpiry(coll, request, T0),
        (err: { code?: number; message: string }) => err.code === code && text.test(err.message),
      );
    fails({ index: 't_1', expireAfterSeconds: 60, horizonMs: -1 }, 2, /horizon must be a positive/);
    fails({ index: 't_1', expireAfterSeconds: 60, buckets: 0 }, 2, /from 1 to 10000/);
    fails({ index: 't_1', expireAfterSeconds: 60, buckets: 10_001 }, 2, /from 1 to 10000/);
    fails({ index: 't_1', expireAfterSeconds: 60, buckets: 2.5 }, 2, /whole number/);
    fails({ index: 'nope' }, 27, /no index named "nope" \(it has _id_, t_1\)/);
    fails({}, 27, /has no TTL index/);
    fails({ index: 't_1' }, 2, /not a TTL index: give expireAfterSeconds/);
    fails({ index: 't_1', expireAfterSeconds: -5 }, 67, /cannot be less than 0/);
    fails({ index: { other: 1 } }, 2, /no index on .*give expireAfterSeconds/);
    fails({ index: { a: 1, b: 1 }, expireAfterSeconds: 5 }, 67, /single-field/);
    // A compound key pattern names the index that has it: refused as that index, not as a new one.
    engine.runCommand(DB, { createIndexes: 'c', indexes: [{ key: { a: 1, b: 1 }, name: 'a_b' }] });
    fails({ index: { a: 1, b: 1 }, expireAfterSeconds: 5 }, 67, /^a_b on .* cannot be a TTL index/);
    engine.runCommand(DB, { createIndexes: 'c', indexes: [{ key: { u: 1 }, name: 'u_1', expireAfterSeconds: 5 }] });
    engine.runCommand(DB, { createIndexes: 'c', indexes: [{ key: { w: 1 }, name: 'w_1', expireAfterSeconds: 5 }] });
    fails({}, 2, /2 TTL indexes \(u_1, w_1\): name one/);
  });
});

describe('expiry forecast: edges the random rounds do not reach', () => {
  it('an expiry time on a bucket end falls in the bucket it ends; at now it is due; past the horizon it is later', () => {
    const { engine } = engineAt(T0, 'cosmos');
    // Written at T0: each document expires at T0 + its own ttl.
    const ttls = [1800, 3600, 3601, 4 * 3600, 4 * 3600 + 1];
    engine.runCommand(DB, { insert: 'c', documents: ttls.map((ttl, i) => ({ _id: i, ttl })) });
    engine.runCommand(DB, {
      createIndexes: 'c',
      indexes: [{ key: { _ts: 1 }, name: '_ts_1', expireAfterSeconds: 60 }],
    });
    const coll = engine.requireCollection(DB, 'c');
    const now = T0 + 1800_000;
    const f = forecastExpiry(coll, { horizonMs: 3.5 * HOUR, buckets: 7 }, now, 'cosmos');
    assert.equal(f.dueNow, 1, 'the expiry at now is due');
    assert.deepEqual(
      f.buckets.map((b) => b.count),
      [1, 1, 0, 0, 0, 0, 1],
      'T0 + 1 h ends bucket 0; T0 + 1 h 1 s starts bucket 1; T0 + 4 h ends the last',
    );
    assert.equal(f.later, 1);
    assert.equal(f.total, 5);
    assert.deepEqual(f.buckets[0], { from: new Date(now), to: new Date(now + 1800_000), count: 1 });
    assert.deepEqual(f.buckets[6].to, new Date(now + 3.5 * HOUR));
    assert.deepEqual([f.now, f.horizon, f.bucketMs], [new Date(now), new Date(now + 3.5 * HOUR), 1800_000]);
  });

  it('an expiry at exactly the horizon is in the last bucket when the bucket width is not a whole number of ms', () => {
    // 1004 ms in 7 buckets: 7 widths add up to 1003.9999999999999 and 1004 / width is 7.000000000000001.
    const { engine } = engineAt(T0, 'cosmos');
    engine.runCommand(DB, { insert: 'c', documents: [{ _id: 1, ttl: 2 }] });
    engine.runCommand(DB, {
      createIndexes: 'c',
      indexes: [{ key: { _ts: 1 }, name: '_ts_1', expireAfterSeconds: 60 }],
    });
    const now = T0 + 2000 - 1004;
    const f = forecastExpiry(engine.requireCollection(DB, 'c'), { horizonMs: 1004, buckets: 7 }, now, 'cosmos');
    assert.deepEqual(
      f.buckets.map((b) => b.count),
      [0, 0, 0, 0, 0, 0, 1],
    );
    assert.deepEqual([f.dueNow, f.later, f.total], [0, 0, 1]);
    assert.deepEqual(f.buckets[6].to, new Date(now + 1004));
    // At the epoch the sum of widths is not rounded away: the last bucket still ends at the horizon.
    const early = engineAt(0).engine;
    early.runCommand(DB, { insert: 'c', documents: [{ _id: 1, at: new Date(1004) }] });
    early.runCommand(DB, { createIndexes: 'c', indexes: [{ key: { at: 1 }, name: 'at', expireAfterSeconds: 0 }] });
    const g = forecastExpiry(early.requireCollection(DB, 'c'), { horizonMs: 1004, buckets: 7 }, 0);
    assert.deepEqual(g.buckets[6], { from: new Date(6 * (1004 / 7)), to: new Date(1004), count: 1 });
    assert.equal(g.later, 0);
  });

  it('rule 7.8: a Date with no time (new Date(NaN)), alone or in an array, is due now, as the monitor deletes it at its next pass', () => {
    const { engine } = engineAt(T0);
    engine.runCommand(DB, {
      insert: 'c',
      documents: [
        { _id: 1, t: new Date(Number.NaN) },
        { _id: 2, t: [new Date(Number.NaN), new Date(T0 + HOUR)] },
        { _id: 3, t: new Date(T0 + HOUR) },
      ],
    });
    engine.runCommand(DB, { createIndexes: 'c', indexes: [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 0 }] });
    const coll = engine.requireCollection(DB, 'c');
    const f = forecastExpiry(coll, { horizonMs: 2 * HOUR, buckets: 2 }, T0);
    assert.deepEqual([f.dueNow, f.buckets.map((b) => b.count), f.later, f.never], [2, [1, 0], 0, 0]);
    engine.runCommand('admin', { setParameter: 1, ttlMonitorEnabled: true });
    engine.ttl.runPass();
    assert.deepEqual(
      [...coll.records.values()].map((r) => r.doc._id),
      [3],
      'the monitor deleted the two the forecast called due',
    );
  });

  it('without a horizon or a bucket count: 24 hourly buckets', () => {
    const { engine } = engineAt(T0);
    engine.runCommand(DB, { insert: 'c', documents: [{ _id: 1, t: new Date(T0) }] });
    engine.runCommand(DB, { createIndexes: 'c', indexes: [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 60 }] });
    const f = forecastExpiry(engine.requireCollection(DB, 'c'), {}, T0);
    assert.equal(f.buckets.length, 24);
    assert.equal(f.bucketMs, HOUR);
    assert.deepEqual(f.horizon, new Date(T0 + 24 * HOUR));
    assert.equal(f.buckets[0].count, 1);
  });

  it('an index named by its key pattern is found whatever the numeric type of its direction; another direction is not it', () => {
    const { engine } = engineAt(T0);
    engine.runCommand(DB, { insert: 'c', documents: [{ _id: 1, t: new Date(T0) }] });
    engine.runCommand(DB, { createIndexes: 'c', indexes: [{ key: { t: 1 }, name: 'by_t', expireAfterSeconds: 60 }] });
    const coll = engine.requireCollection(DB, 'c');
    const found = forecastExpiry(coll, { index: { t: new Int32(1) } }, T0);
    assert.deepEqual([found.index, found.whatIf, found.expireAfterSeconds], ['by_t', false, 60]);
    const proposed = forecastExpiry(coll, { index: { t: -1 }, expireAfterSeconds: 60 }, T0);
    assert.equal(proposed.index, 'proposed');
    assert.deepEqual(proposed.notes, [
      'no index holds this key yet: the documents were read to build the one it would be',
    ]);
  });

  it('more refusals, each saying what to do', () => {
    const { engine } = engineAt(T0);
    engine.runCommand(DB, { insert: 'c', documents: [{ _id: 1, t: new Date(T0) }] });
    engine.runCommand(DB, { createIndexes: 'c', indexes: [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 60 }] });
    engine.runCommand(DB, { createIndexes: 'c', indexes: [{ key: { h: 'hashed' }, name: 'h_hashed' }] });
    const coll = engine.requireCollection(DB, 'c');
    const fails = (request: ForecastRequest, code: number, text: RegExp) =>
      assert.throws(
        () => forecastExpiry(coll, request, T0),
        (err: { code?: number; message: string }) => err.code === code && text.test(err.message),
        text.source,
      );
    const YEAR = 365 * 24 * HOUR;
    fails({ horizonMs: 100 * YEAR + 1 }, 2, /at most 100 years ahead: use a shorter horizon/);
    assert.equal(forecastExpiry(coll, { horizonMs: 100 * YEAR }, T0).horizon.getTime(), T0 + 100 * YEAR);
    fails({ horizonMs: 0 }, 2, /horizon must be a positive duration.*got 0 ms/);
    fails({ horizonMs: Number.NaN }, 2, /horizon must be a positive duration/);
    fails({ horizonMs: Number.POSITIVE_INFINITY }, 2, /horizon must be a positive duration/);
    fails({ horizonMs: '24h' as unknown as number }, 2, /horizon must be a positive duration.*got 24h ms/);
    fails({ buckets: Number.NaN }, 2, /whole number from 1 to 10000 \(got NaN\)/);
    assert.equal(forecastExpiry(coll, { buckets: 10_000 }, T0).buckets.length, 10_000);
    assert.equal(forecastExpiry(coll, { buckets: 1 }, T0).buckets.length, 1);
    fails({ index: 5 as unknown as string }, 2, /index must be an index name or a key pattern/);
    fails(
      { partialFilterExpression: [] as unknown as Document },
      2,
      /partialFilterExpression must be a query document/,
    );
    fails(
      { index: 'h_hashed', expireAfterSeconds: 5 },
      67,
      /h_hashed on .* cannot be a TTL index.*Forecast a single-field index/,
    );
  });
});

describe('expiry forecast: which rule a collection and an index get', () => {
  it('rule 10.1: a _ts TTL index is the Cosmos rule only in the cosmos flavor; named or not, mongodb reads its dates', () => {
    const { engine } = engineAt(T0);
    engine.runCommand(DB, { insert: 'c', documents: [{ _id: 1, _ts: new Date(T0 - HOUR) }, { _id: 2 }] });
    engine.runCommand(DB, { createIndexes: 'c', indexes: [{ key: { _ts: 1 }, name: '_ts_1', expireAfterSeconds: 0 }] });
    const coll = engine.requireCollection(DB, 'c');
    for (const request of [{}, { index: '_ts_1' }]) {
      const f = forecastExpiry(coll, { ...request, horizonMs: HOUR, buckets: 1 }, T0);
      assert.deepEqual([f.kind, f.index, f.dueNow, f.never], ['index', '_ts_1', 1, 1], JSON.stringify(request));
    }
  });

  it('rule 10.1: in the cosmos flavor, the _ts index named is forecast by _ts and ttl', () => {
    const { engine } = engineAt(T0, 'cosmos');
    engine.runCommand(DB, {
      insert: 'c',
      documents: [
        { _id: 1, ttl: 60 },
        { _id: 2, ttl: -1 },
      ],
    });
    engine.runCommand(DB, {
      createIndexes: 'c',
      indexes: [{ key: { _ts: 1 }, name: '_ts_1', expireAfterSeconds: 7200 }],
    });
    const f = forecastExpiry(
      engine.requireCollection(DB, 'c'),
      { index: '_ts_1', horizonMs: HOUR, buckets: 1 },
      T0,
      'cosmos',
    );
    assert.deepEqual(
      [f.kind, f.index, f.expireAfterSeconds, f.buckets[0].count, f.never],
      ['cosmos', '_ts_1', 7200, 1, 1],
    );
  });

  it('rules 7.6 / 10.2: a Cosmos _ts index the monitor skips (NaN) is no default: nothing expires', () => {
    const { engine } = engineAt(T0, 'cosmos');
    engine.runCommand(DB, { insert: 'c', documents: [{ _id: 1, ttl: 60 }, { _id: 2 }] });
    loadLegacyIndexSpec(engine, DB, 'c', { key: { _ts: 1 }, name: 'nan', expireAfterSeconds: Number.NaN });
    const f = forecastExpiry(
      engine.requireCollection(DB, 'c'),
      { index: 'nan', horizonMs: HOUR, buckets: 1 },
      T0,
      'cosmos',
    );
    assert.deepEqual([f.kind, f.index, f.expireAfterSeconds, f.dueNow, f.never], ['cosmos', '_ts', null, 0, 2]);
  });

  it('rule 7.8: the document inserted last counts once however many of its dates fall in the horizon', () => {
    const { engine } = engineAt(T0);
    engine.runCommand(DB, {
      insert: 'c',
      documents: [
        { _id: 1, at: new Date(T0 + HOUR) },
        { _id: 2, at: [new Date(T0 + 2 * HOUR), new Date(T0 + 3 * HOUR), new Date(T0 + 4 * HOUR)] },
      ],
    });
    engine.runCommand(DB, { createIndexes: 'c', indexes: [{ key: { at: 1 }, name: 'at', expireAfterSeconds: 0 }] });
    const f = forecastExpiry(engine.requireCollection(DB, 'c'), { horizonMs: 4 * HOUR, buckets: 4 }, T0);
    assert.deepEqual(
      f.buckets.map((b) => b.count),
      [1, 1, 0, 0],
    );
    assert.equal(f.total, 2);
  });

  it('rule 7.9: a sparse multikey index covers only the documents that have the field; of those, non-dates never expire', () => {
    const { engine } = engineAt(T0);
    engine.runCommand(DB, {
      insert: 'c',
      documents: [{ _id: 1, at: [new Date(T0 - HOUR), new Date(T0)] }, { _id: 2, at: 'x' }, { _id: 3 }],
    });
    engine.runCommand(DB, {
      createIndexes: 'c',
      indexes: [{ key: { at: 1 }, name: 'at', expireAfterSeconds: 0, sparse: true }],
    });
    const f = forecastExpiry(engine.requireCollection(DB, 'c'), { horizonMs: HOUR, buckets: 1 }, T0);
    assert.deepEqual([f.dueNow, f.never, f.total], [1, 1, 2]);
  });

  it('a what-if partial filter alone makes a what-if, refused when a partial index could not hold it', () => {
    const { engine } = engineAt(T0);
    engine.runCommand(DB, {
      insert: 'c',
      documents: [
        { _id: 1, t: new Date(T0), s: 'a' },
        { _id: 2, t: new Date(T0), s: 'b' },
      ],
    });
    engine.runCommand(DB, { createIndexes: 'c', indexes: [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 0 }] });
    const coll = engine.requireCollection(DB, 'c');
    const f = forecastExpiry(coll, { partialFilterExpression: { s: 'a' } }, T0);
    assert.deepEqual([f.whatIf, f.expireAfterSeconds, f.dueNow, f.total], [true, 0, 1, 1]);
    assert.deepEqual(f.notes, ['the what-if partial filter was applied by reading the documents']);
    assert.throws(
      () => forecastExpiry(coll, { partialFilterExpression: { s: { $ne: 'a' } } }, T0),
      (err: { code?: number; message: string }) => err.code !== undefined && /\$ne/.test(err.message),
    );
  });

  it('rule 6.4: a time series whose one TTL rule is a partial index is forecast by whole bucket, named or not', () => {
    const { engine } = engineAt(T0);
    engine.runCommand(DB, { create: 'ts', timeseries: { timeField: 't', metaField: 'm' } });
    engine.runCommand(DB, {
      insert: 'ts',
      documents: [
        { t: new Date(T0), m: 'a' },
        { t: new Date(T0 + 1000), m: 'a' },
        { t: new Date(T0), m: 'b' },
      ],
    });
    engine.runCommand(DB, {
      createIndexes: 'ts',
      indexes: [{ key: { t: 1 }, name: 'a_ttl', expireAfterSeconds: 0, partialFilterExpression: { m: 'a' } }],
    });
    const coll = engine.requireCollection(DB, 'ts');
    // Bucket "a" starts at T0 and spans an hour: both its measurements go at T0 + 1 h, none sooner.
    for (const request of [{}, { index: 'a_ttl' }]) {
      const f = forecastExpiry(coll, { ...request, horizonMs: 2 * HOUR, buckets: 2 }, T0);
      assert.deepEqual(
        [f.kind, f.index, f.dueNow, f.buckets.map((b) => b.count), f.total],
        ['timeseries', 'a_ttl', 0, [2, 0], 2],
        JSON.stringify(request),
      );
    }
  });

  it('an index name on a collection with no index at all says it has none', () => {
    const { engine } = engineAt(T0);
    engine.runCommand(DB, { create: 'ts', timeseries: { timeField: 't' } });
    assert.throws(
      () => forecastExpiry(engine.requireCollection(DB, 'ts'), { index: 'nope' }, T0),
      (err: { code?: number; message: string }) =>
        err.code === 27 && /no index named "nope" \(it has none\)/.test(err.message),
    );
  });
});

describe('expiry forecast: a what-if on an index of a time series', () => {
  /** Buckets "a" at T0 − 3 h (two measurements) and T0 − 30 min (one); "b" at T0 − 3 h (one). */
  function timeseries(): { engine: Engine; clock: VirtualClock } {
    const made = engineAt(T0);
    made.engine.runCommand(DB, { create: 'ts', timeseries: { timeField: 't', metaField: 'm' } });
    made.engine.runCommand(DB, {
      insert: 'ts',
      documents: [
        { t: new Date(T0 - 3 * HOUR), m: 'a' },
        { t: new Date(T0 - 3 * HOUR + 60_000), m: 'a' },
        { t: new Date(T0 - 30 * 60_000), m: 'a' },
        { t: new Date(T0 - 3 * HOUR), m: 'b' },
      ],
    });
    return made;
  }

  const refusal = (code: number, text: RegExp) => (err: { code?: number; message: string }) =>
    err.code === code && text.test(err.message);

  it('rule 6.4: a plain partial index of the timeField given expireAfterSeconds counts the whole buckets its meta filter selects, as the monitor would delete them', () => {
    const { engine } = timeseries();
    engine.runCommand(DB, {
      createIndexes: 'ts',
      indexes: [{ key: { t: 1 }, name: 't_a', partialFilterExpression: { m: 'a' } }],
    });
    const coll = engine.requireCollection(DB, 'ts');
    // Per measurement all three of "a" are past t + 60 s; per bucket (minTime + 60 s + 1 h) the
    // bucket started at T0 − 30 min goes at T0 + 31 min.
    for (const index of ['t_a', { t: 1 }]) {
      const f = forecastExpiry(coll, { index, expireAfterSeconds: 60, horizonMs: 2 * HOUR, buckets: 2 }, T0);
      assert.deepEqual(
        [f.kind, f.index, f.whatIf, f.expireAfterSeconds, f.dueNow, f.buckets.map((b) => b.count), f.later, f.never],
        ['timeseries', 't_a', true, 60, 2, [1, 0], 0, 0],
        JSON.stringify(index),
      );
      assert.deepEqual(f.notes, [TIMESERIES_ESTIMATE_NOTE]);
    }
    // The TTL index it forecast, created for real, deletes the same: the due bucket now, the other later.
    engine.runCommand(DB, { dropIndexes: 'ts', index: 't_a' });
    engine.runCommand(DB, {
      createIndexes: 'ts',
      indexes: [{ key: { t: 1 }, name: 't_a', expireAfterSeconds: 60, partialFilterExpression: { m: 'a' } }],
    });
    engine.runCommand('admin', { setParameter: 1, ttlMonitorEnabled: true });
    engine.ttl.runPass();
    assert.equal(engine.requireCollection(DB, 'ts').count, 2, 'the two measurements of the due bucket of "a" went');
  });

  it('rule 6.4: a plain index of a time series named without expireAfterSeconds is refused as not TTL, not forecast as skipped', () => {
    const { engine } = timeseries();
    engine.runCommand(DB, {
      createIndexes: 'ts',
      indexes: [{ key: { t: 1 }, name: 't_a', partialFilterExpression: { m: 'a' } }],
    });
    assert.throws(
      () => forecastExpiry(engine.requireCollection(DB, 'ts'), { index: 't_a' }, T0),
      refusal(2, /^t_a is not a TTL index: give expireAfterSeconds/),
    );
  });

  it('rule 7.6: a TTL index of a time series that createIndex would refuse (a catalog it did not write) is forecast as skipped, with or without a what-if', () => {
    const { engine } = timeseries();
    loadLegacyIndexSpec(engine, DB, 'ts', { v: 2, key: { m: 1 }, name: 'onMeta', expireAfterSeconds: 0 });
    const coll = engine.requireCollection(DB, 'ts');
    for (const whatIf of [{}, { expireAfterSeconds: 60 }]) {
      const f = forecastExpiry(coll, { index: 'onMeta', ...whatIf }, T0);
      assert.deepEqual([f.kind, f.dueNow, f.never], ['timeseries', 0, 4], JSON.stringify(whatIf));
      assert.deepEqual(f.notes, [
        "the monitor skips this rule (TTL indexes on time-series collections must be on the timeField 't'): nothing expires",
      ]);
    }
  });

  it('rules 1.6 / 6.4: a what-if on a time-series index that could not be a TTL index is refused with the code createIndex gives', () => {
    const { engine } = timeseries();
    engine.runCommand(DB, {
      createIndexes: 'ts',
      indexes: [
        { key: { m: 1 }, name: 'm_1' },
        { key: { t: 1 }, name: 't_1' },
        { key: { t: 1, m: 1 }, name: 't_m' },
      ],
    });
    const coll = engine.requireCollection(DB, 'ts');
    const fails = (index: string, code: number, text: RegExp) =>
      assert.throws(() => forecastExpiry(coll, { index, expireAfterSeconds: 60 }, T0), refusal(code, text), index);
    fails('m_1', 72, /non-time fields are not supported on time-series collections: index 't'/);
    fails('t_1', 72, /require a partialFilterExpression on the metaField \('m'\)/);
    fails('t_m', 67, /^t_m on \{"t":1,"m":1\} cannot be a TTL index: .*single-field/);
  });

  it('rule 6.4: a key of a time series with no index is not counted per measurement: refused as createIndex would, or asked to exist first', () => {
    const { engine } = timeseries();
    const coll = engine.requireCollection(DB, 'ts');
    const fails = (request: ForecastRequest, code: number, text: RegExp) =>
      assert.throws(() => forecastExpiry(coll, request, T0), refusal(code, text), JSON.stringify(request));
    fails({ index: { x: 1 }, expireAfterSeconds: 60 }, 72, /non-time fields are not supported/);
    fails({ index: { t: 1 }, expireAfterSeconds: 60 }, 72, /require a partialFilterExpression on the metaField/);
    fails({ index: { t: 1, m: 1 }, expireAfterSeconds: 60 }, 67, /^the proposed index on .* cannot be a TTL index/);
    fails(
      { index: { t: 1 }, expireAfterSeconds: 60, partialFilterExpression: { m: 'a' } },
      2,
      /^app\.ts is a time-series collection, whose TTL index deletes whole buckets \(rule 6\.4\): create the index without expireAfterSeconds first/,
    );
    fails({ index: { t: 1 } }, 2, /no index on .*give expireAfterSeconds/);
  });
});
