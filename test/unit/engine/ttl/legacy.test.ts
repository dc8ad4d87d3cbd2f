/**
 * Legacy TTL specs (docs/ttl-rules.md rules 4.1–4.3): what an old server's catalog may hold, how it
 * is loaded without createIndex's TTL checks, how each invalid value is classified, and what
 * step-up rewrites (and logs, and announces).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal128, Int32, Long } from 'bson';
import {
  Engine,
  findInvalidTTLIndexes,
  findNaNTTLIndexes,
  loadLegacyIndexSpec,
  type Document,
  type EngineEvent,
  type EngineOptions,
} from '../../../../src/engine';
import { VirtualClock } from '../../../../src/engine/clock';
import { repairInvalidTTLSpecs } from '../../../../src/engine/ttl/legacy';
import { expectError } from '../../helpers/expect-error';

const DB = 'app';
const T0 = Date.UTC(2026, 0, 1);

function setup(options: Partial<EngineOptions> = {}): Engine {
  return new Engine({ clock: new VirtualClock(T0), ...options });
}

function legacy(engine: Engine, name: string, expireAfterSeconds: unknown, extra: Document = {}, coll = 'c'): void {
  loadLegacyIndexSpec(engine, DB, coll, { v: 2, key: { [name]: 1 }, name, expireAfterSeconds, ...extra });
}

interface LogEntry {
  id: number;
  msg: string;
  attr?: Record<string, unknown>;
}

function logs(engine: Engine, id: number): LogEntry[] {
  const lines = engine.runCommand('admin', { getLog: 'global' }).log as string[];
  return lines.map((l) => JSON.parse(l) as LogEntry).filter((l) => l.id === id);
}

function storedSeconds(engine: Engine, index: string, coll = 'c'): unknown {
  return engine.getCollection(DB, coll)!.indexes.get(index)!.spec.expireAfterSeconds;
}

function heard(engine: Engine): EngineEvent[] {
  const events: EngineEvent[] = [];
  engine.onDidChange((batch) => events.push(...batch));
  return events;
}

describe('rule 4.1: which stored values are invalid, and why', () => {
  it('each invalid kind is named: not a number, NaN, negative, out of range, fractional', () => {
    const engine = setup();
    legacy(engine, 'text', 'soon');
    legacy(engine, 'nan', NaN);
    legacy(engine, 'decimalNaN', Decimal128.fromString('NaN'));
    legacy(engine, 'negative', -10);
    legacy(engine, 'longNegative', Long.fromNumber(-1));
    legacy(engine, 'huge', 1e12);
    legacy(engine, 'pastInt32', 2147483648);
    legacy(engine, 'fraction', 100.9);
    // -0.5 truncates to 0, a valid value: its fault is the fraction, not the sign.
    legacy(engine, 'smallNegativeFraction', -0.5);
    const found = Object.fromEntries(findInvalidTTLIndexes(engine).map((p) => [p.index, p.problem]));
    assert.deepEqual(found, {
      text: 'not a number',
      nan: 'NaN',
      decimalNaN: 'NaN',
      negative: 'negative',
      longNegative: 'negative',
      huge: 'out of range',
      pastInt32: 'out of range',
      fraction: 'fractional',
      smallNegativeFraction: 'fractional',
    });
  });

  it('valid values and indexes without expireAfterSeconds are not listed', () => {
    const engine = setup();
    legacy(engine, 'int', 3600);
    legacy(engine, 'wholeDouble', 60.0);
    legacy(engine, 'int32', new Int32(0));
    legacy(engine, 'max', 2147483647);
    loadLegacyIndexSpec(engine, DB, 'c', { v: 2, key: { plain: 1 }, name: 'plain' });
    assert.deepEqual(findInvalidTTLIndexes(engine), []);
  });

  it('a problem says where it is and what is stored, across databases and collections', () => {
    const engine = setup();
    legacy(engine, 'a', NaN, {}, 'first');
    loadLegacyIndexSpec(engine, 'other', 'second', { v: 2, key: { b: -1 }, name: 'b_desc', expireAfterSeconds: -5 });
    const found = findInvalidTTLIndexes(engine).sort((x, y) => x.db.localeCompare(y.db));
    assert.deepEqual(found, [
      { db: DB, collection: 'first', index: 'a', key: { a: 1 }, expireAfterSeconds: NaN, problem: 'NaN' },
      {
        db: 'other',
        collection: 'second',
        index: 'b_desc',
        key: { b: -1 },
        expireAfterSeconds: -5,
        problem: 'negative',
      },
    ]);
  });

  it("findNaNTTLIndexes lists only the NaN values (the docs' getNaNIndexes script)", () => {
    const engine = setup();
    legacy(engine, 'nan', NaN);
    legacy(engine, 'negative', -1);
    legacy(engine, 'fraction', 1.5);
    assert.deepEqual(
      findNaNTTLIndexes(engine).map((p) => p.index),
      ['nan'],
    );
  });
});

describe('rule 4.3: loading a stored spec without the TTL checks', () => {
  it('a spec without expireAfterSeconds loads as an ordinary index, not a TTL one', () => {
    const engine = setup();
    loadLegacyIndexSpec(engine, DB, 'c', { v: 2, key: { plain: 1 }, name: 'plain' });
    const spec = storedSeconds(engine, 'plain');
    assert.equal(spec, undefined);
    const stored = engine.getCollection(DB, 'c')!.indexes.get('plain')!.spec;
    assert.equal(Object.prototype.hasOwnProperty.call(stored, 'expireAfterSeconds'), false);
    const listed = engine
      .db(DB)
      .collection('c')
      .listIndexes()
      .find((i) => i.name === 'plain')!;
    assert.equal('expireAfterSeconds' in listed, false);
  });

  it('the stored value is kept as found (no rewrite at load)', () => {
    const engine = setup();
    legacy(engine, 'nan', NaN);
    legacy(engine, 'fraction', 100.9);
    assert.ok(Number.isNaN(storedSeconds(engine, 'nan')));
    assert.equal(storedSeconds(engine, 'fraction'), 100.9);
  });

  it('a name already in the catalog is refused with IndexOptionsConflict (85)', () => {
    const engine = setup();
    legacy(engine, 't', NaN);
    expectError(() => legacy(engine, 't', 60), 85, /index t already exists on app\.c/);
  });

  it('the key pattern is still checked', () => {
    const engine = setup();
    assert.throws(() => loadLegacyIndexSpec(engine, DB, 'c', { v: 2, name: 'nokey', expireAfterSeconds: NaN }));
    assert.equal(engine.getCollection(DB, 'c')!.indexes.has('nokey'), false);
  });

  it('a partialFilterExpression is kept: the index holds only the documents it selects', () => {
    const engine = setup();
    engine
      .db(DB)
      .collection('c')
      .insertMany([
        { _id: 1, t: new Date(T0), kind: 'a' },
        { _id: 2, t: new Date(T0), kind: 'b' },
        { _id: 3, t: new Date(T0), kind: 'a' },
      ]);
    legacy(engine, 't', NaN, { key: { t: 1 }, partialFilterExpression: { kind: 'a' } });
    const index = engine.getCollection(DB, 'c')!.indexes.get('t')!;
    assert.equal(index.isPartial, true);
    assert.equal(index.size, 2);
  });

  it('loading a NaN value logs 6852200 with the namespace and index; other values log nothing', () => {
    const engine = setup();
    legacy(engine, 'negative', -1);
    legacy(engine, 'fraction', 2.5);
    assert.deepEqual(logs(engine, 6852200), []);
    legacy(engine, 'nan', NaN);
    const lines = logs(engine, 6852200);
    assert.equal(lines.length, 1);
    assert.equal(lines[0].msg, "Found an existing TTL index with NaN 'expireAfterSeconds' in the catalog");
    assert.deepEqual(lines[0].attr, { ns: 'app.c', index: 'nan' });
  });

  it('a loaded index is announced to listeners as indexesCreated', () => {
    const engine = setup();
    engine.db(DB).collection('c').insertOne({ _id: 1 });
    const events = heard(engine);
    legacy(engine, 'nan', NaN);
    assert.deepEqual(
      events.filter((e) => e.kind === 'indexesCreated'),
      [{ kind: 'indexesCreated', db: DB, collection: 'c', names: ['nan'] }],
    );
  });
});

describe('rule 4.2: step-up rewrites invalid stored values', () => {
  it('NaN, negative, out-of-range and non-numeric values become Int32 2147483647', () => {
    const engine = setup({ role: 'secondary' });
    legacy(engine, 'text', 'soon');
    legacy(engine, 'nan', NaN);
    legacy(engine, 'negative', -10);
    legacy(engine, 'huge', 1e12);
    legacy(engine, 'valid', 60);
    engine.setRole('primary');
    for (const name of ['text', 'nan', 'negative', 'huge']) {
      const stored = storedSeconds(engine, name);
      assert.ok(stored instanceof Int32, `${name} is stored as an Int32`);
      assert.equal(stored.value, 2147483647, name);
    }
    assert.equal(storedSeconds(engine, 'valid'), 60, 'a valid value is left as it is');
    assert.deepEqual(findInvalidTTLIndexes(engine), []);
  });

  it('8.0 truncates a fractional value to an Int32 (log 6847701); invalid ones log 6847700 with from and to', () => {
    const engine = setup({ role: 'secondary' });
    legacy(engine, 'fraction', 100.9);
    legacy(engine, 'nan', NaN);
    engine.setRole('primary');
    const stored = storedSeconds(engine, 'fraction');
    assert.ok(stored instanceof Int32);
    assert.equal(stored.value, 100);
    assert.deepEqual(
      logs(engine, 6847701).map((l) => [l.msg, l.attr]),
      [
        [
          'Rewrote invalid expireAfterSeconds of a TTL index on step-up',
          { ns: 'app.c', index: 'fraction', from: '100.9', to: 100 },
        ],
      ],
    );
    assert.deepEqual(
      logs(engine, 6847700).map((l) => [l.msg, l.attr]),
      [
        [
          'Rewrote invalid expireAfterSeconds of a TTL index on step-up',
          { ns: 'app.c', index: 'nan', from: 'NaN', to: 2147483647 },
        ],
      ],
    );
  });

  it('7.0 leaves a fractional value alone but still rewrites NaN', () => {
    const engine = setup({ role: 'secondary', serverVersion: '7.0' });
    legacy(engine, 'fraction', 100.9);
    legacy(engine, 'nan', NaN);
    const fixed = repairInvalidTTLSpecs(engine);
    assert.deepEqual(
      fixed.map((p) => [p.index, p.problem]),
      [['nan', 'NaN']],
    );
    assert.equal(storedSeconds(engine, 'fraction'), 100.9);
    assert.deepEqual(logs(engine, 6847701), []);
  });

  it('the rewrite returns what it fixed and announces each index as indexChanged', () => {
    const engine = setup({ role: 'secondary' });
    legacy(engine, 'nan', NaN);
    legacy(engine, 'fraction', 7.5);
    legacy(engine, 'valid', 60);
    const events = heard(engine);
    const fixed = repairInvalidTTLSpecs(engine);
    assert.deepEqual(
      fixed.map((p) => [p.index, p.problem]),
      [
        ['nan', 'NaN'],
        ['fraction', 'fractional'],
      ],
    );
    assert.deepEqual(
      events.filter((e) => e.kind === 'indexChanged'),
      [{ kind: 'indexChanged', db: DB, collection: 'c', names: ['nan', 'fraction'] }],
      'one batch, the indexes of a collection coalesced',
    );
  });

  it('a second step-up finds nothing left to rewrite', () => {
    const engine = setup({ role: 'secondary' });
    legacy(engine, 'nan', NaN);
    assert.equal(repairInvalidTTLSpecs(engine).length, 1);
    assert.deepEqual(repairInvalidTTLSpecs(engine), []);
  });
});
