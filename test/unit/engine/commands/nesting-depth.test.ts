/**
 * Nesting limits through the command path. mongod stores documents nested at most 180 levels (the
 * document itself counting as one, empty documents and arrays not counting; code 15 Overflow),
 * reads commands nested at most 200 levels below the command document (maxBSONDepth; code 15), and
 * accepts filter paths of at most 180 components (code 5729100). Every refusal leaves the data,
 * the indexes and the cursors as they were, and no value of any depth overflows the stack.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

const DB = 'app';
const DEEP = 100_000;

/** A document `levels` levels deep: itself plus levels - 1 embedded documents, `leaf` inside. */
function nested(levels: number, leaf: unknown = 1): Document {
  let v: unknown = leaf;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v as Document;
}

/** An array value `levels` levels deep. */
function nestedArray(levels: number): unknown[] {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = [v];
  return v as unknown[];
}

/** A dotted path of `n` components: a.a.….a */
function pathOf(n: number): string {
  return 'a' + '.a'.repeat(n - 1);
}

function run(engine: Engine, cmd: Document): Document {
  return engine.runCommand(DB, cmd);
}

/** An engine with a collection `c` holding {_id: 1, k: 1}, indexes on a, x and k. */
function setup(): Engine {
  const engine = new Engine();
  run(engine, { insert: 'c', documents: [{ _id: 1, k: 1 }] });
  run(engine, {
    createIndexes: 'c',
    indexes: [
      { key: { a: 1 }, name: 'a_1' },
      { key: { x: 1 }, name: 'x_1' },
      { key: { k: 1 }, name: 'k_1' },
    ],
  });
  return engine;
}

/** What a refused write must not change: documents and every index's entries. */
function state(engine: Engine): { docs: string; indexes: Record<string, number> } {
  const coll = engine.getCollection(DB, 'c');
  const indexes: Record<string, number> = {};
  if (coll) for (const [name, index] of coll.indexes) indexes[name] = index.size;
  const docs = coll ? JSON.stringify((run(engine, { find: 'c', batchSize: 1000 }).cursor as Document).firstBatch) : '';
  return { docs, indexes };
}

/** The single write error of a reply (the statement was refused, nothing else failed). */
function writeError(reply: Document): Document {
  const errors = reply.writeErrors as Document[] | undefined;
  assert.ok(errors && errors.length === 1, `expected one write error, got ${JSON.stringify(reply).slice(0, 300)}`);
  return errors[0];
}

function assertOverflowWriteError(reply: Document, message: RegExp): void {
  const e = writeError(reply);
  assert.equal(e.code, 15);
  assert.equal(e.codeName, 'Overflow');
  assert.match(String(e.errmsg), message);
}

const STORED_TOO_DEEP = /more than 180 levels .*Flatten it/;
const UPDATED_TOO_DEEP = /after this update would nest more than 180 levels/;
const COMMAND_TOO_DEEP = /command nests more than 200 levels .*Flatten/;

