/**
 * Field names are data in the shell (issue 27, item 1): a document with a field named `__proto__`
 * or `constructor` crosses the boundary both ways as an ordinary field, renders as mongosh shows
 * it, and comes out in the statement's EJSON.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from './helpers';

const ownKeys = (v: unknown): string[] => Object.keys(v as object);

describe('shell: fields named __proto__ and inherited names', () => {
  it('insertOne(JSON.parse(...)) stores __proto__, findOne shows it, and the document keeps its prototype', () => {
    const h = harness();
    h.run(`db.p.insertOne(JSON.parse('{"_id": 1, "__proto__": 5, "x": 1}'))`);
    const stored = (h.engine.runCommand('test', { find: 'p', filter: { _id: 1 } }).cursor as { firstBatch: object[] })
      .firstBatch[0];
    assert.deepEqual(ownKeys(stored), ['_id', '__proto__', 'x']);
    const r = h.last('db.p.findOne({_id: 1})');
    assert.deepEqual(ownKeys(r.value), ['_id', '__proto__', 'x']);
    assert.equal(
      Object.getPrototypeOf(Object.getPrototypeOf(r.value as object)),
      null,
      'an ordinary object of the script realm',
    );
    assert.match(r.rendered ?? '', /\['__proto__'\]: 5/);
    assert.deepEqual(ownKeys(r.ejson), ['_id', '__proto__', 'x']);
    assert.equal(JSON.stringify(r.ejson), '{"_id":1,"__proto__":5,"x":1}');
    assert.equal(h.value(`Object.prototype.hasOwnProperty.call(db.p.findOne({_id: 1}), '__proto__')`), true);
    assert.equal(h.value(`db.p.findOne({_id: 1}).__proto__`), 5);
  });

  it('a nested __proto__ document is data, not a prototype, in scripts, queries and renderings', () => {
    const h = harness();
    h.run(`db.p.insertOne(JSON.parse('{"_id": 1, "n": {"__proto__": {"polluted": 1}, "constructor": 2}}'))`);
    assert.equal(h.value('db.p.findOne().n.polluted'), undefined);
    assert.equal(h.value(`db.p.findOne().n['__proto__'].polluted`), 1);
    assert.equal(h.value(`db.p.countDocuments(JSON.parse('{"n.__proto__.polluted": 1}'))`), 1);
    assert.equal(h.value(`db.p.countDocuments({'n.toString': {$exists: true}})`), 0);
    assert.equal(h.value(`db.p.countDocuments({'n.constructor': 2})`), 1);
    const rendered = h.rendered('db.p.find().toArray()') ?? '';
    assert.match(rendered, /\['__proto__'\]: \{ polluted: 1 \}/);
    assert.match(rendered, /constructor: 2/);
  });

  it('updates with computed __proto__ keys made in the script', () => {
    const h = harness();
    h.run(`db.p.insertOne({_id: 1}); db.p.updateOne({_id: 1}, {$set: {['__proto__']: {a: 1}, ['constructor']: 3}})`);
    assert.equal(h.value(`JSON.stringify(db.p.findOne())`), '{"_id":1,"__proto__":{"a":1},"constructor":3}');
    assert.equal(
      h.value(`JSON.stringify(db.p.aggregate([{$project: {_id: 0, o: {['__proto__']: '$constructor'}}}]).toArray())`),
      '[{"o":{"__proto__":3}}]',
    );
  });

  it('EJSON.parse and EJSON.stringify in the shell keep __proto__', () => {
    const h = harness();
    h.run(`db.p.insertOne(EJSON.parse('{"_id": 1, "__proto__": {"$numberInt": "5"}}', {relaxed: false}))`);
    assert.equal(
      h.value(`EJSON.stringify(db.p.findOne(), {relaxed: false})`),
      '{"_id":{"$numberInt":"1"},"__proto__":{"$numberInt":"5"}}',
    );
  });
});
