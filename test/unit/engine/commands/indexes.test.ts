/**
 * Index commands: createIndexes, listIndexes, dropIndexes, and how indexes constrain writes
 * (unique, sparse, partial, multikey, parallel arrays). Index rules cite docs/ttl-rules.md §2, §8, §9.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal128, Int32, Long } from 'bson';
import { Engine, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

// ---- helpers ----------------------------------------------------------------------------------

function drain(engine: Engine, db: string, reply: Document, collection: string): Document[] {
  const cursor = reply.cursor as Document;
  const out = [...(cursor.firstBatch as Document[])];
  let id = cursor.id as Long;
  while (!Long.fromValue(id).isZero()) {
    const more = engine.runCommand(db, { getMore: id, collection }).cursor as Document;
    out.push(...(more.nextBatch as Document[]));
    id = more.id as Long;
  }
  return out;
}

const DB = 'app';

function setup(docs: Document[] = [], coll = 'c'): Engine {
  const engine = new Engine();
  if (docs.length) engine.runCommand(DB, { insert: coll, documents: docs });
  else engine.runCommand(DB, { create: coll });
  return engine;
}

function createIndexes(engine: Engine, indexes: Document[], coll = 'c'): Document {
  return engine.runCommand(DB, { createIndexes: coll, indexes });
}

function listIndexes(engine: Engine, coll = 'c'): Document[] {
  return drain(engine, DB, engine.runCommand(DB, { listIndexes: coll }), coll);
}

function indexNames(engine: Engine, coll = 'c'): string[] {
  return listIndexes(engine, coll).map((i) => i.name as string);
}

function find(engine: Engine, filter: Document = {}, extra: Document = {}, coll = 'c'): Document[] {
  return drain(engine, DB, engine.runCommand(DB, { find: coll, filter, ...extra }), coll);
}

function ids(docs: Document[]): unknown[] {
  return docs.map((d) => d._id);
}

function insert(engine: Engine, documents: Document[], extra: Document = {}, coll = 'c'): Document {
  return engine.runCommand(DB, { insert: coll, documents, ...extra });
}

/** The stages of an explain's winning plan, outermost first. */
function planStages(explain: Document): Document[] {
  const out: Document[] = [];
  let stage = (explain.queryPlanner as Document).winningPlan as Document | undefined;
  if (stage && stage.queryPlan) stage = stage.queryPlan as Document;
  while (stage) {
    out.push(stage);
    stage = stage.inputStage as Document | undefined;
  }
  return out;
}

function ixscan(engine: Engine, filter: Document, coll = 'c'): Document | undefined {
  const explain = engine.runCommand(DB, { explain: { find: coll, filter }, verbosity: 'queryPlanner' });
  return planStages(explain).find((s) => s.stage === 'IXSCAN');
}

// ---- createIndexes reply ------------------------------------------------------------------------

describe('createIndexes reply (rule 9.2)', () => {
  it('on an existing collection: {numIndexesBefore: 1, numIndexesAfter: 2, createdCollectionAutomatically: false, ok: 1}', () => {
    const engine = setup();
    const reply = createIndexes(engine, [{ key: { a: 1 }, name: 'a_1' }]);
    assert.equal(Number(reply.numIndexesBefore), 1);
    assert.equal(Number(reply.numIndexesAfter), 2);
    assert.equal(reply.createdCollectionAutomatically, false);
    assert.equal(reply.note, undefined);
    assert.equal(reply.ok, 1);
  });

  it('rule 2.8: on a missing collection creates it: createdCollectionAutomatically: true', () => {
    const engine = new Engine();
    const reply = createIndexes(engine, [{ key: { a: 1 }, name: 'a_1' }], 'fresh');
    assert.equal(reply.createdCollectionAutomatically, true);
    assert.equal(Number(reply.numIndexesBefore), 1, 'the implicit _id index counts as before');
    assert.equal(Number(reply.numIndexesAfter), 2);
    assert.deepEqual(indexNames(engine, 'fresh'), ['_id_', 'a_1']);
  });

  it('several specs at once: numIndexesAfter counts them all', () => {
    const engine = setup();
    const reply = createIndexes(engine, [
      { key: { a: 1 }, name: 'a_1' },
      { key: { b: -1 }, name: 'b_-1' },
    ]);
    assert.equal(Number(reply.numIndexesBefore), 1);
    assert.equal(Number(reply.numIndexesAfter), 3);
    assert.deepEqual(indexNames(engine), ['_id_', 'a_1', 'b_-1']);
  });

  it('rule 2.2: an identical spec is a no-op: before == after, note "all indexes already exist", no createdCollectionAutomatically', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { a: 1 }, name: 'a_1' }]);
    const reply = createIndexes(engine, [{ key: { a: 1 }, name: 'a_1' }]);
    assert.equal(reply.ok, 1);
    assert.equal(Number(reply.numIndexesBefore), 2);
    assert.equal(Number(reply.numIndexesAfter), 2);
    assert.equal(reply.note, 'all indexes already exist');
    assert.equal(reply.createdCollectionAutomatically, undefined);
  });

  it('rule 2.2: identical including options (unique, expireAfterSeconds) is still a no-op', () => {
    const engine = setup();
    const spec = { key: { t: 1 }, name: 't_1', unique: true, expireAfterSeconds: 3600 };
    createIndexes(engine, [spec]);
    const reply = createIndexes(engine, [{ ...spec }]);
    assert.equal(reply.note, 'all indexes already exist');
    assert.equal(Number(reply.numIndexesAfter), 2);
  });

  it('rule 2.2: an Int32 direction equals a double direction ({a: NumberInt(1)} is the same key as {a: 1})', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { a: 1 }, name: 'a_1' }]);
    const reply = createIndexes(engine, [{ key: { a: new Int32(1) }, name: 'a_1' }]);
    assert.equal(reply.note, 'all indexes already exist');
  });

  it('rule 2.2: when only some requested specs exist: note "index already exists"', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { a: 1 }, name: 'a_1' }]);
    const reply = createIndexes(engine, [
      { key: { a: 1 }, name: 'a_1' },
      { key: { b: 1 }, name: 'b_1' },
    ]);
    assert.equal(Number(reply.numIndexesBefore), 2);
    assert.equal(Number(reply.numIndexesAfter), 3);
    assert.equal(reply.note, 'index already exists');
  });

  it('an empty indexes array is refused (2 BadValue)', () => {
    const engine = setup();
    expectError(() => engine.runCommand(DB, { createIndexes: 'c', indexes: [] }), 2);
  });

  it('the typed API createIndex returns the index name', () => {
    const engine = setup();
    assert.equal(engine.db(DB).collection('c').createIndex({ a: 1, b: -1 }), 'a_1_b_-1');
    assert.equal(engine.db(DB).collection('c').createIndex({ c: 1 }, { name: 'custom' }), 'custom');
    assert.deepEqual(indexNames(engine), ['_id_', 'a_1_b_-1', 'custom']);
  });
});