describe('inserts are refused past 180 levels of nesting with code 15 (Overflow)', () => {
  it('a document 180 levels deep is stored, 181 levels is refused with Overflow and changes nothing', () => {
    const engine = setup();
    assert.equal(run(engine, { insert: 'c', documents: [{ _id: 2, ...nested(180) }] }).n, 1);
    const before = state(engine);
    assertOverflowWriteError(run(engine, { insert: 'c', documents: [{ _id: 3, ...nested(181) }] }), STORED_TOO_DEEP);
    assert.deepEqual(state(engine), before);
  });

  it('a document 100,000 levels deep is refused with Overflow (no stack overflow) and changes nothing', () => {
    const engine = setup();
    const before = state(engine);
    assertOverflowWriteError(run(engine, { insert: 'c', documents: [{ _id: 3, ...nested(DEEP) }] }), STORED_TOO_DEEP);
    assertOverflowWriteError(
      run(engine, { insert: 'c', documents: [{ _id: 4, x: nestedArray(DEEP) }] }),
      STORED_TOO_DEEP,
    );
    assert.deepEqual(state(engine), before);
  });

  it('arrays count as levels, empty documents and arrays do not', () => {
    const engine = setup();
    // The document (1) + an array 179 deep = 180.
    assert.equal(run(engine, { insert: 'c', documents: [{ _id: 2, x: nestedArray(179) }] }).n, 1);
    assertOverflowWriteError(
      run(engine, { insert: 'c', documents: [{ _id: 3, x: nestedArray(180) }] }),
      STORED_TOO_DEEP,
    );
    // 180 non-empty levels with an empty document, or an empty array, at level 181.
    assert.equal(
      run(engine, {
        insert: 'c',
        documents: [
          { _id: 4, ...nested(180, {}) },
          { _id: 5, ...nested(180, []) },
        ],
      }).n,
      2,
    );
    assertOverflowWriteError(
      run(engine, { insert: 'c', documents: [{ _id: 6, ...nested(180, { z: 1 }) }] }),
      STORED_TOO_DEEP,
    );
  });

  it('an ordered insert stops at the too-deep document; an unordered one stores the others', () => {
    const engine = setup();
    const ordered = run(engine, { insert: 'c', documents: [{ _id: 2 }, nested(DEEP), { _id: 3 }] });
    assert.equal(ordered.n, 1);
    assert.equal(writeError(ordered).index, 1);
    const unordered = run(engine, { insert: 'c', ordered: false, documents: [{ _id: 4 }, nested(181), { _id: 5 }] });
    assert.equal(unordered.n, 2);
    assert.equal(writeError(unordered).code, 15);
    assert.equal(run(engine, { count: 'c' }).n, 4);
  });

  it('a cyclic document is refused with Overflow instead of looping or overflowing the stack', () => {
    const engine = setup();
    const cyclic: Document = { _id: 9 };
    cyclic.self = cyclic;
    assertOverflowWriteError(run(engine, { insert: 'c', documents: [cyclic] }), STORED_TOO_DEEP);
    const cyclicFilter: Document = {};
    cyclicFilter.x = cyclicFilter;
    expectError(() => run(engine, { find: 'c', filter: cyclicFilter }), 15, COMMAND_TOO_DEEP, 'Overflow');
  });
});

