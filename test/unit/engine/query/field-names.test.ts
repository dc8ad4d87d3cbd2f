/**
 * Field names are data (issue 27, item 1): `__proto__`, `constructor`, `toString` and the other
 * names plain objects inherit are ordinary field names, as in mongod. Every path that builds a
 * document keeps them as own fields and never changes a prototype; every path that reads a field
 * sees own fields only (a document without `toString` has no `toString`).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EJSON } from 'bson';
import { Engine, type Document } from '../../../../src/engine';
import { assertPlain, INHERITED_NAMES } from '../../helpers/plain-objects';

/** JSON text to a value: unlike an object literal, `"__proto__"` is an own key. */
const J = (text: string): Document => JSON.parse(text) as Document;

/** Relaxed EJSON text of `value` after checking it has no changed prototype. */
function text(value: unknown): string {
  assertPlain(value);
  return EJSON.stringify(value);
}

function setup(docs: Document[], coll = 'p'): Engine {
  const engine = new Engine();
  const r = engine.runCommand('test', { insert: coll, documents: docs });
  assert.equal(r.n, docs.length, EJSON.stringify(r));
  return engine;
}

function find(engine: Engine, cmd: Document, coll = 'p'): Document[] {
  const r = engine.runCommand('test', { find: coll, ...cmd });
  return (r.cursor as Document).firstBatch as Document[];
}

function agg(engine: Engine, pipeline: Document[], coll = 'p'): Document[] {
  const r = engine.runCommand('test', { aggregate: coll, pipeline, cursor: {} });
  return (r.cursor as Document).firstBatch as Document[];
}

function update(engine: Engine, q: Document, u: Document | Document[], extra: Document = {}): Document {
  const r = engine.runCommand('test', { update: 'p', updates: [{ q, u, ...extra }] });
  assert.equal(r.writeErrors, undefined, EJSON.stringify(r));
  return r;
}

const one = (engine: Engine, id: unknown): string => text(find(engine, { filter: { _id: id } })[0]);

describe('field names are data: insert and read back', () => {
  it('insert keeps __proto__ and every inherited name as ordinary fields, in order', () => {
    const fields = INHERITED_NAMES.map((n, i) => `"${n}": ${i}`).join(', ');
    const doc = J(`{"_id": 1, ${fields}, "nested": {${fields}}, "arr": [{${fields}}]}`);
    const engine = setup([doc, J('{"_id": 2, "__proto__": 5, "x": 1}')]);
    assert.equal(text(find(engine, { filter: { _id: 1 } })[0]), EJSON.stringify(doc));
    assert.equal(one(engine, 2), '{"_id":2,"__proto__":5,"x":1}');
  });

  it('a __proto__ field holding a document is a field, not a prototype', () => {
    const engine = setup([J('{"_id": 1, "__proto__": {"polluted": true}}')]);
    assert.equal(one(engine, 1), '{"_id":1,"__proto__":{"polluted":true}}');
    assert.equal(find(engine, { filter: { polluted: true } }).length, 0);
    assert.equal(({} as Document).polluted, undefined);
  });
});

