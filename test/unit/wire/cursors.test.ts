/**
 * Cursor owners (src/wire/cursors.ts) without a socket: mongod's session checks on getMore, and
 * the idle timeout (cursorTimeoutMillis, ten minutes) on a clock the test moves.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Engine } from '../../../src/engine';
import { CURSOR_TIMEOUT_MS, CursorOwners } from '../../../src/wire/cursors';

function openCursor(engine: Engine): string {
  const reply = engine.runCommand('db', { find: 'c', batchSize: 1 });
  return String((reply.cursor as { id: unknown }).id);
}

describe('wire cursor owners', () => {
  test('getMore: the same session passes; another session, none, or a session for a sessionless cursor fail', () => {
    const engine = new Engine();
    engine.runCommand('db', { insert: 'c', documents: [{ a: 1 }, { a: 2 }, { a: 3 }] });
    const owners = new CursorOwners(engine);
    const inSession = openCursor(engine);
    const outside = openCursor(engine);
    owners.opened(inSession, 'aa', 1, false);
    owners.opened(outside, undefined, 1, false);
    owners.checkGetMore(inSession, 'aa');
    assert.throws(() => owners.checkGetMore(inSession, 'bb'), { code: 50738 });
    assert.throws(() => owners.checkGetMore(inSession, undefined), { code: 50737 });
    assert.throws(() => owners.checkGetMore(outside, 'aa'), { code: 50736 });
    owners.checkGetMore(outside, undefined);
    owners.checkGetMore('999', 'aa'); // unknown here: the engine answers CursorNotFound
  });

  test('idle cursors are killed after ten minutes; a getMore keeps one alive; noCursorTimeout is never reaped', () => {
    const engine = new Engine();
    engine.runCommand('db', { insert: 'c', documents: [{ a: 1 }, { a: 2 }, { a: 3 }] });
    let now = 0;
    const owners = new CursorOwners(engine, CURSOR_TIMEOUT_MS, () => now);
    const idle = openCursor(engine);
    const busy = openCursor(engine);
    const pinned = openCursor(engine);
    owners.opened(idle, 's', 1, false);
    owners.opened(busy, 's', 1, false);
    owners.opened(pinned, 's', 1, true);
    now = CURSOR_TIMEOUT_MS - 1000;
    owners.checkGetMore(busy, 's');
    owners.reap();
    assert.equal(engine.cursors.count, 3);
    now = CURSOR_TIMEOUT_MS;
    owners.reap();
    assert.equal(engine.cursors.count, 2, 'the idle one is gone');
    assert.equal(owners.size, 2);
    now += CURSOR_TIMEOUT_MS;
    owners.reap();
    assert.equal(engine.cursors.count, 1, 'then the one last used ten minutes ago; noCursorTimeout stays');
    owners.endSessions(['s']);
    assert.equal(engine.cursors.count, 0, 'ending its session kills it');
  });
});
