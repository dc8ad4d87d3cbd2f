/**
 * createIndex / createIndexes with TTL options through engine.runCommand and the typed handles
 * (docs/ttl-rules.md §1, §2.2–2.4, §5.1–5.3, §9.1). Everything runs on a VirtualClock.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal128, Int32, Long } from 'bson';
import { Engine, type Document, type EngineOptions } from '../../../../src/engine';
import { VirtualClock } from '../../../../src/engine/clock';
import { expectError } from '../../helpers/expect-error';

// ---- helpers ----------------------------------------------------------------------------------

const DB = 'app';
const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;

function setup(options: Partial<EngineOptions> = {}): { engine: Engine; clock: VirtualClock } {
  const clock = new VirtualClock(T0);
  const engine = new Engine({ clock, ...options });
  return { engine, clock };
}

function run(engine: Engine, cmd: Document): Document {
  return engine.runCommand(DB, cmd);
}

function createIndexes(engine: Engine, indexes: Document[], coll = 'c'): Document {
  return run(engine, { createIndexes: coll, indexes });
}

function listIndexes(engine: Engine, coll = 'c'): Document[] {
  return engine.db(DB).collection(coll).listIndexes();
}

function indexNamed(engine: Engine, name: string, coll = 'c'): Document | undefined {
  return listIndexes(engine, coll).find((i) => i.name === name);
}

function ids(engine: Engine, coll = 'c'): unknown[] {
  return engine
    .db(DB)
    .collection(coll)
    .find({}, { sort: { _id: 1 } })
    .map((d) => d._id);
}

/** Runs enough monitor passes (two increments, rule 7.12) that everything expired is gone. */
function twoPasses(engine: Engine, clock: VirtualClock): void {
  const before = engine.ttl.status().metrics.passes;
  clock.advance(120_000);
  assert.ok(engine.ttl.status().metrics.passes >= before + 2, 'two passes ran');
}

const NUMERIC_MSG = /TTL index 'expireAfterSeconds' option must be numeric, but received a type of '/;

// ---- 1.1 ---------------------------------------------------------------------------------------

describe('createIndex TTL: rule 1.1 (presence makes a TTL index)', () => {
  it('rule 1.1: a key field named expireAfterSeconds is not TTL (compound key accepted, nothing expires)', () => {
    const { engine, clock } = setup();
    const c = engine.db(DB).collection('c');
    c.insertMany([{ _id: 1, x: new Date(T0 - 10 * HOUR), expireAfterSeconds: new Date(T0 - 10 * HOUR) }]);
    const reply = createIndexes(engine, [{ key: { x: 1, expireAfterSeconds: 1 }, name: 'x_1_eas_1' }]);
    assert.equal(reply.ok, 1);
    const listed = indexNamed(engine, 'x_1_eas_1');
    assert.ok(listed);
    assert.equal('expireAfterSeconds' in listed, false, 'no TTL option in the listed spec');
    twoPasses(engine, clock);
    assert.deepEqual(ids(engine), [1]);
  });

  it('rule 1.1: a single key field named expireAfterSeconds holding an old date never expires', () => {
    const { engine, clock } = setup();
    const c = engine.db(DB).collection('c');
    c.insertOne({ _id: 1, expireAfterSeconds: new Date(T0 - 10 * HOUR) });
    c.createIndex({ expireAfterSeconds: 1 });
    twoPasses(engine, clock);
    assert.deepEqual(ids(engine), [1]);
    assert.equal(engine.ttl.status().metrics.deletedDocuments, 0);
  });

  it('rule 1.1: EAS 0 is still a TTL option (presence, not truthiness)', () => {
    const { engine, clock } = setup();
    const c = engine.db(DB).collection('c');
    c.insertOne({ _id: 1, t: new Date(T0 - 1000) });
    c.createIndex({ t: 1 }, { expireAfterSeconds: 0 });
    assert.equal((indexNamed(engine, 't_1')!.expireAfterSeconds as Int32).value, 0);
    twoPasses(engine, clock);
    assert.deepEqual(ids(engine), []);
  });
});

// ---- 1.2–1.4 -----------------------------------------------------------------------------------