describe('field names are data: the matcher, sort and indexes read own fields only', () => {
  const docs = () => [
    J('{"_id": 1, "toString": 2, "__proto__": 5}'),
    J('{"_id": 2, "a": {"b": 1}}'),
    J('{"_id": 3, "toString": 1, "constructor": 1, "a": {"constructor": 7}}'),
  ];

  it('$exists, equality and null see no inherited properties', () => {
    const engine = setup(docs());
    const ids = (filter: Document) => find(engine, { filter }).map((d) => d._id);
    for (const name of INHERITED_NAMES) {
      const expected = name === 'toString' ? [1, 3] : name === '__proto__' ? [1] : name === 'constructor' ? [3] : [];
      assert.deepEqual(ids({ [name]: { $exists: true } }), expected, `${name} $exists`);
      assert.deepEqual(
        ids({ [name]: { $exists: false } }),
        [1, 2, 3].filter((x) => !expected.includes(x)),
        `${name} $exists false`,
      );
      assert.deepEqual(
        ids({ [name]: null }),
        [1, 2, 3].filter((x) => !expected.includes(x)),
        `${name}: null`,
      );
    }
    assert.deepEqual(ids({ constructor: 1 }), [3]);
    assert.deepEqual(ids(J('{"__proto__": 5}')), [1]);
    assert.deepEqual(ids({ 'a.constructor': { $exists: true } }), [3]);
    assert.deepEqual(ids({ 'a.toString': { $exists: true } }), []);
    assert.deepEqual(ids({ 'a.b.constructor': { $exists: true } }), []);
    assert.deepEqual(ids({ $expr: { $eq: [{ $type: '$toString' }, 'missing'] } }), [2]);
  });

  it('sort by an inherited name treats documents without it as missing', () => {
    const engine = setup(docs());
    assert.deepEqual(
      find(engine, { sort: { toString: 1 } }).map((d) => d._id),
      [2, 3, 1],
    );
    assert.deepEqual(
      find(engine, { sort: { constructor: -1, _id: 1 } }).map((d) => d._id),
      [3, 1, 2],
    );
    assert.deepEqual(
      agg(engine, [{ $sort: { 'a.constructor': 1, _id: 1 } }]).map((d) => d._id),
      [1, 2, 3],
    );
  });

  it('index keys of an inherited name are null where the field is missing', () => {
    const engine = setup(docs());
    engine.runCommand('test', {
      createIndexes: 'p',
      indexes: [
        { key: { constructor: 1 }, name: 'c' },
        { key: { toString: 1, 'a.constructor': 1 }, name: 't' },
        { key: J('{"__proto__": 1}'), name: 'pr' },
      ],
    });
    assert.deepEqual(
      find(engine, { filter: { constructor: null }, hint: 'c' }).map((d) => d._id),
      [1, 2],
    );
    assert.deepEqual(
      find(engine, { filter: { constructor: { $exists: true } }, hint: 'c' }).map((d) => d._id),
      [3],
    );
    assert.deepEqual(
      find(engine, { filter: { toString: { $gte: 1 } }, hint: 't' }).map((d) => d._id),
      [3, 1],
    );
    assert.deepEqual(
      find(engine, { filter: J('{"__proto__": 5}'), hint: 'pr' }).map((d) => d._id),
      [1],
    );
    assert.equal(engine.runCommand('test', { count: 'p', query: { constructor: null } }).n, 2);
    assert.equal(engine.runCommand('test', { count: 'p', query: { constructor: { $exists: false } } }).n, 2);
    const unique = engine.runCommand('test', {
      createIndexes: 'p',
      indexes: [{ key: { valueOf: 1 }, name: 'v', unique: true, sparse: true }],
    });
    assert.equal(unique.ok, 1, 'no document has valueOf: a sparse unique index has no entries');
  });
});

