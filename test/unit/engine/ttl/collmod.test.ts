/**
 * collMod and TTL (docs/ttl-rules.md §3.1–3.11, §5.5): changing and converting TTL indexes, the
 * errors, the reply shapes, and when a change takes effect on the monitor.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal128, Int32, Long } from 'bson';
import { Engine, loadLegacyIndexSpec, type Document, type EngineOptions } from '../../../../src/engine';
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

function collMod(engine: Engine, index: Document, coll = 'c'): Document {
  return run(engine, { collMod: coll, index });
}

function indexNamed(engine: Engine, name: string, coll = 'c'): Document | undefined {
  return engine
    .db(DB)
    .collection(coll)
    .listIndexes()
    .find((i) => i.name === name);
}

function listedEAS(engine: Engine, name: string, coll = 'c'): number | undefined {
  const eas = indexNamed(engine, name, coll)?.expireAfterSeconds;
  return eas === undefined ? undefined : Number((eas as Int32).value ?? eas);
}

function ids(engine: Engine, coll = 'c'): unknown[] {
  return engine
    .db(DB)
    .collection(coll)
    .find({}, { sort: { _id: 1 } })
    .map((d) => d._id);
}

function asNumber(v: unknown): number {
  if (v instanceof Long) return v.toNumber();
  if (v instanceof Int32) return v.value;
  return Number(v);
}

/** A collection `c` with a TTL index t_1 (EAS 3600) and a plain index u_1. */
function withIndexes(options: Partial<EngineOptions> = {}): { engine: Engine; clock: VirtualClock } {
  const s = setup(options);
  run(s.engine, { create: 'c' });
  run(s.engine, {
    createIndexes: 'c',
    indexes: [
      { key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 },
      { key: { u: 1 }, name: 'u_1' },
    ],
  });
  return s;
}

// ---- 3.1 / 3.2 ---------------------------------------------------------------------------------

describe('collMod TTL: rules 3.1–3.2 (value type and range)', () => {
  it('rule 3.1: a string expireAfterSeconds is refused with 14 TypeMismatch', () => {
    const { engine } = withIndexes();
    expectError(() => collMod(engine, { name: 't_1', expireAfterSeconds: '100' }), 14, undefined, 'TypeMismatch');
    assert.equal(listedEAS(engine, 't_1'), 3600, 'unchanged');
  });

  it('rule 3.1: a bool / object / null expireAfterSeconds is refused with 14', () => {
    const { engine } = withIndexes();
    expectError(() => collMod(engine, { name: 't_1', expireAfterSeconds: true }), 14);
    expectError(() => collMod(engine, { name: 't_1', expireAfterSeconds: { s: 1 } }), 14);
  });

  it('rule 3.1: Long, Int32, double and decimal values are accepted', () => {
    const { engine } = withIndexes();
    assert.equal(
      asNumber(collMod(engine, { name: 't_1', expireAfterSeconds: Long.fromNumber(10) }).expireAfterSeconds_new),
      10,
    );
    assert.equal(
      asNumber(collMod(engine, { name: 't_1', expireAfterSeconds: new Int32(20) }).expireAfterSeconds_new),
      20,
    );
    assert.equal(asNumber(collMod(engine, { name: 't_1', expireAfterSeconds: 30 }).expireAfterSeconds_new), 30);
    assert.equal(
      asNumber(
        collMod(engine, { name: 't_1', expireAfterSeconds: Decimal128.fromString('40') }).expireAfterSeconds_new,
      ),
      40,
    );
    assert.equal(listedEAS(engine, 't_1'), 40);
  });

  it('rule 3.1: 1.9 becomes 1', () => {
    const { engine } = withIndexes();
    const reply = collMod(engine, { name: 't_1', expireAfterSeconds: 1.9 });
    assert.equal(asNumber(reply.expireAfterSeconds_new), 1);
    assert.equal(listedEAS(engine, 't_1'), 1);
  });

  it('rule 3.1: 2147483648 silently becomes 2147483647', () => {
    const { engine } = withIndexes();
    const reply = collMod(engine, { name: 't_1', expireAfterSeconds: 2147483648 });
    assert.equal(asNumber(reply.expireAfterSeconds_new), 2147483647);
    assert.equal(listedEAS(engine, 't_1'), 2147483647);
  });

  it('rule 3.1: NaN is treated as 0', () => {
    const { engine } = withIndexes();
    const reply = collMod(engine, { name: 't_1', expireAfterSeconds: NaN });
    assert.equal(asNumber(reply.expireAfterSeconds_new), 0);
    assert.equal(listedEAS(engine, 't_1'), 0);
  });

  it('rule 3.2: a negative value is refused with 72 InvalidOptions', () => {
    const { engine } = withIndexes();
    expectError(
      () => collMod(engine, { name: 't_1', expireAfterSeconds: -1 }),
      72,
      /cannot be less than 0/,
      'InvalidOptions',
    );
    assert.equal(listedEAS(engine, 't_1'), 3600, 'unchanged');
  });

  it('rule 3.2: a negative value on a non-TTL index is refused with 72 and converts nothing', () => {
    const { engine } = withIndexes();
    expectError(() => collMod(engine, { name: 'u_1', expireAfterSeconds: -5 }), 72);
    assert.equal(indexNamed(engine, 'u_1')!.expireAfterSeconds, undefined);
  });
});