describe('createIndex TTL: rules 1.2–1.4 (value checks, 67 CannotCreateIndex)', () => {
  for (const [label, value] of [
    ['a string', '3600'],
    ['a bool', true],
    ['null', null],
    ['an object', { secs: 1 }],
    ['an array', [1]],
    ['a date', new Date(T0)],
  ] as Array<[string, unknown]>) {
    it(`rule 1.2: ${label} is refused with 67 CannotCreateIndex`, () => {
      const { engine } = setup();
      run(engine, { create: 'c' });
      expectError(
        () => createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: value }]),
        67,
        NUMERIC_MSG,
        'CannotCreateIndex',
      );
      assert.deepEqual(
        listIndexes(engine).map((i) => i.name),
        ['_id_'],
        'nothing created',
      );
    });
  }

  it('rule 1.2: int32, Long, double and decimal are accepted and listed as Int32', () => {
    const { engine } = setup();
    run(engine, { create: 'c' });
    createIndexes(engine, [
      { key: { a: 1 }, name: 'a_1', expireAfterSeconds: new Int32(10) },
      { key: { b: 1 }, name: 'b_1', expireAfterSeconds: Long.fromNumber(20) },
      { key: { c: 1 }, name: 'c_1', expireAfterSeconds: 30 },
      { key: { d: 1 }, name: 'd_1', expireAfterSeconds: Decimal128.fromString('40') },
    ]);
    for (const [name, n] of [
      ['a_1', 10],
      ['b_1', 20],
      ['c_1', 30],
      ['d_1', 40],
    ] as Array<[string, number]>) {
      const eas = indexNamed(engine, name)!.expireAfterSeconds;
      assert.ok(eas instanceof Int32, `${name} lists an Int32`);
      assert.equal(eas.value, n);
    }
  });

  it('rule 1.2: a bad EAS on a missing collection does not create the collection', () => {
    const { engine } = setup();
    expectError(() => createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 'x' }], 'fresh'), 67);
    assert.deepEqual(engine.db(DB).collectionNames(), []);
  });

  it('rule 1.2: one bad spec among several creates none of them', () => {
    const { engine } = setup();
    run(engine, { create: 'c' });
    expectError(
      () =>
        createIndexes(engine, [
          { key: { a: 1 }, name: 'a_1', expireAfterSeconds: 10 },
          { key: { b: 1 }, name: 'b_1', expireAfterSeconds: 'ten' },
        ]),
      67,
    );
    assert.deepEqual(
      listIndexes(engine).map((i) => i.name),
      ['_id_'],
    );
  });

  it('rule 1.3: NaN is refused with 67 CannotCreateIndex', () => {
    const { engine } = setup();
    expectError(
      () => createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: NaN }]),
      67,
      /must not be NaN/,
      'CannotCreateIndex',
    );
  });

  it('rule 1.3: decimal NaN is refused with 67', () => {
    const { engine } = setup();
    expectError(
      () => createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: Decimal128.fromString('NaN') }]),
      67,
      /must not be NaN/,
    );
  });

  it('rule 1.3: NaN is refused in 7.0 too', () => {
    const { engine } = setup({ serverVersion: '7.0' });
    expectError(() => createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: NaN }]), 67, /NaN/);
  });

  it('rule 1.4: 2147483648 is refused with 67', () => {
    const { engine } = setup();
    expectError(
      () => createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 2147483648 }]),
      67,
      /must be within the range of a 32-bit integer/,
      'CannotCreateIndex',
    );
  });

  it('rule 1.4: 2147483648 is refused with 67 in 7.0 (older wording)', () => {
    const { engine } = setup({ serverVersion: '7.0' });
    expectError(
      () => createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 2147483648 }]),
      67,
      /must be within an acceptable range, try a lower number/,
    );
  });

  it('rule 1.4: 9223372036854775808 and 999999999999999 are refused with 67', () => {
    const { engine } = setup();
    expectError(
      () => createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 9223372036854775808 }]),
      67,
    );
    expectError(() => createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 999999999999999 }]), 67);
    expectError(
      () =>
        createIndexes(engine, [
          { key: { t: 1 }, name: 't_1', expireAfterSeconds: Long.fromString('9223372036854775807') },
        ]),
      67,
    );
  });

  it('rule 1.4: -1 is refused with 67 (cannot be less than 0)', () => {
    const { engine } = setup();
    expectError(
      () => createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: -1 }]),
      67,
      /cannot be less than 0/,
      'CannotCreateIndex',
    );
  });

  it('rule 1.4: 2147483647 is accepted', () => {
    const { engine } = setup();
    createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 2147483647 }]);
    assert.equal((indexNamed(engine, 't_1')!.expireAfterSeconds as Int32).value, 2147483647);
  });

  it('rule 1.4: a value larger than the seconds since the epoch is accepted for a secondary index', () => {
    const { engine } = setup();
    const big = Math.floor(T0 / 1000) + 1000;
    createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: big }]);
    assert.equal((indexNamed(engine, 't_1')!.expireAfterSeconds as Int32).value, big);
  });

  it('rule 1.4: -0.5 truncates to 0 and is accepted', () => {
    const { engine } = setup();
    createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: -0.5 }]);
    const eas = indexNamed(engine, 't_1')!.expireAfterSeconds;
    assert.ok(eas instanceof Int32);
    assert.equal(eas.value, 0);
  });

  it('rule 1.4: 10000.7 is listed as 10000 (Int32) in 8.0', () => {
    const { engine } = setup();
    createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 10000.7 }]);
    const eas = indexNamed(engine, 't_1')!.expireAfterSeconds;
    assert.ok(eas instanceof Int32);
    assert.equal(eas.value, 10000);
  });

  it('rule 1.4: 10000.7 is listed as 10000 in 7.0 and expires after 10000 s (observable expiry the same)', () => {
    const { engine, clock } = setup({ serverVersion: '7.0' });
    const c = engine.db(DB).collection('c');
    c.createIndex({ t: 1 }, { expireAfterSeconds: 10000.7 });
    const eas = indexNamed(engine, 't_1')!.expireAfterSeconds;
    assert.ok(eas instanceof Int32, 'listIndexes reports an int32 (IDL safeInt)');
    assert.equal(eas.value, 10000);
    // The first pass runs at T0 + 60 s: threshold T0 + 60 s − 10000 s.
    c.insertMany([
      { _id: 'at', t: new Date(T0 + 60_000 - 10_000_000) },
      { _id: 'after', t: new Date(T0 + 60_000 - 10_000_000 + 1) },
    ]);
    clock.advance(60_000);
    assert.deepEqual(ids(engine), ['after']);
  });

  it('rule 1.4: 2147483647.9 is accepted as 2147483647', () => {
    const { engine } = setup();
    createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 2147483647.9 }]);
    assert.equal((indexNamed(engine, 't_1')!.expireAfterSeconds as Int32).value, 2147483647);
  });
});

