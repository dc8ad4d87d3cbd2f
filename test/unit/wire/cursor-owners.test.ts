/**
 * Who may continue a wire cursor (src/wire/cursor-owners.ts): sessions, connections, and the idle
 * timeout, on an engine's real cursors with a clock the test moves.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Long } from 'bson';
import { Engine, type EngineError, type Document } from '../../../src/engine';
import { CursorOwners, CURSOR_IDLE_MS } from '../../../src/wire/cursor-owners';

function setup(): { engine: Engine; owners: CursorOwners; clock: { ms: number }; open: () => string } {
  const engine = new Engine();
  engine.runCommand('app', { insert: 'c', documents: Array.from({ length: 10 }, (_, i) => ({ _id: i })) });
  const clock = { ms: 0 };
  const owners = new CursorOwners(() => engine, { now: () => clock.ms });
  const open = () => {
    const reply = engine.runCommand('app', { find: 'c', batchSize: 1 });
    return Long.fromValue((reply.cursor as Document).id as Long).toString();
  };
  return { engine, owners, clock, open };
}

function code(fn: () => void): number | undefined {
  try {
    fn();
  } catch (err) {
    return (err as EngineError).code;
  }
  return undefined;
}

describe('wire cursor owners', () => {
  it('a session cursor: any connection of the same session; another session or none is refused', () => {
    const { owners, open } = setup();
    const id = open();
    owners.opened(id, 'aa', 1);
    assert.equal(
      code(() => owners.checkGetMore(id, 'aa', 2)),
      undefined,
    );
    assert.equal(
      code(() => owners.checkGetMore(id, 'bb', 1)),
      50738,
    );
    assert.equal(
      code(() => owners.checkGetMore(id, undefined, 1)),
      50737,
    );
  });

  it('a cursor without a session: its own connection only, and it dies with it', () => {
    const { engine, owners, open } = setup();
    const id = open();
    owners.opened(id, undefined, 1);
    assert.equal(
      code(() => owners.checkGetMore(id, undefined, 1)),
      undefined,
    );
    assert.equal(
      code(() => owners.checkGetMore(id, undefined, 2)),
      43,
    );
    assert.equal(
      code(() => owners.checkGetMore(id, 'aa', 1)),
      50736,
    );
    owners.connectionClosed(2);
    assert.equal(engine.cursors.count, 1);
    owners.connectionClosed(1);
    assert.equal(engine.cursors.count, 0);
    assert.equal(owners.size, 0);
  });

  it('session cursors idle for 10 minutes are killed; a getMore restarts the wait; noCursorTimeout stays', () => {
    const { engine, owners, clock, open } = setup();
    const idle = open();
    const used = open();
    const kept = open();
    owners.opened(idle, 'aa', 1);
    owners.opened(used, 'aa', 1);
    owners.opened(kept, 'bb', 1, true);
    clock.ms = CURSOR_IDLE_MS - 1;
    owners.checkGetMore(used, 'aa', 3);
    assert.equal(owners.reapIdle(), 0);
    clock.ms = CURSOR_IDLE_MS + 1;
    assert.equal(owners.reapIdle(), 1);
    assert.equal(engine.cursors.count, 2);
    clock.ms = 3 * CURSOR_IDLE_MS;
    assert.equal(owners.reapIdle(), 1);
    assert.equal(engine.cursors.count, 1, 'the noCursorTimeout cursor is left');
  });

  it('ending sessions kills their cursors; ending all kills every session cursor but not the others', () => {
    const { engine, owners, open } = setup();
    const ids = [open(), open(), open(), open()];
    owners.opened(ids[0], 'aa', 1);
    owners.opened(ids[1], 'bb', 1);
    owners.opened(ids[2], 'cc', 1);
    owners.opened(ids[3], undefined, 1);
    owners.sessionsEnded(['aa']);
    assert.equal(engine.cursors.count, 3);
    owners.sessionsEnded(undefined);
    assert.equal(engine.cursors.count, 1);
    assert.equal(owners.size, 1);
  });
});
