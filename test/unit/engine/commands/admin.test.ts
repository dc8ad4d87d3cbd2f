/**
 * Server-level commands: hello/isMaster, ping, buildInfo, serverStatus, getParameter/setParameter
 * (the TTL monitor parameters of docs/ttl-rules.md rule 7.1), listCommands, unknown commands.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Int32, Long, ObjectId } from 'bson';
import { Engine, EngineError, type Document } from '../../../../src/engine';
import { VirtualClock } from '../../../../src/engine/clock';
import { expectError } from '../../helpers/expect-error';

function admin(engine: Engine, cmd: Document): Document {
  return engine.runCommand('admin', cmd);
}

const TTL_DEFAULTS: Record<string, boolean | number> = {
  ttlMonitorEnabled: true,
  ttlMonitorSleepSecs: 60,
  ttlMonitorBatchDeletes: true,
  ttlIndexDeleteTargetDocs: 50000,
  ttlIndexDeleteTargetTimeMS: 1000,
  ttlMonitorSubPassTargetSecs: 60,
};

/** A parameter value as a plain JS value (Int32/Long unwrapped) for comparisons. */
function plain(v: unknown): unknown {
  if (v instanceof Int32) return v.value;
  if (v instanceof Long) return v.toNumber();
  return v;
}

// ---- hello / isMaster / ping -------------------------------------------------------------------

describe('hello and isMaster', () => {
  it('hello on a primary: isWritablePrimary, limits, wire versions, localTime from the engine clock', () => {
    const clock = new VirtualClock(Date.UTC(2025, 5, 1));
    const engine = new Engine({ clock });
    const reply = admin(engine, { hello: 1 });
    assert.equal(reply.ok, 1);
    assert.equal(reply.isWritablePrimary, true);
    assert.equal(reply.ismaster, undefined, 'hello does not use the legacy field name');
    assert.equal(Number(reply.maxBsonObjectSize), 16 * 1024 * 1024);
    assert.equal(Number(reply.maxMessageSizeBytes), 48000000);
    assert.equal(Number(reply.maxWriteBatchSize), 100000);
    assert.equal(Number(reply.minWireVersion), 0);
    assert.equal(Number(reply.maxWireVersion), 25, '8.0 speaks wire version 25');
    assert.ok(reply.localTime instanceof Date);
    assert.equal(reply.localTime.getTime(), Date.UTC(2025, 5, 1));
    assert.equal(reply.readOnly, false);
  });

  it('topologyVersion: an ObjectId processId (drivers call its equals()), the same for every hello', () => {
    const first = admin(new Engine(), { hello: 1 }).topologyVersion as Document;
    const second = admin(new Engine(), { hello: 1 }).topologyVersion as Document;
    assert.ok(first.processId instanceof ObjectId);
    assert.ok(first.processId.equals(second.processId as ObjectId));
    assert.ok(Long.fromValue(first.counter as Long).isZero());
  });

  it('hello on a 7.0 engine reports maxWireVersion 21', () => {
    const engine = new Engine({ serverVersion: '7.0' });
    assert.equal(Number(admin(engine, { hello: 1 }).maxWireVersion), 21);
  });

  it('isMaster and the lower-case alias ismaster use the legacy field "ismaster"', () => {
    const engine = new Engine();
    for (const cmd of [{ isMaster: 1 }, { ismaster: 1 }]) {
      const reply = admin(engine, cmd);
      assert.equal(reply.ismaster, true);
      assert.equal(reply.isWritablePrimary, undefined);
      assert.equal(reply.ok, 1);
    }
  });

  it('a secondary reports isWritablePrimary: false and secondary: true', () => {
    const engine = new Engine({ role: 'secondary' });
    const reply = admin(engine, { hello: 1 });
    assert.equal(reply.isWritablePrimary, false);
    assert.equal(reply.secondary, true);
  });

  it('hello works against any database', () => {
    const engine = new Engine();
    assert.equal(engine.runCommand('app', { hello: 1 }).ok, 1);
  });

  it('ping → {ok: 1}', () => {
    assert.deepEqual(admin(new Engine(), { ping: 1 }), { ok: 1 });
    assert.deepEqual(new Engine().runCommand('app', { ping: 1 }), { ok: 1 });
  });
});

// ---- buildInfo ------------------------------------------------------------------------------------