// ---- 1.5 ---------------------------------------------------------------------------------------

describe('createIndex TTL: rule 1.5 (order of checks)', () => {
  it('rule 1.5: an unknown option (197) wins over a bad EAS', () => {
    const { engine } = setup();
    expectError(
      () => createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 'abc', foo: 1 }]),
      197,
      /The field 'foo' is not valid for an index specification/,
      'InvalidIndexSpecificationOption',
    );
  });

  it('rule 1.5: an unknown option (197) wins over a negative EAS on a compound key', () => {
    const { engine } = setup();
    expectError(
      () => createIndexes(engine, [{ key: { a: 1, b: 1 }, name: 'ab', expireAfterSeconds: -5, bogus: true }]),
      197,
    );
  });

  it('rule 1.5: capped+clustered (6049202) wins over a bad EAS', () => {
    const { engine } = setup();
    run(engine, { create: 'cc', capped: true, size: 65536, clusteredIndex: { key: { _id: 1 }, unique: true } });
    expectError(
      () => createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 'abc' }], 'cc'),
      6049202,
    );
  });
});

// ---- 1.6 / 1.7 ---------------------------------------------------------------------------------

describe('createIndex TTL: rules 1.6–1.7 (key shape)', () => {
  it('rule 1.6: a compound key with EAS is refused with 67', () => {
    const { engine } = setup();
    run(engine, { create: 'c' });
    expectError(
      () => createIndexes(engine, [{ key: { a: 1, b: 1 }, name: 'a_1_b_1', expireAfterSeconds: 60 }]),
      67,
      /TTL indexes are single-field indexes, compound indexes do not support TTL/,
      'CannotCreateIndex',
    );
    assert.deepEqual(
      listIndexes(engine).map((i) => i.name),
      ['_id_'],
    );
  });

  it('rule 1.6: the same compound key without EAS is fine', () => {
    const { engine } = setup();
    createIndexes(engine, [{ key: { a: 1, b: 1 }, name: 'a_1_b_1' }]);
    assert.ok(indexNamed(engine, 'a_1_b_1'));
  });

  it('rule 1.7: {_id: 1} with EAS is refused with 197 InvalidIndexSpecificationOption', () => {
    const { engine } = setup();
    run(engine, { create: 'c' });
    expectError(
      () => engine.db(DB).collection('c').createIndex({ _id: 1 }, { expireAfterSeconds: 60 }),
      197,
      /The field 'expireAfterSeconds' is not valid for an _id index specification/,
      'InvalidIndexSpecificationOption',
    );
  });

  it('rule 1.7: {_id: 1} named _id_ with EAS is refused with 197 too', () => {
    const { engine } = setup();
    run(engine, { create: 'c' });
    expectError(() => createIndexes(engine, [{ key: { _id: 1 }, name: '_id_', expireAfterSeconds: 60 }]), 197);
  });
});

