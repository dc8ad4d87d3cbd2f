/**
 * BSON undefined (type 6), as the legacy mongo shell sends it: stored as its own value, apart from
 * null and from a missing field, with mongod 8.0's query rules.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as BSON from 'bson';
import { Engine, VirtualClock, type Document } from '../../../../src/engine';
import { BSON_UNDEFINED } from '../../../../src/engine/values/bson-undefined';
import { compareValues } from '../../../../src/engine/values/compare';
import { bsonTypeOf } from '../../../../src/engine/values/types';
import { Boundary } from '../../../../src/shell/boundary';

function engineWithDocs(): Engine {
  const engine = new Engine({ clock: new VirtualClock(new Date(0)) });
  engine.runCommand('test', {
    insert: 'c',
    documents: [{ _id: 1, a: BSON_UNDEFINED }, { _id: 2, a: null }, { _id: 3 }, { _id: 4, a: [5, BSON_UNDEFINED] }],
  });
  return engine;
}

function ids(engine: Engine, cmd: Document): unknown[] {
  const reply = engine.runCommand('test', cmd) as { cursor: { firstBatch: Document[] } };
  return reply.cursor.firstBatch.map((d) => d._id);
}

describe('BSON undefined', () => {
  test('is its own BSON type, ranked below null as mongod orders types', () => {
    assert.equal(bsonTypeOf(BSON_UNDEFINED), 'undefined');
    assert.equal(compareValues(BSON_UNDEFINED, null), -1);
    assert.equal(compareValues(BSON_UNDEFINED, new BSON.MinKey()), 1);
    assert.equal(compareValues(BSON_UNDEFINED, BSON_UNDEFINED), 0);
  });

  test('is stored as given, not turned into null', () => {
    const engine = engineWithDocs();
    const reply = engine.runCommand('test', { find: 'c', filter: { _id: 1 } }) as {
      cursor: { firstBatch: Document[] };
    };
    assert.equal(reply.cursor.firstBatch[0].a, BSON_UNDEFINED);
  });

  test('$type "undefined" and 6 match it, and only it', () => {
    const engine = engineWithDocs();
    assert.deepEqual(ids(engine, { find: 'c', filter: { a: { $type: 'undefined' } } }), [1, 4]);
    assert.deepEqual(ids(engine, { find: 'c', filter: { a: { $type: 6 } } }), [1, 4]);
    assert.deepEqual(ids(engine, { find: 'c', filter: { a: { $type: 'null' } } }), [2]);
  });

  test('8.0: equality to null matches null and missing, never undefined', () => {
    const engine = engineWithDocs();
    assert.deepEqual(ids(engine, { find: 'c', filter: { a: null } }), [2, 3]);
    assert.deepEqual(ids(engine, { find: 'c', filter: { a: { $in: [null] } } }), [2, 3]);
  });

  test('a comparison or $in with an undefined operand is refused with BadValue', () => {
    const engine = engineWithDocs();
    for (const filter of [{ a: BSON_UNDEFINED }, { a: { $gt: BSON_UNDEFINED } }, { a: { $ne: BSON_UNDEFINED } }]) {
      assert.throws(
        () => engine.runCommand('test', { find: 'c', filter }),
        (e: Error & { code?: number }) => e.code === 2 && /cannot compare to undefined/.test(e.message),
      );
    }
    assert.throws(
      () => engine.runCommand('test', { find: 'c', filter: { a: { $in: [BSON_UNDEFINED] } } }),
      (e: Error & { code?: number }) =>
        e.code === 2 && /InMatchExpression equality cannot be undefined/.test(e.message),
    );
  });

  test('sorts before null and missing fields in an ascending sort', () => {
    const engine = engineWithDocs();
    assert.deepEqual(ids(engine, { find: 'c', filter: { _id: { $lt: 4 } }, sort: { a: 1, _id: 1 } }), [1, 2, 3]);
  });

  test('a projection returns it as stored', () => {
    const engine = engineWithDocs();
    const reply = engine.runCommand('test', { find: 'c', filter: { _id: 4 }, projection: { a: 1, _id: 0 } }) as {
      cursor: { firstBatch: Document[] };
    };
    assert.deepEqual(reply.cursor.firstBatch[0], { a: [5, BSON_UNDEFINED] });
  });

  test('an _id of undefined is refused, and a batch with nothing written creates no collection', () => {
    const engine = new Engine({ clock: new VirtualClock(new Date(0)) });
    const reply = engine.runCommand('test', { insert: 'none', documents: [{ _id: BSON_UNDEFINED }] }) as {
      n: number;
      writeErrors: Array<{ code: number }>;
    };
    assert.equal(reply.n, 0);
    assert.equal(reply.writeErrors[0].code, 53); // InvalidIdField
    const list = engine.runCommand('test', { listCollections: 1 }) as { cursor: { firstBatch: Document[] } };
    assert.deepEqual(list.cursor.firstBatch, []);
  });

  test('the bson encoder writes it as null instead of throwing (journal, wire)', () => {
    const bytes = BSON.serialize({ a: BSON_UNDEFINED, b: [BSON_UNDEFINED] });
    assert.deepEqual(BSON.deserialize(bytes), { a: null, b: [null] });
  });

  test('the shell reads it as a present field holding undefined, as mongosh decodes type 6', () => {
    const boundary = new Boundary(Date, RegExp);
    const out = boundary.fromEngine<Document>({ a: BSON_UNDEFINED, b: [BSON_UNDEFINED] });
    assert.ok(Object.prototype.hasOwnProperty.call(out, 'a'));
    assert.equal(out.a, undefined);
    assert.deepEqual(out.b, [undefined]);
  });

  test('expressions treat it as nullish, as mongod does: $abs, $concat and $ifNull answer as for null', () => {
    const engine = engineWithDocs();
    const reply = engine.runCommand('test', {
      aggregate: 'c',
      pipeline: [
        { $match: { _id: 1 } },
        {
          $project: {
            _id: 0,
            abs: { $abs: '$a' },
            cat: { $concat: ['x', '$a'] },
            dflt: { $ifNull: ['$a', 'd'] },
            t: { $type: '$a' },
          },
        },
      ],
      cursor: {},
    }) as { cursor: { firstBatch: Document[] } };
    assert.deepEqual(reply.cursor.firstBatch, [{ abs: null, cat: null, dflt: 'd', t: 'undefined' }]);
  });

  test("$merge refuses it in an 'on' field (51132), like null or missing", () => {
    const engine = engineWithDocs();
    engine.runCommand('test', { createIndexes: 't', indexes: [{ key: { a: 1 }, name: 'a_1', unique: true }] });
    assert.throws(
      () =>
        engine.runCommand('test', {
          aggregate: 'c',
          pipeline: [{ $match: { _id: 1 } }, { $merge: { into: 't', on: 'a' } }],
          cursor: {},
        }),
      (e: Error & { code?: number }) => e.code === 51132,
    );
  });
});
