/**
 * The log verbosity parameters (logLevel, logComponentVerbosity) and the replication parameters
 * the engine keeps without using: mongod's shapes, checks and `was` replies.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Int32 } from 'bson';
import { Engine, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

function admin(engine: Engine, cmd: Document): Document {
  return engine.runCommand('admin', cmd);
}

function verbosity(engine: Engine): Document {
  return admin(engine, { getParameter: 1, logComponentVerbosity: 1 }).logComponentVerbosity as Document;
}

/** Int32 levels unwrapped, for comparisons. */
function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (v instanceof Int32 ? v.value : v)));
}

describe('logLevel', () => {
  it('is 0 on a new engine, and setParameter answers the level it replaced in `was`', () => {
    const engine = new Engine();
    assert.equal(plain(admin(engine, { getParameter: 1, logLevel: 1 }).logLevel), 0);
    assert.equal(plain(admin(engine, { setParameter: 1, logLevel: 5 }).was), 0);
    assert.equal(plain(admin(engine, { setParameter: 1, logLevel: 0 }).was), 5);
  });

  it('is the default component verbosity of logComponentVerbosity', () => {
    const engine = new Engine();
    admin(engine, { setParameter: 1, logLevel: 3 });
    assert.equal(plain(verbosity(engine).verbosity), 3);
  });

  it('refuses a negative level or a string with 2 BadValue', () => {
    const engine = new Engine();
    expectError(() => admin(engine, { setParameter: 1, logLevel: -1 }), 2);
    expectError(() => admin(engine, { setParameter: 1, logLevel: 'loud' }), 2);
  });

  it('getParameter "*" lists logLevel and logComponentVerbosity beside the stored parameters', () => {
    const reply = admin(new Engine(), { getParameter: '*' });
    assert.equal(plain(reply.logLevel), 0);
    assert.equal(plain((reply.logComponentVerbosity as Document).verbosity), 0);
    assert.equal(plain(reply.ttlMonitorSleepSecs), 60);
  });
});

describe('logComponentVerbosity', () => {
  it("lists mongod's hierarchy with -1 where a component follows its parent", () => {
    const tree = plain(verbosity(new Engine())) as Document;
    assert.equal(tree.verbosity, 0);
    assert.deepEqual(tree.accessControl, { verbosity: -1 });
    assert.equal((tree.storage as Document).verbosity, -1);
    assert.deepEqual((tree.storage as Document).journal, { verbosity: -1 });
    assert.deepEqual(((tree.storage as Document).wt as Document).wtCheckpoint, { verbosity: -1 });
    assert.deepEqual((tree.replication as Document).election, { verbosity: -1 });
  });

  it('sets several components at once, by {verbosity: n} or by a bare number', () => {
    const engine = new Engine();
    admin(engine, {
      setParameter: 1,
      logComponentVerbosity: { verbosity: 2, accessControl: 0, storage: { verbosity: 3, journal: { verbosity: 5 } } },
    });
    const tree = plain(verbosity(engine)) as Document;
    assert.equal(tree.verbosity, 2);
    assert.deepEqual(tree.accessControl, { verbosity: 0 });
    assert.equal((tree.storage as Document).verbosity, 3);
    assert.deepEqual((tree.storage as Document).journal, { verbosity: 5 });
  });

  it('a negative level makes a component follow its parent again; the default component returns to 0', () => {
    const engine = new Engine();
    admin(engine, { setParameter: 1, logComponentVerbosity: { verbosity: 4, storage: { journal: { verbosity: 2 } } } });
    admin(engine, {
      setParameter: 1,
      logComponentVerbosity: { verbosity: -1, storage: { journal: { verbosity: -1 } } },
    });
    const tree = plain(verbosity(engine)) as Document;
    assert.equal(tree.verbosity, 0);
    assert.deepEqual((tree.storage as Document).journal, { verbosity: -1 });
  });

  it('`was` is the whole hierarchy before the change, as the shell helper setLogLevel reads it', () => {
    const engine = new Engine();
    admin(engine, { setParameter: 1, logLevel: 2 });
    const reply = admin(engine, { setParameter: 1, logComponentVerbosity: { verbosity: 1 } });
    assert.equal(plain((reply.was as Document).verbosity), 2);
    assert.equal(plain(verbosity(engine).verbosity), 1);
  });

  it('refuses a value that is not an object (14), a level that is not a number (2) and an unknown component (2)', () => {
    const engine = new Engine();
    expectError(() => admin(engine, { setParameter: 1, logComponentVerbosity: 'loud' }), 14);
    expectError(
      () => admin(engine, { setParameter: 1, logComponentVerbosity: { storage: { journal: { verbosity: 'x' } } } }),
      2,
      /storage\.journal\.verbosity to be a number/,
    );
    expectError(
      () => admin(engine, { setParameter: 1, logComponentVerbosity: { NoSuchComponent: { verbosity: 2 } } }),
      2,
      /Invalid component name NoSuchComponent/,
    );
    // A component is known only under its own parent.
    expectError(() => admin(engine, { setParameter: 1, logComponentVerbosity: { journal: 1 } }), 2);
  });

  it('a refused value changes nothing, not even the parts before the bad one', () => {
    const engine = new Engine();
    expectError(
      () =>
        admin(engine, {
          setParameter: 1,
          logComponentVerbosity: { verbosity: 6, accessControl: { verbosity: 5 }, NoSuchComponent: { verbosity: 2 } },
        }),
      2,
    );
    const tree = plain(verbosity(engine)) as Document;
    assert.equal(tree.verbosity, 0);
    assert.deepEqual(tree.accessControl, { verbosity: -1 });
  });

  it('is per engine: another engine keeps its defaults', () => {
    const a = new Engine();
    admin(a, { setParameter: 1, logLevel: 4 });
    assert.equal(plain(verbosity(new Engine()).verbosity), 0);
  });
});

describe('oplog fetcher restart parameters', () => {
  it("have mongod's defaults (1 in steady state, 10 in initial sync) and refuse a negative value with 2 BadValue", () => {
    const engine = new Engine();
    const reply = admin(engine, {
      getParameter: 1,
      oplogFetcherSteadyStateMaxFetcherRestarts: 1,
      oplogFetcherInitialSyncMaxFetcherRestarts: 1,
    });
    assert.equal(plain(reply.oplogFetcherSteadyStateMaxFetcherRestarts), 1);
    assert.equal(plain(reply.oplogFetcherInitialSyncMaxFetcherRestarts), 10);
    expectError(() => admin(engine, { setParameter: 1, oplogFetcherSteadyStateMaxFetcherRestarts: -1 }), 2);
    expectError(() => admin(engine, { setParameter: 1, oplogFetcherInitialSyncMaxFetcherRestarts: -1 }), 2);
    assert.equal(plain(admin(engine, { setParameter: 1, oplogFetcherSteadyStateMaxFetcherRestarts: 0 }).was), 1);
  });
});
