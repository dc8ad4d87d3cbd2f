/**
 * Positional updates through the update command: `$` (the element the query matched), `$[]` (every
 * element) and `$[<id>]` with arrayFilters, for every operator, with mongod's codes and messages
 * (src/mongo/db/update/update_object_node.cpp, update_array_node.cpp, update_driver.cpp,
 * expression_with_placeholder.cpp, parsed_update_array_filters.cpp).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Int32, Timestamp } from 'bson';
import { Engine, type Document } from '../../../../src/engine';
import { VirtualClock } from '../../../../src/engine/clock';

const DB = 'app';

function seeded(docs: Document[]): Engine {
  const engine = new Engine({ clock: new VirtualClock(Date.parse('2024-05-01T12:00:00Z')) });
  if (docs.length) engine.runCommand(DB, { insert: 'c', documents: docs });
  return engine;
}

function update(engine: Engine, statement: Document): Document {
  return engine.runCommand(DB, { update: 'c', updates: [statement] });
}

function all(engine: Engine): Document[] {
  return (engine.runCommand(DB, { find: 'c', filter: {} }).cursor as Document).firstBatch as Document[];
}

function one(engine: Engine): Document {
  return all(engine)[0];
}

/** The single write error of a one-statement update: [code, errmsg]. */
function writeError(reply: Document): [number, string] {
  const errors = reply.writeErrors as Document[] | undefined;
  assert.ok(errors && errors.length === 1, `expected one write error, got ${JSON.stringify(reply)}`);
  return [errors[0].code as number, errors[0].errmsg as string];
}

function updateDoc(doc: Document, u: Document, extra: Document = {}): Document {
  const engine = seeded([doc]);
  const reply = update(engine, { q: { _id: doc._id }, u, ...extra });
  assert.equal(reply.writeErrors, undefined, JSON.stringify(reply.writeErrors));
  return one(engine);
}

