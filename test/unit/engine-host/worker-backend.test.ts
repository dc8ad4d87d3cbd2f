/**
 * The engine host: the Backend over a worker thread answers exactly what the in-thread backend
 * answers (BSON types intact both ways, errors with code and codeName), pushes events and catalog
 * snapshots, streams printed lines while a statement still runs, stops a running statement at an
 * engine safe point, and restarts a worker whose code never stops or that runs out of memory,
 * reopening the data folder so that every acknowledged write is there.
 */
import { after, describe, it } from 'node:test';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import assert from 'node:assert/strict';
import { Binary, Decimal128, Int32, Long, ObjectId, Timestamp } from 'bson';
import type { Backend, BackendEvent, PlaygroundEvent, PlaygroundSession } from '../../../src/extension/backend/backend';
import { EmbeddedBackend } from '../../../src/extension/backend/embedded-backend';
import { EngineHost, EngineHostRestartedError, type RestartReason } from '../../../src/extension/engine-host/client';
import { decodeError, decodeValue, encodeError, encodeValue } from '../../../src/extension/engine-host/wire-values';

const WORKER = path.join(__dirname, '../../../src/extension/engine-host/worker-main.js');
const NOW = Date.parse('2030-01-01T00:00:00Z');
const HOUR = 3_600_000;

const hosts: EngineHost[] = [];
function newHost(options: Partial<ConstructorParameters<typeof EngineHost>[0]> = {}): EngineHost {
  const host = new EngineHost({ workerPath: WORKER, ...options });
  hosts.push(host);
  return host;
}
after(async () => {
  for (const h of hosts) await h.dispose();
});

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-engine-host-'));
}

/** Every event of a run, in order; the run's return value. */
async function collect(
  session: PlaygroundSession,
  source: string,
  signal?: AbortSignal,
): Promise<{ events: PlaygroundEvent[]; complete: boolean }> {
  const events: PlaygroundEvent[] = [];
  const run = session.run(source, signal ? { signal } : {});
  for (;;) {
    const step = await run.next();
    if (step.done) return { events, complete: step.value.complete };
    events.push(step.value);
  }
}

const TYPED = {
  _id: new ObjectId('65a1b2c3d4e5f6a7b8c9d0e1'),
  i: new Int32(7),
  l: Long.fromString('9007199254740993'),
  d: 2.5,
  whole: 20,
  negZero: -0,
  nan: NaN,
  dec: Decimal128.fromString('1.10'),
  ts: new Timestamp({ t: 1, i: 2 }),
  bin: new Binary(Buffer.from([1, 2, 3]), 4),
  at: new Date(NOW - 2 * HOUR),
  re: /a.c/i,
  nested: { arr: [1, new Int32(2), { deep: null }], ['__proto__']: 'data' },
};