// ---- 1.8 ---------------------------------------------------------------------------------------

describe('createIndex TTL: rule 1.8 (capped collections)', () => {
  it('rule 1.8: 8.0 accepts a TTL index on a capped collection and the monitor deletes from it', () => {
    const { engine, clock } = setup();
    const db = engine.db(DB);
    const c = db.createCollection('cap', { capped: true, size: 1 << 20 });
    c.insertMany([
      { _id: 1, t: new Date(T0 - 2 * HOUR) },
      { _id: 2, t: new Date(T0 + 10 * HOUR) },
      { _id: 3, t: new Date(T0 - 3 * HOUR) },
    ]);
    assert.equal(c.createIndex({ t: 1 }, { expireAfterSeconds: 3600 }), 't_1');
    assert.equal((indexNamed(engine, 't_1', 'cap')!.expireAfterSeconds as Int32).value, 3600);
    twoPasses(engine, clock);
    assert.deepEqual(ids(engine, 'cap'), [2]);
    assert.equal(engine.ttl.status().metrics.deletedDocuments, 2);
  });

  it('rule 1.8: 7.0 refuses a TTL index on a capped collection with 67', () => {
    const { engine } = setup({ serverVersion: '7.0' });
    engine.db(DB).createCollection('cap', { capped: true, size: 1 << 20 });
    expectError(
      () => createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 60 }], 'cap'),
      67,
      /Cannot create TTL index on a capped collection/,
      'CannotCreateIndex',
    );
    assert.deepEqual(
      listIndexes(engine, 'cap').map((i) => i.name),
      ['_id_'],
    );
  });

  it('rule 1.8: 7.0 accepts a non-TTL index on a capped collection', () => {
    const { engine } = setup({ serverVersion: '7.0' });
    engine.db(DB).createCollection('cap', { capped: true, size: 1 << 20 });
    createIndexes(engine, [{ key: { t: 1 }, name: 't_1' }], 'cap');
    assert.ok(indexNamed(engine, 't_1', 'cap'));
  });

  for (const serverVersion of ['8.0', '7.0'] as const) {
    it(`rule 1.8: capped + clustered → 6049202 (${serverVersion})`, () => {
      const { engine } = setup({ serverVersion });
      run(engine, { create: 'cc', capped: true, size: 65536, clusteredIndex: { key: { _id: 1 }, unique: true } });
      const err = expectError(
        () => createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 60 }], 'cc'),
        6049202,
        /TTL secondary indexes are not allowed on a capped clustered collection/,
      );
      assert.equal(err.codeName, 'Location6049202');
    });
  }
});

// ---- 1.9 ---------------------------------------------------------------------------------------