describe('positional $', () => {
  it('positional $: updates the first element the query matched', () => {
    const engine = seeded([
      {
        _id: 1,
        a: [
          { x: 1, y: 0 },
          { x: 2, y: 0 },
          { x: 2, y: 0 },
        ],
      },
    ]);
    const reply = update(engine, { q: { 'a.x': 2 }, u: { $inc: { 'a.$.y': 1 } } });
    assert.equal(reply.nModified, 1);
    assert.deepEqual(one(engine).a, [
      { x: 1, y: 0 },
      { x: 2, y: 1 },
      { x: 2, y: 0 },
    ]);
  });

  it('positional $: an array of scalars matched by equality', () => {
    const engine = seeded([{ _id: 1, grades: [85, 80, 80] }]);
    update(engine, { q: { _id: 1, grades: 80 }, u: { $set: { 'grades.$': 82 } } });
    assert.deepEqual(one(engine).grades, [85, 82, 80]);
  });

  it('positional $: $elemMatch names the element that satisfied every condition', () => {
    const engine = seeded([
      {
        _id: 1,
        a: [
          { x: 1, y: 5 },
          { x: 2, y: 1 },
          { x: 2, y: 9 },
        ],
      },
    ]);
    update(engine, { q: { a: { $elemMatch: { x: 2, y: { $gt: 5 } } } }, u: { $set: { 'a.$.hit': true } } });
    assert.deepEqual((one(engine).a as Document[])[2], { x: 2, y: 9, hit: true });
    assert.equal((one(engine).a as Document[])[1].hit, undefined);
  });

  it('positional $: through nested arrays the position is the outermost array', () => {
    const engine = seeded([{ _id: 1, a: [{ b: [1, 2] }, { b: [3, 4] }] }]);
    update(engine, { q: { 'a.b': 4 }, u: { $set: { 'a.$.hit': 1 } } });
    assert.deepEqual(one(engine).a, [{ b: [1, 2] }, { b: [3, 4], hit: 1 }]);
  });

  it('positional $: a path below the matched element is created there', () => {
    const engine = seeded([{ _id: 1, a: [{ x: 1 }, { x: 2 }] }]);
    update(engine, { q: { 'a.x': 2 }, u: { $set: { 'a.$.b.c': 1 }, $push: { log: 1 } } });
    assert.deepEqual(one(engine), { _id: 1, a: [{ x: 1 }, { x: 2, b: { c: 1 } }], log: [1] });
  });

  it('positional $: every operator updates the matched element', () => {
    const base = {
      _id: 1,
      k: [new Int32(0), new Int32(1), new Int32(2)],
      n: [5, 6, 7],
      d: [{ v: [1, 2, 3] }, { v: [4, 5, 6] }],
    };
    const cases: [Document, Document, (d: Document) => unknown, unknown][] = [
      [{ n: 6 }, { $mul: { 'n.$': 2 } }, (d) => d.n, [5, 12, 7]],
      [{ n: 6 }, { $min: { 'n.$': 1 } }, (d) => d.n, [5, 1, 7]],
      [{ n: 6 }, { $max: { 'n.$': 9 } }, (d) => d.n, [5, 9, 7]],
      [{ n: 6 }, { $unset: { 'n.$': '' } }, (d) => d.n, [5, null, 7]],
      [{ 'd.v': 5 }, { $push: { 'd.$.v': { $each: [0], $sort: 1 } } }, (d) => (d.d as Document[])[1].v, [0, 4, 5, 6]],
      [{ 'd.v': 5 }, { $pull: { 'd.$.v': { $gte: 5 } } }, (d) => (d.d as Document[])[1].v, [4]],
      [{ 'd.v': 5 }, { $pullAll: { 'd.$.v': [4, 6] } }, (d) => (d.d as Document[])[1].v, [5]],
      [{ 'd.v': 5 }, { $addToSet: { 'd.$.v': 7 } }, (d) => (d.d as Document[])[1].v, [4, 5, 6, 7]],
      [{ 'd.v': 5 }, { $pop: { 'd.$.v': -1 } }, (d) => (d.d as Document[])[1].v, [5, 6]],
      [{ k: 2 }, { $bit: { 'k.$': { or: new Int32(4) } } }, (d) => (d.k as unknown[])[2], new Int32(6)],
    ];
    for (const [q, u, pick, expected] of cases) {
      const engine = seeded([base]);
      const reply = update(engine, { q, u });
      assert.equal(reply.writeErrors, undefined, `${JSON.stringify(u)}: ${JSON.stringify(reply.writeErrors)}`);
      if (expected !== undefined) assert.deepEqual(pick(one(engine)), expected, JSON.stringify(u));
    }
    const engine = seeded([base]);
    update(engine, { q: { n: 7 }, u: { $currentDate: { 'n.$': { $type: 'timestamp' } } } });
    assert.ok((one(engine).n as unknown[])[2] instanceof Timestamp);
  });

  it('positional $: no position from the query is BadValue (2), as is an upsert', () => {
    const engine = seeded([{ _id: 1, a: [1, 2] }]);
    assert.deepEqual(writeError(update(engine, { q: { _id: 1 }, u: { $set: { 'a.$': 5 } } })), [
      2,
      'The positional operator did not find the match needed from the query.',
    ]);
    // A match on the whole array records no position.
    assert.equal(writeError(update(engine, { q: { a: [1, 2] }, u: { $set: { 'a.$': 5 } } }))[0], 2);
    // $or and negations record none.
    assert.equal(writeError(update(engine, { q: { $or: [{ a: 1 }, { a: 9 }] }, u: { $set: { 'a.$': 5 } } }))[0], 2);
    // Nor does an element named by its index: only implicit traversal of an array gives a position.
    assert.equal(writeError(update(engine, { q: { 'a.0': 1 }, u: { $set: { 'a.$': 5 } } }))[0], 2);
    const nested = seeded([{ _id: 1, a: [{ b: [0] }] }]);
    assert.equal(writeError(update(nested, { q: { 'a.0.b.0': 0 }, u: { $set: { 'a.$.b.0': 1 } } }))[0], 2);
    const upsert = update(engine, { q: { _id: 2, a: 3 }, u: { $set: { 'a.$': 5 } }, upsert: true });
    assert.deepEqual(writeError(upsert), [2, 'The positional operator did not find the match needed from the query.']);
    assert.equal(all(engine).length, 1);
  });

  it('positional $: more than one $, or $ first, is BadValue (2) even when nothing matches', () => {
    const engine = seeded([]);
    assert.deepEqual(writeError(update(engine, { q: { x: 1 }, u: { $set: { 'a.$.b.$': 1 } } })), [
      2,
      "Too many positional (i.e. '$') elements found in path 'a.$.b.$'",
    ]);
    assert.deepEqual(writeError(update(engine, { q: { x: 1 }, u: { $set: { '$.a': 1 } } })), [
      2,
      "Cannot have positional (i.e. '$') element in the first position in path '$.a'",
    ]);
  });

  it('positional $: merged with the named element it resolves to, a clash is ConflictingUpdateOperators (40)', () => {
    const engine = seeded([{ _id: 1, a: [{ x: 1 }, { x: 2 }] }]);
    update(engine, { q: { 'a.x': 1 }, u: { $set: { 'a.$.y': 1, 'a.0.z': 2, 'a.1.z': 3 } } });
    assert.deepEqual(one(engine).a, [
      { x: 1, y: 1, z: 2 },
      { x: 2, z: 3 },
    ]);
    assert.deepEqual(writeError(update(engine, { q: { 'a.x': 1 }, u: { $set: { 'a.$.y': 5, 'a.0.y': 6 } } })), [
      40,
      "Update created a conflict at 'a.0.y'",
    ]);
  });
});