// ---- names ---------------------------------------------------------------------------------------

describe('index names (rule 2.1)', () => {
  const cases: Array<[Document, string]> = [
    [{ t: 1 }, 't_1'],
    [{ t: -1 }, 't_-1'],
    [{ a: 1, b: -1 }, 'a_1_b_-1'],
    [{ a: 'hashed' }, 'a_hashed'],
    [{ 'a.b': 1 }, 'a.b_1'],
    [{ a: new Int32(1) }, 'a_1'],
    [{ a: new Int32(-1), b: new Long(1) }, 'a_-1_b_1'],
  ];
  for (const [key, name] of cases) {
    it(`rule 2.1: the default name of ${JSON.stringify(key)} is ${name}`, () => {
      const engine = setup();
      assert.equal(engine.db(DB).collection('c').createIndex(key), name);
      assert.ok(indexNames(engine).includes(name));
    });
  }

  it('a spec without a name is refused by the server: 9 FailedToParse (names are a shell/driver default, rule 2.1)', () => {
    const engine = setup();
    expectError(() => createIndexes(engine, [{ key: { a: 1 } }]), 9, /name/);
  });

  it('an empty name is refused: 67 CannotCreateIndex "index name cannot be empty"', () => {
    const engine = setup();
    expectError(() => createIndexes(engine, [{ key: { a: 1 }, name: '' }]), 67);
    assert.deepEqual(indexNames(engine), ['_id_']);
  });

  it('a name with a NUL byte is refused: 67 CannotCreateIndex', () => {
    const engine = setup();
    expectError(() => createIndexes(engine, [{ key: { a: 1 }, name: 'foo\0bar' }]), 67);
    assert.deepEqual(indexNames(engine), ['_id_']);
  });

  it('an index version other than 1 or 2 (v: 0, v: 3) is refused: 67 CannotCreateIndex', () => {
    const engine = setup();
    expectError(() => createIndexes(engine, [{ key: { d: 1 }, name: 'd_1', v: 0 }]), 67);
    expectError(() => createIndexes(engine, [{ key: { d: 1 }, name: 'd_1', v: 3 }]), 67);
    createIndexes(engine, [{ key: { d: 1 }, name: 'd_1', v: 1 }]);
    assert.deepEqual(indexNames(engine), ['_id_', 'd_1']);
  });

  it('the name "_id_" is reserved for the {_id: 1} index: 2 BadValue', () => {
    const engine = setup();
    expectError(() => createIndexes(engine, [{ key: { a: 1 }, name: '_id_' }]), 2);
  });

  it('the name "*" is refused: 2 BadValue', () => {
    const engine = setup();
    expectError(() => createIndexes(engine, [{ key: { a: 1 }, name: '*' }]), 2);
    assert.deepEqual(indexNames(engine), ['_id_']);
  });
});

// ---- conflicts -------------------------------------------------------------------------------------

describe('duplicates and conflicts (rules 2.2–2.6)', () => {
  it('rule 2.3: same name, same key, hidden differs → 85 IndexOptionsConflict', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { a: 1 }, name: 'a_1' }]);
    expectError(
      () => createIndexes(engine, [{ key: { a: 1 }, name: 'a_1', hidden: true }]),
      85,
      /same name but different options/,
    );
  });

  it('rule 2.3: same name, same key, expireAfterSeconds present vs absent → 85', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { t: 1 }, name: 't_1' }]);
    expectError(() => createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 60 }]), 85);
  });

  it('rule 2.3: same name, same key, different expireAfterSeconds → 85 (use collMod instead)', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 60 }]);
    expectError(() => createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 120 }]), 85);
    assert.equal(Number(listIndexes(engine)[1].expireAfterSeconds), 60, 'the existing index is unchanged');
  });

  it('rule 2.4: another name, same key and options → 85 "Index already exists with a different name"', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { a: 1 }, name: 'a_1' }]);
    expectError(
      () => createIndexes(engine, [{ key: { a: 1 }, name: 'other' }]),
      85,
      /already exists with a different name: a_1/,
    );
    assert.deepEqual(indexNames(engine), ['_id_', 'a_1']);
  });

  it('rule 2.4: another name, same key, different non-identifying options (EAS) → 85', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { t: 1 }, name: 't_1' }]);
    expectError(() => createIndexes(engine, [{ key: { t: 1 }, name: 'ttl', expireAfterSeconds: 60 }]), 85);
  });

  it('rule 2.5: same name, different key → 86 IndexKeySpecsConflict', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { a: 1 }, name: 'idx' }]);
    expectError(() => createIndexes(engine, [{ key: { b: 1 }, name: 'idx' }]), 86, /same name as the requested index/);
    expectError(() => createIndexes(engine, [{ key: { a: -1 }, name: 'idx' }]), 86);
    expectError(() => createIndexes(engine, [{ key: { a: 1, b: 1 }, name: 'idx' }]), 86);
  });

  it('rule 2.5: same name and key, different identifying option (unique / sparse / partialFilterExpression) → 86', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { a: 1 }, name: 'a_1' }]);
    expectError(() => createIndexes(engine, [{ key: { a: 1 }, name: 'a_1', unique: true }]), 86);
    expectError(() => createIndexes(engine, [{ key: { a: 1 }, name: 'a_1', sparse: true }]), 86);
    expectError(
      () => createIndexes(engine, [{ key: { a: 1 }, name: 'a_1', partialFilterExpression: { a: { $gt: 0 } } }]),
      86,
    );
  });

  it('rule 2.5: a compound key in another field order is a different key → 86 with the same name', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { a: 1, b: 1 }, name: 'ab' }]);
    expectError(() => createIndexes(engine, [{ key: { b: 1, a: 1 }, name: 'ab' }]), 86);
  });

  it('rule 2.6: two indexes on one key are allowed when they differ in partialFilterExpression and name', () => {
    const engine = setup();
    createIndexes(engine, [
      { key: { t: 1 }, name: 't_small', expireAfterSeconds: 60, partialFilterExpression: { kind: 'small' } },
    ]);
    createIndexes(engine, [
      { key: { t: 1 }, name: 't_big', expireAfterSeconds: 3600, partialFilterExpression: { kind: 'big' } },
    ]);
    assert.deepEqual(indexNames(engine), ['_id_', 't_small', 't_big']);
  });

  it('a unique and a non-unique index on the same key may coexist under different names', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { a: 1 }, name: 'a_plain' }]);
    createIndexes(engine, [{ key: { a: 1 }, name: 'a_unique', unique: true }]);
    assert.deepEqual(indexNames(engine), ['_id_', 'a_plain', 'a_unique']);
  });

  it('a key in the opposite direction is a different index ({a: 1} and {a: -1})', () => {
    const engine = setup();
    createIndexes(engine, [
      { key: { a: 1 }, name: 'a_1' },
      { key: { a: -1 }, name: 'a_-1' },
    ]);
    assert.deepEqual(indexNames(engine), ['_id_', 'a_1', 'a_-1']);
  });

  it('re-creating the _id index is a no-op', () => {
    const engine = setup();
    const reply = createIndexes(engine, [{ key: { _id: 1 }, name: '_id_' }]);
    assert.equal(reply.note, 'all indexes already exist');
  });
});