// ---- 3.3 / 3.4 ---------------------------------------------------------------------------------

describe('collMod TTL: rules 3.3–3.4 (identifying the index)', () => {
  it('rule 3.3: keyPattern and name both given → 72', () => {
    const { engine } = withIndexes();
    expectError(
      () => collMod(engine, { keyPattern: { t: 1 }, name: 't_1', expireAfterSeconds: 5 }),
      72,
      /Cannot specify both key pattern and name/,
      'InvalidOptions',
    );
  });

  it('rule 3.3: neither keyPattern nor name → 72', () => {
    const { engine } = withIndexes();
    expectError(
      () => collMod(engine, { expireAfterSeconds: 5 }),
      72,
      /Must specify either index name or key pattern/,
      'InvalidOptions',
    );
  });

  it('rule 3.3: no modification field → 72', () => {
    const { engine } = withIndexes();
    expectError(
      () => collMod(engine, { name: 't_1' }),
      72,
      /no expireAfterSeconds, hidden, unique, or prepareUnique field/,
    );
  });

  it('rule 3.3: an unknown field inside index → 40415', () => {
    const { engine } = withIndexes();
    expectError(() => collMod(engine, { name: 't_1', expireAfterSeconds: 5, bogus: 1 }), 40415, /unknown field/);
  });

  it('rule 3.4: a missing index by name → 27 IndexNotFound', () => {
    const { engine } = withIndexes();
    expectError(
      () => collMod(engine, { name: 'nope', expireAfterSeconds: 5 }),
      27,
      /cannot find index nope for ns app\.c/,
      'IndexNotFound',
    );
  });

  it('rule 3.4: a missing index by key pattern → 27 IndexNotFound', () => {
    const { engine } = withIndexes();
    expectError(
      () => collMod(engine, { keyPattern: { zz: 1 }, expireAfterSeconds: 5 }),
      27,
      /cannot find index .*zz.* for ns app\.c/,
    );
  });

  it('rule 3.4: a key pattern matching two indexes → 181 AmbiguousIndexKeyPattern', () => {
    const { engine } = setup();
    run(engine, {
      createIndexes: 'c',
      indexes: [
        { key: { t: 1 }, name: 'a', expireAfterSeconds: 60, partialFilterExpression: { k: 1 } },
        { key: { t: 1 }, name: 'b', expireAfterSeconds: 60, partialFilterExpression: { k: 2 } },
      ],
    });
    expectError(
      () => collMod(engine, { keyPattern: { t: 1 }, expireAfterSeconds: 5 }),
      181,
      undefined,
      'AmbiguousIndexKeyPattern',
    );
    // By name it works.
    assert.equal(asNumber(collMod(engine, { name: 'b', expireAfterSeconds: 5 }).expireAfterSeconds_new), 5);
  });

  it('rule 3.4: a key pattern matching one index finds it', () => {
    const { engine } = withIndexes();
    assert.equal(asNumber(collMod(engine, { keyPattern: { t: 1 }, expireAfterSeconds: 7 }).expireAfterSeconds_new), 7);
    assert.equal(listedEAS(engine, 't_1'), 7);
  });

  it('rule 3.4: a missing collection → 26 NamespaceNotFound', () => {
    const { engine } = setup();
    expectError(
      () => collMod(engine, { name: 't_1', expireAfterSeconds: 5 }, 'missing'),
      26,
      /ns does not exist/,
      'NamespaceNotFound',
    );
  });
});