describe('all positional $[]', () => {
  it('$[]: updates every element of the array', () => {
    assert.deepEqual(updateDoc({ _id: 1, a: [1, 2, 3] }, { $inc: { 'a.$[]': 10 } }).a, [11, 12, 13]);
  });

  it('$[]: in nested arrays with a filtered identifier below (a.$[].b.$[x])', () => {
    const doc = { _id: 1, a: [{ b: [1, 5, 9] }, { b: [7] }, { b: [] }] };
    const out = updateDoc(doc, { $set: { 'a.$[].b.$[x]': 0 } }, { arrayFilters: [{ x: { $gte: 5 } }] });
    assert.deepEqual(out.a, [{ b: [1, 0, 0] }, { b: [0] }, { b: [] }]);
  });

  it('$[]: the array must exist (2) and be an array (2)', () => {
    const engine = seeded([{ _id: 1, a: 5, b: { c: 1 } }]);
    assert.deepEqual(writeError(update(engine, { q: { _id: 1 }, u: { $set: { 'x.y.$[]': 1 } } })), [
      2,
      "The path 'x.y' must exist in the document in order to apply array updates.",
    ]);
    const [code, msg] = writeError(update(engine, { q: { _id: 1 }, u: { $set: { 'a.$[]': 1 } } }));
    assert.equal(code, 2);
    assert.match(msg, /^Cannot apply array updates to non-array element a: 5/);
  });

  it('$[]: an empty array is a no-op (nModified 0)', () => {
    const engine = seeded([{ _id: 1, a: [] }]);
    const reply = update(engine, { q: { _id: 1 }, u: { $set: { 'a.$[]': 1 } } });
    assert.equal(reply.n, 1);
    assert.equal(reply.nModified, 0);
  });

  it('$[]: first in the path is BadValue (2)', () => {
    const engine = seeded([]);
    assert.deepEqual(writeError(update(engine, { q: {}, u: { $set: { '$[].a': 1 } } })), [
      2,
      "Cannot have array filter identifier (i.e. '$[<id>]') element in the first position in path '$[].a'",
    ]);
  });

  it('$[] and a.0 on one array conflict when parsing (40), even with nothing to update', () => {
    const engine = seeded([]);
    assert.deepEqual(writeError(update(engine, { q: {}, u: { $set: { 'a.$[]': 1, 'a.0': 2 } } })), [
      40,
      "Updating the path 'a.0' would create a conflict at 'a'",
    ]);
    assert.equal(writeError(update(engine, { q: {}, u: { $set: { 'a.$[]': 1 }, $inc: { 'a.$': 1 } } }))[0], 40);
  });
});