// ---- spec validation ---------------------------------------------------------------------------------

describe('spec validation', () => {
  it('an unknown option → 197 InvalidIndexSpecificationOption, nothing created', () => {
    const engine = setup();
    expectError(() => createIndexes(engine, [{ key: { a: 1 }, name: 'a_1', bogus: true }]), 197, /bogus/);
    assert.deepEqual(indexNames(engine), ['_id_']);
  });

  it('one invalid spec fails the whole command: the valid specs before it are not created', () => {
    const engine = setup();
    expectError(
      () =>
        createIndexes(engine, [
          { key: { a: 1 }, name: 'a_1' },
          { key: { b: 1 }, name: 'b_1', bogus: 1 },
        ]),
      197,
    );
    assert.deepEqual(indexNames(engine), ['_id_']);
  });

  it('a failing createIndexes on a missing collection does not create the collection', () => {
    const engine = new Engine();
    expectError(() => createIndexes(engine, [{ key: { a: 1 }, name: 'a_1', bogus: 1 }], 'fresh'), 197);
    const names = (engine.runCommand(DB, { listCollections: 1 }).cursor as Document).firstBatch as Document[];
    assert.deepEqual(names, []);
  });

  it('options not valid for the _id index → 197 (e.g. unique: true on {_id: 1})', () => {
    const engine = setup();
    expectError(() => createIndexes(engine, [{ key: { _id: 1 }, name: '_id_', unique: true }]), 197);
  });

  it('a missing key → 9 FailedToParse', () => {
    const engine = setup();
    expectError(() => createIndexes(engine, [{ name: 'x' }]), 9);
  });

  it('bad key patterns → 67 CannotCreateIndex (empty, 0, $-prefixed field, unknown plugin)', () => {
    const engine = setup();
    expectError(() => createIndexes(engine, [{ key: {}, name: 'x' }]), 67);
    expectError(() => createIndexes(engine, [{ key: { a: 0 }, name: 'x' }]), 67);
    expectError(() => createIndexes(engine, [{ key: { $a: 1 }, name: 'x' }]), 67);
    expectError(() => createIndexes(engine, [{ key: { a: 'bogus' }, name: 'x' }]), 67);
    assert.deepEqual(indexNames(engine), ['_id_']);
  });

  it('rule 2.7: 64 indexes per collection; the 65th → 67 CannotCreateIndex', () => {
    const engine = setup();
    const specs = Array.from({ length: 63 }, (_, i) => ({ key: { [`f${i}`]: 1 }, name: `f${i}_1` }));
    const reply = createIndexes(engine, specs);
    assert.equal(Number(reply.numIndexesAfter), 64);
    expectError(() => createIndexes(engine, [{ key: { extra: 1 }, name: 'extra_1' }]), 67, /too many indexes/);
    assert.equal(listIndexes(engine).length, 64);
  });

  it('rule 2.7: a batch that would cross 64 creates none of its indexes', () => {
    const engine = setup();
    createIndexes(
      engine,
      Array.from({ length: 60 }, (_, i) => ({ key: { [`f${i}`]: 1 }, name: `f${i}_1` })),
    );
    expectError(
      () =>
        createIndexes(
          engine,
          Array.from({ length: 5 }, (_, i) => ({ key: { [`g${i}`]: 1 }, name: `g${i}_1` })),
        ),
      67,
    );
    assert.equal(listIndexes(engine).length, 61);
  });
});

// ---- listIndexes --------------------------------------------------------------------------------------

