/**
 * src/storage/process-engine.ts: the engine `ttl-workbench run` / `serve` and `startServer` run.
 * Every option reaches the engine whichever clock and whether kept or in memory (replica-set
 * mode, flavor, version, read-only); a virtual clock starts at `now`, at the stored time, or at
 * the current time, and never moves back.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EngineError, VirtualClock } from '../../../src/engine';
import { openProcessEngine, type ProcessEngineOptions } from '../../../src/storage/process-engine';

const T0 = Date.UTC(2026, 0, 1);
const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-process-engine-'));
  dirs.push(d);
  return d;
}

function withEngine<T>(options: Partial<ProcessEngineOptions>, use: (p: ReturnType<typeof openProcessEngine>) => T): T {
  const p = openProcessEngine({ flavor: 'mongodb', holder: 'test', ...options });
  try {
    return use(p);
  } finally {
    p.close();
  }
}

describe('process engine: every option reaches the engine', () => {
  for (const clock of ['virtual', 'system'] as const)
    for (const kept of [false, true])
      it(`process engine: --replSet makes a ${kept ? 'kept' : 'fresh'} engine on the ${clock} clock a replica set's primary`, () => {
        const options = { clock, replSetName: 'rs0', ...(kept ? { data: tmpDir() } : {}) };
        withEngine(options, ({ engine }) => {
          assert.equal(engine.replication?.name, 'rs0');
          assert.equal(engine.clock.kind, clock);
        });
        withEngine({ clock, ...(kept ? { data: tmpDir() } : {}) }, ({ engine }) => {
          assert.equal(engine.replication, undefined, 'no set without --replSet');
        });
      });

  for (const clock of ['virtual', 'system'] as const)
    it(`process engine: flavor and server version reach a kept engine on the ${clock} clock and a fresh one`, () => {
      for (const data of [tmpDir(), undefined])
        withEngine({ clock, flavor: 'cosmos', serverVersion: '7.0', ...(data ? { data } : {}) }, ({ engine }) => {
          assert.equal(engine.flavor, 'cosmos');
          assert.equal(engine.serverVersion, '7.0');
        });
    });

  for (const clock of ['virtual', 'system'] as const)
    it(`process engine: --read-only on the ${clock} clock refuses writes naming the folder and writes nothing to it`, () => {
      const data = tmpDir();
      withEngine({ clock, data }, ({ engine }) => engine.runCommand('app', { insert: 'e', documents: [{ a: 1 }] }));
      const files = () => Object.fromEntries(fs.readdirSync(data).map((f) => [f, fs.readFileSync(path.join(data, f))]));
      const before = files();
      withEngine({ clock, data, readOnly: true }, ({ engine, notes }) => {
        assert.throws(
          () => engine.runCommand('app', { insert: 'e', documents: [{ a: 2 }] }),
          (err: unknown) =>
            err instanceof EngineError &&
            err.code === 20 &&
            err.message.includes(`${data} was opened with --read-only`),
        );
        assert.ok(
          notes.some((n) => n.includes(`opened with --read-only: nothing is written to ${data}`)),
          notes.join('\n'),
        );
        assert.equal(engine.db('app').collection('e').countDocuments({}), 1);
      });
      assert.deepEqual(files(), before);
    });
});

describe('process engine: close', () => {
  for (const clock of ['virtual', 'system'] as const)
    it(`process engine: close() closes a fresh engine and a kept one on the ${clock} clock, and frees a kept one's folder`, () => {
      const fresh = openProcessEngine({ clock, flavor: 'mongodb', holder: 'test' });
      fresh.close();
      assert.equal(fresh.engine.isClosed, true, 'fresh');
      const data = tmpDir();
      const kept = openProcessEngine({ clock, data, flavor: 'mongodb', holder: 'test' });
      kept.close();
      assert.equal(kept.engine.isClosed, true, 'kept');
      const again = openProcessEngine({ clock, data, flavor: 'mongodb', holder: 'test' });
      assert.deepEqual(again.notes, [], 'the folder was closed cleanly and unlocked');
      again.close();
    });
});

describe('process engine: the virtual clock', () => {
  it('process engine: a fresh engine has no notes (no folder, nothing to report)', () => {
    withEngine({}, ({ notes }) => assert.deepEqual(notes, []));
    withEngine({ clock: 'system' }, ({ notes }) => assert.deepEqual(notes, []));
  });

  it('process engine: a fresh engine starts at now, or at the current time', () => {
    withEngine({ now: new Date(T0) }, ({ engine }) => assert.equal(engine.clock.now(), T0));
    const before = Date.now();
    withEngine({}, ({ engine }) => {
      assert.equal(engine.clock.kind, 'virtual');
      assert.ok(engine.clock.now() >= before && engine.clock.now() <= Date.now());
    });
  });

  it('process engine: a new folder starts at now, or at the current time without running the passes in between', () => {
    withEngine({ data: tmpDir(), now: new Date(T0) }, ({ engine }) => assert.equal(engine.clock.now(), T0));
    const before = Date.now();
    withEngine({ data: tmpDir() }, ({ engine }) => {
      assert.ok(engine.clock.now() >= before && engine.clock.now() <= Date.now());
      assert.ok(engine.ttl.history().length <= 1, `passes run: ${engine.ttl.history().length}`);
    });
  });

  it('process engine: a new folder started at the current time still runs a TTL pass one sleep (60 s) later', () => {
    withEngine({ data: tmpDir() }, ({ engine }) => {
      const clock = engine.clock;
      assert.ok(clock instanceof VirtualClock);
      const before = engine.ttl.history().length;
      clock.advance(59_000);
      assert.equal(engine.ttl.history().length, before, 'no pass before the sleep is over');
      clock.advance(2_000);
      assert.equal(engine.ttl.history().length, before + 1, 'the monitor sleeps again after the jump');
    });
  });

  it('process engine: a kept clock continues from its stored time; a later now moves it forward; an earlier one is noted and ignored', () => {
    const data = tmpDir();
    withEngine({ data, now: new Date(T0) }, ({ engine }) => {
      engine.runCommand('app', { insert: 'e', documents: [{ a: 1 }] });
    });
    withEngine({ data }, ({ engine, notes }) => {
      assert.equal(engine.clock.now(), T0);
      assert.deepEqual(notes, []);
    });
    const earlier = new Date(T0 - 60_000);
    withEngine({ data, now: earlier }, ({ engine, notes }) => {
      assert.equal(engine.clock.now(), T0);
      assert.ok(
        notes.includes(
          `its clock is at ${new Date(T0).toISOString()}, later than the ${earlier.toISOString()} asked for: time never runs backwards, so the engine continues from the stored time.`,
        ),
        notes.join('\n'),
      );
    });
    withEngine({ data, now: new Date(T0) }, ({ notes }) =>
      assert.deepEqual(notes, [], 'the stored time itself: no note'),
    );
    withEngine({ data, now: new Date(T0 + 60_000) }, ({ engine, notes }) => {
      assert.equal(engine.clock.now(), T0 + 60_000);
      assert.deepEqual(notes, []);
    });
  });
});