/** The same operations on a backend; what each returned, for comparison. */
async function script(b: Backend): Promise<unknown[]> {
  const out: unknown[] = [];
  out.push(await b.runCommand('app', { insert: 'typed', documents: [TYPED] }));
  out.push(await b.runCommand('app', { find: 'typed', filter: {} }));
  out.push(await b.runCommand('app', { insert: 'typed', documents: [{ _id: TYPED._id }] }));
  out.push(
    await b.runCommand('app', {
      createIndexes: 'typed',
      indexes: [{ key: { at: 1 }, name: 'at_1', expireAfterSeconds: 3600 }],
    }),
  );
  await b.loadLegacyIndexSpec('app', 'typed', { key: { u: 1 }, name: 'u_1', expireAfterSeconds: NaN });
  out.push(await b.listDatabases());
  out.push(await b.listCollections('app'));
  const indexes = await b.listIndexes('app', 'typed');
  out.push(indexes);
  out.push(
    await b.expiryCounts(
      indexes.find((i) => i.name === 'at_1')!,
      3600,
    ),
  );
  out.push(await b.findInvalidTTLIndexes());
  out.push(await b.forecast('app', 'typed', { index: 'at_1', horizonMs: 4 * HOUR, buckets: 4 }));
  out.push(await b.forecast('app', 'typed', { index: 'at_1', expireAfterSeconds: 1, buckets: 2 }));
  try {
    await b.forecast('app', 'typed', { index: 'nope' });
    out.push('no error');
  } catch (err) {
    const e = err as { code: number; codeName: string };
    out.push({ code: e.code, codeName: e.codeName });
  }
  out.push(await b.catalog());
  out.push(await b.advanceClock(60_000));
  // Times are real elapsed time, different on each side: compared by type only.
  out.push(
    (await b.monitorHistory()).map((p) => ({
      ...p,
      millis: typeof p.millis,
      targets: p.targets?.map((t) => ({ ...t, millis: typeof t.millis })),
    })),
  );
  out.push(await b.clock());
  const m = await b.monitorStatus();
  out.push({ ...m, lastPassAt: m.lastPassAt?.getTime(), nextPassAt: m.nextPassAt?.getTime() });
  const exported = await b.exportDatabase('app');
  out.push(await b.importDatabase(exported, 'copy'));
  out.push(await b.runCommand('copy', { find: 'typed', filter: {} }));
  const file = path.join(tempDir(), 'app.ejson.json');
  out.push(await b.exportDatabaseToFile('app', file));
  assert.equal(fs.readFileSync(file, 'utf8'), exported, 'the file holds what exportDatabase returns');
  out.push(await b.importDatabaseFromFile(file, 'fromFile'));
  try {
    await b.runCommand('app', {
      createIndexes: 'typed',
      indexes: [{ key: { a: 1, b: 1 }, name: 'ab', expireAfterSeconds: 10 }],
    });
    out.push('no error');
  } catch (err) {
    const e = err as { message: string; code: number; codeName: string };
    out.push({ message: e.message, code: e.code, codeName: e.codeName });
  }
  out.push(await b.reset({ flavor: 'cosmos' }, { startMs: NOW }));
  out.push(await b.info());
  return out;
}