describe('buildInfo', () => {
  it('defaults to an 8.0.x version with a matching Int32 versionArray', () => {
    const reply = admin(new Engine(), { buildInfo: 1 });
    assert.equal(reply.ok, 1);
    assert.match(reply.version as string, /^8\.0\.\d+$/);
    const arr = reply.versionArray as unknown[];
    assert.equal(arr.length, 4);
    for (const part of arr) assert.ok(part instanceof Int32, 'versionArray holds Int32 values');
    assert.deepEqual(arr.map(plain).slice(0, 3), (reply.version as string).split('.').map(Number));
    assert.equal(plain(arr[3]), 0);
    assert.equal(Number(reply.maxBsonObjectSize), 16 * 1024 * 1024);
    assert.equal(Number(reply.bits), 64);
  });

  it("serverVersion '7.0' reports a 7.0.x version", () => {
    const reply = admin(new Engine({ serverVersion: '7.0' }), { buildInfo: 1 });
    assert.match(reply.version as string, /^7\.0\.\d+$/);
    assert.deepEqual((reply.versionArray as unknown[]).map(plain).slice(0, 2), [7, 0]);
  });

  it('the lower-case alias buildinfo works', () => {
    assert.match(admin(new Engine(), { buildinfo: 1 }).version as string, /^8\.0\./);
  });

  it('an unsupported serverVersion is refused at construction (2 BadValue)', () => {
    expectError(() => new Engine({ serverVersion: '6.0' as never }), 2);
  });
});

// ---- serverStatus ---------------------------------------------------------------------------------

describe('serverStatus', () => {
  it('rule 9.4: metrics.ttl is {deletedDocuments, passes, subPasses}, all Longs starting at 0', () => {
    const reply = admin(new Engine(), { serverStatus: 1 });
    assert.equal(reply.ok, 1);
    const ttl = (reply.metrics as Document).ttl as Document;
    for (const field of ['deletedDocuments', 'passes', 'subPasses']) {
      assert.ok(ttl[field] instanceof Long, `metrics.ttl.${field} is a Long`);
      assert.equal(ttl[field].toNumber(), 0);
    }
  });

  it('reports the emulated version, localTime from the clock and Long opcounters', () => {
    const clock = new VirtualClock(Date.UTC(2025, 0, 1));
    const engine = new Engine({ clock });
    engine.runCommand('app', { insert: 'c', documents: [{}, {}] });
    engine.runCommand('app', { find: 'c', filter: {} });
    const reply = admin(engine, { serverStatus: 1 });
    assert.equal(reply.version, admin(engine, { buildInfo: 1 }).version);
    assert.equal((reply.localTime as Date).getTime(), Date.UTC(2025, 0, 1));
    const op = reply.opcounters as Document;
    for (const k of ['insert', 'query', 'update', 'delete', 'getmore', 'command'])
      assert.ok(op[k] instanceof Long, `opcounters.${k} is a Long`);
    assert.equal((op.insert as Long).toNumber(), 2, 'opcounters.insert counts documents');
    assert.equal((op.query as Long).toNumber(), 1);
  });

  it('uptime follows the engine clock', () => {
    const clock = new VirtualClock(Date.UTC(2025, 0, 1));
    const engine = new Engine({ clock });
    clock.advance(90_000);
    const reply = admin(engine, { serverStatus: 1 });
    assert.equal(Number(reply.uptime), 90);
    assert.equal(Long.fromValue(reply.uptimeMillis as Long).toNumber(), 90_000);
  });

  it('metrics.document counts inserted, updated, deleted and returned documents (Longs)', () => {
    const engine = new Engine();
    engine.runCommand('app', { insert: 'c', documents: [{ _id: 1 }, { _id: 2 }, { _id: 3 }] });
    engine.runCommand('app', { update: 'c', updates: [{ q: {}, u: { $set: { a: 1 } }, multi: true }] });
    engine.runCommand('app', { delete: 'c', deletes: [{ q: { _id: 1 }, limit: 1 }] });
    engine.runCommand('app', { find: 'c', filter: {} });
    const doc = (admin(engine, { serverStatus: 1 }).metrics as Document).document as Document;
    assert.deepEqual(
      Object.fromEntries(['inserted', 'updated', 'deleted', 'returned'].map((k) => [k, (doc[k] as Long).toNumber()])),
      { inserted: 3, updated: 3, deleted: 1, returned: 2 },
    );
  });
});

// ---- getParameter / setParameter ------------------------------------------------------------------