describe('updates are refused when the document would nest past 180 levels (code 15, Overflow)', () => {
  const cases: { name: string; at: (levels: number) => Document }[] = [
    // The stored document (1) + the value: `levels` is the resulting depth.
    { name: '$set of a deep value', at: (levels) => ({ $set: { x: nested(levels - 1) } }) },
    { name: '$set through a long path', at: (levels) => ({ $set: { [pathOf(levels)]: 1 } }) },
    { name: '$push of a deep value', at: (levels) => ({ $push: { x: nested(levels - 2) } }) },
    { name: '$addToSet of a deep value', at: (levels) => ({ $addToSet: { x: nested(levels - 2) } }) },
    { name: 'replacement', at: (levels) => ({ k: 1, x: nested(levels - 1) }) },
  ];
  for (const c of cases) {
    it(`${c.name}: 180 levels are stored, 181 refused with Overflow, nothing changes`, () => {
      const engine = setup();
      const ok = run(engine, { update: 'c', updates: [{ q: { _id: 1 }, u: c.at(180) }] });
      assert.equal(ok.nModified, 1, JSON.stringify(ok));
      run(engine, { update: 'c', updates: [{ q: { _id: 1 }, u: { k: 1 } }] });
      const before = state(engine);
      assertOverflowWriteError(
        run(engine, { update: 'c', updates: [{ q: { _id: 1 }, u: c.at(181) }] }),
        UPDATED_TOO_DEEP,
      );
      assert.deepEqual(state(engine), before);
    });
  }

  it('a $set path of 100,000 components is refused with Overflow (no stack overflow) and changes nothing', () => {
    const engine = setup();
    const before = state(engine);
    assertOverflowWriteError(
      run(engine, { update: 'c', updates: [{ q: { _id: 1 }, u: { $set: { [pathOf(DEEP)]: 1 } } }] }),
      UPDATED_TOO_DEEP,
    );
    assertOverflowWriteError(
      run(engine, { update: 'c', updates: [{ q: {}, u: { $set: { [pathOf(DEEP)]: 1 } }, multi: true }] }),
      UPDATED_TOO_DEEP,
    );
    assert.deepEqual(state(engine), before);
  });

  it('a $set onto a document already 180 deep is refused when it adds a level', () => {
    const engine = setup();
    run(engine, { update: 'c', updates: [{ q: { _id: 1 }, u: { $set: { x: nested(179) } } }] });
    const before = state(engine);
    assertOverflowWriteError(
      run(engine, { update: 'c', updates: [{ q: { _id: 1 }, u: { $set: { [`x.${pathOf(179)}`]: { b: 1 } } } }] }),
      UPDATED_TOO_DEEP,
    );
    assert.deepEqual(state(engine), before);
  });

  it('update values 100,000 levels deep ($set, $push, replacement) are refused with Overflow by the command check', () => {
    const engine = setup();
    const before = state(engine);
    for (const u of [{ $set: { x: nested(DEEP) } }, { $push: { x: nestedArray(DEEP) } }, { k: 1, x: nested(DEEP) }]) {
      expectError(
        () => run(engine, { update: 'c', updates: [{ q: { _id: 1 }, u }] }),
        15,
        COMMAND_TOO_DEEP,
        'Overflow',
      );
    }
    assert.deepEqual(state(engine), before);
  });
});

describe('upserts and findAndModify apply the same limits', () => {
  it('an upsert making a document 180 levels deep inserts it; 181 and a 100,000-component path are refused with Overflow', () => {
    const engine = setup();
    assert.equal(
      (
        run(engine, { update: 'c', updates: [{ q: { _id: 2 }, u: { $set: { [pathOf(180)]: 1 } }, upsert: true }] })
          .upserted as Document[]
      ).length,
      1,
    );
    const before = state(engine);
    assertOverflowWriteError(
      run(engine, { update: 'c', updates: [{ q: { _id: 3 }, u: { $set: { [pathOf(181)]: 1 } }, upsert: true }] }),
      STORED_TOO_DEEP,
    );
    assertOverflowWriteError(
      run(engine, { update: 'c', updates: [{ q: { _id: 3 }, u: { $set: { [pathOf(DEEP)]: 1 } }, upsert: true }] }),
      STORED_TOO_DEEP,
    );
    assertOverflowWriteError(
      run(engine, { update: 'c', updates: [{ q: { _id: 3 }, u: { x: nested(180) }, upsert: true }] }),
      STORED_TOO_DEEP,
    );
    assert.deepEqual(state(engine), before);
  });

  it('findAndModify: 180 levels are stored, 181 levels and a 100,000-component path are refused with Overflow, nothing changes', () => {
    const engine = setup();
    const ok = run(engine, {
      findAndModify: 'c',
      query: { _id: 1 },
      update: { $set: { [pathOf(180)]: 1 } },
      new: true,
    });
    assert.equal(ok.ok, 1);
    run(engine, { update: 'c', updates: [{ q: { _id: 1 }, u: { k: 1 } }] });
    const before = state(engine);
    expectError(
      () => run(engine, { findAndModify: 'c', query: { _id: 1 }, update: { $set: { [pathOf(181)]: 1 } } }),
      15,
      UPDATED_TOO_DEEP,
      'Overflow',
    );
    expectError(
      () => run(engine, { findAndModify: 'c', query: { _id: 1 }, update: { $set: { [pathOf(DEEP)]: 1 } } }),
      15,
      UPDATED_TOO_DEEP,
      'Overflow',
    );
    expectError(
      () =>
        run(engine, { findAndModify: 'c', query: { _id: 7 }, update: { $set: { [pathOf(DEEP)]: 1 } }, upsert: true }),
      15,
      STORED_TOO_DEEP,
      'Overflow',
    );
    expectError(
      () => run(engine, { findAndModify: 'c', query: { _id: 1 }, update: { x: nested(DEEP) } }),
      15,
      COMMAND_TOO_DEEP,
      'Overflow',
    );
    assert.deepEqual(state(engine), before);
  });
});

