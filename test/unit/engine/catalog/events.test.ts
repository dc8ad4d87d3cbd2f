/**
 * Change events: engine.onDidChange(listener) hears one batch per command, with document counts
 * coalesced, plus database / collection / index events. Listener failures never reach the engine.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document, type EngineEvent } from '../../../../src/engine';

const DB = 'app';

/** Records every batch a listener receives. */
function recorder(engine: Engine): { batches: EngineEvent[][]; unsubscribe: () => void } {
  const batches: EngineEvent[][] = [];
  const unsubscribe = engine.onDidChange((events) => {
    batches.push([...events]);
  });
  return { batches, unsubscribe };
}

function run(engine: Engine, cmd: Document, db = DB): Document {
  return engine.runCommand(db, cmd);
}

function kinds(batch: readonly EngineEvent[]): string[] {
  return batch.map((e) => e.kind);
}

/** Any event, with the optional fields of every variant readable. */
type AnyEvent = EngineEvent & { count?: number; cause?: string; names?: string[]; collection?: string };

function only(batch: readonly EngineEvent[], kind: EngineEvent['kind']): AnyEvent {
  const found = batch.filter((e) => e.kind === kind);
  assert.equal(found.length, 1, `exactly one ${kind} event in ${JSON.stringify(kinds(batch))}`);
  return found[0];
}

/** Runs `fn` with console.error silenced (the engine logs listener failures there). */
function quietly<T>(fn: () => T): T {
  const original = console.error;
  console.error = () => undefined;
  try {
    return fn();
  } finally {
    console.error = original;
  }
}

describe('batching: one delivery per command', () => {
  it('insert of 10 000 documents into a new collection → one batch with a single documentsInserted {count: 10000}', () => {
    const engine = new Engine();
    const { batches } = recorder(engine);
    const docs = Array.from({ length: 10_000 }, (_, i) => ({ _id: i }));
    run(engine, { insert: 'big', documents: docs });
    assert.equal(batches.length, 1, 'the listener is called once for the command');
    const batch = batches[0];
    const inserted = only(batch, 'documentsInserted');
    assert.deepEqual(inserted, {
      kind: 'documentsInserted',
      db: DB,
      collection: 'big',
      count: 10_000,
      cause: 'command',
    });
    assert.deepEqual(only(batch, 'databaseCreated'), { kind: 'databaseCreated', db: DB });
    assert.deepEqual(only(batch, 'collectionCreated'), { kind: 'collectionCreated', db: DB, collection: 'big' });
    assert.equal(batch.length, 3);
  });

  it('the typed insertMany of 10 000 documents is also one documentsInserted event', () => {
    const engine = new Engine();
    run(engine, { create: 'big' });
    const { batches } = recorder(engine);
    engine
      .db(DB)
      .collection('big')
      .insertMany(Array.from({ length: 10_000 }, (_, i) => ({ i })));
    assert.equal(batches.length, 1);
    assert.deepEqual(batches[0], [
      { kind: 'documentsInserted', db: DB, collection: 'big', count: 10_000, cause: 'command' },
    ]);
  });

  it('an insert into an existing collection carries only documentsInserted', () => {
    const engine = new Engine();
    run(engine, { create: 'c' });
    const { batches } = recorder(engine);
    run(engine, { insert: 'c', documents: [{}, {}] });
    assert.deepEqual(batches, [[{ kind: 'documentsInserted', db: DB, collection: 'c', count: 2, cause: 'command' }]]);
  });

  it('a partially failed ordered insert reports the documents that were inserted', () => {
    const engine = new Engine();
    run(engine, { insert: 'c', documents: [{ _id: 1 }] });
    const { batches } = recorder(engine);
    const reply = run(engine, { insert: 'c', documents: [{ _id: 2 }, { _id: 3 }, { _id: [4] }, { _id: 5 }] });
    assert.equal(reply.n, 2);
    assert.equal(batches.length, 1);
    assert.equal(only(batches[0], 'documentsInserted').count, 2);
  });

  it('reads (find, count, distinct, aggregate, listIndexes) deliver nothing', () => {
    const engine = new Engine();
    run(engine, { insert: 'c', documents: [{ a: 1 }] });
    const { batches } = recorder(engine);
    run(engine, { find: 'c', filter: {} });
    run(engine, { count: 'c' });
    run(engine, { distinct: 'c', key: 'a' });
    run(engine, { aggregate: 'c', pipeline: [], cursor: {} });
    run(engine, { listIndexes: 'c' });
    run(engine, { ping: 1 }, 'admin');
    assert.deepEqual(batches, []);
  });

  it('a command that fails before changing anything delivers nothing', () => {
    const engine = new Engine();
    run(engine, { create: 'c' });
    const { batches } = recorder(engine);
    assert.throws(() => run(engine, { create: 'bad$name' }));
    assert.throws(() => run(engine, { createIndexes: 'c', indexes: [{ key: { a: 1 }, name: 'a_1', bogus: 1 }] }));
    assert.throws(() => run(engine, { frobnicate: 1 }));
    assert.deepEqual(batches, []);
  });

  it('each command gets its own batch', () => {
    const engine = new Engine();
    const { batches } = recorder(engine);
    run(engine, { insert: 'c', documents: [{ _id: 1 }] });
    run(engine, { insert: 'c', documents: [{ _id: 2 }] });
    run(engine, { delete: 'c', deletes: [{ q: {}, limit: 0 }] });
    assert.equal(batches.length, 3);
    assert.deepEqual(kinds(batches[1]), ['documentsInserted']);
    assert.deepEqual(batches[2], [{ kind: 'documentsDeleted', db: DB, collection: 'c', count: 2, cause: 'command' }]);
  });

  it('the listener runs after the command finished: the engine already shows its effect', () => {
    const engine = new Engine();
    let seen = -1;
    engine.onDidChange(() => {
      seen = engine.runCommand(DB, { count: 'c' }).n as number;
    });
    run(engine, { insert: 'c', documents: Array.from({ length: 50 }, () => ({})) });
    assert.equal(seen, 50);
  });
});