describe('listIndexes (rule 9.1)', () => {
  it('entries are {v: 2, key, name} in that field order, _id_ first, then creation order', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { b: 1 }, name: 'b_1' }]);
    createIndexes(engine, [{ key: { a: 1 }, name: 'a_1' }]);
    const list = listIndexes(engine);
    assert.deepEqual(list, [
      { v: 2, key: { _id: 1 }, name: '_id_' },
      { v: 2, key: { b: 1 }, name: 'b_1' },
      { v: 2, key: { a: 1 }, name: 'a_1' },
    ]);
    for (const entry of list) assert.deepEqual(Object.keys(entry), ['v', 'key', 'name']);
  });

  it('shows unique, sparse, hidden, partialFilterExpression and expireAfterSeconds when set; no ns', () => {
    const engine = setup();
    createIndexes(engine, [
      { key: { u: 1 }, name: 'u_1', unique: true },
      { key: { s: 1 }, name: 's_1', sparse: true },
      { key: { h: 1 }, name: 'h_1', hidden: true },
      { key: { p: 1 }, name: 'p_1', partialFilterExpression: { p: { $gt: 5 } } },
      { key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 },
    ]);
    const byName = new Map(listIndexes(engine).map((i) => [i.name, i]));
    assert.equal(byName.get('u_1')!.unique, true);
    assert.equal(byName.get('s_1')!.sparse, true);
    assert.equal(byName.get('h_1')!.hidden, true);
    assert.deepEqual(byName.get('p_1')!.partialFilterExpression, { p: { $gt: 5 } });
    assert.equal(Number(byName.get('t_1')!.expireAfterSeconds), 3600);
    for (const entry of byName.values()) assert.equal(entry.ns, undefined);
  });

  it('omits boolean options given as false (unique: false, sparse: false, hidden: false)', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { a: 1 }, name: 'a_1', unique: false, sparse: false, hidden: false }]);
    assert.deepEqual(listIndexes(engine)[1], { v: 2, key: { a: 1 }, name: 'a_1' });
  });

  it('rule 9.1: expireAfterSeconds is reported as an int32', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 }]);
    const entry = listIndexes(engine)[1];
    assert.ok(entry.expireAfterSeconds instanceof Int32, `expected Int32, got ${typeof entry.expireAfterSeconds}`);
    assert.equal(entry.expireAfterSeconds.value, 3600);
  });

  it('keeps the key values as given (a Long direction stays a Long)', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { a: Long.fromNumber(1) }, name: 'a_1' }]);
    const key = listIndexes(engine)[1].key as Document;
    assert.ok(key.a instanceof Long);
  });

  it('a missing collection → 26 NamespaceNotFound', () => {
    const engine = new Engine();
    expectError(() => engine.runCommand(DB, { listIndexes: 'none' }), 26);
  });

  it('returns a cursor with ns "<db>.<coll>" that honours cursor.batchSize', () => {
    const engine = setup();
    createIndexes(engine, [
      { key: { a: 1 }, name: 'a_1' },
      { key: { b: 1 }, name: 'b_1' },
    ]);
    const reply = engine.runCommand(DB, { listIndexes: 'c', cursor: { batchSize: 1 } });
    const cursor = reply.cursor as Document;
    assert.equal(cursor.ns, 'app.c');
    assert.equal((cursor.firstBatch as Document[]).length, 1);
    assert.ok(!Long.fromValue(cursor.id as Long).isZero());
    assert.deepEqual(
      drain(engine, DB, reply, 'c').map((i) => i.name),
      ['_id_', 'a_1', 'b_1'],
    );
  });

  it('listed documents are copies: mutating one does not change the catalog', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { a: 1 }, name: 'a_1', partialFilterExpression: { a: { $gt: 1 } } }]);
    const entry = listIndexes(engine)[1];
    (entry.key as Document).a = -1;
    (entry.partialFilterExpression as Document).zzz = 1;
    entry.name = 'renamed';
    const again = listIndexes(engine)[1];
    assert.deepEqual(again, { v: 2, key: { a: 1 }, name: 'a_1', partialFilterExpression: { a: { $gt: 1 } } });
  });
});

// ---- dropIndexes ----------------------------------------------------------------------------------------

describe('dropIndexes', () => {
  function withIndexes(): Engine {
    const engine = setup([{ a: 1, b: 1 }]);
    createIndexes(engine, [
      { key: { a: 1 }, name: 'a_1' },
      { key: { b: 1 }, name: 'b_1' },
      { key: { a: 1, b: 1 }, name: 'a_1_b_1' },
    ]);
    return engine;
  }

  it('by name: {nIndexesWas, ok: 1}', () => {
    const engine = withIndexes();
    const reply = engine.runCommand(DB, { dropIndexes: 'c', index: 'b_1' });
    assert.equal(Number(reply.nIndexesWas), 4);
    assert.equal(reply.ok, 1);
    assert.deepEqual(indexNames(engine), ['_id_', 'a_1', 'a_1_b_1']);
  });

  it('by key pattern', () => {
    const engine = withIndexes();
    engine.runCommand(DB, { dropIndexes: 'c', index: { a: 1, b: 1 } });
    assert.deepEqual(indexNames(engine), ['_id_', 'a_1', 'b_1']);
  });

  it('by an array of names', () => {
    const engine = withIndexes();
    engine.runCommand(DB, { dropIndexes: 'c', index: ['a_1', 'b_1'] });
    assert.deepEqual(indexNames(engine), ['_id_', 'a_1_b_1']);
  });

  it('"*" drops every index except _id_, with msg "non-_id indexes dropped for collection"', () => {
    const engine = withIndexes();
    const reply = engine.runCommand(DB, { dropIndexes: 'c', index: '*' });
    assert.equal(Number(reply.nIndexesWas), 4);
    assert.equal(reply.msg, 'non-_id indexes dropped for collection');
    assert.deepEqual(indexNames(engine), ['_id_']);
  });

  it('deleteIndexes is an alias', () => {
    const engine = withIndexes();
    engine.runCommand(DB, { deleteIndexes: 'c', index: 'a_1' });
    assert.deepEqual(indexNames(engine), ['_id_', 'b_1', 'a_1_b_1']);
  });

  it('a missing name → 27 IndexNotFound', () => {
    const engine = withIndexes();
    expectError(() => engine.runCommand(DB, { dropIndexes: 'c', index: 'nope' }), 27);
  });

  it('a missing key pattern → 27 IndexNotFound', () => {
    const engine = withIndexes();
    expectError(() => engine.runCommand(DB, { dropIndexes: 'c', index: { z: 1 } }), 27);
  });

  it('an array with one missing name drops nothing', () => {
    const engine = withIndexes();
    expectError(() => engine.runCommand(DB, { dropIndexes: 'c', index: ['a_1', 'nope'] }), 27);
    assert.deepEqual(indexNames(engine), ['_id_', 'a_1', 'b_1', 'a_1_b_1']);
  });

  it('a key pattern matching two indexes → 181 AmbiguousIndexKeyPattern', () => {
    const engine = setup();
    createIndexes(engine, [
      { key: { a: 1 }, name: 'a_plain' },
      { key: { a: 1 }, name: 'a_part', partialFilterExpression: { a: { $gt: 1 } } },
    ]);
    expectError(() => engine.runCommand(DB, { dropIndexes: 'c', index: { a: 1 } }), 181);
  });

  it('the _id index cannot be dropped (72 InvalidOptions), by name or by key', () => {
    const engine = withIndexes();
    expectError(() => engine.runCommand(DB, { dropIndexes: 'c', index: '_id_' }), 72);
    expectError(() => engine.runCommand(DB, { dropIndexes: 'c', index: { _id: 1 } }), 72);
    assert.ok(indexNames(engine).includes('_id_'));
  });

  it('a missing collection → 26 NamespaceNotFound', () => {
    const engine = new Engine();
    expectError(() => engine.runCommand(DB, { dropIndexes: 'none', index: '*' }), 26);
  });

  it('a dropped unique index no longer constrains inserts', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { a: 1 }, name: 'a_1', unique: true }]);
    insert(engine, [{ a: 1 }]);
    engine.runCommand(DB, { dropIndexes: 'c', index: 'a_1' });
    assert.equal(insert(engine, [{ a: 1 }]).n, 1);
  });
});