describe('createIndex TTL: rule 1.9 (special index types)', () => {
  it('rule 1.9: wildcard {"$**": 1} with EAS is refused with 67', () => {
    const { engine } = setup();
    expectError(
      () => createIndexes(engine, [{ key: { '$**': 1 }, name: 'wc', expireAfterSeconds: 60 }]),
      67,
      /Index type 'wildcard' does not support the 'expireAfterSeconds' option/,
      'CannotCreateIndex',
    );
  });

  it('rule 1.9: wildcard {"a.$**": 1} with EAS is refused with 67', () => {
    const { engine } = setup();
    expectError(
      () => createIndexes(engine, [{ key: { 'a.$**': 1 }, name: 'wc', expireAfterSeconds: 60 }]),
      67,
      /wildcard/,
    );
  });

  it('rule 1.9: a hashed TTL index is accepted, listed, and never expires anything', () => {
    const { engine, clock } = setup();
    const c = engine.db(DB).collection('c');
    c.insertMany([
      { _id: 1, t: new Date(T0 - 10 * HOUR) },
      { _id: 2, t: new Date(0) },
    ]);
    assert.equal(c.createIndex({ t: 'hashed' }, { expireAfterSeconds: 0 }), 't_hashed');
    assert.equal((indexNamed(engine, 't_hashed')!.expireAfterSeconds as Int32).value, 0);
    twoPasses(engine, clock);
    assert.deepEqual(ids(engine), [1, 2]);
    const report = engine.ttl.runPass();
    const visit = report.visits.find((v) => v.target === 'index t_hashed');
    assert.ok(visit, 'the hashed index is visited');
    assert.equal(visit.outcome, 'skipped');
    assert.match(visit.reason ?? '', /special index can't be used as a TTL index/);
  });

  it('rule 1.9: a 2dsphere TTL index is accepted, listed, and never expires anything', () => {
    const { engine, clock } = setup();
    const c = engine.db(DB).collection('c');
    c.insertMany([{ _id: 1, loc: { type: 'Point', coordinates: [0, 0] }, t: new Date(T0 - 10 * HOUR) }]);
    c.createIndex({ loc: '2dsphere' }, { expireAfterSeconds: 0 });
    assert.equal((indexNamed(engine, 'loc_2dsphere')!.expireAfterSeconds as Int32).value, 0);
    twoPasses(engine, clock);
    assert.deepEqual(ids(engine), [1]);
    const visit = engine.ttl.runPass().visits.find((v) => v.target === 'index loc_2dsphere');
    assert.equal(visit?.outcome, 'skipped');
  });

  it('rule 1.9: a text TTL index is accepted, listed, and never expires anything', () => {
    const { engine, clock } = setup();
    const c = engine.db(DB).collection('c');
    c.insertMany([
      { _id: 1, t: new Date(T0 - 10 * HOUR) },
      { _id: 2, t: 'some words' },
    ]);
    c.createIndex({ t: 'text' }, { expireAfterSeconds: 0 });
    assert.ok(indexNamed(engine, 't_text'));
    twoPasses(engine, clock);
    assert.deepEqual(ids(engine), [1, 2]);
    const visit = engine.ttl.runPass().visits.find((v) => v.target === 'index t_text');
    assert.equal(visit?.outcome, 'skipped');
  });
});

// ---- 1.13 / 1.14 -------------------------------------------------------------------------------

describe('createIndex TTL: rules 1.13–1.14 (hidden, sparse, unique, partial)', () => {
  it('rule 1.13: a hidden TTL index still deletes', () => {
    const { engine, clock } = setup();
    const c = engine.db(DB).collection('c');
    c.insertMany([
      { _id: 1, t: new Date(T0 - 2 * HOUR) },
      { _id: 2, t: new Date(T0 + 2 * HOUR) },
    ]);
    c.createIndex({ t: 1 }, { expireAfterSeconds: 60, hidden: true });
    const listed = indexNamed(engine, 't_1')!;
    assert.equal(listed.hidden, true);
    assert.equal((listed.expireAfterSeconds as Int32).value, 60);
    twoPasses(engine, clock);
    assert.deepEqual(ids(engine), [2]);
  });

  it('rule 1.14: sparse + TTL is accepted and deletes', () => {
    const { engine, clock } = setup();
    const c = engine.db(DB).collection('c');
    c.insertMany([{ _id: 1, t: new Date(T0 - 2 * HOUR) }, { _id: 2 }]);
    c.createIndex({ t: 1 }, { expireAfterSeconds: 60, sparse: true });
    assert.equal(indexNamed(engine, 't_1')!.sparse, true);
    twoPasses(engine, clock);
    assert.deepEqual(ids(engine), [2]);
  });

  it('rule 1.14: unique + TTL is accepted and deletes', () => {
    const { engine, clock } = setup();
    const c = engine.db(DB).collection('c');
    c.insertMany([
      { _id: 1, t: new Date(T0 - 2 * HOUR) },
      { _id: 2, t: new Date(T0 + 2 * HOUR) },
    ]);
    c.createIndex({ t: 1 }, { expireAfterSeconds: 60, unique: true });
    assert.equal(indexNamed(engine, 't_1')!.unique, true);
    twoPasses(engine, clock);
    assert.deepEqual(ids(engine), [2]);
    // The deleted key is free again.
    c.insertOne({ _id: 3, t: new Date(T0 - 2 * HOUR) });
  });

  it('rule 1.14: partialFilterExpression + TTL is accepted and deletes only matching documents', () => {
    const { engine, clock } = setup();
    const c = engine.db(DB).collection('c');
    c.insertMany([
      { _id: 1, t: new Date(T0 - 2 * HOUR), z: 2 },
      { _id: 2, t: new Date(T0 - 2 * HOUR) },
    ]);
    c.createIndex({ t: 1 }, { expireAfterSeconds: 60, partialFilterExpression: { z: { $exists: true } } });
    assert.deepEqual(indexNamed(engine, 't_1')!.partialFilterExpression, { z: { $exists: true } });
    twoPasses(engine, clock);
    assert.deepEqual(ids(engine), [2]);
  });

  it('rule 1.14: unique + partial + hidden + TTL combine', () => {
    const { engine } = setup();
    createIndexes(engine, [
      {
        key: { t: 1 },
        name: 't_1',
        expireAfterSeconds: 5,
        unique: true,
        hidden: true,
        partialFilterExpression: { k: 1 },
      },
    ]);
    const listed = indexNamed(engine, 't_1')!;
    assert.equal(listed.unique, true);
    assert.equal(listed.hidden, true);
    assert.equal((listed.expireAfterSeconds as Int32).value, 5);
  });

  it('rule 1.14: sparse + partial together is 67 even with EAS', () => {
    const { engine } = setup();
    expectError(
      () =>
        createIndexes(engine, [
          { key: { t: 1 }, name: 't_1', expireAfterSeconds: 60, sparse: true, partialFilterExpression: { z: 1 } },
        ]),
      67,
      /cannot mix "partialFilterExpression" and "sparse" options/,
    );
  });
});

// ---- 2.1–2.4 -----------------------------------------------------------------------------------

describe('createIndex TTL: rules 2.1–2.4 (names, duplicates, conflicts)', () => {
  it('rule 2.1: the handle returns the default name (t_1, t_-1)', () => {
    const { engine } = setup();
    const c = engine.db(DB).collection('c');
    assert.equal(c.createIndex({ t: 1 }, { expireAfterSeconds: 60 }), 't_1');
    assert.equal(c.createIndex({ u: -1 }, { expireAfterSeconds: 60 }), 'u_-1');
  });

  it('rule 2.2: an identical TTL createIndex is a no-op with note "all indexes already exist"', () => {
    const { engine } = setup();
    createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 }]);
    const reply = createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 }]);
    assert.equal(reply.ok, 1);
    assert.equal(reply.numIndexesBefore, 2);
    assert.equal(reply.numIndexesAfter, 2);
    assert.equal(reply.note, 'all indexes already exist');
  });

  it('rule 2.2: the same EAS given as a Long is identical too', () => {
    const { engine } = setup();
    createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 }]);
    const reply = createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: Long.fromNumber(3600) }]);
    assert.equal(reply.note, 'all indexes already exist');
  });

  it('rule 2.2: when only some requested specs exist the note is "index already exists"', () => {
    const { engine } = setup();
    createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 }]);
    const reply = createIndexes(engine, [
      { key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 },
      { key: { u: 1 }, name: 'u_1', expireAfterSeconds: 60 },
    ]);
    assert.equal(reply.numIndexesBefore, 2);
    assert.equal(reply.numIndexesAfter, 3);
    assert.equal(reply.note, 'index already exists');
  });

  it('rule 2.3: same name and key with a different EAS → 85 pointing to collMod', () => {
    const { engine } = setup();
    createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 }]);
    expectError(
      () => createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 60 }]),
      85,
      /An equivalent index already exists with the same name but different options[\s\S]*collMod/,
      'IndexOptionsConflict',
    );
    assert.equal((indexNamed(engine, 't_1')!.expireAfterSeconds as Int32).value, 3600, 'unchanged');
  });

  it('rule 2.3: EAS present vs absent (same name, same key) → 85 pointing to collMod', () => {
    const { engine } = setup();
    createIndexes(engine, [{ key: { t: 1 }, name: 't_1' }]);
    expectError(() => createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 60 }]), 85, /collMod/);
    const { engine: e2 } = setup();
    createIndexes(e2, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 60 }]);
    expectError(() => createIndexes(e2, [{ key: { t: 1 }, name: 't_1' }]), 85, /collMod/);
  });

  it('rule 2.3: hidden differs (same name, key and EAS) → 85', () => {
    const { engine } = setup();
    createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 60 }]);
    expectError(
      () => createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 60, hidden: true }]),
      85,
      /same name but different options/,
    );
  });

  it('rule 2.4: another name, same key and options → 85 "Index already exists with a different name"', () => {
    const { engine } = setup();
    createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 60 }]);
    expectError(
      () => createIndexes(engine, [{ key: { t: 1 }, name: 'other', expireAfterSeconds: 60 }]),
      85,
      /Index already exists with a different name: t_1/,
    );
  });

  it('rule 2.4: another name, same key, different EAS → 85 "equivalent index … different name and options"', () => {
    const { engine } = setup();
    createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 60 }]);
    expectError(
      () => createIndexes(engine, [{ key: { t: 1 }, name: 'other', expireAfterSeconds: 120 }]),
      85,
      /An equivalent index already exists with a different name and options/,
    );
  });

  it('rule 2.4: another name, same key, EAS added to a non-TTL index → 85', () => {
    const { engine } = setup();
    createIndexes(engine, [{ key: { t: 1 }, name: 't_1' }]);
    expectError(() => createIndexes(engine, [{ key: { t: 1 }, name: 'ttl', expireAfterSeconds: 120 }]), 85);
  });

  it('rule 2.5: same name, different key → 86 IndexKeySpecsConflict', () => {
    const { engine } = setup();
    createIndexes(engine, [{ key: { t: 1 }, name: 'ttl', expireAfterSeconds: 60 }]);
    expectError(
      () => createIndexes(engine, [{ key: { u: 1 }, name: 'ttl', expireAfterSeconds: 60 }]),
      86,
      /An existing index has the same name as the requested index/,
      'IndexKeySpecsConflict',
    );
  });

  it('rule 2.8: createIndexes with EAS on a missing collection creates it implicitly', () => {
    const { engine } = setup();
    const reply = createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 60 }], 'fresh');
    assert.equal(reply.createdCollectionAutomatically, true);
    assert.equal(reply.numIndexesBefore, 1);
    assert.equal(reply.numIndexesAfter, 2);
    assert.deepEqual(engine.db(DB).collectionNames(), ['fresh']);
  });

  it('rule 2.6: two TTL indexes on the same field with different partial filters and names coexist', () => {
    const { engine } = setup();
    createIndexes(engine, [
      { key: { t: 1 }, name: 'short', expireAfterSeconds: 60, partialFilterExpression: { kind: 'a' } },
      { key: { t: 1 }, name: 'long', expireAfterSeconds: 3600, partialFilterExpression: { kind: 'b' } },
    ]);
    assert.deepEqual(
      listIndexes(engine).map((i) => i.name),
      ['_id_', 'short', 'long'],
    );
  });
});