describe('getParameter', () => {
  for (const [name, value] of Object.entries(TTL_DEFAULTS)) {
    it(`rule 7.1: ${name} defaults to ${String(value)}`, () => {
      const reply = admin(new Engine(), { getParameter: 1, [name]: 1 });
      assert.equal(reply.ok, 1);
      assert.equal(plain(reply[name]), value);
    });
  }

  it('rule 7.1: ttlMonitorMaxMetadataRecoveryThreads (startup-only) reads 5', () => {
    const reply = admin(new Engine(), { getParameter: 1, ttlMonitorMaxMetadataRecoveryThreads: 1 });
    assert.equal(plain(reply.ttlMonitorMaxMetadataRecoveryThreads), 5);
  });

  it('returns several parameters in one call', () => {
    const reply = admin(new Engine(), { getParameter: 1, ttlMonitorEnabled: 1, ttlMonitorSleepSecs: 1 });
    assert.equal(reply.ttlMonitorEnabled, true);
    assert.equal(plain(reply.ttlMonitorSleepSecs), 60);
  });

  it('ttlMonitorSleepSecs is reported as an int (Int32), booleans as booleans', () => {
    const reply = admin(new Engine(), { getParameter: 1, ttlMonitorSleepSecs: 1, ttlMonitorEnabled: 1 });
    assert.ok(reply.ttlMonitorSleepSecs instanceof Int32);
    assert.equal(typeof reply.ttlMonitorEnabled, 'boolean');
  });

  it('"*" returns every parameter, including all TTL parameters', () => {
    const reply = admin(new Engine(), { getParameter: '*' });
    for (const [name, value] of Object.entries(TTL_DEFAULTS)) assert.equal(plain(reply[name]), value, name);
  });

  it('an unknown parameter → 72 InvalidOptions', () => {
    expectError(() => admin(new Engine(), { getParameter: 1, noSuchParameter: 1 }), 72);
  });

  it('may only run against admin: 13 Unauthorized', () => {
    expectError(() => new Engine().runCommand('app', { getParameter: 1, ttlMonitorSleepSecs: 1 }), 13);
  });

  it('startup values come from EngineOptions.parameters', () => {
    const engine = new Engine({ parameters: { ttlMonitorSleepSecs: 5, ttlMonitorEnabled: false } });
    const reply = admin(engine, { getParameter: 1, ttlMonitorSleepSecs: 1, ttlMonitorEnabled: 1 });
    assert.equal(plain(reply.ttlMonitorSleepSecs), 5);
    assert.equal(reply.ttlMonitorEnabled, false);
  });

  it('an invalid startup value is refused at construction', () => {
    assert.throws(() => new Engine({ parameters: { ttlMonitorSleepSecs: 0 } }), EngineError);
    assert.throws(() => new Engine({ parameters: { noSuchParameter: 1 } }), EngineError);
  });
});

describe('setParameter', () => {
  it('replies with the previous value in `was` and the new value is visible', () => {
    const engine = new Engine();
    const reply = admin(engine, { setParameter: 1, ttlMonitorSleepSecs: 5 });
    assert.equal(reply.ok, 1);
    assert.equal(plain(reply.was), 60);
    assert.equal(plain(admin(engine, { getParameter: 1, ttlMonitorSleepSecs: 1 }).ttlMonitorSleepSecs), 5);
    assert.equal(plain(admin(engine, { setParameter: 1, ttlMonitorSleepSecs: 7 }).was), 5);
  });

  it('booleans: ttlMonitorEnabled / ttlMonitorBatchDeletes', () => {
    const engine = new Engine();
    assert.equal(admin(engine, { setParameter: 1, ttlMonitorEnabled: false }).was, true);
    assert.equal(admin(engine, { getParameter: 1, ttlMonitorEnabled: 1 }).ttlMonitorEnabled, false);
    assert.equal(admin(engine, { setParameter: 1, ttlMonitorBatchDeletes: false }).was, true);
  });

  it('accepts Int32 and Long values for int parameters', () => {
    const engine = new Engine();
    admin(engine, { setParameter: 1, ttlIndexDeleteTargetDocs: new Int32(100) });
    assert.equal(plain(admin(engine, { getParameter: 1, ttlIndexDeleteTargetDocs: 1 }).ttlIndexDeleteTargetDocs), 100);
    admin(engine, { setParameter: 1, ttlIndexDeleteTargetTimeMS: Long.fromNumber(250) });
    assert.equal(
      plain(admin(engine, { getParameter: 1, ttlIndexDeleteTargetTimeMS: 1 }).ttlIndexDeleteTargetTimeMS),
      250,
    );
  });

  it('0 means unlimited for ttlIndexDeleteTargetDocs / ttlIndexDeleteTargetTimeMS and is accepted, as is ttlMonitorSubPassTargetSecs 0', () => {
    const engine = new Engine();
    for (const name of ['ttlIndexDeleteTargetDocs', 'ttlIndexDeleteTargetTimeMS', 'ttlMonitorSubPassTargetSecs']) {
      assert.equal(admin(engine, { setParameter: 1, [name]: 0 }).ok, 1, name);
      assert.equal(plain(admin(engine, { getParameter: 1, [name]: 1 })[name]), 0, name);
    }
  });

  it('rule 7.1: ttlMonitorSleepSecs must be > 0: 0 and negatives → 2 BadValue, value unchanged', () => {
    const engine = new Engine();
    expectError(() => admin(engine, { setParameter: 1, ttlMonitorSleepSecs: 0 }), 2);
    expectError(() => admin(engine, { setParameter: 1, ttlMonitorSleepSecs: -5 }), 2);
    assert.equal(plain(admin(engine, { getParameter: 1, ttlMonitorSleepSecs: 1 }).ttlMonitorSleepSecs), 60);
  });

  it('rule 7.1: negative targets → 2 BadValue', () => {
    const engine = new Engine();
    for (const name of ['ttlIndexDeleteTargetDocs', 'ttlIndexDeleteTargetTimeMS', 'ttlMonitorSubPassTargetSecs']) {
      expectError(() => admin(engine, { setParameter: 1, [name]: -1 }), 2);
    }
  });

  it('wrong types are refused with 2 BadValue (a string for an int, a string for a bool)', () => {
    const engine = new Engine();
    expectError(() => admin(engine, { setParameter: 1, ttlMonitorSleepSecs: 'soon' }), 2);
    expectError(() => admin(engine, { setParameter: 1, ttlMonitorEnabled: 'yes' }), 2);
    assert.equal(admin(engine, { getParameter: 1, ttlMonitorEnabled: 1 }).ttlMonitorEnabled, true);
  });

  it('an unknown parameter → 72 InvalidOptions', () => {
    expectError(() => admin(new Engine(), { setParameter: 1, noSuchParameter: 1 }), 72);
  });

  it('a startup-only parameter cannot change at runtime: 20 IllegalOperation', () => {
    expectError(() => admin(new Engine(), { setParameter: 1, ttlMonitorMaxMetadataRecoveryThreads: 3 }), 20);
  });

  it('may only run against admin: 13 Unauthorized', () => {
    const engine = new Engine();
    expectError(() => engine.runCommand('app', { setParameter: 1, ttlMonitorSleepSecs: 5 }), 13);
    assert.equal(plain(admin(engine, { getParameter: 1, ttlMonitorSleepSecs: 1 }).ttlMonitorSleepSecs), 60);
  });

  it("several parameters in one command are all set; `was` is the first one's old value", () => {
    const engine = new Engine();
    const reply = admin(engine, { setParameter: 1, ttlMonitorSleepSecs: 5, ttlMonitorEnabled: false });
    assert.equal(reply.ok, 1);
    assert.equal(plain(reply.was), 60);
    const now = admin(engine, { getParameter: 1, ttlMonitorSleepSecs: 1, ttlMonitorEnabled: 1 });
    assert.equal(plain(now.ttlMonitorSleepSecs), 5);
    assert.equal(now.ttlMonitorEnabled, false);
  });

  it('without a parameter → 72 InvalidOptions', () => {
    expectError(() => admin(new Engine(), { setParameter: 1 }), 72);
  });
});