// ---- 3.5 ---------------------------------------------------------------------------------------

describe('collMod TTL: rule 3.5 (converting a non-TTL index)', () => {
  it('rule 3.5: converting replies only expireAfterSeconds_new and lists the new option', () => {
    const { engine } = withIndexes();
    const reply = collMod(engine, { name: 'u_1', expireAfterSeconds: 100 });
    assert.equal(reply.ok, 1);
    assert.equal('expireAfterSeconds_old' in reply, false, 'no _old for a conversion');
    assert.ok(reply.expireAfterSeconds_new instanceof Long, 'reported as a 64-bit integer');
    assert.equal(asNumber(reply.expireAfterSeconds_new), 100);
    assert.deepEqual(Object.keys(reply).sort(), ['expireAfterSeconds_new', 'ok']);
    const listed = indexNamed(engine, 'u_1')!;
    assert.ok(listed.expireAfterSeconds instanceof Int32);
    assert.equal(listed.expireAfterSeconds.value, 100);
  });

  it('rule 3.5: the monitor uses a converted index from the next pass on', () => {
    const { engine, clock } = withIndexes();
    const c = engine.db(DB).collection('c');
    c.insertMany([
      { _id: 1, u: new Date(T0 - HOUR) },
      { _id: 2, u: new Date(T0 + HOUR) },
    ]);
    clock.advance(60_000);
    assert.deepEqual(ids(engine), [1, 2], 'not TTL yet');
    collMod(engine, { keyPattern: { u: 1 }, expireAfterSeconds: 60 });
    clock.advance(60_000);
    assert.deepEqual(ids(engine), [2]);
  });

  it('rule 3.5: converting the _id index → 72', () => {
    const { engine } = withIndexes();
    expectError(
      () => collMod(engine, { name: '_id_', expireAfterSeconds: 10 }),
      72,
      /the _id field does not support TTL indexes/,
      'InvalidOptions',
    );
    expectError(
      () => collMod(engine, { keyPattern: { _id: 1 }, expireAfterSeconds: 10 }),
      72,
      /_id field does not support TTL/,
    );
    assert.equal(indexNamed(engine, '_id_')!.expireAfterSeconds, undefined);
  });

  it('rule 3.5: converting a compound index → 72', () => {
    const { engine } = setup();
    run(engine, { createIndexes: 'c', indexes: [{ key: { a: 1, b: 1 }, name: 'a_1_b_1' }] });
    expectError(
      () => collMod(engine, { name: 'a_1_b_1', expireAfterSeconds: 10 }),
      72,
      /TTL indexes are single-field indexes, compound indexes do not support TTL/,
      'InvalidOptions',
    );
    assert.equal(indexNamed(engine, 'a_1_b_1')!.expireAfterSeconds, undefined);
  });

  it('rule 3.5 / 3.8: 7.0 refuses converting an index of a capped collection with 72', () => {
    const { engine } = setup({ serverVersion: '7.0' });
    run(engine, { create: 'cap', capped: true, size: 1 << 20 });
    run(engine, { createIndexes: 'cap', indexes: [{ key: { t: 1 }, name: 't_1' }] });
    expectError(
      () => collMod(engine, { name: 't_1', expireAfterSeconds: 10 }, 'cap'),
      72,
      /TTL indexes are not supported for capped collections/,
      'InvalidOptions',
    );
    assert.equal(indexNamed(engine, 't_1', 'cap')!.expireAfterSeconds, undefined);
  });

  it('rule 3.8: 8.0 converts an index of a capped collection and the monitor deletes', () => {
    const { engine, clock } = setup();
    run(engine, { create: 'cap', capped: true, size: 1 << 20 });
    run(engine, { createIndexes: 'cap', indexes: [{ key: { t: 1 }, name: 't_1' }] });
    engine
      .db(DB)
      .collection('cap')
      .insertMany([
        { _id: 1, t: new Date(T0 - HOUR) },
        { _id: 2, t: new Date(T0 + HOUR) },
      ]);
    const reply = collMod(engine, { name: 't_1', expireAfterSeconds: 10 }, 'cap');
    assert.equal(asNumber(reply.expireAfterSeconds_new), 10);
    clock.advance(60_000);
    assert.deepEqual(ids(engine, 'cap'), [2]);
  });
});

