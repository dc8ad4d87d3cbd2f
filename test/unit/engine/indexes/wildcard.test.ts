/**
 * Wildcard indexes (`{"$**": 1}`, `{"a.$**": 1}`, `wildcardProjection`) as mongod keeps and plans
 * them: one `[path, value]` key per leaf path, scans that pin `$_path` and bound the value, and
 * the predicates a missing field could meet refused.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { wildcardKeys, wildcardScope } from '../../../../src/engine/indexes/wildcard-keys';

function keysOf(doc: Document, keyPath = '$**', projection?: Document): { keys: unknown[][]; multikey: string[] } {
  const multikey = new Set<string>();
  const keys = wildcardKeys(doc, wildcardScope(keyPath, projection), multikey);
  return { keys, multikey: [...multikey].sort() };
}

function engineWith(docs: Document[], index: Document = { key: { '$**': 1 }, name: '$**_1' }): Engine {
  const engine = new Engine();
  engine.runCommand('t', { insert: 'c', documents: docs });
  engine.runCommand('t', { createIndexes: 'c', indexes: [index] });
  return engine;
}

function find(engine: Engine, cmd: Document): Document[] {
  const reply = engine.runCommand('t', { find: 'c', ...cmd });
  return (reply.cursor as Document).firstBatch as Document[];
}

function ixscan(engine: Engine, cmd: Document): Document | undefined {
  const e = engine.runCommand('t', { explain: { find: 'c', ...cmd }, verbosity: 'queryPlanner' });
  for (let s = (e.queryPlanner as Document).winningPlan as Document | undefined; s; s = s.inputStage as Document) {
    if (s.stage === 'IXSCAN') return s;
  }
  return undefined;
}

describe('wildcard index keys', () => {
  it('one key per leaf path; arrays are walked under their own path, _id is left out', () => {
    const { keys, multikey } = keysOf({
      _id: 1,
      a: 1,
      b: { c: 2, d: { e: 3 } },
      g: [{ h: 1 }, { i: 2 }],
      f: [1, 1, 2],
    });
    assert.deepEqual(keys, [
      ['a', 1],
      ['b.c', 2],
      ['b.d.e', 3],
      ['f', 1],
      ['f', 2],
      ['g.h', 1],
      ['g.i', 2],
    ]);
    assert.deepEqual(multikey, ['f', 'g']);
  });

  it('empty objects, empty arrays and arrays inside arrays are leaves keyed whole', () => {
    const { keys } = keysOf({ a: {}, b: [[]], c: [], d: [1, [2, 3], {}] });
    assert.deepEqual(keys, [
      ['a', {}],
      ['b', []],
      ['c', undefined],
      ['d', 1],
      ['d', {}],
      ['d', [2, 3]],
    ]);
  });

  it('a.$** keys only the subtree under a; wildcardProjection includes or excludes paths and may name _id', () => {
    const doc = { _id: 7, a: { x: 1 }, b: { c: 1, d: 2 } };
    assert.deepEqual(keysOf(doc, 'a.$**').keys, [['a.x', 1]]);
    assert.deepEqual(keysOf(doc, '$**', { 'b.d': 1 }).keys, [['b.d', 2]]);
    assert.deepEqual(keysOf(doc, '$**', { b: 0 }).keys, [['a.x', 1]]);
    assert.deepEqual(keysOf(doc, '$**', { _id: 1, a: 1 }).keys, [
      ['_id', 7],
      ['a.x', 1],
    ]);
  });

  it('wildcardProjection: only on $**, and not a mix of inclusions and exclusions', () => {
    assert.throws(() => wildcardScope('a.$**', { b: 1 }), /only allowed in an '\$\*\*' index/);
    assert.throws(() => wildcardScope('$**', { a: 1, b: 0 }), /either includes or excludes/);
  });
});

describe('wildcard index plans', () => {
  it('an equality scans one path: explain shows {$_path: 1, a: 1} and both bounds', () => {
    const engine = engineWith([{ a: 1 }, { a: 2 }, { b: 1 }]);
    const scan = ixscan(engine, { filter: { a: 1 } });
    assert.ok(scan);
    assert.deepEqual(scan.keyPattern, { $_path: 1, a: 1 });
    assert.equal(scan.indexName, '$**_1');
    assert.deepEqual(scan.indexBounds, { $_path: ['["a", "a"]'], a: ['[1, 1]'] });
    assert.deepEqual(scan.multiKeyPaths, { $_path: [], a: [] });
    assert.deepEqual(
      find(engine, { filter: { a: 1 }, projection: { _id: 0 } }).map((d) => d.a),
      [1],
    );
  });

  it('$exists: true also scans the paths under the field, and each document comes once', () => {
    const engine = engineWith([{ a: { b: 1, c: { f: 1, g: 1 } }, d: { e: [1, 2, 3] } }]);
    const scan = ixscan(engine, { filter: { a: { $exists: true } } });
    assert.deepEqual(scan?.indexBounds, { $_path: ['["a", "a"]', '["a.", "a/")'], a: ['[MinKey, MaxKey]'] });
    assert.equal(find(engine, { filter: { a: { $exists: true } }, hint: { '$**': 1 } }).length, 1);
    assert.equal(find(engine, { filter: { d: { $exists: true } }, hint: { '$**': 1 } }).length, 1);
  });

  it('null, $exists: false, $ne and non-empty objects cannot use it; hinting it for them is BadValue', () => {
    const engine = engineWith([{ a: 1 }, { b: 1 }]);
    for (const filter of [{ a: null }, { a: { $exists: false } }, { a: { $ne: 1 } }, { a: { x: 1 } }]) {
      assert.equal(ixscan(engine, { filter }), undefined, JSON.stringify(filter));
      assert.throws(
        () => engine.runCommand('t', { find: 'c', filter, hint: { '$**': 1 } }),
        (e: Error & { codeName?: string }) => e.codeName === 'BadValue',
      );
    }
  });

  it('hinted, it answers empty arrays, positions and empty objects as a collection scan does', () => {
    const engine = engineWith([
      { _id: 1, c: [], d: { e: [5, 6] } },
      { _id: 2, c: [1, 2], d: { e: [] } },
      { _id: 3, b: [[]], f: [{ g: [] }], a: [1, {}] },
      { _id: 4, a: {} },
      { _id: 5, a: { b: 1 } },
    ]);
    for (const filter of [
      { c: [] },
      { 'c.0': 1 },
      { 'd.e': [] },
      { 'f.0.g': [] },
      { b: [] },
      { a: {} },
      { a: { $lte: {} } },
    ]) {
      const hinted = find(engine, { filter, hint: { '$**': 1 }, sort: { _id: 1 } }).map((d) => d._id);
      const scanned = find(engine, { filter, hint: { $natural: 1 }, sort: { _id: 1 } }).map((d) => d._id);
      assert.deepEqual(hinted, scanned, JSON.stringify(filter));
      assert.ok(hinted.length > 0, JSON.stringify(filter));
    }
    assert.throws(() => engine.runCommand('t', { find: 'c', filter: { a: { $gte: {} } }, hint: { '$**': 1 } }));
  });

  it('a range on a path that met an array keeps one side; multiKeyPaths names the array', () => {
    const engine = engineWith([{ g: [{ h: 1 }, { h: 9 }] }, { g: [{ h: 5 }] }]);
    const scan = ixscan(engine, { filter: { 'g.h': { $gt: 2, $lt: 6 } } });
    assert.equal(scan?.isMultiKey, true);
    assert.deepEqual(scan?.multiKeyPaths, { $_path: [], 'g.h': ['g'] });
    assert.deepEqual(
      // {h: 1} and {h: 9} meet the two bounds through different elements: that document matches too.
      find(engine, { filter: { 'g.h': { $gt: 2, $lt: 6 } } })
        .map((d) => (d.g as Document[]).length)
        .sort(),
      [1, 2],
    );
  });

  it('returnKey gives the key that found the document: {$_path, <path>: value}', () => {
    const engine = engineWith([{ a: 1, g: [{ h: 1 }] }]);
    assert.deepEqual(find(engine, { filter: { a: 1 }, returnKey: true }), [{ $_path: 'a', a: 1 }]);
    assert.deepEqual(find(engine, { filter: { 'g.h': 1 }, returnKey: true }), [{ $_path: 'g.h', 'g.h': 1 }]);
  });

  it('a sort on the scanned field alone needs no SORT stage; min/max on a wildcard hint is 51174', () => {
    const engine = engineWith(Array.from({ length: 10 }, (_, i) => ({ a: i, x: [1] })));
    const e = engine.runCommand('t', {
      explain: { find: 'c', filter: { a: { $gte: 0 }, x: 1 }, sort: { a: -1 } },
      verbosity: 'queryPlanner',
    });
    assert.ok(!JSON.stringify(e.queryPlanner).includes('"SORT"'));
    assert.deepEqual(
      find(engine, { filter: { a: { $gte: 0 } }, sort: { a: -1 }, limit: 3 }).map((d) => d.a),
      [9, 8, 7],
    );
    assert.throws(
      () => engine.runCommand('t', { find: 'c', min: { a: 1 }, hint: { '$**': 1 } }),
      (err: Error & { code?: number }) => err.code === 51174,
    );
  });

  it('an index entry follows updates and deletes (validate finds nothing wrong)', () => {
    const engine = engineWith([{ _id: 1, a: { b: 1 } }]);
    engine.runCommand('t', { update: 'c', updates: [{ q: { _id: 1 }, u: { $set: { 'a.b': 2, z: [3] } } }] });
    assert.deepEqual(find(engine, { filter: { 'a.b': 1 } }), []);
    assert.equal(find(engine, { filter: { 'a.b': 2 } }).length, 1);
    assert.equal(find(engine, { filter: { z: 3 } }).length, 1);
    engine.runCommand('t', { delete: 'c', deletes: [{ q: { _id: 1 }, limit: 1 }] });
    assert.equal(find(engine, { filter: { z: 3 }, hint: { '$**': 1 } }).length, 0);
    assert.equal(engine.runCommand('t', { validate: 'c' }).valid, true);
  });

  it('$type and $elemMatch on values use it; $type object or array also scans the paths below', () => {
    const engine = engineWith([{ a: { x: 1 } }, { a: 'a' }, { a: [5, 50] }]);
    assert.deepEqual(ixscan(engine, { filter: { a: { $type: 'object' } } })?.indexBounds, {
      $_path: ['["a", "a"]', '["a.", "a/")'],
      a: ['[MinKey, MaxKey]'],
    });
    assert.deepEqual(ixscan(engine, { filter: { a: { $type: 'string' } } })?.indexBounds, {
      $_path: ['["a", "a"]'],
      a: ['[MinKey, MaxKey]'],
    });
    assert.equal(find(engine, { filter: { a: { $type: 'object' } } }).length, 1);
    // One element must meet both bounds: 5 and 50 each meet one only.
    assert.equal(find(engine, { filter: { a: { $elemMatch: { $gt: 10, $lt: 40 } } } }).length, 0);
    assert.deepEqual(ixscan(engine, { filter: { a: { $elemMatch: { $gt: 10, $lt: 40 } } } })?.indexBounds, {
      $_path: ['["a", "a"]'],
      a: ['(10, 40)'],
    });
  });

  it('a numeric component after an array path is read both ways; after an object it is a field name', () => {
    const engine = engineWith([
      { _id: 1, a: [{ b: 1 }] },
      { _id: 2, c: { '0': { b: 1 } } },
    ]);
    assert.deepEqual((ixscan(engine, { filter: { 'a.0.b': 1 } })?.indexBounds as Document).$_path, [
      '["a.0.b", "a.0.b"]',
      '["a.b", "a.b"]',
    ]);
    assert.deepEqual((ixscan(engine, { filter: { 'c.0.b': 1 } })?.indexBounds as Document).$_path, [
      '["c.0.b", "c.0.b"]',
    ]);
    assert.deepEqual(
      find(engine, { filter: { 'a.0.b': 1 } }).map((d) => d._id),
      [1],
    );
    assert.deepEqual(
      find(engine, { filter: { 'c.0.b': 1 } }).map((d) => d._id),
      [2],
    );
    // mongod plans through at most 8 array positions.
    assert.equal(ixscan(engine, { filter: { 'a.0.0.0.0.0.0.0.0.0': 1 } }), undefined);
  });
});

describe('partial indexes: implication by bounds', () => {
  it("a query whose bounds lie inside the partial filter's range uses the index; one reaching past it does not", () => {
    const engine = new Engine();
    engine.runCommand('t', {
      insert: 'c',
      documents: [
        { x: 5, a: 2 },
        { x: 6, a: 1 },
      ],
    });
    engine.runCommand('t', {
      createIndexes: 'c',
      indexes: [{ key: { x: 1 }, name: 'x_1', partialFilterExpression: { a: { $lte: 1.5 } } }],
    });
    for (const filter of [
      { x: 6, a: 1 },
      { x: { $gt: 1 }, a: 1 },
      { x: 6, a: { $lte: 1 } },
    ])
      assert.equal(ixscan(engine, { filter })?.indexName, 'x_1', JSON.stringify(filter));
    for (const filter of [{ x: 6, a: { $lt: 1.6 } }, { x: 6 }, { x: 6, a: { $gte: 0 } }, { x: 6, a: 'z' }])
      assert.equal(ixscan(engine, { filter }), undefined, JSON.stringify(filter));
    assert.deepEqual(find(engine, { filter: { x: 6, a: 1 }, projection: { _id: 0 } }), [{ x: 6, a: 1 }]);
  });
});