// ---- listCommands / unknown -----------------------------------------------------------------------

describe('listCommands and unknown commands', () => {
  it('listCommands lists the supported commands', () => {
    const reply = admin(new Engine(), { listCommands: 1 });
    assert.equal(reply.ok, 1);
    const commands = reply.commands as Document;
    for (const name of [
      'hello',
      'isMaster',
      'ping',
      'buildInfo',
      'serverStatus',
      'getParameter',
      'setParameter',
      'listCommands',
      'create',
      'drop',
      'dropDatabase',
      'renameCollection',
      'listDatabases',
      'listCollections',
      'createIndexes',
      'listIndexes',
      'dropIndexes',
      'insert',
      'find',
      'getMore',
      'killCursors',
      'update',
      'delete',
      'findAndModify',
      'count',
      'distinct',
      'aggregate',
      'explain',
    ]) {
      assert.ok(commands[name], `listCommands includes ${name}`);
      assert.equal(typeof (commands[name] as Document).help, 'string');
    }
  });

  it('an unknown command → 59 CommandNotFound', () => {
    const err = expectError(() => admin(new Engine(), { frobnicate: 1 }), 59);
    assert.equal(err.codeName, 'CommandNotFound');
    assert.match(err.message, /no such command: 'frobnicate'/);
  });

  it("a command named like an Object.prototype member (constructor, toString, __proto__) → 59, not the prototype's function", () => {
    for (const name of ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__'])
      expectError(() => admin(new Engine(), JSON.parse(`{"${name}": 1}`) as Document), 59);
  });

  it('an empty command document → 59 CommandNotFound', () => {
    expectError(() => admin(new Engine(), {}), 59);
  });

  it('error replies carry {ok: 0, errmsg, code, codeName} (rule 9.5)', () => {
    const err = expectError(() => admin(new Engine(), { frobnicate: 1 }), 59);
    const reply = err.toReply();
    assert.equal(reply.ok, 0);
    assert.equal(reply.code, 59);
    assert.equal(reply.codeName, 'CommandNotFound');
    assert.equal(typeof reply.errmsg, 'string');
  });

  it('a closed engine refuses commands', () => {
    const engine = new Engine();
    engine.close();
    assert.throws(() => admin(engine, { ping: 1 }), EngineError);
  });
});