describe('document events', () => {
  it('update: documentsUpdated counts modified documents only', () => {
    const engine = new Engine();
    run(engine, {
      insert: 'c',
      documents: [
        { _id: 1, a: 1 },
        { _id: 2, a: 2 },
        { _id: 3, a: 3 },
      ],
    });
    const { batches } = recorder(engine);
    run(engine, { update: 'c', updates: [{ q: {}, u: { $set: { a: 1 } }, multi: true }] });
    assert.deepEqual(batches, [[{ kind: 'documentsUpdated', db: DB, collection: 'c', count: 2, cause: 'command' }]]);
  });

  it('an update that changes nothing delivers nothing', () => {
    const engine = new Engine();
    run(engine, { insert: 'c', documents: [{ _id: 1, a: 1 }] });
    const { batches } = recorder(engine);
    run(engine, { update: 'c', updates: [{ q: { _id: 1 }, u: { $set: { a: 1 } } }] });
    assert.deepEqual(batches, []);
  });

  it('an upsert that inserts reports documentsInserted', () => {
    const engine = new Engine();
    run(engine, { create: 'c' });
    const { batches } = recorder(engine);
    run(engine, { update: 'c', updates: [{ q: { _id: 1 }, u: { $set: { a: 1 } }, upsert: true }] });
    assert.deepEqual(batches, [[{ kind: 'documentsInserted', db: DB, collection: 'c', count: 1, cause: 'command' }]]);
  });

  it('findAndModify remove reports documentsDeleted; findAndModify update reports documentsUpdated', () => {
    const engine = new Engine();
    run(engine, { insert: 'c', documents: [{ _id: 1 }, { _id: 2 }] });
    const { batches } = recorder(engine);
    run(engine, { findAndModify: 'c', query: { _id: 1 }, remove: true });
    run(engine, { findAndModify: 'c', query: { _id: 2 }, update: { $set: { x: 1 } } });
    assert.deepEqual(batches.map(kinds), [['documentsDeleted'], ['documentsUpdated']]);
  });

  it('several update statements on one collection coalesce into one documentsUpdated', () => {
    const engine = new Engine();
    run(engine, { insert: 'c', documents: [{ _id: 1 }, { _id: 2 }] });
    const { batches } = recorder(engine);
    run(engine, {
      update: 'c',
      updates: [
        { q: { _id: 1 }, u: { $set: { a: 1 } } },
        { q: { _id: 2 }, u: { $set: { a: 1 } } },
      ],
    });
    assert.deepEqual(batches, [[{ kind: 'documentsUpdated', db: DB, collection: 'c', count: 2, cause: 'command' }]]);
  });

  it('capped eviction reports documentsDeleted with cause "capped" next to the insert', () => {
    const engine = new Engine();
    run(engine, { create: 'log', capped: true, size: 1 << 20, max: 2 });
    run(engine, { insert: 'log', documents: [{ _id: 1 }, { _id: 2 }] });
    const { batches } = recorder(engine);
    run(engine, { insert: 'log', documents: [{ _id: 3 }, { _id: 4 }, { _id: 5 }] });
    assert.equal(batches.length, 1);
    assert.equal(only(batches[0], 'documentsInserted').count, 3);
    const deleted = only(batches[0], 'documentsDeleted');
    assert.equal(deleted.cause, 'capped');
    assert.equal(deleted.count, 3);
  });
});

