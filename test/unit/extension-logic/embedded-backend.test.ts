/**
 * The embedded Backend: asynchronous answers over one engine, metadata counts, catalog truth for
 * invalid TTL values, expiry counts over index ranges, a clock that can switch without losing data
 * or running backwards, resets, and nothing left running after dispose.
 */
import { describe, it } from 'node:test';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import assert from 'node:assert/strict';
import type { BackendEvent } from '../../../src/extension/backend/backend';
import { EmbeddedBackend } from '../../../src/extension/backend/embedded-backend';
import { SwitchableClock } from '../../../src/extension/backend/switchable-clock';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const HOUR = 3_600_000;

async function backendWithData(): Promise<EmbeddedBackend> {
  const b = new EmbeddedBackend({}, { startMs: NOW });
  const docs = Array.from({ length: 10 }, (_, i) => ({ _id: i, t: new Date(NOW + (i - 5) * HOUR) }));
  await b.runCommand('app', { insert: 'events', documents: docs });
  await b.runCommand('app', {
    createIndexes: 'events',
    indexes: [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 }],
  });
  return b;
}

describe('EmbeddedBackend', () => {
  it('answers asynchronously, never synchronously', async () => {
    const b = new EmbeddedBackend({}, { startMs: NOW });
    let answered = false;
    const p = b.listDatabases().then(() => (answered = true));
    assert.equal(answered, false);
    await p;
    assert.equal(answered, true);
    b.dispose();
  });

  it('lists databases, collections with metadata counts and kinds, and indexes', async () => {
    const b = await backendWithData();
    await b.runCommand('app', {
      create: 'logs',
      clusteredIndex: { key: { _id: 1 }, unique: true },
      expireAfterSeconds: 60,
    });
    assert.deepEqual(
      (await b.listDatabases()).map((d) => d.name),
      ['app'],
    );
    const colls = await b.listCollections('app');
    assert.deepEqual(
      colls.map((c) => [c.name, c.kind, c.count]),
      [
        ['events', 'plain', 10],
        ['logs', 'clustered', 0],
      ],
    );
    assert.deepEqual(
      (await b.listIndexes('app', 'events')).map((i) => i.name),
      ['_id_', 't_1'],
    );
    b.dispose();
  });

  it('rule 4.2: reports the stored NaN that listIndexes shows as 2147483647', async () => {
    const b = await backendWithData();
    await b.loadLegacyIndexSpec('app', 'events', { key: { u: 1 }, name: 'u_1', expireAfterSeconds: NaN });
    const ix = (await b.listIndexes('app', 'events')).find((i) => i.name === 'u_1')!;
    assert.equal(Number(ix.spec.expireAfterSeconds), 2147483647);
    assert.equal(ix.stored?.problem, 'NaN');
    assert.deepEqual(
      (await b.findInvalidTTLIndexes()).map((p) => p.index),
      ['u_1'],
    );
    b.dispose();
  });

  it('counts expired and due documents through the index (rule 7.7) and refuses hidden ones instead of scanning', async () => {
    const b = await backendWithData();
    const ix = (await b.listIndexes('app', 'events')).find((i) => i.name === 't_1')!;
    const r = await b.expiryCounts(ix, 3600);
    assert.ok(r.ok);
    // t = now + (i−5) h, threshold now − 1 h: i = 0..4 expired; due within the hour: i = 5.
    assert.equal(r.counts.expiredNow, 5);
    assert.equal(r.counts.dueWithinWindow, 1);
    await b.runCommand('app', { collMod: 'events', index: { name: 't_1', hidden: true } });
    const hidden = (await b.listIndexes('app', 'events')).find((i) => i.name === 't_1')!;
    const h = await b.expiryCounts(hidden, 3600);
    assert.ok(!h.ok);
    assert.match(h.reason, /Hidden/);
    b.dispose();
  });

  it('rules 6.2 / 6.4: counts time-series measurements by whole buckets, for the collection TTL and a partial TTL index', async () => {
    const b = new EmbeddedBackend({}, { startMs: NOW });
    await b.runCommand('app', {
      create: 'metrics',
      timeseries: { timeField: 't', metaField: 'm' },
      expireAfterSeconds: 600,
    });
    await b.runCommand('app', {
      createIndexes: 'metrics',
      indexes: [{ key: { t: 1 }, name: 'debug_ttl', expireAfterSeconds: 0, partialFilterExpression: { m: 'debug' } }],
    });
    // Buckets (1 h span, minute rounding): info @ now−3 h (2), debug @ now−70 min (1), info @ now−30 min (1).
    await b.runCommand('app', {
      insert: 'metrics',
      documents: [
        { t: new Date(NOW - 3 * HOUR), m: 'info' },
        { t: new Date(NOW - 3 * HOUR + 60_000), m: 'info' },
        { t: new Date(NOW - 70 * 60_000), m: 'debug' },
        { t: new Date(NOW - 30 * 60_000), m: 'info' },
      ],
    });
    const coll = await b.expiryCounts({ db: 'app', collection: 'metrics', collectionSeconds: 600 }, 3600);
    assert.ok(coll.ok, JSON.stringify(coll));
    // Collection rule: minTime ≤ now − 70 min: the old info bucket and the debug one; due within 1 h: the info @ −30 min.
    assert.deepEqual([coll.counts.expiredNow, coll.counts.dueWithinWindow], [3, 1]);
    const ix = (await b.listIndexes('app', 'metrics')).find((i) => i.name === 'debug_ttl')!;
    const partial = await b.expiryCounts(ix, 3600);
    assert.ok(partial.ok, JSON.stringify(partial));
    assert.deepEqual(
      [partial.counts.expiredNow, partial.counts.dueWithinWindow],
      [1, 0],
      'only the debug bucket, past minTime + 1 h span',
    );
    b.dispose();
  });

  it('advances the virtual clock, running due passes, and reports what they deleted (rule 7.2)', async () => {
    const b = await backendWithData();
    const events: BackendEvent[] = [];
    b.onDidChange((e) => events.push(...e));
    const r = await b.advanceClock(61_000);
    assert.equal(r.passes, 1);
    assert.equal(r.deleted, 5);
    assert.ok(events.some((e) => e.kind === 'clockChanged'));
    assert.ok(events.some((e) => e.kind === 'documentsDeleted' && e.cause === 'ttl'));
    const m = await b.monitorStatus();
    assert.equal(m.deletedSinceActivation, 5);
    assert.equal(m.parameters.ttlMonitorSleepSecs, 60);
    b.dispose();
  });

  it("the monitor's parameters are the scalar ones: the log verbosity document is left out, logLevel kept", async () => {
    const b = await backendWithData();
    const m = await b.monitorStatus();
    assert.equal('logComponentVerbosity' in m.parameters, false);
    assert.equal(m.parameters.logLevel, 0);
    b.dispose();
  });

  it('rule 7.3: a pass returns to the event loop between visits, and a shell-style synchronous clock move still runs its pass whole', async () => {
    const b = new EmbeddedBackend({}, { startMs: NOW, yieldAfterMs: 0 });
    for (const name of ['a', 'b', 'c']) {
      await b.runCommand('app', {
        insert: name,
        documents: [{ t: new Date(NOW - 10 * HOUR) }, { t: new Date(NOW - 10 * HOUR) }],
      });
      await b.runCommand('app', {
        createIndexes: name,
        indexes: [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 60 }],
      });
    }
    const turnsDuring = async <T>(work: Promise<T>): Promise<{ turns: number; result: T }> => {
      let done = false;
      let turns = 0;
      const tick = (): void => {
        if (done) return;
        turns++;
        setImmediate(tick);
      };
      setImmediate(tick);
      const result = await work;
      done = true;
      return { turns, result };
    };
    const pass = await turnsDuring(b.runTTLPass());
    assert.equal(pass.result.deleted, 6);
    assert.ok(pass.turns >= 2, `the event loop turned between the 3 visits (${pass.turns} turns)`);
    // A timer-started pass during advanceClock goes through the same steps.
    for (const name of ['a', 'b', 'c'])
      await b.runCommand('app', { insert: name, documents: [{ t: new Date(NOW - 10 * HOUR) }] });
    const move = await turnsDuring(b.advanceClock(60_000));
    assert.deepEqual([move.result.passes, move.result.deleted], [1, 3]);
    assert.ok(move.turns >= 2, `advanceClock's pass yielded too (${move.turns} turns)`);
    // A shell `sleep` moves the clock synchronously and reads the result at once.
    await b.runCommand('app', { insert: 'a', documents: [{ t: new Date(NOW - 10 * HOUR) }] });
    b.clockForTests.advance(60_000);
    assert.equal(b.engineForTests.getCollection('app', 'a')!.count, 0, 'deleted before advance() returned');
    b.dispose();
  });

  it('rule 7.2: a long move runs every pass on the way (2 days: 2,880 passes of 60 s)', async () => {
    const b = new EmbeddedBackend({}, { startMs: NOW });
    const r = await b.advanceClock(2 * 24 * HOUR);
    assert.equal(r.passes, 2880);
    assert.equal(r.now.getTime(), NOW + 2 * 24 * HOUR);
    await assert.rejects(b.advanceClock(-1), /never runs backwards/);
    b.dispose();
  });

  it('switches to the system clock keeping time monotonic, and back, without losing data', async () => {
    const b = new EmbeddedBackend({}, { startMs: Date.now() + 10 * HOUR });
    await b.runCommand('app', { insert: 'e', documents: [{ a: 1 }] });
    const before = (await b.clock()).now.getTime();
    const sys = await b.setClockMode('system');
    assert.equal(sys.mode, 'system');
    assert.ok(sys.now.getTime() >= before, 'time never runs backwards');
    assert.ok(sys.aheadMs > 9 * HOUR);
    await assert.rejects(b.advanceClock(1000), /system clock/);
    const back = await b.setClockMode('virtual');
    assert.equal(back.mode, 'virtual');
    assert.equal((await b.listCollections('app'))[0].count, 1);
    b.dispose();
  });

  it('resets to a new engine with new settings, keeping the deleted-since-activation total', async () => {
    const b = await backendWithData();
    await b.advanceClock(61_000);
    const applied = await b.reset({ serverVersion: '7.0', flavor: 'cosmos' });
    assert.deepEqual(applied, { clock: 'virtual', flavor: 'cosmos', serverVersion: '7.0' });
    assert.deepEqual(await b.listDatabases(), []);
    const info = await b.info();
    assert.equal(info.serverVersion, '7.0');
    assert.equal(info.flavor, 'cosmos');
    assert.equal((await b.monitorStatus()).deletedSinceActivation, 5);
    b.dispose();
  });

  it('a reset on a data folder removes its stored state: the next window starts empty', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-backend-reset-'));
    const b = new EmbeddedBackend({}, { dataDir: dir });
    await b.runCommand('app', { insert: 'c', documents: [{ _id: 1 }, { _id: 2 }] });
    await b.reset();
    assert.deepEqual(await b.listDatabases(), []);
    b.dispose();
    const again = new EmbeddedBackend({}, { dataDir: dir });
    assert.deepEqual(await again.listDatabases(), [], 'the stored state went with the reset');
    again.dispose();
  });

  it('a virtual clock in a data folder resumes at the stored time on reopen, even behind the wall clock: it never jumps (issue 18.2)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-backend-clock-'));
    const fresh = new EmbeddedBackend({}, { dataDir: dir });
    const wall = Date.now();
    const started = (await fresh.clock()).now.getTime();
    assert.ok(Math.abs(started - wall) < 5_000, 'a new folder starts at the wall clock');
    assert.equal((await fresh.monitorStatus()).passes, 0, 'no pass ran on the way');
    const past = Date.parse('2026-01-01T00:00:00Z');
    await fresh.reset({}, { startMs: past });
    await fresh.runCommand('app', { insert: 'c', documents: [{ _id: 1 }] });
    await fresh.advanceClock(63 * 60_000);
    fresh.dispose();
    const again = new EmbeddedBackend({}, { dataDir: dir });
    assert.equal((await again.clock()).now.toISOString(), '2026-01-01T01:03:00.000Z');
    assert.equal((await again.listCollections('app'))[0].count, 1);
    again.dispose();
  });

  it('leaves no timer after dispose, and answers nothing afterwards', async () => {
    const b = new EmbeddedBackend({ clock: 'system' });
    const clock = b.clockForTests;
    assert.ok(clock.pendingTimers > 0, 'the monitor sleeps on a timer');
    b.dispose();
    assert.equal(clock.pendingTimers, 0);
    await assert.rejects(b.listDatabases(), /disposed/);
  });

  it('delays every answer by latencyMs when asked (tests of callers)', async () => {
    const b = new EmbeddedBackend({}, { latencyMs: 20 });
    const t0 = Date.now();
    await b.listDatabases();
    assert.ok(Date.now() - t0 >= 15);
    b.dispose();
  });
});

describe('SwitchableClock', () => {
  it('moves pending timers between modes with their due times', async () => {
    const clock = new SwitchableClock('virtual', Date.now());
    let fired = 0;
    clock.setTimer(clock.now() + 30, () => fired++);
    clock.setMode('system');
    assert.equal(clock.kind, 'system');
    await new Promise((r) => setTimeout(r, 80));
    assert.equal(fired, 1, 'the timer fired on the wall clock');
    clock.setTimer(clock.now() + 60_000, () => fired++);
    clock.setMode('virtual');
    clock.advance(60_000);
    assert.equal(fired, 2);
    clock.dispose();
    assert.equal(clock.pendingTimers, 0);
  });
});
