/** ShellRuntime: the command path, engine errors mapped for the script, current database, database cache. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, VirtualClock } from '../../../src/engine';
import { createShellWorld } from '../../../src/shell/globals';
import { START } from './helpers';

function world() {
  const engine = new Engine({ clock: new VirtualClock(START) });
  return { engine, ...createShellWorld(engine, 'test') };
}

describe('ShellRuntime', () => {
  it('runs commands through engine.runCommand (opcounters count them)', () => {
    const { engine, runtime } = world();
    const before = engine.opcounters.command;
    assert.deepEqual(runtime.run('test', { ping: 1 }), { ok: 1 });
    assert.equal(engine.opcounters.command, before + 1);
  });

  it('maps engine errors to MongoServerErrors of the script realm', () => {
    const { runtime } = world();
    assert.throws(
      () => runtime.run('test', { nope: 1 }),
      (err: unknown) => {
        const e = err as { name: string; code: number; codeName: string };
        assert.equal(e.name, 'MongoServerError');
        assert.equal(e.code, 59);
        assert.equal(e.codeName, 'CommandNotFound');
        assert.ok(err instanceof runtime.errors.MongoServerError);
        return true;
      },
    );
  });

  it('keeps one database object per name and tracks the current one', () => {
    const { runtime } = world();
    assert.equal(runtime.database('a'), runtime.database('a'));
    assert.equal(runtime.db.getName(), 'test');
    assert.equal(runtime.use('a'), 'switched to db a');
    assert.equal(runtime.dbName, 'a');
    assert.equal(runtime.db, runtime.database('a'));
  });

  it('refuses invalid database names, at creation too', () => {
    const { engine, runtime } = world();
    assert.throws(
      () => runtime.use('a.b'),
      (e: unknown) => (e as { name: string }).name === 'MongoServerError',
    );
    assert.throws(
      () => createShellWorld(engine, 'bad/name'),
      (e: unknown) => (e as { name: string }).name === 'MongoServerError',
    );
  });

  it('converts values both ways through the boundary', () => {
    const { runtime } = world();
    const host = runtime.out({ n: 1, d: new Date(0) });
    assert.equal(host.n, 1);
    assert.ok(host.d instanceof Date);
    assert.equal(host.d.getTime(), 0);
    const same = { a: 1 };
    assert.equal(runtime.in(same), same);
  });
});