// ---- 9.1 ---------------------------------------------------------------------------------------

describe('createIndex TTL: rule 9.1 (listIndexes shape)', () => {
  it('rule 9.1: a TTL index lists as {v: 2, key, name, expireAfterSeconds: Int32}', () => {
    const { engine } = setup();
    createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: Long.fromNumber(3600) }]);
    const listed = indexNamed(engine, 't_1')!;
    assert.deepEqual(Object.keys(listed).sort(), ['expireAfterSeconds', 'key', 'name', 'v']);
    assert.equal(Number(listed.v), 2);
    assert.deepEqual(listed.key, { t: 1 });
    assert.ok(listed.expireAfterSeconds instanceof Int32, 'expireAfterSeconds is an Int32');
    assert.equal(listed.expireAfterSeconds.value, 3600);
    assert.equal('ns' in listed, false, 'no ns field');
  });

  it('rule 9.1: a double EAS is listed as Int32', () => {
    const { engine } = setup();
    createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 42 }]);
    assert.ok(indexNamed(engine, 't_1')!.expireAfterSeconds instanceof Int32);
  });

  it('rule 9.1: a 7.0 fractional EAS is listed as Int32 as well', () => {
    const { engine } = setup({ serverVersion: '7.0' });
    createIndexes(engine, [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 99.9 }]);
    const eas = indexNamed(engine, 't_1')!.expireAfterSeconds;
    assert.ok(eas instanceof Int32);
    assert.equal(eas.value, 99);
  });

  it('rule 9.1 / 1.14: partial, hidden, sparse and unique are listed when set', () => {
    const { engine } = setup();
    createIndexes(engine, [
      { key: { t: 1 }, name: 't_1', expireAfterSeconds: 1, sparse: true, unique: true, hidden: true },
    ]);
    const listed = indexNamed(engine, 't_1')!;
    assert.equal(listed.sparse, true);
    assert.equal(listed.unique, true);
    assert.equal(listed.hidden, true);
  });
});

