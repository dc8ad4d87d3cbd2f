/**
 * The logical session cache: startSession adds a session, a command's lsid adds or refreshes one,
 * endSessions removes it, and $listLocalSessions lists them in mongod's shape, by user.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { type Binary, UUID } from 'bson';
import { Engine, VirtualClock, endLocalSessions, touchLocalSession, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

const T0 = Date.parse('2030-01-01T00:00:00Z');

function listLocal(engine: Engine, spec: Document): Document[] {
  const reply = engine.runCommand('admin', { aggregate: 1, pipeline: [{ $listLocalSessions: spec }], cursor: {} });
  return (reply.cursor as Document).firstBatch as Document[];
}

/** A UUID's bytes in hex (replies carry it as a Binary of subtype 4). */
function hex(id: unknown): string {
  return Buffer.from((id as Binary).buffer).toString('hex');
}

function idsOf(records: Document[]): string[] {
  return records.map((r) => hex((r._id as Document).id));
}

describe('startSession and $listLocalSessions', () => {
  it('startSession answers a new UUID and the 30-minute timeout, and the session is listed with its last use', () => {
    const clock = new VirtualClock(T0);
    const engine = new Engine({ clock });
    const reply = engine.runCommand('test', { startSession: 1 });
    const id = (reply.id as Document).id as UUID;
    assert.ok(id instanceof UUID);
    assert.equal(reply.timeoutMinutes, 30);
    const [record] = listLocal(engine, { allUsers: true });
    assert.equal(hex((record._id as Document).id), hex(id));
    assert.equal((record.lastUse as Date).getTime(), T0);
  });

  it("a session's uid is the no-auth user's digest, the SHA-256 of the empty string", () => {
    const engine = new Engine();
    engine.runCommand('admin', { startSession: 1 });
    const uid = (listLocal(engine, {})[0]._id as Document).uid as Binary;
    assert.equal(uid.sub_type, 0);
    assert.deepEqual(Buffer.from(uid.buffer), createHash('sha256').update('').digest());
  });

  it('lists by user: the no-auth user ({user: "", db: ""}) owns every session, a named user none', () => {
    const engine = new Engine();
    engine.runCommand('admin', { startSession: 1 });
    engine.runCommand('admin', { startSession: 1 });
    assert.equal(listLocal(engine, { users: [{ user: '', db: '' }] }).length, 2);
    assert.equal(listLocal(engine, { users: [{ user: 'ann', db: 'admin' }] }).length, 0);
    assert.equal(listLocal(engine, { allUsers: false }).length, 2);
  });

  it("a command's lsid puts a session made elsewhere in the cache, and refreshes its last use", () => {
    const clock = new VirtualClock(T0);
    const engine = new Engine({ clock });
    const lsid = { id: new UUID() };
    touchLocalSession(engine, lsid);
    clock.advance(5000);
    touchLocalSession(engine, lsid);
    const records = listLocal(engine, { allUsers: true });
    assert.deepEqual(idsOf(records), [hex(lsid.id)]);
    assert.equal((records[0].lastUse as Date).getTime(), T0 + 5000);
  });

  it('ended sessions leave the cache; ending with no list ends them all', () => {
    const engine = new Engine();
    const a = (engine.runCommand('admin', { startSession: 1 }).id as Document).id as UUID;
    const b = (engine.runCommand('admin', { startSession: 1 }).id as Document).id as UUID;
    endLocalSessions(engine, [{ id: a }]);
    assert.deepEqual(idsOf(listLocal(engine, { allUsers: true })), [hex(b)]);
    endLocalSessions(engine, undefined);
    assert.deepEqual(listLocal(engine, { allUsers: true }), []);
  });

  it('each engine has its own cache', () => {
    const engine = new Engine();
    engine.runCommand('admin', { startSession: 1 });
    assert.deepEqual(listLocal(new Engine(), { allUsers: true }), []);
  });

  it('refuses a user that is not {user, db} strings: 14, or 40414 for a missing field', () => {
    const engine = new Engine();
    expectError(() => listLocal(engine, { users: ['ann'] }), 14);
    expectError(() => listLocal(engine, { users: [{ user: 'ann' }] }), 40414);
    expectError(() => listLocal(engine, { users: [{ user: 'ann', db: 1 }] }), 14);
  });
});
