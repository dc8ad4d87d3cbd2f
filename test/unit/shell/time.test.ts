/**
 * Time in the shell is the engine's: Date/Date.now()/Date()/ISODate() read its clock, sleep()
 * advances a virtual clock (running due TTL passes, rule 7.2) or waits for real on the system
 * clock, and clock/ttl helpers move time and run passes.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SystemClock } from '../../../src/engine';
import { createClockDate } from '../../../src/shell/time';
import { parseDuration } from '../../../src/formats/duration';
import { harness, plain, START } from './helpers';

describe('parseDuration', () => {
  it('reads numbers as milliseconds and unit strings', () => {
    assert.equal(parseDuration(1500), 1500);
    assert.equal(parseDuration('250'), 250);
    assert.equal(parseDuration('500ms'), 500);
    assert.equal(parseDuration('90s'), 90_000);
    assert.equal(parseDuration('15m'), 900_000);
    assert.equal(parseDuration('2h'), 7_200_000);
    assert.equal(parseDuration('3d'), 259_200_000);
    assert.equal(parseDuration('1w'), 604_800_000);
    assert.equal(parseDuration('1h30m'), 5_400_000);
    assert.equal(parseDuration('1h 30m'), 5_400_000);
    assert.equal(parseDuration('1.5h'), 5_400_000);
    assert.equal(parseDuration(' 2H '), 7_200_000);
  });

  it('refuses negative, non-finite and unreadable durations with a message', () => {
    for (const bad of [-1, Infinity, NaN, '', '2 hours', 'h', '1x', '-5s', null, {}]) {
      const r = parseDuration(bad);
      assert.equal(typeof r, 'object', `expected an error for ${String(bad)}`);
      assert.match((r as { error: string }).error, /duration/);
    }
  });
});

describe('createClockDate', () => {
  it('reads the given clock without arguments and behaves as Date with them', () => {
    let now = Date.parse('2030-05-06T07:08:09.010Z');
    const ClockDate = createClockDate(() => now);
    assert.equal(new ClockDate().toISOString(), '2030-05-06T07:08:09.010Z');
    assert.equal(ClockDate.now(), now);
    now += 1000;
    assert.equal(ClockDate.now(), Date.parse('2030-05-06T07:08:10.010Z'));
    assert.equal(new ClockDate(0).getTime(), 0);
    assert.equal(new ClockDate('2020-01-01T00:00:00Z').getTime(), Date.parse('2020-01-01T00:00:00Z'));
    assert.equal(new ClockDate(2020, 0, 1).getFullYear(), 2020);
    assert.equal(typeof (ClockDate as unknown as () => string)(), 'string');
    assert.equal((ClockDate as unknown as () => string)(), new Date(now).toString());
    assert.equal(ClockDate.UTC(2020, 0, 1), Date.UTC(2020, 0, 1));
    assert.equal(ClockDate.parse('2020-01-01T00:00:00Z'), Date.parse('2020-01-01T00:00:00Z'));
  });

  it('keeps its own prototype: additions stay in the session, host dates are still instances', () => {
    const ClockDate = createClockDate(() => 0);
    const proto = ClockDate.prototype as unknown as Record<string, unknown>;
    proto.addDays = function (this: Date, n: number) {
      return new ClockDate(this.getTime() + n * 86_400_000);
    };
    assert.equal((new ClockDate() as unknown as { addDays(n: number): Date }).addDays(1).getTime(), 86_400_000);
    assert.equal((Date.prototype as unknown as Record<string, unknown>).addDays, undefined);
    assert.equal(new ClockDate().constructor, ClockDate);
    assert.ok(new Date(0) instanceof ClockDate);
    assert.ok(!({} instanceof ClockDate));
  });

  it('makes host dates: instanceof Date both ways', () => {
    const ClockDate = createClockDate(() => 0);
    const d = new ClockDate();
    assert.ok(d instanceof Date);
    assert.ok(new Date() instanceof ClockDate);
    class Sub extends ClockDate {}
    assert.ok(new Sub() instanceof Sub);
    assert.equal(new Sub().getTime(), 0);
  });
});

describe('Date inside the shell reads the engine clock', () => {
  it('Date.now(), new Date(), Date() and ISODate() read the virtual clock', () => {
    const h = harness();
    assert.equal(h.value('Date.now()'), START);
    assert.equal((h.value('new Date()') as Date).getTime(), START);
    assert.equal((h.value('ISODate()') as Date).getTime(), START);
    assert.equal(h.value('Date()'), new Date(START).toString());
    h.run('sleep(1500)');
    assert.equal(h.value('Date.now()'), START + 1500);
    assert.equal(h.value('new Date().toISOString()'), '2026-01-01T00:00:01.500Z');
  });

  it('a script extending Date.prototype changes its session only, and dates read back have the additions', () => {
    const h = harness();
    h.run('Date.prototype.addHours = function (h) { return new Date(this.getTime() + h * 3600000) }');
    h.run('db.c.insertOne({ _id: 1, t: new Date(0) })');
    assert.equal(h.value('db.c.findOne().t.addHours(1).getTime()'), 3_600_000);
    assert.equal(h.value('ISODate("2026-01-01T00:00:00Z").addHours(2).toISOString()'), '2026-01-01T02:00:00.000Z');
    assert.equal(h.value('clock.now().addHours(1).getTime()'), START + 3_600_000);
    assert.equal((Date.prototype as unknown as Record<string, unknown>).addHours, undefined);
    assert.equal(harness().value('typeof new Date().addHours'), 'undefined', 'another session does not see it');
    assert.deepEqual(
      plain(
        h.value(
          '[new Date().constructor === Date, ObjectId().getTimestamp() instanceof Date, EJSON.parse(\'{"$date":"2026-01-01T00:00:00Z"}\') instanceof Date]',
        ),
      ),
      [true, true, true],
    );
  });

  it('a date the script makes is an Object inside the script, as in mongosh (an object without a prototype is not)', () => {
    const h = harness();
    assert.deepEqual(
      plain(
        h.value(
          '[new Date() instanceof Object, new Date(0) instanceof Object, ({}) instanceof Object, [] instanceof Object, Object.create(null) instanceof Object, 1 instanceof Object]',
        ),
      ),
      [true, true, true, true, false, false],
    );
  });

  it('explicit dates are untouched and instanceof Date inside the script', () => {
    const h = harness();
    assert.deepEqual(
      plain(h.value(`[new Date(0).getTime(), new Date('2013-07-22T14:00:00Z') instanceof Date, typeof Date.now()]`)),
      [0, true, 'number'],
    );
  });
});

describe('sleep', () => {
  it('on the virtual clock advances time at once and runs the TTL passes that fall due (MongoDB TTL docs example)', () => {
    const h = harness();
    h.last(`
      db.log_events.createIndex({ "expireAt": 1 }, { expireAfterSeconds: 0 })
      db.log_events.insertOne({
        "expireAt": new Date('July 22, 2013 14:00:00'),
        "logEvent": 2,
        "logMessage": "Success!"
      })
    `);
    assert.equal(h.value('db.log_events.countDocuments()'), 1);
    const started = Date.now();
    h.last('sleep(61000)');
    assert.ok(Date.now() - started < 5000, 'a virtual sleep does not wait');
    assert.equal(h.value('db.log_events.countDocuments()'), 0);
    assert.equal(h.engine.clock.now(), START + 61000);
    assert.ok(h.engine.ttlMetrics.passes >= 1);
  });

  it('refuses what is not a number of milliseconds', () => {
    const h = harness();
    assert.equal(h.failure('sleep("2h")').error?.name, 'TypeError');
    assert.equal(h.failure('sleep(-1)').error?.name, 'TypeError');
  });

  it('on the system clock waits for real, then runs the passes that fell due meanwhile', () => {
    const h = harness({ clock: new SystemClock() });
    try {
      h.engine.runCommand('admin', { setParameter: 1, ttlMonitorSleepSecs: 1 });
      h.run(
        'db.s.createIndex({ t: 1 }, { expireAfterSeconds: 0 }); db.s.insertOne({ t: new Date(Date.now() - 1000) })',
      );
      const passesBefore = h.engine.ttlMetrics.passes;
      const started = Date.now();
      h.last('sleep(1100)');
      assert.ok(Date.now() - started >= 1050, 'the sleep blocked for real');
      assert.ok(h.engine.ttlMetrics.passes > passesBefore, 'a pass ran after the wait');
      assert.equal(h.value('db.s.countDocuments()'), 0);
    } finally {
      h.engine.close();
      h.engine.clock.dispose();
    }
  });

  it('on the system clock is still stopped by the time limit', () => {
    const h = harness({ clock: new SystemClock(), timeoutMs: 200 });
    try {
      const started = Date.now();
      const failed = h.failure('sleep(5000)');
      assert.equal(failed.error?.name, 'TimeoutError');
      assert.ok(Date.now() - started < 3000);
    } finally {
      h.engine.close();
      h.engine.clock.dispose();
    }
  });
});

describe('clock helper', () => {
  it('clock.now() is the engine time; clock.kind names the clock', () => {
    const h = harness();
    assert.equal((h.value('clock.now()') as Date).getTime(), START);
    assert.equal(h.value('clock.kind'), 'virtual');
    assert.equal(h.value('clock.now() instanceof Date'), true);
  });

  it('clock.advance("2h") runs the passes on the way and reports them', () => {
    const h = harness();
    h.run(`db.sessions.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 3600 })
      db.sessions.insertMany([{ lastSeen: new Date() }, { lastSeen: new Date(Date.now() + 2 * 3600 * 1000) }])`);
    const move = h.value('clock.advance("2h")') as { now: Date; ttlPasses: number; deletedDocuments: number };
    assert.equal(move.now.getTime(), START + 7_200_000);
    assert.equal(move.ttlPasses, 120);
    assert.equal(move.deletedDocuments, 1);
    assert.equal(h.value('db.sessions.countDocuments()'), 1);
    assert.equal(
      h.rendered('clock.advance(90000)'),
      "{\n  now: ISODate('2026-01-01T02:01:30.000Z'),\n  ttlPasses: 1,\n  deletedDocuments: 0\n}",
    );
    assert.equal((h.value('clock.advance("3d").now') as Date).getTime(), START + 7_290_000 + 259_200_000);
  });

  it('clock.set() moves forward only', () => {
    const h = harness();
    assert.equal(
      (h.value('clock.set(ISODate("2026-01-02T00:00:00Z")).now') as Date).toISOString(),
      '2026-01-02T00:00:00.000Z',
    );
    h.last('clock.set(ISODate("2026-01-02T00:00:00Z"))'); // the same time is fine
    const back = h.failure('clock.set(ISODate("2025-12-31T00:00:00Z"))');
    assert.equal(back.error?.name, 'RangeError');
    assert.match(back.error?.message ?? '', /only moves forward/);
    assert.equal(h.failure('clock.set("not a date")').error?.name, 'TypeError');
    assert.equal(h.failure('clock.advance("soon")').error?.name, 'RangeError');
  });

  it('advance and set are refused on the system clock with a clear message', () => {
    const h = harness({ clock: new SystemClock() });
    try {
      const failed = h.failure('clock.advance("1h")');
      assert.equal(failed.error?.name, 'ClockError');
      assert.match(failed.error?.message ?? '', /needs the virtual clock.*system clock/);
      assert.match(h.failure('clock.set(new Date())').error?.message ?? '', /clock\.set\(\) needs the virtual clock/);
      assert.equal(h.value('clock.kind'), 'system');
      const now = (h.value('clock.now()') as Date).getTime();
      assert.ok(Math.abs(now - Date.now()) < 5000);
    } finally {
      h.engine.close();
      h.engine.clock.dispose();
    }
  });
});

describe('ttl helper', () => {
  it('ttl.runPass() runs one complete pass now and returns what it deleted', () => {
    const h = harness();
    h.run(`db.e.createIndex({ at: 1 }, { expireAfterSeconds: 0 })
      db.e.insertMany([{ at: new Date(Date.now() - 1000) }, { at: new Date(Date.now() - 1000) }, { at: new Date(Date.now() + 1e9) }])`);
    const report = h.value('ttl.runPass()') as {
      deleted: number;
      subPasses: number;
      visits: Array<{ collection: string; deleted: number }>;
    };
    assert.equal(report.deleted, 2);
    assert.ok(report.subPasses >= 1);
    assert.equal(report.visits[0].collection, 'e');
    assert.equal(h.value('db.e.countDocuments()'), 1);
    assert.equal(h.engine.clock.now(), START, 'a pass does not move the clock');
  });

  it('ttl.status() shows the monitor state, next pass and metrics', () => {
    const h = harness();
    const status = h.value('ttl.status()') as { enabled: boolean; nextPassAt: Date; metrics: { passes: number } };
    assert.equal(status.enabled, true);
    assert.equal(status.nextPassAt.getTime(), START + 60_000);
    assert.equal(status.metrics.passes, 0);
    h.run('sleep(60000)');
    assert.equal((h.value('ttl.status()') as { metrics: { passes: number } }).metrics.passes, 1);
  });
});

describe('ttl helpers for legacy catalogs (rules 4.1–4.3)', () => {
  it('ttl.loadLegacyIndex puts a NaN TTL index in the catalog; nanIndexes/invalidIndexes list it; passes skip it', () => {
    const h = harness();
    assert.equal(
      h.failure('db.events.createIndex({ createdAt: 1 }, { expireAfterSeconds: NaN })').error?.name,
      'MongoServerError',
    );
    h.run("db.events.insertOne({ createdAt: new Date('2020-01-01T00:00:00Z') })");
    assert.equal(
      h.value(
        "ttl.loadLegacyIndex('events', { v: 2, key: { createdAt: 1 }, name: 'createdAt_1', expireAfterSeconds: NaN })",
      ),
      'createdAt_1',
    );
    const nan = h.value('ttl.nanIndexes()') as Array<Record<string, unknown>>;
    assert.equal(nan.length, 1);
    assert.deepEqual(
      [nan[0].db, nan[0].collection, nan[0].index, nan[0].problem],
      ['test', 'events', 'createdAt_1', 'NaN'],
    );
    assert.equal((h.value('ttl.invalidIndexes()') as unknown[]).length, 1);
    h.run('sleep(61000)');
    assert.equal(h.value('db.events.countDocuments()'), 1);
    assert.equal(h.value('db.events.getIndexes()[1].expireAfterSeconds'), 2147483647);
    assert.equal(h.failure('ttl.loadLegacyIndex("events")').error?.name, 'TypeError');
    assert.equal(
      h.failure("ttl.loadLegacyIndex('events', { key: { createdAt: 1 }, name: 'createdAt_1', expireAfterSeconds: 5 })")
        .error?.codeName,
      'IndexOptionsConflict',
    );
  });
});

describe('ttl.forecast (rules 7.7–7.9)', () => {
  it('what a TTL index deletes per bucket, a what-if value, by name or db.<collection>; bad options are refused', () => {
    const h = harness();
    h.run(
      'db.sessions.insertMany([0, 1, 2, 30].map((m) => ({ lastSeen: new Date(Date.now() - 60 * 60 * 1000 + m * 60 * 1000) })))',
    );
    h.run('db.sessions.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 3600 })');
    const f = plain(h.value('ttl.forecast("sessions", { horizon: "1h", buckets: 2 })')) as Record<string, unknown>;
    assert.equal(f.index, 'lastSeen_1');
    assert.equal(f.dueNow, 1, 'last seen an hour ago: due now');
    assert.deepEqual(
      (f.buckets as Array<{ count: number }>).map((b) => b.count),
      [3, 0],
    );
    assert.equal(f.bucketMs, 30 * 60 * 1000);
    const g = plain(
      h.value('ttl.forecast(db.sessions, { expireAfterSeconds: 7200, horizon: "2h", buckets: 1 })'),
    ) as Record<string, unknown>;
    assert.equal(g.whatIf, true);
    assert.equal(g.dueNow, 0);
    assert.equal(g.later, 0);
    assert.equal((g.buckets as Array<{ count: number }>)[0].count, 4);
    assert.equal(h.failure('ttl.forecast(42)').error?.name, 'TypeError');
    assert.match(String(h.failure('ttl.forecast("sessions", { horizon: "soon" })').error?.message), /horizon/);
    assert.match(
      String(h.failure('ttl.forecast("sessions", { bucket: 3 })').error?.message),
      /unknown forecast option "bucket"/,
    );
    assert.equal(h.failure('ttl.forecast("nope")').error?.codeName, 'NamespaceNotFound');
    assert.equal(h.failure('ttl.forecast("sessions", { buckets: 0 })').error?.codeName, 'BadValue');
  });
});

describe('the MongoDB TTL docs examples, verbatim', () => {
  it('index-ttl: db.eventlog.createIndex( { "lastModifiedDate": 1 }, { expireAfterSeconds: 3600 } )', () => {
    const h = harness();
    assert.equal(
      h.value('db.eventlog.createIndex( { "lastModifiedDate": 1 }, { expireAfterSeconds: 3600 } )'),
      'lastModifiedDate_1',
    );
    h.run('db.eventlog.insertOne({ lastModifiedDate: new Date(), event: "login" })');
    h.run('sleep(3599 * 1000)');
    assert.equal(h.value('db.eventlog.countDocuments()'), 1);
    h.run('sleep(61 * 1000)');
    assert.equal(h.value('db.eventlog.countDocuments()'), 0);
  });

  it('collMod: db.runCommand({collMod: "tickets", index: {keyPattern: {"lastModifiedDate": 1}, expireAfterSeconds: 100}})', () => {
    const h = harness();
    h.run('db.tickets.createIndex({ "lastModifiedDate": 1 }, { expireAfterSeconds: 3600 })');
    const reply = h.value(
      'db.runCommand({collMod: "tickets", index: {keyPattern: {"lastModifiedDate": 1}, expireAfterSeconds: 100}})',
    ) as Record<string, unknown>;
    assert.equal(reply.ok, 1);
    assert.equal(String(reply.expireAfterSeconds_old), '3600');
    assert.equal(String(reply.expireAfterSeconds_new), '100');
    const spec = (h.value('db.tickets.getIndexes()') as Array<Record<string, unknown>>).find(
      (i) => i.name === 'lastModifiedDate_1',
    );
    assert.equal(spec?.expireAfterSeconds, 100);
    h.run('db.tickets.insertOne({ lastModifiedDate: new Date() }); sleep(161 * 1000)');
    assert.equal(h.value('db.tickets.countDocuments()'), 0);
  });
});

describe('a closed engine', () => {
  it('reports commands against it as MongoServerErrors', () => {
    const h = harness();
    h.engine.close();
    assert.equal(h.failure('db.c.insertOne({})').error?.codeName, 'IllegalOperation');
  });
});