// ---- 5.1–5.3 -----------------------------------------------------------------------------------

describe('create clustered collection: rules 5.1–5.3', () => {
  it('rule 5.1: clusteredIndex with expireAfterSeconds is created; listCollections shows it', () => {
    const { engine } = setup();
    run(engine, { create: 'cl', clusteredIndex: { key: { _id: 1 }, unique: true }, expireAfterSeconds: 3600 });
    const [info] = engine.db(DB).listCollections({ name: 'cl' });
    const options = info.options as Document;
    assert.ok(options.clusteredIndex);
    assert.ok(options.expireAfterSeconds instanceof Long, 'int64 (rule 5.6)');
    assert.equal(options.expireAfterSeconds.toNumber(), 3600);
  });

  it('rule 5.1: clusteredIndex without unique: true → 5979700', () => {
    const { engine } = setup();
    expectError(
      () => run(engine, { create: 'cl', clusteredIndex: { key: { _id: 1 } }, expireAfterSeconds: 10 }),
      5979700,
    );
    expectError(() => run(engine, { create: 'cl', clusteredIndex: { key: { _id: 1 }, unique: false } }), 5979700);
    assert.deepEqual(engine.db(DB).collectionNames(), []);
  });

  it('rule 5.1: clusteredIndex key other than {_id: 1} → 197', () => {
    const { engine } = setup();
    expectError(() => run(engine, { create: 'cl', clusteredIndex: { key: { t: 1 }, unique: true } }), 197);
  });

  it('rule 5.2: expireAfterSeconds without clusteredIndex or timeseries → 72', () => {
    const { engine } = setup();
    expectError(
      () => run(engine, { create: 'plain', expireAfterSeconds: 60 }),
      72,
      /'expireAfterSeconds' requires clustering to be enabled/,
      'InvalidOptions',
    );
    assert.deepEqual(engine.db(DB).collectionNames(), []);
  });

  it('rule 5.3: negative clustered EAS → 72 "cannot be less than 0"', () => {
    const { engine } = setup();
    expectError(
      () => run(engine, { create: 'cl', clusteredIndex: { key: { _id: 1 }, unique: true }, expireAfterSeconds: -1 }),
      72,
      /cannot be less than 0/,
    );
  });

  it('rule 5.3: 2147483647 is refused for a clustered collection (72, acceptable range)', () => {
    const { engine } = setup();
    expectError(
      () =>
        run(engine, {
          create: 'cl',
          clusteredIndex: { key: { _id: 1 }, unique: true },
          expireAfterSeconds: 2147483647,
        }),
      72,
      /must be within an acceptable range, try a lower number/,
    );
    assert.deepEqual(engine.db(DB).collectionNames(), []);
  });

  it('rule 5.3: the seconds since the epoch are accepted, one more is refused (on the engine clock)', () => {
    const { engine } = setup();
    const nowSecs = Math.floor(T0 / 1000);
    run(engine, { create: 'ok', clusteredIndex: { key: { _id: 1 }, unique: true }, expireAfterSeconds: nowSecs });
    expectError(
      () =>
        run(engine, {
          create: 'bad',
          clusteredIndex: { key: { _id: 1 }, unique: true },
          expireAfterSeconds: nowSecs + 1,
        }),
      72,
    );
  });

  it('rule 5.3: a non-numeric clustered EAS → 14', () => {
    const { engine } = setup();
    expectError(
      () => run(engine, { create: 'cl', clusteredIndex: { key: { _id: 1 }, unique: true }, expireAfterSeconds: '60' }),
      14,
    );
  });

  it('rule 1.11: a secondary TTL index on a clustered collection is allowed', () => {
    const { engine, clock } = setup();
    run(engine, { create: 'cl', clusteredIndex: { key: { _id: 1 }, unique: true } });
    const c = engine.db(DB).collection('cl');
    c.insertMany([
      { _id: 1, t: new Date(T0 - HOUR) },
      { _id: 2, t: new Date(T0 + HOUR) },
    ]);
    c.createIndex({ t: 1 }, { expireAfterSeconds: 60 });
    twoPasses(engine, clock);
    assert.deepEqual(ids(engine, 'cl'), [2]);
  });
});
