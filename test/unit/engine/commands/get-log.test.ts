/**
 * getLog and logRotate: the engine's own log lines, in mongod's JSON shape.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

function globalLog(engine: Engine): { lines: Document[]; total: number } {
  const reply = engine.runCommand('admin', { getLog: 'global' });
  return {
    lines: (reply.log as string[]).map((l) => JSON.parse(l) as Document),
    total: reply.totalLinesWritten as number,
  };
}

describe('getLog', () => {
  it('a new engine has logged its start and its options (21951) as information lines', () => {
    const { lines, total } = globalLog(new Engine());
    assert.deepEqual(
      lines.map((l) => [l.id, l.s, l.c]),
      [
        [4615611, 'I', 'CONTROL'],
        [23403, 'I', 'CONTROL'],
        [21951, 'I', 'CONTROL'],
      ],
    );
    assert.equal(total, 3);
  });

  it('startupWarnings leaves the information lines out', () => {
    const reply = new Engine().runCommand('admin', { getLog: 'startupWarnings' });
    assert.deepEqual(reply.log, []);
  });

  it('refuses a name that is not a string (14) and a log that does not exist (96)', () => {
    const engine = new Engine();
    expectError(() => engine.runCommand('admin', { getLog: 21 }), 14);
    expectError(() => engine.runCommand('admin', { getLog: 'butty' }), 96, /No log named 'butty'/);
  });
});

describe('logRotate', () => {
  it('logs the process details again, from the connection that asked (ctx conn1)', () => {
    const engine = new Engine();
    const before = globalLog(engine).total;
    assert.equal(engine.runCommand('admin', { logRotate: 1 }).ok, 1);
    const { lines, total } = globalLog(engine);
    assert.ok(total > before);
    const options = lines.at(-1)!;
    assert.equal(options.id, 21951);
    assert.equal(options.ctx, 'conn1');
    assert.deepEqual((options.attr as Document).options, {
      storage: { engine: 'ttl-workbench-memory', inMemory: true },
    });
  });

  it('runs only on admin', () => {
    expectError(() => new Engine().runCommand('app', { logRotate: 1 }), 13);
  });
});