describe('filtered positional $[<identifier>] with arrayFilters', () => {
  it('$[x]: updates the elements the array filter selects, for every operator', () => {
    const base = {
      _id: 1,
      s: [1, 5, 9],
      d: [
        { v: 1, l: [1] },
        { v: 5, l: [2, 3] },
        { v: 9, l: [] },
      ],
    };
    const af = { arrayFilters: [{ 'e.v': { $gte: 5 } }] };
    const cases: [Document, (d: Document) => unknown, unknown, Document?][] = [
      // d.d is the array of documents under test
      [{ $set: { 's.$[e]': 0 } }, (d) => d.s, [1, 0, 0], { arrayFilters: [{ e: { $gte: 5 } }] }],
      [{ $unset: { 'd.$[e].v': '' } }, (d) => (d.d as Document[]).map((x) => x.v), [1, undefined, undefined]],
      [{ $inc: { 'd.$[e].v': 1 } }, (d) => (d.d as Document[]).map((x) => x.v), [1, 6, 10]],
      [{ $mul: { 'd.$[e].v': 2 } }, (d) => (d.d as Document[]).map((x) => x.v), [1, 10, 18]],
      [{ $min: { 'd.$[e].v': 6 } }, (d) => (d.d as Document[]).map((x) => x.v), [1, 5, 6]],
      [{ $max: { 'd.$[e].v': 6 } }, (d) => (d.d as Document[]).map((x) => x.v), [1, 6, 9]],
      [
        { $push: { 'd.$[e].l': { $each: [9, 0], $sort: -1, $slice: 2 } } },
        (d) => (d.d as Document[]).map((x) => x.l),
        [[1], [9, 3], [9, 0]],
      ],
      [{ $pull: { 'd.$[e].l': 2 } }, (d) => (d.d as Document[])[1].l, [3]],
      [{ $pullAll: { 'd.$[e].l': [2, 3] } }, (d) => (d.d as Document[])[1].l, []],
      [
        { $addToSet: { 'd.$[e].l': { $each: [3, 4] } } },
        (d) => (d.d as Document[]).map((x) => x.l),
        [[1], [2, 3, 4], [3, 4]],
      ],
      [{ $pop: { 'd.$[e].l': 1 } }, (d) => (d.d as Document[]).map((x) => x.l), [[1], [2], []]],
      [
        { $currentDate: { 'd.$[e].t': true } },
        (d) => (d.d as Document[]).map((x) => x.t instanceof Date),
        [false, true, true],
      ],
    ];
    for (const [u, pick, expected, extra] of cases) {
      assert.deepEqual(pick(updateDoc(base, u, extra ?? af)), expected, JSON.stringify(u));
    }
  });

  it('$[x]: a filter over an element that is an array traverses it, like a field', () => {
    const out = updateDoc(
      { _id: 1, m: [[1, 2], [3], [2]] },
      { $set: { 'm.$[x]': 'hit' } },
      { arrayFilters: [{ x: 2 }] },
    );
    assert.deepEqual(out.m, ['hit', [3], 'hit']);
  });

  it('$[x]: filters with $or over one identifier, and two identifiers in one path', () => {
    const doc = {
      _id: 1,
      a: [
        { k: 1, b: [1, 2] },
        { k: 2, b: [3, 4] },
        { k: 3, b: [5] },
      ],
    };
    const out = updateDoc(
      doc,
      { $inc: { 'a.$[i].b.$[j]': 100 } },
      { arrayFilters: [{ $or: [{ 'i.k': 1 }, { 'i.k': 3 }] }, { j: { $gt: 1 } }] },
    );
    assert.deepEqual(
      (out.a as Document[]).map((x) => x.b),
      [[1, 102], [3, 4], [105]],
    );
  });

  it('$[x]: two identifiers selecting one element merge; the same field twice conflicts (40)', () => {
    const doc = { _id: 1, a: [{ v: 0 }, { v: 1 }] };
    const merged = updateDoc(
      doc,
      { $set: { 'a.$[i].x': 1, 'a.$[j].y': 2 } },
      { arrayFilters: [{ 'i.v': 0 }, { 'j.v': 0 }] },
    );
    assert.deepEqual(merged.a, [{ v: 0, x: 1, y: 2 }, { v: 1 }]);
    const engine = seeded([{ _id: 1, a: [0] }]);
    const reply = update(engine, {
      q: {},
      u: { $set: { 'a.$[i]': 2, 'a.$[j]': 3 } },
      arrayFilters: [{ i: 0 }, { j: 0 }],
    });
    assert.deepEqual(writeError(reply), [40, "Update created a conflict at 'a.0'"]);
  });

  it('$[x] in an upsert applies to an array the query seeded, and $setOnInsert takes it too', () => {
    const engine = seeded([]);
    const reply = update(engine, {
      q: { _id: 7, a: [1, 5] },
      u: { $setOnInsert: { 'a.$[big]': 0 } },
      upsert: true,
      arrayFilters: [{ big: { $gt: 2 } }],
    });
    assert.deepEqual(reply.upserted, [{ index: 0, _id: 7 }]);
    assert.deepEqual(one(engine), { _id: 7, a: [1, 0] });
    const missing = update(engine, {
      q: { _id: 8 },
      u: { $set: { 'b.$[x]': 1 } },
      upsert: true,
      arrayFilters: [{ x: 1 }],
    });
    assert.deepEqual(writeError(missing), [
      2,
      "The path 'b' must exist in the document in order to apply array updates.",
    ]);
  });

  it('arrayFilters errors: unused (9), undefined identifier (2), duplicate (9), two names (9), no name (9), bad name (2)', () => {
    const engine = seeded([]);
    const u = { $set: { 'a.$[i]': 1 } };
    const cases: [Document, unknown[], number, string | RegExp][] = [
      [u, [{ i: 0 }, { j: 0 }], 9, /^The array filter for identifier 'j' was not used in the update /],
      [u, [], 2, "No array filter found for identifier 'i' in path 'a.$[i]'"],
      [u, [{ i: 0 }, { i: 1 }], 9, 'Found multiple array filters with the same top-level field name i'],
      [
        u,
        [{ i: 0, j: 0 }],
        9,
        "Error parsing array filter :: caused by :: Expected a single top-level field name, found 'i' and 'j'",
      ],
      [u, [{ $expr: { $eq: [1, 1] } }], 9, 'Cannot use an expression without a top-level field name in arrayFilters'],
      [
        { $set: { 'a.$[I]': 1 } },
        [{ I: 0 }],
        2,
        "Error parsing array filter :: caused by :: The top-level field name must be an alphanumeric string beginning with a lowercase letter, found 'I'",
      ],
    ];
    for (const [spec, arrayFilters, code, message] of cases) {
      const [got, msg] = writeError(update(engine, { q: {}, u: spec, arrayFilters }));
      assert.equal(got, code, msg);
      if (typeof message === 'string') assert.equal(msg, message);
      else assert.match(msg, message);
    }
    const [code] = writeError(update(engine, { q: {}, u, arrayFilters: { i: 0 } }));
    assert.equal(code, 14);
  });

  it('arrayFilters in findAndModify: the updated document is returned', () => {
    const engine = seeded([{ _id: 1, a: [1, 5, 9] }]);
    const reply = engine.runCommand(DB, {
      findAndModify: 'c',
      query: { _id: 1 },
      update: { $set: { 'a.$[x]': 0 } },
      arrayFilters: [{ x: { $gt: 4 } }],
      new: true,
    });
    assert.deepEqual(reply.value, { _id: 1, a: [1, 0, 0] });
  });

  it('$rename refuses positional paths (2)', () => {
    const engine = seeded([{ _id: 1, a: [{ b: 1 }] }]);
    assert.deepEqual(writeError(update(engine, { q: { 'a.b': 1 }, u: { $rename: { 'a.$.b': 'c' } } })), [
      2,
      'The source field for $rename may not be dynamic: a.$.b',
    ]);
    assert.deepEqual(writeError(update(engine, { q: {}, u: { $rename: { c: 'a.$[].b' } } })), [
      2,
      'The destination field for $rename may not be dynamic: a.$[].b',
    ]);
  });
});