describe('field names are data: update operators', () => {
  const base = () => setup([J('{"_id": 1, "x": 3, "a": {"c": 1}, "arr": [1, 2]}')]);

  it('$set and $unset of __proto__ and inherited names, top level and nested', () => {
    const engine = base();
    update(
      engine,
      { _id: 1 },
      { $set: J('{"__proto__": 5, "constructor": {"k": 1}, "a.__proto__.b": 2, "a.toString": 3}') },
    );
    assert.equal(
      one(engine, 1),
      '{"_id":1,"x":3,"a":{"c":1,"__proto__":{"b":2},"toString":3},"arr":[1,2],"__proto__":5,"constructor":{"k":1}}',
    );
    update(engine, { _id: 1 }, { $set: J('{"__proto__": 6, "a.__proto__.b": 4}') });
    assert.equal(
      one(engine, 1),
      '{"_id":1,"x":3,"a":{"c":1,"__proto__":{"b":4},"toString":3},"arr":[1,2],"__proto__":6,"constructor":{"k":1}}',
    );
    update(engine, { _id: 1 }, { $unset: J('{"__proto__": "", "a.__proto__.b": "", "constructor.k": ""}') });
    assert.equal(
      one(engine, 1),
      '{"_id":1,"x":3,"a":{"c":1,"__proto__":{},"toString":3},"arr":[1,2],"constructor":{}}',
    );
  });

  it('$unset of an inherited name that is not a field changes nothing', () => {
    const engine = base();
    const r = update(engine, { _id: 1 }, { $unset: { toString: '', 'a.constructor': '', valueOf: '' } });
    assert.equal(r.nModified, 0);
    assert.equal(one(engine, 1), '{"_id":1,"x":3,"a":{"c":1},"arr":[1,2]}');
  });

  it('$rename to and from __proto__', () => {
    const engine = base();
    update(engine, { _id: 1 }, { $rename: { x: '__proto__' } });
    assert.equal(one(engine, 1), '{"_id":1,"a":{"c":1},"arr":[1,2],"__proto__":3}');
    update(engine, { _id: 1 }, { $rename: J('{"__proto__": "constructor", "a.c": "a.__proto__"}') });
    assert.equal(one(engine, 1), '{"_id":1,"a":{"__proto__":1},"arr":[1,2],"constructor":3}');
    const r = update(engine, { _id: 1 }, { $rename: { toString: 'y' } });
    assert.equal(r.nModified, 0, 'an inherited name that is not a field renames nothing');
  });

  it('$inc, $mul, $min, $max, $currentDate, $push, $addToSet, $pop, $pull on __proto__ and inherited names', () => {
    const engine = base();
    update(
      engine,
      { _id: 1 },
      {
        $inc: J('{"__proto__": 2, "toString": 1}'),
        $mul: { constructor: 2 },
        $min: { valueOf: 4 },
        $max: { hasOwnProperty: 9 },
      },
    );
    assert.equal(
      one(engine, 1),
      '{"_id":1,"x":3,"a":{"c":1},"arr":[1,2],"__proto__":2,"constructor":0,"hasOwnProperty":9,"toString":1,"valueOf":4}',
    );
    update(
      engine,
      { _id: 1 },
      { $inc: J('{"__proto__": 2}'), $push: J('{"a.__proto__": 1}'), $addToSet: { prototype: 'p' } },
    );
    assert.equal(
      one(engine, 1),
      '{"_id":1,"x":3,"a":{"c":1,"__proto__":[1]},"arr":[1,2],"__proto__":4,"constructor":0,"hasOwnProperty":9,"toString":1,"valueOf":4,"prototype":["p"]}',
    );
    update(
      engine,
      { _id: 1 },
      { $pop: J('{"a.__proto__": 1}'), $pull: { prototype: 'p' }, $currentDate: { __defineGetter__: true } },
    );
    const doc = find(engine, { filter: { _id: 1 } })[0];
    assertPlain(doc);
    assert.deepEqual(Object.keys(doc), [
      '_id',
      'x',
      'a',
      'arr',
      '__proto__',
      'constructor',
      'hasOwnProperty',
      'toString',
      'valueOf',
      'prototype',
      '__defineGetter__',
    ]);
    assert.ok(doc.__defineGetter__ instanceof Date);
    assert.deepEqual(doc.prototype, []);
    assert.equal(text(doc.a), '{"c":1,"__proto__":[]}');
  });

  it('$set through a path whose middle component is an inherited name creates a document there', () => {
    const engine = base();
    update(engine, { _id: 1 }, { $set: { 'toString.x': 1, 'constructor.name': 'n' } });
    assert.equal(
      one(engine, 1),
      '{"_id":1,"x":3,"a":{"c":1},"arr":[1,2],"constructor":{"name":"n"},"toString":{"x":1}}',
    );
  });

  it('replacement documents keep __proto__', () => {
    const engine = base();
    update(engine, { _id: 1 }, J('{"__proto__": {"z": 1}, "constructor": 2}'));
    assert.equal(one(engine, 1), '{"_id":1,"__proto__":{"z":1},"constructor":2}');
  });

  it('upserts take __proto__ and inherited names from the query', () => {
    const engine = setup([]);
    update(
      engine,
      J('{"_id": 7, "__proto__": 5, "constructor": "c", "a.__proto__": 1}'),
      { $set: { x: 1 } },
      { upsert: true },
    );
    assert.equal(one(engine, 7), '{"_id":7,"__proto__":5,"a":{"__proto__":1},"constructor":"c","x":1}');
    update(engine, { _id: 8 }, { $setOnInsert: J('{"__proto__": 1}') }, { upsert: true });
    assert.equal(one(engine, 8), '{"_id":8,"__proto__":1}');
    update(engine, J('{"_id": 9, "toString": 1}'), J('{"__proto__": 2}'), { upsert: true });
    assert.equal(one(engine, 9), '{"_id":9,"__proto__":2}');
  });

  it('findAndModify returns and stores __proto__ (update, upsert, projection)', () => {
    const engine = base();
    const r = engine.runCommand('test', {
      findAndModify: 'p',
      query: { _id: 1 },
      update: { $set: J('{"__proto__": 1}') },
      new: true,
      fields: J('{"__proto__": 1, "x": 1}'),
    });
    assert.equal(text(r.value), '{"_id":1,"x":3,"__proto__":1}');
    const u = engine.runCommand('test', {
      findAndModify: 'p',
      query: J('{"_id": 2, "__proto__": 3}'),
      update: { $inc: J('{"__proto__": 1}') },
      new: true,
      upsert: true,
    });
    assert.equal(text(u.value), '{"_id":2,"__proto__":4}');
    const d = engine.runCommand('test', { findAndModify: 'p', query: { _id: 2 }, remove: true });
    assert.equal(text(d.value), '{"_id":2,"__proto__":4}');
  });
});