// ---- unique ---------------------------------------------------------------------------------------------

describe('unique indexes', () => {
  it('a duplicate insert is a write error 11000 with keyPattern and keyValue', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { email: 1 }, name: 'email_1', unique: true }]);
    insert(engine, [{ _id: 1, email: 'a@x' }]);
    const reply = insert(engine, [{ _id: 2, email: 'a@x' }]);
    assert.equal(reply.n, 0);
    const [err] = reply.writeErrors as Document[];
    assert.equal(err.index, 0);
    assert.equal(err.code, 11000);
    assert.deepEqual(err.keyPattern, { email: 1 });
    assert.deepEqual(err.keyValue, { email: 'a@x' });
    assert.match(
      err.errmsg as string,
      /^E11000 duplicate key error collection: app\.c index: email_1 dup key: \{ email: "a@x" \}/,
    );
    assert.equal(find(engine).length, 1);
  });

  it('a duplicate _id is 11000 on the _id_ index', () => {
    const engine = setup();
    insert(engine, [{ _id: 7 }]);
    const [err] = insert(engine, [{ _id: 7 }]).writeErrors as Document[];
    assert.equal(err.code, 11000);
    assert.deepEqual(err.keyPattern, { _id: 1 });
    assert.deepEqual(err.keyValue, { _id: 7 });
    assert.match(err.errmsg as string, /index: _id_ dup key/);
  });

  it('the typed API throws the DuplicateKey as an EngineError with code 11000', () => {
    const engine = setup();
    const c = engine.db(DB).collection('c');
    c.insertOne({ _id: 1 });
    expectError(() => c.insertOne({ _id: 1 }), 11000);
  });

  it('numbers of different BSON types with the same value are duplicates (1, NumberInt(1), NumberLong(1), Decimal128("1.0"))', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { a: 1 }, name: 'a_1', unique: true }]);
    insert(engine, [{ a: 1 }]);
    for (const v of [new Int32(1), Long.fromNumber(1), Decimal128.fromString('1.0')]) {
      const reply = insert(engine, [{ a: v }]);
      assert.equal((reply.writeErrors as Document[] | undefined)?.[0]?.code, 11000, `value ${String(v)}`);
    }
    assert.equal(find(engine).length, 1);
  });

  it('non-sparse: two documents missing the field collide on null', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { a: 1 }, name: 'a_1', unique: true }]);
    assert.equal(insert(engine, [{ _id: 1 }]).n, 1);
    const reply = insert(engine, [{ _id: 2 }]);
    const [err] = reply.writeErrors as Document[];
    assert.equal(err.code, 11000);
    assert.deepEqual(err.keyValue, { a: null });
  });

  it('sparse unique: any number of documents may miss the field, present values stay unique', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { a: 1 }, name: 'a_1', unique: true, sparse: true }]);
    assert.equal(insert(engine, [{ _id: 1 }, { _id: 2 }, { _id: 3, a: 1 }]).n, 3);
    assert.equal((insert(engine, [{ _id: 4, a: 1 }]).writeErrors as Document[])[0].code, 11000);
  });

  it('partial unique: documents outside the filter are not constrained', () => {
    const engine = setup();
    createIndexes(engine, [
      { key: { email: 1 }, name: 'email_1', unique: true, partialFilterExpression: { active: true } },
    ]);
    assert.equal(
      insert(engine, [
        { email: 'x', active: false },
        { email: 'x', active: false },
        { email: 'x', active: true },
      ]).n,
      3,
    );
    assert.equal((insert(engine, [{ email: 'x', active: true }]).writeErrors as Document[])[0].code, 11000);
  });

  it('compound unique: only the full key must be unique', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { a: 1, b: 1 }, name: 'a_1_b_1', unique: true }]);
    assert.equal(
      insert(engine, [
        { a: 1, b: 1 },
        { a: 1, b: 2 },
        { a: 2, b: 1 },
      ]).n,
      3,
    );
    const [err] = insert(engine, [{ a: 1, b: 2 }]).writeErrors as Document[];
    assert.equal(err.code, 11000);
    assert.deepEqual(err.keyValue, { a: 1, b: 2 });
  });

  it('multikey unique: array elements are keys; one document may repeat a value', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { tags: 1 }, name: 'tags_1', unique: true }]);
    assert.equal(insert(engine, [{ tags: ['a', 'a', 'b'] }]).n, 1);
    const [err] = insert(engine, [{ tags: ['c', 'b'] }]).writeErrors as Document[];
    assert.equal(err.code, 11000);
    assert.deepEqual(err.keyValue, { tags: 'b' });
  });

  it('an update that would duplicate a key fails with 11000 and leaves the document unchanged', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { a: 1 }, name: 'a_1', unique: true }]);
    insert(engine, [
      { _id: 1, a: 1 },
      { _id: 2, a: 2 },
    ]);
    const reply = engine.runCommand(DB, {
      update: 'c',
      updates: [{ q: { _id: 2 }, u: { $set: { a: 1, b: 'changed' } } }],
    });
    assert.equal((reply.writeErrors as Document[])[0].code, 11000);
    assert.equal(reply.nModified, 0);
    assert.deepEqual(find(engine, { _id: 2 }), [{ _id: 2, a: 2 }]);
  });

  it('building a unique index over existing duplicates fails with 11000 and leaves no index', () => {
    const engine = setup([
      { _id: 1, a: 1 },
      { _id: 2, a: 1 },
    ]);
    const err = expectError(() => createIndexes(engine, [{ key: { a: 1 }, name: 'a_1', unique: true }]), 11000);
    assert.match(err.message, /E11000 duplicate key error/);
    assert.deepEqual(indexNames(engine), ['_id_']);
    assert.equal(insert(engine, [{ _id: 3, a: 1 }]).n, 1, 'no leftover unique constraint');
  });

  it('a unique build failure in a multi-spec command creates none of the specs', () => {
    const engine = setup([
      { _id: 1, a: 1, b: 1 },
      { _id: 2, a: 1, b: 2 },
    ]);
    expectError(
      () =>
        createIndexes(engine, [
          { key: { b: 1 }, name: 'b_1', unique: true },
          { key: { a: 1 }, name: 'a_1', unique: true },
        ]),
      11000,
    );
    assert.deepEqual(indexNames(engine), ['_id_']);
  });

  it('a hidden unique index still enforces uniqueness', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { a: 1 }, name: 'a_1', unique: true, hidden: true }]);
    insert(engine, [{ a: 1 }]);
    assert.equal((insert(engine, [{ a: 1 }]).writeErrors as Document[])[0].code, 11000);
  });
});