// ---- 3.6 ---------------------------------------------------------------------------------------

describe('collMod TTL: rule 3.6 (changing an existing value)', () => {
  it('rule 3.6: changing replies expireAfterSeconds_old and _new as Longs', () => {
    const { engine } = withIndexes();
    const reply = collMod(engine, { name: 't_1', expireAfterSeconds: 60 });
    assert.ok(reply.expireAfterSeconds_old instanceof Long, '_old is a Long');
    assert.ok(reply.expireAfterSeconds_new instanceof Long, '_new is a Long');
    assert.equal(asNumber(reply.expireAfterSeconds_old), 3600);
    assert.equal(asNumber(reply.expireAfterSeconds_new), 60);
    assert.equal(reply.ok, 1);
    assert.equal(listedEAS(engine, 't_1'), 60);
  });

  it('rule 3.6: setting the same value reports old == new', () => {
    const { engine } = withIndexes();
    const reply = collMod(engine, { name: 't_1', expireAfterSeconds: 3600 });
    assert.equal(asNumber(reply.expireAfterSeconds_old), 3600);
    assert.equal(asNumber(reply.expireAfterSeconds_new), 3600);
    assert.equal(listedEAS(engine, 't_1'), 3600);
  });

  it('rule 3.6: a second change reports the previous new value as old', () => {
    const { engine } = withIndexes();
    collMod(engine, { name: 't_1', expireAfterSeconds: 60 });
    const reply = collMod(engine, { name: 't_1', expireAfterSeconds: 0 });
    assert.equal(asNumber(reply.expireAfterSeconds_old), 60);
    assert.equal(asNumber(reply.expireAfterSeconds_new), 0);
  });

  it('rule 3.6: a 7.0 fractional stored value reports the truncated old value', () => {
    const { engine } = setup({ serverVersion: '7.0' });
    run(engine, { createIndexes: 'c', indexes: [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 99.9 }] });
    const reply = collMod(engine, { name: 't_1', expireAfterSeconds: 5 });
    assert.equal(asNumber(reply.expireAfterSeconds_old), 99);
  });

  it('rule 3.6 / 4.3: an invalid (NaN) stored value is reported as old 0 (legacy catalog simulated)', () => {
    const { engine } = setup();
    // Only a legacy catalog can hold NaN (rule 4.3).
    loadLegacyIndexSpec(engine, DB, 'c', { v: 2, key: { t: 1 }, name: 't_1', expireAfterSeconds: NaN });
    const reply = collMod(engine, { name: 't_1', expireAfterSeconds: 10 });
    assert.equal(asNumber(reply.expireAfterSeconds_old), 0);
    assert.equal(asNumber(reply.expireAfterSeconds_new), 10);
    assert.equal(listedEAS(engine, 't_1'), 10);
  });

  it('rule 3.9: an existing non-number expireAfterSeconds → 72 (legacy catalog simulated)', () => {
    const { engine } = setup();
    loadLegacyIndexSpec(engine, DB, 'c', { v: 2, key: { t: 1 }, name: 't_1', expireAfterSeconds: 'soon' });
    expectError(
      () => collMod(engine, { name: 't_1', expireAfterSeconds: 10 }),
      72,
      /existing expireAfterSeconds field is not a number/,
    );
  });

  it('rule 3.6: dryRun reports without changing', () => {
    const { engine } = withIndexes();
    const reply = run(engine, { collMod: 'c', index: { name: 't_1', expireAfterSeconds: 1 }, dryRun: true });
    assert.equal(asNumber(reply.expireAfterSeconds_new), 1);
    assert.equal(listedEAS(engine, 't_1'), 3600);
  });
});