describe('field names are data: projection', () => {
  const base = () =>
    setup([
      J('{"_id": 1, "__proto__": {"a": 1, "b": 2}, "constructor": 3, "x": 4, "arr": [{"__proto__": 1, "y": 2}]}'),
    ]);

  it('inclusion, exclusion and nested paths through __proto__', () => {
    const engine = base();
    const p = (projection: Document) => text(find(engine, { filter: {}, projection })[0]);
    assert.equal(p(J('{"__proto__": 1}')), '{"_id":1,"__proto__":{"a":1,"b":2}}');
    assert.equal(p(J('{"__proto__.b": 1, "constructor": 1}')), '{"_id":1,"__proto__":{"b":2},"constructor":3}');
    assert.equal(p(J('{"__proto__": 0, "arr.__proto__": 0}')), '{"_id":1,"constructor":3,"x":4,"arr":[{"y":2}]}');
    assert.equal(p(J('{"arr.__proto__": 1, "_id": 0}')), '{"arr":[{"__proto__":1}]}');
    assert.equal(p({ toString: 1, _id: 0 }), '{}');
    assert.equal(p(J('{"toString": 0, "_id": 0, "arr": 0, "__proto__": 0}')), '{"constructor":3,"x":4}');
  });

  it('computed fields named __proto__ and reading $__proto__ ($project)', () => {
    const engine = base();
    const p = (projection: Document) => text(agg(engine, [{ $project: projection }])[0]);
    assert.equal(p(J('{"__proto__": "$x", "y": "$__proto__.a", "_id": 0}')), '{"__proto__":4,"y":1}');
    assert.equal(p(J('{"o": {"__proto__": "$constructor"}, "t": "$toString", "_id": 0}')), '{"o":{"__proto__":3}}');
  });

  it('$elemMatch and $slice projections keep __proto__ in elements', () => {
    const engine = base();
    const p = (projection: Document) => text(find(engine, { filter: {}, projection })[0]);
    assert.equal(p(J('{"arr": {"$elemMatch": {"__proto__": 1}}, "_id": 0}')), '{"arr":[{"__proto__":1,"y":2}]}');
    assert.equal(
      p(J('{"arr": {"$slice": 1}, "__proto__": 1, "_id": 0}')),
      '{"__proto__":{"a":1,"b":2},"arr":[{"__proto__":1,"y":2}]}',
    );
  });
});