// ---- sparse / partial / hidden ------------------------------------------------------------------------------

describe('sparse indexes', () => {
  it('queries for null still return documents missing the field (the sparse index is not used for them)', () => {
    const engine = setup([{ _id: 1, a: 1 }, { _id: 2 }, { _id: 3, a: null }]);
    createIndexes(engine, [{ key: { a: 1 }, name: 'a_1', sparse: true }]);
    assert.deepEqual(ids(find(engine, { a: null })).sort(), [2, 3]);
    assert.deepEqual(ids(find(engine, { a: 1 })), [1]);
  });

  it('a sort on the sparse field returns every document', () => {
    const engine = setup([{ _id: 1, a: 2 }, { _id: 2 }, { _id: 3, a: 1 }]);
    createIndexes(engine, [{ key: { a: 1 }, name: 'a_1', sparse: true }]);
    assert.deepEqual(ids(find(engine, {}, { sort: { a: 1 } })), [2, 3, 1]);
  });

  it('sparse + partialFilterExpression → 67 CannotCreateIndex (rule 8.4)', () => {
    const engine = setup();
    expectError(
      () =>
        createIndexes(engine, [
          { key: { a: 1 }, name: 'a_1', sparse: true, partialFilterExpression: { a: { $gt: 1 } } },
        ]),
      67,
    );
  });
});

describe('partialFilterExpression (rule 8)', () => {
  const allowed: Array<[string, Document]> = [
    ['equality', { kind: 'x' }],
    ['$eq', { kind: { $eq: 'x' } }],
    ['$gt/$gte/$lt/$lte', { n: { $gt: 1, $lte: 10 } }],
    ['$exists: true', { n: { $exists: true } }],
    ['$type', { n: { $type: 'number' } }],
    ['$in (6.0+)', { kind: { $in: ['a', 'b'] } }],
    ['$and', { $and: [{ n: { $gt: 1 } }, { kind: 'x' }] }],
    ['$or (6.0+)', { $or: [{ kind: 'a' }, { n: { $lt: 0 } }] }],
  ];
  for (const [label, filter] of allowed) {
    it(`rule 8.1: ${label} is allowed`, () => {
      const engine = setup();
      createIndexes(engine, [{ key: { t: 1 }, name: 't_1', partialFilterExpression: filter }]);
      assert.deepEqual(listIndexes(engine)[1].partialFilterExpression, filter);
    });
  }

  const refused: Array<[string, Document]> = [
    ['$ne', { n: { $ne: 1 } }],
    ['$nin', { n: { $nin: [1] } }],
    ['$not', { n: { $not: { $gt: 1 } } }],
    ['$exists: false', { n: { $exists: false } }],
    ['$regex', { s: { $regex: '^a' } }],
    ['$elemMatch', { arr: { $elemMatch: { x: 1 } } }],
    ['$size', { arr: { $size: 2 } }],
    ['$mod', { n: { $mod: [2, 0] } }],
    ['$all', { arr: { $all: [1, 2] } }],
    ['$nor', { $nor: [{ n: 1 }] }],
  ];
  for (const [label, filter] of refused) {
    it(`rule 8.1: ${label} → 67 "Expression not supported in partial index"`, () => {
      const engine = setup();
      expectError(
        () => createIndexes(engine, [{ key: { t: 1 }, name: 't_1', partialFilterExpression: filter }]),
        67,
        /not supported in partial index/,
      );
      assert.deepEqual(indexNames(engine), ['_id_']);
    });
  }

  it('rule 8.4: a non-object partialFilterExpression → 14 TypeMismatch', () => {
    const engine = setup();
    expectError(() => createIndexes(engine, [{ key: { t: 1 }, name: 't_1', partialFilterExpression: 5 }]), 14);
  });

  it('only documents matching the filter are indexed; a query implying the filter uses the index and finds them all', () => {
    const engine = setup([
      { _id: 1, n: 5, kind: 'a' },
      { _id: 2, n: 5, kind: 'b' },
      { _id: 3, n: 7, kind: 'a' },
    ]);
    createIndexes(engine, [{ key: { n: 1 }, name: 'n_1', partialFilterExpression: { kind: 'a' } }]);
    const scan = ixscan(engine, { n: 5, kind: 'a' });
    assert.ok(scan, 'IXSCAN on the partial index');
    assert.equal(scan.indexName, 'n_1');
    assert.equal(scan.isPartial, true);
    assert.deepEqual(ids(find(engine, { n: 5, kind: 'a' })), [1]);
  });

  it('a query that does not imply the filter does not use the partial index (and finds documents outside it)', () => {
    const engine = setup([
      { _id: 1, n: 5, kind: 'a' },
      { _id: 2, n: 5, kind: 'b' },
    ]);
    createIndexes(engine, [{ key: { n: 1 }, name: 'n_1', partialFilterExpression: { kind: 'a' } }]);
    assert.equal(ixscan(engine, { n: 5 }), undefined);
    assert.deepEqual(ids(find(engine, { n: 5 })).sort(), [1, 2]);
  });
});