describe('catalog events', () => {
  it('create in a new database: databaseCreated then collectionCreated', () => {
    const engine = new Engine();
    const { batches } = recorder(engine);
    run(engine, { create: 'c' });
    assert.deepEqual(batches, [
      [
        { kind: 'databaseCreated', db: DB },
        { kind: 'collectionCreated', db: DB, collection: 'c' },
      ],
    ]);
  });

  it('create in an existing database: collectionCreated only', () => {
    const engine = new Engine();
    run(engine, { create: 'a' });
    const { batches } = recorder(engine);
    run(engine, { create: 'b' });
    assert.deepEqual(batches, [[{ kind: 'collectionCreated', db: DB, collection: 'b' }]]);
  });

  it('drop of the last collection: collectionDropped and databaseDropped', () => {
    const engine = new Engine();
    run(engine, { create: 'c' });
    const { batches } = recorder(engine);
    run(engine, { drop: 'c' });
    assert.equal(batches.length, 1);
    assert.deepEqual(only(batches[0], 'collectionDropped'), { kind: 'collectionDropped', db: DB, collection: 'c' });
    assert.deepEqual(only(batches[0], 'databaseDropped'), { kind: 'databaseDropped', db: DB });
  });

  it('drop of a missing collection delivers nothing', () => {
    const engine = new Engine();
    const { batches } = recorder(engine);
    run(engine, { drop: 'none' });
    assert.deepEqual(batches, []);
  });

  it('dropDatabase: collectionDropped for each collection and one databaseDropped, in one batch', () => {
    const engine = new Engine();
    run(engine, { create: 'a' });
    run(engine, { create: 'b' });
    const { batches } = recorder(engine);
    run(engine, { dropDatabase: 1 });
    assert.equal(batches.length, 1);
    const dropped = batches[0]
      .filter((e) => e.kind === 'collectionDropped')
      .map((e) => (e as { collection: string }).collection)
      .sort();
    assert.deepEqual(dropped, ['a', 'b']);
    only(batches[0], 'databaseDropped');
  });

  it('renameCollection: collectionRenamed with the target namespace', () => {
    const engine = new Engine();
    run(engine, { create: 'old' });
    run(engine, { create: 'keep' });
    const { batches } = recorder(engine);
    run(engine, { renameCollection: 'app.old', to: 'app.new' }, 'admin');
    assert.equal(batches.length, 1);
    assert.deepEqual(only(batches[0], 'collectionRenamed'), {
      kind: 'collectionRenamed',
      db: DB,
      collection: 'old',
      toDb: DB,
      toCollection: 'new',
    });
  });

  it('renameCollection with dropTarget: the replaced target is reported dropped in the same batch', () => {
    const engine = new Engine();
    run(engine, { create: 'a' });
    run(engine, { create: 'b' });
    const { batches } = recorder(engine);
    run(engine, { renameCollection: 'app.a', to: 'app.b', dropTarget: true }, 'admin');
    assert.equal(batches.length, 1);
    assert.deepEqual(only(batches[0], 'collectionDropped'), { kind: 'collectionDropped', db: DB, collection: 'b' });
    only(batches[0], 'collectionRenamed');
  });

  it('documents written after a rename are reported under the new name', () => {
    const engine = new Engine();
    run(engine, { create: 'old' });
    run(engine, { renameCollection: 'app.old', to: 'app.new' }, 'admin');
    const { batches } = recorder(engine);
    run(engine, { insert: 'new', documents: [{}] });
    assert.deepEqual(batches, [[{ kind: 'documentsInserted', db: DB, collection: 'new', count: 1, cause: 'command' }]]);
  });
});