// ---- 3.7 ---------------------------------------------------------------------------------------

describe('collMod TTL: rule 3.7 (time-series collections)', () => {
  it('rule 3.7: index.expireAfterSeconds on a time-series collection → 72', () => {
    const { engine } = setup();
    engine.db(DB).createCollection('ts', { timeseries: { timeField: 't', metaField: 'm' } });
    expectError(
      () => collMod(engine, { keyPattern: { m: 1, t: 1 }, expireAfterSeconds: 60 }, 'ts'),
      72,
      /TTL indexes are not supported for time-series collections[\s\S]*top-level 'expireAfterSeconds'/,
      'InvalidOptions',
    );
  });

  it('rule 3.7: by name as well', () => {
    const { engine } = setup();
    engine.db(DB).createCollection('ts', { timeseries: { timeField: 't', metaField: 'm' } });
    const names = engine
      .db(DB)
      .collection('ts')
      .listIndexes()
      .map((i) => i.name as string);
    assert.ok(names.length > 0, 'the time-series collection has its {m: 1, t: 1} index');
    expectError(() => collMod(engine, { name: names[0], expireAfterSeconds: 60 }, 'ts'), 72, /time-series/);
  });
});

// ---- 3.10 --------------------------------------------------------------------------------------

describe('collMod TTL: rule 3.10 (hidden in the same request)', () => {
  it('rule 3.10: hiding a TTL index replies hidden_old / hidden_new', () => {
    const { engine } = withIndexes();
    const reply = collMod(engine, { name: 't_1', hidden: true });
    assert.equal(reply.hidden_old, false);
    assert.equal(reply.hidden_new, true);
    assert.equal('expireAfterSeconds_new' in reply, false);
    assert.equal(indexNamed(engine, 't_1')!.hidden, true);
  });

  it('rule 3.10: EAS and hidden together reply all four fields', () => {
    const { engine } = withIndexes();
    const reply = collMod(engine, { name: 't_1', expireAfterSeconds: 5, hidden: true });
    assert.equal(asNumber(reply.expireAfterSeconds_old), 3600);
    assert.equal(asNumber(reply.expireAfterSeconds_new), 5);
    assert.equal(reply.hidden_old, false);
    assert.equal(reply.hidden_new, true);
    const listed = indexNamed(engine, 't_1')!;
    assert.equal(listed.hidden, true);
    assert.equal((listed.expireAfterSeconds as Int32).value, 5);
  });

  it('rule 3.10: unhiding replies hidden_old true, hidden_new false', () => {
    const { engine } = withIndexes();
    collMod(engine, { name: 't_1', hidden: true });
    const reply = collMod(engine, { name: 't_1', hidden: false });
    assert.equal(reply.hidden_old, true);
    assert.equal(reply.hidden_new, false);
    assert.equal(indexNamed(engine, 't_1')!.hidden, undefined);
  });

  it('rule 3.10: prepareUnique combined with expireAfterSeconds → 72, nothing changes', () => {
    const { engine } = withIndexes();
    expectError(
      () => collMod(engine, { name: 't_1', expireAfterSeconds: 5, prepareUnique: true }),
      72,
      /prepareUnique/,
    );
    assert.equal(listedEAS(engine, 't_1'), 3600);
  });

  it('rule 3.10: unique: false with expireAfterSeconds → 2, nothing changes', () => {
    const { engine } = withIndexes();
    expectError(
      () => collMod(engine, { name: 't_1', expireAfterSeconds: 5, unique: false }),
      2,
      /Cannot make index non-unique/,
    );
    assert.equal(listedEAS(engine, 't_1'), 3600);
  });

  it('rule 3.10: unique: true without a prior prepareUnique → 72, nothing changes', () => {
    const { engine } = withIndexes();
    expectError(() => collMod(engine, { name: 't_1', expireAfterSeconds: 5, unique: true }), 72);
    assert.equal(listedEAS(engine, 't_1'), 3600);
  });

  it('rule 3.10: hiding the _id index → 2 BadValue', () => {
    const { engine } = withIndexes();
    expectError(() => collMod(engine, { name: '_id_', hidden: true }), 2, /can't hide _id index/, 'BadValue');
  });

  it('rule 3.10 / 1.13: a TTL index hidden by collMod keeps deleting', () => {
    const { engine, clock } = withIndexes();
    engine
      .db(DB)
      .collection('c')
      .insertMany([
        { _id: 1, t: new Date(T0 - 2 * HOUR) },
        { _id: 2, t: new Date(T0) },
      ]);
    collMod(engine, { name: 't_1', hidden: true });
    clock.advance(60_000);
    assert.deepEqual(ids(engine), [2]);
  });

  it('rule 3.10: a refused EAS in the same request leaves hidden unchanged', () => {
    const { engine } = withIndexes();
    expectError(() => collMod(engine, { name: 't_1', expireAfterSeconds: -3, hidden: true }), 72);
    assert.equal(indexNamed(engine, 't_1')!.hidden, undefined);
    assert.equal(listedEAS(engine, 't_1'), 3600);
  });
});

// ---- 3.11 --------------------------------------------------------------------------------------

describe('collMod TTL: rule 3.11 (changes take effect at the next pass)', () => {
  it('rule 3.11: lowering EAS deletes at the next pass, not before', () => {
    const { engine, clock } = withIndexes();
    const c = engine.db(DB).collection('c');
    c.insertMany([
      { _id: 1, t: new Date(T0 - 600_000) },
      { _id: 2, t: new Date(T0 + 10 * HOUR) },
    ]);
    clock.advance(60_000);
    assert.deepEqual(ids(engine), [1, 2], 'EAS 3600: not yet expired');
    collMod(engine, { name: 't_1', expireAfterSeconds: 60 });
    assert.deepEqual(ids(engine), [1, 2], 'collMod itself deletes nothing');
    clock.advance(59_999);
    assert.deepEqual(ids(engine), [1, 2], 'no pass yet');
    clock.advance(1);
    assert.deepEqual(ids(engine), [2], 'the next pass uses the new value');
  });

  it('rule 3.11: raising EAS saves documents that would have expired at the next pass', () => {
    const { engine, clock } = withIndexes();
    const c = engine.db(DB).collection('c');
    // With EAS 3600 this expires at T0 + 30 s, so at the first pass (T0 + 60 s).
    c.insertOne({ _id: 1, t: new Date(T0 + 30_000 - HOUR) });
    collMod(engine, { name: 't_1', expireAfterSeconds: 7200 });
    clock.advance(120_000);
    assert.deepEqual(ids(engine), [1]);
  });

  it('rule 3.11: an explicit runPass right after collMod uses the new value', () => {
    const { engine } = withIndexes();
    engine
      .db(DB)
      .collection('c')
      .insertOne({ _id: 1, t: new Date(T0 - 100_000) });
    assert.equal(engine.ttl.runPass().deleted, 0);
    collMod(engine, { name: 't_1', expireAfterSeconds: 100 });
    assert.equal(engine.ttl.runPass().deleted, 1);
    assert.deepEqual(ids(engine), []);
  });
});

// ---- 5.5 ---------------------------------------------------------------------------------------

describe('collMod TTL: rule 5.5 (top-level expireAfterSeconds of clustered collections)', () => {
  function clustered(): { engine: Engine; clock: VirtualClock } {
    const s = setup();
    run(s.engine, { create: 'cl', clusteredIndex: { key: { _id: 1 }, unique: true } });
    return s;
  }

  function listedCollectionEAS(engine: Engine): unknown {
    const [info] = engine.db(DB).listCollections({ name: 'cl' });
    return (info.options as Document).expireAfterSeconds;
  }

  it('rule 5.5: a number sets the collection-level EAS', () => {
    const { engine } = clustered();
    const reply = run(engine, { collMod: 'cl', expireAfterSeconds: 3600 });
    assert.equal(reply.ok, 1);
    assert.equal(asNumber(listedCollectionEAS(engine)), 3600);
  });

  it('rule 5.5: the clustered EAS deletes documents whose _id date expired', () => {
    const { engine, clock } = clustered();
    const c = engine.db(DB).collection('cl');
    c.insertMany([{ _id: new Date(T0 - 2 * HOUR) }, { _id: new Date(T0 + 2 * HOUR) }]);
    run(engine, { collMod: 'cl', expireAfterSeconds: 3600 });
    clock.advance(60_000);
    assert.deepEqual(ids(engine, 'cl'), [new Date(T0 + 2 * HOUR)]);
  });

  it('rule 5.5: "off" removes the setting and stops expiry', () => {
    const { engine, clock } = clustered();
    run(engine, { collMod: 'cl', expireAfterSeconds: 60 });
    run(engine, { collMod: 'cl', expireAfterSeconds: 'off' });
    assert.equal(listedCollectionEAS(engine), undefined);
    engine
      .db(DB)
      .collection('cl')
      .insertOne({ _id: new Date(T0 - 2 * HOUR) });
    clock.advance(120_000);
    assert.equal(ids(engine, 'cl').length, 1);
  });

  it('rule 5.5: "off" when already off is a no-op', () => {
    const { engine } = clustered();
    assert.equal(run(engine, { collMod: 'cl', expireAfterSeconds: 'off' }).ok, 1);
    assert.equal(listedCollectionEAS(engine), undefined);
  });

  it('rule 5.5: another string → 72 naming the accepted value', () => {
    const { engine } = clustered();
    expectError(
      () => run(engine, { collMod: 'cl', expireAfterSeconds: 'on' }),
      72,
      /Invalid string value for the 'clusteredIndex::expireAfterSeconds' option\. Got: 'on'\. Accepted value is 'off'/,
      'InvalidOptions',
    );
  });

  it('rule 5.5: a non-clustered collection → 72', () => {
    const { engine } = setup();
    run(engine, { create: 'plain' });
    expectError(
      () => run(engine, { collMod: 'plain', expireAfterSeconds: 60 }),
      72,
      /'expireAfterSeconds' option is only supported on collections clustered by _id/,
      'InvalidOptions',
    );
    expectError(() => run(engine, { collMod: 'plain', expireAfterSeconds: 'off' }), 72, /clustered by _id/);
  });

  it('rule 5.5 / 5.3: a negative or out-of-range number → 72', () => {
    const { engine } = clustered();
    expectError(() => run(engine, { collMod: 'cl', expireAfterSeconds: -1 }), 72, /cannot be less than 0/);
    expectError(() => run(engine, { collMod: 'cl', expireAfterSeconds: 2147483647 }), 72, /acceptable range/);
    assert.equal(listedCollectionEAS(engine), undefined);
  });

  it('rule 5.5: a change of the clustered EAS takes effect at the next pass', () => {
    const { engine, clock } = clustered();
    run(engine, { collMod: 'cl', expireAfterSeconds: 7200 });
    engine
      .db(DB)
      .collection('cl')
      .insertOne({ _id: new Date(T0 - HOUR) });
    clock.advance(60_000);
    assert.equal(ids(engine, 'cl').length, 1);
    run(engine, { collMod: 'cl', expireAfterSeconds: 60 });
    clock.advance(60_000);
    assert.equal(ids(engine, 'cl').length, 0);
  });
});
