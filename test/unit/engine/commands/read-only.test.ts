/**
 * A read-only engine (a data folder opened with `ttl-workbench run --read-only`) refuses every
 * command that would change stored data with IllegalOperation (20) before it runs, as mongod in
 * queryable backup mode refuses user writes; reads answer as usual, and the TTL monitor deletes
 * nothing.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, EngineError, VirtualClock } from '../../../../src/engine';
import { writeOf } from '../../../../src/engine/commands/write-commands';
import { openProcessEngine } from '../../../../src/storage/process-engine';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const T0 = Date.UTC(2026, 0, 1);

function isReadOnlyRefusal(err: unknown, what: string): boolean {
  assert.ok(err instanceof EngineError);
  assert.equal(err.code, 20);
  assert.equal(err.codeName, 'IllegalOperation');
  assert.match(err.message, new RegExp(`Cannot run ${what}: the engine is read-only \\(folder held elsewhere\\)`));
  assert.match(err.message, /without --read-only/);
  return true;
}

describe('read-only engine', () => {
  const writes: Array<[string, Record<string, unknown>]> = [
    ['insert', { insert: 'events', documents: [{ _id: 2 }] }],
    ['update', { update: 'events', updates: [{ q: {}, u: { $set: { x: 1 } } }] }],
    ['delete', { delete: 'events', deletes: [{ q: {}, limit: 0 }] }],
    ['findAndModify', { findAndModify: 'events', query: {}, remove: true }],
    ['create', { create: 'other' }],
    ['drop', { drop: 'events' }],
    ['dropDatabase', { dropDatabase: 1 }],
    ['createIndexes', { createIndexes: 'events', indexes: [{ key: { at: 1 }, name: 'at_1', expireAfterSeconds: 60 }] }],
    ['dropIndexes', { dropIndexes: 'events', index: '*' }],
    ['collMod', { collMod: 'events', validator: {} }],
    ['setParameter', { setParameter: 1, ttlMonitorEnabled: true }],
    ['aggregate with \\$out', { aggregate: 'events', pipeline: [{ $match: {} }, { $out: 'copy' }], cursor: {} }],
    ['aggregate with \\$merge', { aggregate: 'events', pipeline: [{ $merge: { into: 'copy' } }], cursor: {} }],
  ];
  for (const [what, command] of writes) {
    it(`refuses ${what.replace(/\\/g, '')} with IllegalOperation (20) and changes nothing`, () => {
      const engine = new Engine({ clock: new VirtualClock(T0), readOnly: 'folder held elsewhere' });
      assert.throws(
        () => engine.runCommand('app', command),
        (err) => isReadOnlyRefusal(err, what),
      );
      assert.deepEqual(
        (engine.runCommand('app', { listCollections: 1 }).cursor as { firstBatch: unknown[] }).firstBatch,
        [],
      );
    });
  }

  it('answers reads: find, count, aggregate without a writing stage, listIndexes, explain of a delete', () => {
    const engine = new Engine({ clock: new VirtualClock(T0), readOnly: 'folder held elsewhere' });
    assert.equal(engine.runCommand('app', { find: 'events', filter: {} }).ok, 1);
    assert.equal(engine.runCommand('app', { count: 'events' }).n, 0);
    assert.equal(engine.runCommand('app', { aggregate: 'events', pipeline: [{ $match: {} }], cursor: {} }).ok, 1);
    assert.equal(engine.runCommand('app', { explain: { delete: 'events', deletes: [{ q: {}, limit: 0 }] } }).ok, 1);
  });

  it('writeOf names the write, and nothing for reads', () => {
    assert.equal(writeOf({ insert: 'c', documents: [] }), 'insert');
    assert.equal(writeOf({ aggregate: 'c', pipeline: [{ $match: {} }, { $merge: 'x' }] }), 'aggregate with $merge');
    assert.equal(writeOf({ aggregate: 'c', pipeline: [{ $match: {} }] }), undefined);
    assert.equal(writeOf({ find: 'c' }), undefined);
    assert.equal(writeOf({ getParameter: 1, ttlMonitorEnabled: 1 }), undefined);
  });

  it('the TTL monitor deletes nothing from a read-only folder, and says why', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-read-only-'));
    try {
      const writer = openProcessEngine({
        clock: 'virtual',
        now: new Date(T0),
        data: dir,
        flavor: 'mongodb',
        holder: 'test',
      });
      writer.engine.runCommand('app', {
        createIndexes: 'events',
        indexes: [{ key: { at: 1 }, name: 'at_1', expireAfterSeconds: 60 }],
      });
      writer.engine.runCommand('app', { insert: 'events', documents: [{ _id: 1, at: new Date(T0) }] });
      writer.close();
      const reader = openProcessEngine({ data: dir, readOnly: true, flavor: 'mongodb', holder: 'test' });
      assert.match(reader.engine.ttl.stoppedBecause() ?? '', /read-only \(.* was opened with --read-only\)/);
      (reader.engine.clock as VirtualClock).advance(3_600_000);
      assert.equal(reader.engine.ttl.runPass().deleted, 0);
      assert.equal(reader.engine.runCommand('app', { count: 'events' }).n, 1);
      reader.close();
      // The writer, reopened, still expires the document: the read-only open changed nothing.
      const again = openProcessEngine({ data: dir, flavor: 'mongodb', holder: 'test' });
      (again.engine.clock as VirtualClock).advance(3_600_000);
      assert.equal(again.engine.runCommand('app', { count: 'events' }).n, 0);
      again.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a write that carries a session (a retryable write or a transaction on a replica-set member) is refused the same way', () => {
    const engine = new Engine({
      clock: new VirtualClock(new Date(T0)),
      replSetName: 'rs0',
      readOnly: 'folder held elsewhere',
    });
    try {
      const lsid = { id: new Uint8Array(16) };
      assert.throws(
        () => engine.runInSession('app', { insert: 'events', documents: [{ _id: 1 }] }, { lsid, txnNumber: 1 }),
        (err) => isReadOnlyRefusal(err, 'insert'),
      );
      assert.deepEqual(engine.runInSession('app', { find: 'events', filter: {} }, { lsid }).ok, 1);
    } finally {
      engine.close();
    }
  });
});
