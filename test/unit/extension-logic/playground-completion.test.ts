/** Completion in playground cells and the table the documents renderer draws. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  COLLECTION_METHODS,
  completionCandidates,
  completionContext,
  DB_METHODS,
} from '../../../src/extension/logic/playground-completion';
import { formatEjsonValue, MAX_COLUMNS, tableOf } from '../../../src/extension/logic/playground-table';

describe('playground completion', () => {
  it('after db. offers the collections, then the database methods', () => {
    const ctx = completionContext('print(1)\ndb.ev');
    assert.deepEqual(ctx, { kind: 'dbMember', prefix: 'ev' });
    const c = completionCandidates(ctx, ['events', 'my-logs', 'stats']);
    assert.deepEqual(
      c.filter((x) => x.kind === 'collection').map((x) => [x.label, x.insertText]),
      [
        ['events', undefined],
        ['my-logs', "getCollection('my-logs')"],
        ['stats', "getCollection('stats')"],
      ],
    );
    assert.ok(c.some((x) => x.label === 'createCollection' && x.kind === 'method'));
    assert.ok(c.every((x) => x.kind !== 'collection' || x.rank < c.find((y) => y.kind === 'method')!.rank));
    assert.deepEqual(completionContext('db.'), { kind: 'dbMember', prefix: '' });
  });

  it('after db.<collection>. and getCollection(…). offers collection methods, index methods first', () => {
    assert.deepEqual(completionContext('db.events.cre'), {
      kind: 'collectionMember',
      collection: 'events',
      prefix: 'cre',
    });
    assert.deepEqual(completionContext("x = db.getCollection('my-logs')."), {
      kind: 'collectionMember',
      collection: 'my-logs',
      prefix: '',
    });
    const c = completionCandidates({ kind: 'collectionMember', collection: 'events', prefix: '' }, []);
    for (const m of ['createIndex', 'getIndexes', 'dropIndex', 'insertOne', 'find', 'countDocuments'])
      assert.ok(
        c.some((x) => x.label === m),
        m,
      );
    assert.equal(c.find((x) => x.label === 'createIndex')!.rank, 0);
    assert.equal(c.find((x) => x.label === 'find')!.rank, 1);
    // A database method is not a collection: db.getSiblingDB( is no collection member context.
    assert.equal(completionContext('db.getName.'), undefined);
  });

  it('method names come from the shell classes themselves', () => {
    assert.ok(COLLECTION_METHODS.includes('createIndex') && !COLLECTION_METHODS.includes('constructor'));
    assert.ok(DB_METHODS.includes('getSiblingDB') && DB_METHODS.includes('runCommand'));
  });

  it('inside createIndex options offers the index option keys, TTL ones first', () => {
    for (const before of [
      'db.c.createIndex({ a: 1 }, { ',
      'db.c.createIndex({ a: 1 }, {\n  expireAfterSeconds: 60,\n  par',
      'db.c.createIndex({ a: 1 }, { name: "x,{", ',
    ]) {
      const ctx = completionContext(before);
      assert.equal(ctx?.kind, 'indexOption', before);
    }
    assert.deepEqual(completionContext('db.c.createIndex({ a: 1 }, { exp'), { kind: 'indexOption', prefix: 'exp' });
    const c = completionCandidates({ kind: 'indexOption', prefix: '' }, []);
    assert.deepEqual(
      c.slice(0, 2).map((x) => [x.label, x.insertText]),
      [
        ['expireAfterSeconds', 'expireAfterSeconds: '],
        ['partialFilterExpression', 'partialFilterExpression: '],
      ],
    );
  });

  it('offers no index options in the key pattern, in values, in nested filters, in strings or after the call', () => {
    for (const before of [
      'db.c.createIndex({ ',
      'db.c.createIndex({ a: 1 }, { expireAfterSeconds: ',
      'db.c.createIndex({ a: 1 }, { partialFilterExpression: { ',
      'db.c.createIndex({ a: 1 }, { name: "',
      'db.c.createIndex({ a: 1 }, { expireAfterSeconds: 1 })\nfoo({ ',
    ]) {
      assert.notEqual(completionContext(before)?.kind, 'indexOption', before);
    }
  });
});

describe('documents table', () => {
  it('has a column per top-level field in first-seen order, _id first, and marks missing fields', () => {
    const t = tableOf({
      documents: [
        { name: 'a', _id: 1 },
        { _id: 2, extra: true },
      ],
      hasMore: true,
    });
    assert.deepEqual(t.columns, ['_id', 'name', 'extra']);
    assert.deepEqual(t.rows, [
      ['1', 'a', undefined],
      ['2', undefined, 'true'],
    ]);
    assert.equal(t.hasMore, true);
  });

  it('shows extended JSON values as mongosh writes them', () => {
    assert.equal(formatEjsonValue({ $date: '2026-01-01T00:00:00.000Z' }), "ISODate('2026-01-01T00:00:00.000Z')");
    assert.equal(formatEjsonValue({ $date: { $numberLong: '-1000' } }), "ISODate('1969-12-31T23:59:59.000Z')");
    assert.equal(formatEjsonValue({ $oid: '65a1b2c3d4e5f60718293a4b' }), "ObjectId('65a1b2c3d4e5f60718293a4b')");
    assert.equal(formatEjsonValue({ $numberLong: '9007199254740993' }), "Long('9007199254740993')");
    assert.equal(formatEjsonValue({ $numberDecimal: '1.5' }), "Decimal128('1.5')");
    assert.equal(formatEjsonValue({ $timestamp: { t: 1, i: 2 } }), 'Timestamp({ t: 1, i: 2 })');
    assert.equal(formatEjsonValue({ a: 'x', 'b-c': [1, { d: null }] }), "{ a: 'x', 'b-c': [ 1, { d: null } ] }");
    assert.equal(formatEjsonValue('top level'), 'top level');
    assert.equal(formatEjsonValue([]), '[]');
  });

  it('caps the columns and clips long cells; accepts a bare array and ignores non-documents', () => {
    const wide = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, i]));
    assert.equal(tableOf([wide]).columns.length, MAX_COLUMNS);
    const long = tableOf([{ s: 'x'.repeat(500) }]).rows[0][0]!;
    assert.equal(long.length, 120);
    assert.ok(long.endsWith('…'));
    assert.deepEqual(tableOf([1, { a: 1 }]).columns, ['a']);
    assert.deepEqual(tableOf(null), { columns: [], rows: [], hasMore: false });
  });
});