describe('hidden indexes', () => {
  it('are listed with hidden: true but not used by the planner', () => {
    const engine = setup(Array.from({ length: 20 }, (_, i) => ({ _id: i, a: i })));
    createIndexes(engine, [{ key: { a: 1 }, name: 'a_1', hidden: true }]);
    assert.equal(listIndexes(engine)[1].hidden, true);
    assert.equal(ixscan(engine, { a: 3 }), undefined, 'no IXSCAN on a hidden index');
    assert.deepEqual(ids(find(engine, { a: 3 })), [3]);
  });

  it('are still maintained by writes (results stay correct)', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { a: 1 }, name: 'a_1', hidden: true }]);
    insert(engine, [{ _id: 1, a: 1 }]);
    engine.runCommand(DB, { update: 'c', updates: [{ q: { _id: 1 }, u: { $set: { a: 2 } } }] });
    assert.deepEqual(ids(find(engine, { a: 2 })), [1]);
    assert.deepEqual(find(engine, { a: 1 }), []);
  });
});

// ---- multikey / compound / parallel arrays ----------------------------------------------------------------------

describe('multikey and compound indexes', () => {
  it('an index on an array field indexes each element (isMultiKey: true) and finds by any element', () => {
    const engine = setup([
      { _id: 1, tags: ['red', 'blue'] },
      { _id: 2, tags: ['green'] },
      { _id: 3, tags: 'blue' },
      { _id: 4, tags: [] },
    ]);
    createIndexes(engine, [{ key: { tags: 1 }, name: 'tags_1' }]);
    const scan = ixscan(engine, { tags: 'blue' });
    assert.ok(scan);
    assert.equal(scan.isMultiKey, true);
    assert.deepEqual(ids(find(engine, { tags: 'blue' })).sort(), [1, 3]);
    assert.deepEqual(ids(find(engine, { tags: { $in: ['green', 'red'] } })).sort(), [1, 2]);
  });

  it('a document is returned once even when several of its elements match', () => {
    const engine = setup([
      { _id: 1, n: [1, 2, 3] },
      { _id: 2, n: [9] },
    ]);
    createIndexes(engine, [{ key: { n: 1 }, name: 'n_1' }]);
    assert.deepEqual(ids(find(engine, { n: { $gte: 1, $lte: 3 } })), [1]);
    assert.deepEqual(ids(find(engine, { n: { $in: [1, 2, 3] } })), [1]);
  });

  it('range conditions on a multikey field may be met by different elements (mongod semantics)', () => {
    const engine = setup([
      { _id: 1, n: [1, 10] },
      { _id: 2, n: [5] },
      { _id: 3, n: [20] },
    ]);
    createIndexes(engine, [{ key: { n: 1 }, name: 'n_1' }]);
    // [1, 10]: 10 > 4 and 1 < 6, so it matches although no single element lies in (4, 6).
    assert.deepEqual(ids(find(engine, { n: { $gt: 4, $lt: 6 } })).sort(), [1, 2]);
  });

  it('an empty array is indexed (as undefined) and found by {tags: []}', () => {
    const engine = setup([
      { _id: 1, tags: [] },
      { _id: 2, tags: ['x'] },
    ]);
    createIndexes(engine, [{ key: { tags: 1 }, name: 'tags_1' }]);
    assert.deepEqual(ids(find(engine, { tags: [] })), [1]);
  });

  it('dotted paths into arrays of subdocuments are indexed', () => {
    const engine = setup([
      { _id: 1, items: [{ sku: 'a' }, { sku: 'b' }] },
      { _id: 2, items: [{ sku: 'c' }] },
    ]);
    createIndexes(engine, [{ key: { 'items.sku': 1 }, name: 'items.sku_1' }]);
    assert.ok(ixscan(engine, { 'items.sku': 'b' }));
    assert.deepEqual(ids(find(engine, { 'items.sku': 'b' })), [1]);
  });

  it('a compound index serves a query on its prefix and on all its fields', () => {
    const engine = setup(Array.from({ length: 30 }, (_, i) => ({ _id: i, a: i % 3, b: i })));
    createIndexes(engine, [{ key: { a: 1, b: 1 }, name: 'a_1_b_1' }]);
    assert.equal(ixscan(engine, { a: 1 })?.indexName, 'a_1_b_1');
    assert.equal(ixscan(engine, { a: 1, b: { $gt: 20 } })?.indexName, 'a_1_b_1');
    assert.deepEqual(ids(find(engine, { a: 1, b: { $gt: 20 } })), [22, 25, 28]);
    assert.equal(ixscan(engine, { b: 5 }), undefined, 'a non-prefix field alone cannot use the index');
  });

  it('a compound index with one array field is allowed', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { a: 1, tags: 1 }, name: 'a_1_tags_1' }]);
    assert.equal(insert(engine, [{ _id: 1, a: 1, tags: ['x', 'y'] }]).n, 1);
    assert.deepEqual(ids(find(engine, { a: 1, tags: 'y' })), [1]);
  });

  it('a compound index over fields of the same array (a.b, a.c) is no parallel array, and finds matches made by different elements', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { 'a.b': 1, 'a.c': 1 }, name: 'a.b_1_a.c_1' }]);
    assert.equal(
      insert(engine, [
        {
          _id: 1,
          a: [
            { b: 3, c: 6 },
            { b: 1, c: 1 },
          ],
        },
      ]).n,
      1,
    );
    assert.equal(ixscan(engine, { 'a.b': { $gt: 2 }, 'a.c': { $lt: 4 } })?.indexName, 'a.b_1_a.c_1');
    // b > 2 holds in the first element, c < 4 in the second: a match without $elemMatch.
    assert.deepEqual(ids(find(engine, { 'a.b': { $gt: 2 }, 'a.c': { $lt: 4 } })), [1]);
    assert.deepEqual(ids(find(engine, { 'a.b': 3, 'a.c': 1 })), [1]);
    assert.equal(engine.runCommand(DB, { count: 'c', query: { 'a.b': 3, 'a.c': 6 } }).n, 1);
  });

  it("an index scan for {'a.b': null} finds an array whose element lacks b", () => {
    const engine = setup([
      { _id: 1, a: [{ b: 5 }] },
      { _id: 2, a: [{}] },
      { _id: 4, a: [{}, { b: 5 }] },
      { _id: 5, a: [5, { b: 5 }] },
    ]);
    createIndexes(engine, [{ key: { 'a.b': 1 }, name: 'a.b_1' }]);
    assert.ok(ixscan(engine, { 'a.b': { $in: [null] } }));
    assert.deepEqual(ids(find(engine, { 'a.b': { $in: [null] } })).sort(), [2, 4]);
    assert.deepEqual(ids(find(engine, { 'a.b': null })).sort(), [2, 4]);
    // distinct reads values, not index keys: the element without b adds no null.
    assert.deepEqual(engine.runCommand(DB, { distinct: 'c', key: 'a.b', query: { _id: 4 } }).values, [5]);
  });

  it('parallel arrays: inserting a document with two array fields of a compound index → 171 CannotIndexParallelArrays', () => {
    const engine = setup();
    createIndexes(engine, [{ key: { a: 1, b: 1 }, name: 'a_1_b_1' }]);
    const reply = insert(engine, [{ _id: 1, a: [1, 2], b: [3, 4] }]);
    assert.equal(reply.n, 0);
    const [err] = reply.writeErrors as Document[];
    assert.equal(err.code, 171);
    assert.match(err.errmsg as string, /cannot index parallel arrays/);
    assert.deepEqual(find(engine), [], 'nothing was stored');
  });

  it('parallel arrays: building the compound index over such a document → 171, no index left', () => {
    const engine = setup([{ _id: 1, a: [1, 2], b: [3, 4] }]);
    expectError(() => createIndexes(engine, [{ key: { a: 1, b: 1 }, name: 'a_1_b_1' }]), 171);
    assert.deepEqual(indexNames(engine), ['_id_']);
  });

  it('parallel arrays: an update producing them fails with 171 and leaves the document unchanged', () => {
    const engine = setup([{ _id: 1, a: [1, 2], b: 3 }]);
    createIndexes(engine, [{ key: { a: 1, b: 1 }, name: 'a_1_b_1' }]);
    const reply = engine.runCommand(DB, { update: 'c', updates: [{ q: { _id: 1 }, u: { $set: { b: [3, 4] } } }] });
    assert.equal((reply.writeErrors as Document[])[0].code, 171);
    assert.deepEqual(find(engine), [{ _id: 1, a: [1, 2], b: 3 }]);
  });
});