describe('engine host: the worker-backed Backend', () => {
  it('issue 19: reopenOn moves an in-memory backend to a data folder (trust granted): the old engine goes, listeners hear reset, writes then reach the folder', async () => {
    const host = newHost();
    const settings = { clock: 'virtual' as const, flavor: 'mongodb' as const, serverVersion: '8.0' as const };
    const backend = host.open({ settings, startMs: NOW });
    await backend.runCommand('restricted', { insert: 'notes', documents: [{ a: 1 }] });
    assert.equal((await backend.storageInfo()).mode, 'memory');
    const events: BackendEvent[] = [];
    backend.onDidChange((e) => events.push(...e));
    const dir = tempDir();
    await backend.reopenOn({ settings, dataDir: dir, durability: 'fsync' });
    assert.equal(backend.inMemory, false);
    const storage = await backend.storageInfo();
    assert.equal(storage.mode, 'folder');
    assert.equal(storage.readOnly, false);
    assert.deepEqual(await backend.listDatabases(), [], 'the in-memory data stayed behind');
    assert.ok(
      events.some((e) => e.kind === 'reset'),
      JSON.stringify(events),
    );
    await backend.runCommand('app', { insert: 'kept', documents: [{ b: 2 }] });
    backend.dispose();
    await host.dispose();
    const reread = new EmbeddedBackend(settings, { dataDir: dir });
    assert.equal((await reread.runCommand('app', { count: 'kept' })).n, 1, 'the write is in the folder');
    reread.dispose();
  });

  it('values cross both ways with their BSON types (Int32, Long, Decimal128, -0, NaN, Binary, a __proto__ field)', () => {
    const back = decodeValue(encodeValue([TYPED, undefined, 'text', 3])) as unknown[];
    assert.deepEqual(back[0], TYPED);
    assert.ok(Object.is((back[0] as { negZero: number }).negZero, -0));
    assert.ok((back[0] as { i: unknown }).i instanceof Int32);
    assert.ok(Object.prototype.hasOwnProperty.call((back[0] as { nested: object }).nested, '__proto__'));
    assert.deepEqual(back.slice(1), [null, 'text', 3]);
  });

  it('answers every Backend call exactly as the in-thread backend does, errors with code and codeName (rule 1.6)', async () => {
    const host = newHost();
    const worker = host.open({ settings: {}, startMs: NOW });
    const local = new EmbeddedBackend({}, { startMs: NOW });
    try {
      const [a, b] = [await script(worker), await script(local)];
      assert.equal(a.length, b.length);
      for (let i = 0; i < a.length; i++) assert.deepEqual(a[i], b[i], `step ${i}`);
      assert.deepEqual((a[a.length - 3] as { code: number }).code, 67, 'CannotCreateIndex crossed with its code');
    } finally {
      worker.dispose();
      local.dispose();
    }
  });

  it('pushes engine events (coalesced) and a catalog snapshot after catalog changes', async () => {
    const host = newHost();
    const b = host.open({ settings: {}, startMs: NOW });
    const events: BackendEvent[] = [];
    b.onDidChange((e) => events.push(...e));
    const session = await b.openPlayground();
    const r = await collect(
      session,
      'for (let i = 0; i < 500; i++) db.getSiblingDB("app").c.insertOne({ i })\ndb.getSiblingDB("app").c.createIndex({ at: 1 }, { expireAfterSeconds: 60 })',
    );
    assert.equal(r.complete, true);
    await host.ping();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const inserted = events
      .filter((e) => e.kind === 'documentsInserted')
      .reduce((n, e) => n + (e as { count: number }).count, 0);
    assert.equal(inserted, 500);
    assert.ok(
      events.filter((e) => e.kind === 'documentsInserted').length < 500,
      'coalesced into fewer messages than inserts',
    );
    const catalog = await b.catalog();
    assert.deepEqual(
      catalog.collections.find((c) => c.name === 'c')?.indexes.map((i) => i.name),
      ['_id_', 'at_1'],
    );
    b.dispose();
  });

  it("an export and an import larger than 17 MiB (bson's buffer) cross whole, both ways", async () => {
    const host = newHost();
    const b = host.open({ settings: {}, startMs: NOW });
    // Inserted in commands of 2 MiB: one command of 20 MiB is refused (the next test).
    for (let k = 0; k < 20_000; k += 2000)
      await b.runCommand('app', {
        insert: 'big',
        documents: Array.from({ length: 2000 }, (_, i) => ({ i: k + i, pad: 'x'.repeat(1000) })),
      });
    const text = await b.exportDatabase('app');
    assert.ok(text.length > 20 * 1048576, `the export is ${text.length} characters`);
    const r = await b.importDatabase(text, 'copy');
    assert.equal(r.documents, 20_000);
    const last = await b.runCommand('copy', { find: 'big', filter: { i: 19_999 } });
    assert.equal((last.cursor as { firstBatch: Array<{ pad: string }> }).firstBatch[0].pad.length, 1000);
    b.dispose();
  });

  it("a command whose BSON is over 17 MiB crosses whole (bson's buffer is grown for it)", async () => {
    const host = newHost();
    const b = host.open({ settings: {}, startMs: NOW });
    const documents = Array.from({ length: 20_000 }, (_, i) => ({ i, pad: 'x'.repeat(1000) }));
    assert.deepEqual(await b.runCommand('app', { insert: 'big', documents }), { n: 20_000, ok: 1 });
    assert.equal((await b.runCommand('app', { count: 'big' })).n, 20_000);
    b.dispose();
  });

  it("reports the worker's own heap (heapStats), which grows with the worker's data, not this thread's", async () => {
    const host = newHost();
    const b = host.open({ settings: {}, startMs: NOW });
    await b.whenOpened();
    const before = await host.heapStats({ gc: true });
    assert.ok(before.usedHeapBytes > 0 && before.heapLimitBytes > before.usedHeapBytes);
    assert.ok(before.externalBytes >= 0);
    await b.runCommand('app', {
      insert: 'big',
      documents: Array.from({ length: 20_000 }, (_, i) => ({ i, pad: 'x'.repeat(100) })),
    });
    const after = await host.heapStats({ gc: true });
    // 20,000 documents of over 100 bytes each stay in the worker's engine.
    assert.ok(
      after.usedHeapBytes - before.usedHeapBytes > 2_000_000,
      `the worker's heap grew by ${after.usedHeapBytes - before.usedHeapBytes} bytes`,
    );
    b.dispose();
  });

  it('streams printed lines while the statement still runs', async () => {
    const host = newHost();
    const b = host.open({ settings: {}, startMs: NOW });
    const session = await b.openPlayground();
    const arrivals: Array<{ event: PlaygroundEvent; at: number }> = [];
    // One statement: a line printed first, then real work (inserts) before it ends.
    const run = session.run(
      '{ print("started"); for (let i = 0; i < 30000; i++) db.c.insertOne({ i }); print("done") }',
    );
    for (;;) {
      const step = await run.next();
      if (step.done) break;
      arrivals.push({ event: step.value, at: performance.now() });
    }
    const first = arrivals[0];
    const end = arrivals.find((a) => a.event.kind === 'statement')!;
    assert.deepEqual(first.event, { kind: 'print', text: 'started' });
    const millis = (end.event as { millis: number }).millis;
    assert.ok(
      end.at - first.at > millis / 2,
      `"started" arrived ${(end.at - first.at).toFixed(0)} ms before the end of a ${millis.toFixed(0)} ms statement`,
    );
    assert.deepEqual(
      arrivals.filter((a) => a.event.kind === 'print').map((a) => (a.event as { text: string }).text),
      ['started', 'done'],
    );
    b.dispose();
  });

  it('rule 11.1: an Interrupt stops a running statement at its next engine safe point (11601); writes before it stay', async () => {
    const host = newHost();
    const b = host.open({ settings: {}, startMs: NOW });
    const session = await b.openPlayground();
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 200);
    const r = await collect(session, 'for (let i = 0; ; i++) db.c.insertOne({ i })\nprint("never")', stop.signal);
    const end = r.events.find((e) => e.kind === 'statement') as Extract<PlaygroundEvent, { kind: 'statement' }>;
    assert.equal(end.ok, false);
    const error = end.outputs[0] as { code?: number; codeName?: string };
    assert.deepEqual([error.code, error.codeName], [11601, 'Interrupted']);
    assert.ok(!r.events.some((e) => e.kind === 'print'));
    const count = (await b.runCommand('test', { count: 'c' })).n as number;
    assert.ok(count > 0);
    const max = (await b.runCommand('test', { find: 'c', sort: { i: -1 }, limit: 1 })).cursor as {
      firstBatch: Array<{ i: number }>;
    };
    assert.equal(max.firstBatch[0].i, count - 1, 'every insert before the safe point is there, none half-done');
    // The same session goes on (no restart).
    const next = await collect(session, 'db.c.countDocuments({})');
    assert.equal((next.events[0] as { ok: boolean }).ok, true);
    assert.equal(session.restarted, false);
    b.dispose();
  });

  it('rule 11.1: code that never reaches a safe point is ended by restarting the worker; the data folder comes back as of the last acknowledged write', async () => {
    const dir = tempDir();
    const restarts: RestartReason[] = [];
    const host = newHost({ stopGraceMs: 300, onRestart: (r) => restarts.push(r) });
    const b = host.open({ settings: {}, startMs: NOW, dataDir: dir });
    const events: BackendEvent[] = [];
    b.onDidChange((e) => events.push(...e));
    await b.runCommand('app', { insert: 'kept', documents: Array.from({ length: 100 }, (_, i) => ({ _id: i })) });
    const session = await b.openPlayground();
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 200);
    await assert.rejects(
      collect(session, 'db.getSiblingDB("app").kept.insertOne({ _id: "last" })\nwhile (true) {}', stop.signal),
      (err: Error) => {
        assert.ok(err instanceof EngineHostRestartedError);
        assert.match(
          err.message,
          /never reached a point where the engine could stop it.*reopened from its data folder/s,
        );
        return true;
      },
    );
    assert.deepEqual(
      restarts.map((r) => r.kind),
      ['unresponsive'],
    );
    assert.equal(
      (await b.runCommand('app', { count: 'kept' })).n,
      101,
      "the 100 documents and the cell's acknowledged insert",
    );
    const info = await b.storageInfo();
    assert.equal(info.readOnly, false, "the new worker took over the dead one's lock");
    assert.ok(
      events.some((e) => e.kind === 'reset'),
      'listeners (the tree) were told everything changed',
    );
    const again = await collect(session, 'db.getSiblingDB("app").kept.countDocuments({})');
    assert.equal(session.restarted, true);
    assert.match(JSON.stringify(again.events), /101/);
    b.dispose();
  });

  it('a worker that runs out of heap is restarted with a clear reason, and its data folder reopens', async () => {
    const dir = tempDir();
    const restarts: RestartReason[] = [];
    const host = newHost({ maxHeapMb: 96, onRestart: (r) => restarts.push(r) });
    const b = host.open({ settings: {}, startMs: NOW, dataDir: dir });
    await b.runCommand('app', { insert: 'kept', documents: [{ _id: 1 }, { _id: 2 }] });
    const session = await b.openPlayground({ timeoutMs: 60_000 });
    // A chain of small objects: Node ends the worker cleanly at its limit whatever its version (one
    // array grown by push() can abort the whole process on Node 24: the integration test covers
    // that shape, where the client's heap watch ends the worker first).
    await assert.rejects(
      collect(session, 'let head = null, n = 0; while (true) head = { next: head, pad: "x".repeat(64) + n++ }'),
      (err: Error) => {
        assert.match(
          err.message,
          /ran out of memory.*ttlWorkbench\.engineHost\.maxHeapMb.*reopened from its data folder/s,
        );
        return true;
      },
    );
    assert.deepEqual(
      restarts.map((r) => r.kind),
      ['outOfMemory'],
    );
    assert.equal((await b.runCommand('app', { count: 'kept' })).n, 2);
    assert.equal((await b.storageInfo()).readOnly, false);
    b.dispose();
  });

  it("rule 11.1: an interrupt sent before the run reaches the worker still stops it; an interrupted run waiting behind another notebook's long statement does not restart the worker", async () => {
    const restarts: RestartReason[] = [];
    const host = newHost({ stopGraceMs: 200, onRestart: (r) => restarts.push(r) });
    const b = host.open({ settings: {}, startMs: NOW });
    const early = await b.openPlayground();
    const stopped = new AbortController();
    stopped.abort();
    const r = await collect(early, 'print(1)\nprint(2)\nprint(3)', stopped.signal);
    assert.equal(r.complete, false);
    assert.deepEqual(r.events, []);
    // Notebook B: one long statement (real engine work, ~1 s); notebook A's run waits behind it and is interrupted.
    const busy = await b.openPlayground({ timeoutMs: 60_000 });
    const waiting = await b.openPlayground();
    const long = collect(busy, '{ for (let i = 0; i < 40000; i++) db.w.insertOne({ i }) }');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const stopA = new AbortController();
    const a = collect(waiting, 'print("a")', stopA.signal);
    stopA.abort();
    const [longResult, aResult] = await Promise.all([long, a]);
    assert.equal(
      (longResult.events.at(-1) as { ok: boolean }).ok,
      true,
      'the long statement of the other notebook ran to its end',
    );
    assert.equal(aResult.complete, false);
    assert.deepEqual(restarts, [], 'no restart: the interrupted run was waiting, not stuck');
    b.dispose();
  });

  it('errors keep code and codeName when another field cannot cross', () => {
    const err = Object.assign(new Error('boom'), {
      code: 11000,
      codeName: 'DuplicateKey',
      errorLabels: ['x'],
      bad: { ['a\u0000b']: 1 },
      keyValue: { _id: 1 },
    });
    const back = decodeError(encodeError(err)) as Error & Record<string, unknown>;
    assert.deepEqual(
      [back.message, back.code, back.codeName, back.errorLabels, back.keyValue, 'bad' in back],
      ['boom', 11000, 'DuplicateKey', ['x'], { _id: 1 }, false],
    );
  });

  it('calls made while the worker restarts wait for it and reach the reopened engine; two restarts at once are one', async () => {
    const dir = tempDir();
    const host = newHost();
    const b = host.open({ settings: {}, startMs: NOW, dataDir: dir });
    await b.runCommand('app', { insert: 'kept', documents: [{ _id: 1 }] });
    const restarts = [host.restartNow(), host.restartNow()];
    const calls = Array.from({ length: 20 }, () =>
      b.runCommand('app', { count: 'kept' }).then(
        (r) => r.n,
        (e: Error) => e.name,
      ),
    );
    await Promise.all(restarts);
    const answers = await Promise.all(calls);
    assert.ok(
      answers.every((a) => a === 1 || a === 'EngineHostRestarted'),
      JSON.stringify(answers),
    );
    assert.equal((await b.runCommand('app', { count: 'kept' })).n, 1);
    assert.equal((await b.storageInfo()).readOnly, false, 'the folder is writable: no second worker holds it');
    b.dispose();
  });
});