describe('field names are data: aggregation', () => {
  const base = () =>
    setup([
      J('{"_id": 1, "__proto__": {"a": 1}, "constructor": 3, "k": "x", "arr": [1, 2]}'),
      J('{"_id": 2, "k": "y", "n": {"__proto__": 5, "toString": 6}, "arr": []}'),
    ]);

  it('$project, $addFields / $set, $unset', () => {
    const engine = base();
    assert.deepEqual(agg(engine, [{ $project: J('{"__proto__": 1, "constructor": 1}') }]).map(text), [
      '{"_id":1,"__proto__":{"a":1},"constructor":3}',
      '{"_id":2}',
    ]);
    assert.deepEqual(agg(engine, [{ $project: J('{"__proto__": "$k", "_id": 0}') }]).map(text), [
      '{"__proto__":"x"}',
      '{"__proto__":"y"}',
    ]);
    assert.deepEqual(
      agg(engine, [
        { $addFields: J('{"__proto__.b": 2, "toString": "$k"}') },
        { $project: J('{"__proto__": 1, "toString": 1, "_id": 0}') },
      ]).map(text),
      ['{"__proto__":{"a":1,"b":2},"toString":"x"}', '{"__proto__":{"b":2},"toString":"y"}'],
    );
    assert.deepEqual(
      agg(engine, [{ $set: J('{"__proto__": 9}') }, { $unset: ['arr', 'k', 'n', 'constructor'] }]).map(text),
      ['{"_id":1,"__proto__":9}', '{"_id":2,"__proto__":9}'],
    );
  });

  it('$group output fields and _id documents', () => {
    const engine = base();
    const out = agg(engine, [
      {
        $group: J(
          '{"_id": {"__proto__": "$k"}, "__proto__": {"$sum": 1}, "constructor": {"$first": "$constructor"}, "toString": {"$push": "$__proto__"}}',
        ),
      },
      { $sort: { _id: 1 } },
    ]);
    assert.deepEqual(out.map(text), [
      '{"_id":{"__proto__":"x"},"__proto__":1,"constructor":3,"toString":[{"a":1}]}',
      '{"_id":{"__proto__":"y"},"__proto__":1,"constructor":null,"toString":[]}',
    ]);
  });

  it('$replaceRoot / $replaceWith, $mergeObjects', () => {
    const engine = base();
    assert.deepEqual(agg(engine, [{ $match: { _id: 2 } }, { $replaceRoot: { newRoot: '$n' } }]).map(text), [
      '{"__proto__":5,"toString":6}',
    ]);
    assert.deepEqual(agg(engine, [{ $match: { _id: 1 } }, { $replaceWith: '$__proto__' }]).map(text), ['{"a":1}']);
    assert.deepEqual(
      agg(engine, [
        { $match: { _id: 2 } },
        {
          $replaceWith: {
            $mergeObjects: ['$n', J('{"__proto__": {"$literal": 7}, "x": 1}'), { $literal: J('{"constructor": 2}') }],
          },
        },
      ]).map(text),
      ['{"__proto__":7,"toString":6,"x":1,"constructor":2}'],
    );
    assert.deepEqual(agg(engine, [{ $group: { _id: null, m: { $mergeObjects: '$n' } } }]).map(text), [
      '{"_id":null,"m":{"__proto__":5,"toString":6}}',
    ]);
  });

  it('$unwind of a __proto__ array and documents that hold __proto__', () => {
    const engine = setup([J('{"_id": 1, "__proto__": [1, 2], "e": [{"__proto__": 1}]}')]);
    assert.deepEqual(
      agg(engine, [{ $unwind: '$__proto__' }, { $project: J('{"__proto__": 1, "_id": 0}') }]).map(text),
      ['{"__proto__":1}', '{"__proto__":2}'],
    );
    assert.deepEqual(agg(engine, [{ $unwind: { path: '$e', includeArrayIndex: '__proto__' } }]).map(text), [
      '{"_id":1,"__proto__":0,"e":{"__proto__":1}}',
    ]);
    assert.deepEqual(
      agg(engine, [{ $unwind: '$toString' }]).map(text),
      [],
      'an inherited name that is not a field unwinds nothing',
    );
  });

  it('expression object literals, $let and $$ROOT keep __proto__', () => {
    const engine = base();
    assert.deepEqual(
      agg(engine, [
        { $match: { _id: 1 } },
        {
          $project: {
            _id: 0,
            o: J('{"__proto__": "$constructor", "x": {"constructor": "$k"}}'),
            r: '$$ROOT.__proto__',
            c: '$$ROOT.toString',
          },
        },
      ]).map(text),
      ['{"o":{"__proto__":3,"x":{"constructor":"x"}},"r":{"a":1}}'],
    );
  });

  it('$facet and $count name outputs __proto__', () => {
    const engine = base();
    assert.deepEqual(agg(engine, [{ $facet: J('{"__proto__": [{"$count": "constructor"}]}') }]).map(text), [
      '{"__proto__":[{"constructor":2}]}',
    ]);
    assert.deepEqual(agg(engine, [{ $count: '__proto__' }]).map(text), ['{"__proto__":2}']);
  });
});

describe('field names are data: variables', () => {
  it('$$toString and $$constructor are undefined variables unless $let defines them', () => {
    const engine = setup([{ _id: 1 }]);
    assert.throws(
      () => engine.runCommand('test', { aggregate: 'p', pipeline: [{ $project: { v: '$$toString' } }], cursor: {} }),
      { code: 17276 },
    );
    assert.deepEqual(
      agg(engine, [{ $project: { _id: 0, v: { $let: { vars: { constructor: 5 }, in: '$$constructor' } } } }]).map(text),
      ['{"v":5}'],
    );
    assert.deepEqual(
      agg(engine, [
        {
          $project: {
            _id: 0,
            v: { $let: { vars: { a: 1 }, in: { $let: { vars: { valueOf: 2 }, in: { $add: ['$$a', '$$valueOf'] } } } } },
          },
        },
      ]).map(text),
      ['{"v":3}'],
    );
  });
});