describe('index maintenance by writes', () => {
  it('updates and deletes keep secondary indexes consistent with the documents', () => {
    const engine = setup(Array.from({ length: 10 }, (_, i) => ({ _id: i, a: i })));
    createIndexes(engine, [{ key: { a: 1 }, name: 'a_1' }]);
    engine.runCommand(DB, { update: 'c', updates: [{ q: { a: { $lt: 5 } }, u: { $inc: { a: 100 } }, multi: true }] });
    engine.runCommand(DB, { delete: 'c', deletes: [{ q: { a: 9 }, limit: 1 }] });
    const viaIndex = ids(find(engine, { a: { $gte: 0 } }, { hint: 'a_1' }));
    const viaScan = ids(find(engine, { a: { $gte: 0 } }, { hint: { $natural: 1 } }));
    assert.deepEqual(
      [...viaIndex].sort((x, y) => Number(x) - Number(y)),
      [...viaScan].sort((x, y) => Number(x) - Number(y)),
    );
    assert.deepEqual(find(engine, { a: 3 }), []);
    assert.deepEqual(ids(find(engine, { a: 103 })), [3]);
    assert.deepEqual(find(engine, { a: 9 }), []);
  });

  it('a new index covers documents inserted before it', () => {
    const engine = setup([
      { _id: 1, a: 'x' },
      { _id: 2, a: 'y' },
    ]);
    createIndexes(engine, [{ key: { a: 1 }, name: 'a_1' }]);
    assert.deepEqual(ids(find(engine, { a: 'y' }, { hint: 'a_1' })), [2]);
  });
});

describe('createIndexes: the _id index', () => {
  it('asking for {_id: 1} under a generated name finds the _id_ index (a no-op, as the shells send "_id_1")', () => {
    const engine = setup([{ _id: 1 }]);
    const reply = createIndexes(engine, [{ key: { _id: 1 }, name: '_id_1' }]);
    assert.equal(reply.ok, 1);
    assert.equal(reply.numIndexesAfter, reply.numIndexesBefore);
    assert.deepEqual(indexNames(engine), ['_id_']);
  });
});

describe('createIndexes: command fields and ignoreUnknownIndexOptions', () => {
  it('an unknown top-level field fails with 40415 (IDLUnknownField), as 8.0 parses the command', () => {
    const engine = new Engine();
    expectError(
      () => engine.runCommand('db', { createIndexes: 'c', indexes: [{ key: { e: 1 }, name: 'e_1' }], invalidField: 1 }),
      40415,
      /createIndexes\.invalidField/,
    );
    assert.equal(
      engine.runCommand('db', { createIndexes: 'c', indexes: [{ key: { e: 1 }, name: 'e_1' }], comment: 'x' }).ok,
      1,
    );
  });

  it('an unknown spec field is refused (197) unless ignoreUnknownIndexOptions is true, which drops it', () => {
    const engine = new Engine();
    const spec = { key: { x: 1 }, name: 'myindex', someField: 'someValue' };
    expectError(() => engine.runCommand('db', { createIndexes: 'c', indexes: [spec] }), 197);
    expectError(
      () => engine.runCommand('db', { createIndexes: 'c', indexes: [spec], ignoreUnknownIndexOptions: false }),
      197,
    );
    expectError(
      () => engine.runCommand('db', { createIndexes: 'c', indexes: [spec], ignoreUnknownIndexOptions: 'x' }),
      14,
    );
    engine.runCommand('db', { createIndexes: 'c', indexes: [spec], ignoreUnknownIndexOptions: true });
    const listed = (engine.runCommand('db', { listIndexes: 'c' }).cursor as Document).firstBatch as Document[];
    const made = listed.find((i) => i.name === 'myindex');
    assert.deepEqual(made, { v: 2, key: { x: 1 }, name: 'myindex' });
  });
});