describe('commands nested more than 200 levels below the command are refused with code 15 (Overflow)', () => {
  it('find: a filter 200 levels deep runs, 201 levels and 100,000 levels are refused', () => {
    const engine = setup();
    // {find (level 0), filter (1..200)}: the filter itself may nest 200 levels.
    assert.equal(run(engine, { find: 'c', filter: { x: nested(199) } }).ok, 1);
    expectError(() => run(engine, { find: 'c', filter: { x: nested(200) } }), 15, COMMAND_TOO_DEEP, 'Overflow');
    expectError(() => run(engine, { find: 'c', filter: { x: nested(DEEP) } }), 15, COMMAND_TOO_DEEP, 'Overflow');
    expectError(
      () => run(engine, { find: 'c', filter: { x: { $in: [nestedArray(DEEP)] } } }),
      15,
      COMMAND_TOO_DEEP,
      'Overflow',
    );
  });

  it('find: $and/$or/$nor/$not/$elemMatch nested 100,000 deep are refused, as is a deep projection or sort', () => {
    const engine = setup();
    const chain = (wrap: (inner: Document) => Document): Document => {
      let f: Document = { x: 1 };
      for (let i = 0; i < DEEP; i++) f = wrap(f);
      return f;
    };
    for (const filter of [
      chain((f) => ({ $and: [f] })),
      chain((f) => ({ $or: [f] })),
      chain((f) => ({ $nor: [f] })),
      { x: chain((f) => ({ $not: f })) },
      { x: chain((f) => ({ $elemMatch: f })) },
    ]) {
      expectError(() => run(engine, { find: 'c', filter }), 15, COMMAND_TOO_DEEP, 'Overflow');
    }
    expectError(() => run(engine, { find: 'c', projection: nested(DEEP) }), 15, COMMAND_TOO_DEEP, 'Overflow');
    expectError(() => run(engine, { find: 'c', sort: nested(DEEP) }), 15, COMMAND_TOO_DEEP, 'Overflow');
  });

  it('a deep filter on a write (delete, update, count, distinct) is refused and nothing is deleted or changed', () => {
    const engine = setup();
    const before = state(engine);
    const filter = { x: nested(DEEP) };
    expectError(
      () => run(engine, { delete: 'c', deletes: [{ q: filter, limit: 0 }] }),
      15,
      COMMAND_TOO_DEEP,
      'Overflow',
    );
    expectError(
      () => run(engine, { update: 'c', updates: [{ q: filter, u: { $set: { k: 2 } } }] }),
      15,
      COMMAND_TOO_DEEP,
      'Overflow',
    );
    expectError(
      () => run(engine, { findAndModify: 'c', query: filter, remove: true }),
      15,
      COMMAND_TOO_DEEP,
      'Overflow',
    );
    expectError(() => run(engine, { count: 'c', query: filter }), 15, COMMAND_TOO_DEEP, 'Overflow');
    expectError(() => run(engine, { distinct: 'c', key: 'k', query: filter }), 15, COMMAND_TOO_DEEP, 'Overflow');
    assert.deepEqual(state(engine), before);
  });

  it('aggregate: a $match 198 levels deep runs (4 levels of command above it), 199 and 100,000 are refused', () => {
    const engine = setup();
    // {aggregate (0), pipeline (1), stage (2), $match filter (3..200)}.
    assert.equal(run(engine, { aggregate: 'c', pipeline: [{ $match: { x: nested(197) } }], cursor: {} }).ok, 1);
    expectError(
      () => run(engine, { aggregate: 'c', pipeline: [{ $match: { x: nested(198) } }], cursor: {} }),
      15,
      COMMAND_TOO_DEEP,
      'Overflow',
    );
    expectError(
      () => run(engine, { aggregate: 'c', pipeline: [{ $match: { x: nested(DEEP) } }], cursor: {} }),
      15,
      COMMAND_TOO_DEEP,
      'Overflow',
    );
  });

  it('aggregate: an expression nested to the limit runs, one level more and 100,000 levels are refused', () => {
    const engine = setup();
    const abs = (n: number): unknown => {
      let e: unknown = '$k';
      for (let i = 0; i < n; i++) e = { $abs: e };
      return e;
    };
    // {aggregate (0), pipeline (1), stage (2), $project (3), x's expression (4..200)}: 197 operators.
    const ok = run(engine, { aggregate: 'c', pipeline: [{ $project: { x: abs(197) } }], cursor: {} });
    assert.deepEqual(((ok.cursor as Document).firstBatch as Document[])[0], { _id: 1, x: 1 });
    expectError(
      () => run(engine, { aggregate: 'c', pipeline: [{ $project: { x: abs(198) } }], cursor: {} }),
      15,
      COMMAND_TOO_DEEP,
      'Overflow',
    );
    expectError(
      () => run(engine, { aggregate: 'c', pipeline: [{ $project: { x: abs(DEEP) } }], cursor: {} }),
      15,
      COMMAND_TOO_DEEP,
      'Overflow',
    );
    expectError(
      () => run(engine, { aggregate: 'c', pipeline: [{ $project: { x: { $literal: nested(DEEP) } } }], cursor: {} }),
      15,
      COMMAND_TOO_DEEP,
      'Overflow',
    );
    expectError(
      () => run(engine, { aggregate: 'c', pipeline: [{ $match: { $expr: abs(DEEP) } }], cursor: {} }),
      15,
      COMMAND_TOO_DEEP,
      'Overflow',
    );
  });

  it('a deep value inside an explained command or a createIndexes partial filter is refused', () => {
    const engine = setup();
    expectError(
      () => run(engine, { explain: { find: 'c', filter: { x: nested(DEEP) } } }),
      15,
      COMMAND_TOO_DEEP,
      'Overflow',
    );
    expectError(
      () =>
        run(engine, {
          createIndexes: 'c',
          indexes: [{ key: { y: 1 }, name: 'y_1', partialFilterExpression: { y: nested(DEEP) } }],
        }),
      15,
      COMMAND_TOO_DEEP,
      'Overflow',
    );
    assert.deepEqual(Object.keys(state(engine).indexes).sort(), ['_id_', 'a_1', 'k_1', 'x_1']);
  });
});

describe('filter field paths are limited to 180 components (code 5729100)', () => {
  it('a path of 180 components matches, 181 and 100,000 components are refused', () => {
    const engine = setup();
    run(engine, { update: 'c', updates: [{ q: { _id: 1 }, u: { $set: { [pathOf(180)]: 1 } } }] });
    const found = (run(engine, { find: 'c', filter: { [pathOf(180)]: 1 } }).cursor as Document)
      .firstBatch as Document[];
    assert.equal(found.length, 1);
    expectError(
      () => run(engine, { find: 'c', filter: { [pathOf(181)]: 1 } }),
      5729100,
      /FieldPath is too long.*at most 180/,
      'Location5729100',
    );
    expectError(
      () => run(engine, { find: 'c', filter: { [pathOf(DEEP)]: 1 } }),
      5729100,
      /FieldPath is too long/,
      'Location5729100',
    );
    expectError(
      () => run(engine, { find: 'c', filter: { $or: [{ [pathOf(DEEP)]: 1 }] } }),
      5729100,
      /FieldPath is too long/,
      'Location5729100',
    );
  });
});