describe('index events', () => {
  it('createIndexes: one indexesCreated with all new names', () => {
    const engine = new Engine();
    run(engine, { create: 'c' });
    const { batches } = recorder(engine);
    run(engine, {
      createIndexes: 'c',
      indexes: [
        { key: { a: 1 }, name: 'a_1' },
        { key: { b: 1 }, name: 'b_1' },
      ],
    });
    assert.deepEqual(batches, [[{ kind: 'indexesCreated', db: DB, collection: 'c', names: ['a_1', 'b_1'] }]]);
  });

  it('createIndexes of an existing index delivers nothing; a partly existing batch names only the new index', () => {
    const engine = new Engine();
    run(engine, { createIndexes: 'c', indexes: [{ key: { a: 1 }, name: 'a_1' }] });
    const { batches } = recorder(engine);
    run(engine, { createIndexes: 'c', indexes: [{ key: { a: 1 }, name: 'a_1' }] });
    assert.deepEqual(batches, []);
    run(engine, {
      createIndexes: 'c',
      indexes: [
        { key: { a: 1 }, name: 'a_1' },
        { key: { b: 1 }, name: 'b_1' },
      ],
    });
    assert.deepEqual(batches, [[{ kind: 'indexesCreated', db: DB, collection: 'c', names: ['b_1'] }]]);
  });

  it('createIndexes on a missing collection: database, collection and index events in one batch', () => {
    const engine = new Engine();
    const { batches } = recorder(engine);
    run(engine, { createIndexes: 'c', indexes: [{ key: { a: 1 }, name: 'a_1' }] });
    assert.equal(batches.length, 1);
    assert.deepEqual(kinds(batches[0]).sort(), ['collectionCreated', 'databaseCreated', 'indexesCreated']);
  });

  it('dropIndexes "*": one indexesDropped with every dropped name', () => {
    const engine = new Engine();
    run(engine, {
      createIndexes: 'c',
      indexes: [
        { key: { a: 1 }, name: 'a_1' },
        { key: { b: 1 }, name: 'b_1' },
      ],
    });
    const { batches } = recorder(engine);
    run(engine, { dropIndexes: 'c', index: '*' });
    assert.equal(batches.length, 1);
    const ev = only(batches[0], 'indexesDropped');
    assert.deepEqual([...(ev.names ?? [])].sort(), ['a_1', 'b_1']);
  });

  it('a failed unique index build delivers no indexesCreated', () => {
    const engine = new Engine();
    run(engine, { insert: 'c', documents: [{ a: 1 }, { a: 1 }] });
    const { batches } = recorder(engine);
    assert.throws(() => run(engine, { createIndexes: 'c', indexes: [{ key: { a: 1 }, name: 'a_1', unique: true }] }));
    assert.ok(!batches.flat().some((e) => e.kind === 'indexesCreated'));
  });
});

describe('listeners', () => {
  it('a throwing listener does not break the command, the engine, or other listeners', () => {
    const engine = new Engine();
    const other = recorder(engine);
    engine.onDidChange(() => {
      throw new Error('listener bug');
    });
    const reply = quietly(() => run(engine, { insert: 'c', documents: [{ _id: 1 }] }));
    assert.equal(reply.n, 1, 'the command still returns its reply');
    assert.equal(other.batches.length, 1, 'the other listener still heard the batch');
    quietly(() => run(engine, { insert: 'c', documents: [{ _id: 2 }] }));
    assert.equal(other.batches.length, 2, 'later commands still deliver');
    assert.equal(run(engine, { count: 'c' }).n, 2);
  });

  it('a listener subscribed first and throwing does not stop later listeners', () => {
    const engine = new Engine();
    engine.onDidChange(() => {
      throw new Error('first listener fails');
    });
    const later = recorder(engine);
    quietly(() => run(engine, { create: 'c' }));
    assert.equal(later.batches.length, 1);
  });

  it('unsubscribe stops delivery to that listener only', () => {
    const engine = new Engine();
    const a = recorder(engine);
    const b = recorder(engine);
    run(engine, { insert: 'c', documents: [{}] });
    a.unsubscribe();
    run(engine, { insert: 'c', documents: [{}] });
    assert.equal(a.batches.length, 1);
    assert.equal(b.batches.length, 2);
    a.unsubscribe();
    run(engine, { insert: 'c', documents: [{}] });
    assert.equal(b.batches.length, 3, 'unsubscribing twice is harmless');
  });

  it('a listener may unsubscribe itself while being called', () => {
    const engine = new Engine();
    let calls = 0;
    const unsubscribe = engine.onDidChange(() => {
      calls++;
      unsubscribe();
    });
    const other = recorder(engine);
    run(engine, { insert: 'c', documents: [{}] });
    run(engine, { insert: 'c', documents: [{}] });
    assert.equal(calls, 1);
    assert.equal(other.batches.length, 2);
  });

  it('events recorded while nobody listens are not delivered to a later subscriber', () => {
    const engine = new Engine();
    run(engine, { insert: 'c', documents: [{}] });
    const { batches } = recorder(engine);
    run(engine, { count: 'c' });
    assert.deepEqual(batches, []);
  });

  it('the delivered batch is not mutated by later commands', () => {
    const engine = new Engine();
    const received: (readonly EngineEvent[])[] = [];
    engine.onDidChange((events) => received.push(events));
    run(engine, { insert: 'c', documents: [{}] });
    const snapshot = JSON.stringify(received[0]);
    run(engine, { insert: 'c', documents: [{}, {}] });
    assert.equal(JSON.stringify(received[0]), snapshot);
  });
});
