/**
 * Collation in the shell: cursor.collation() and the `collation` option of the collection helpers
 * reach the engine's commands, as in mongosh.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { harness, plain } from './helpers';

const SETUP = `db.c.insertMany([{ _id: 1, a: "café" }, { _id: 2, a: "CAFÉ" }, { _id: 3, a: "cafe" }, { _id: 4, a: "b" }]);`;
const CI = '{ locale: "en", strength: 2 }';

describe('shell collation', () => {
  it('collation: cursor.collation() matches "café" and "CAFÉ" at strength 2', () => {
    const h = harness();
    h.run(SETUP);
    assert.deepEqual(plain(h.value(`db.c.find({ a: "Café" }).collation(${CI}).toArray().map((d) => d._id)`)), [1, 2]);
    assert.deepEqual(plain(h.value(`db.c.find({ a: "Café" }).toArray().map((d) => d._id)`)), []);
  });

  it('collation: find, findOne, countDocuments and distinct take a collation option', () => {
    const h = harness();
    h.run(SETUP);
    assert.deepEqual(
      plain(h.value(`db.c.find({ a: "CAFE" }, {}, { collation: { locale: "en", strength: 1 } }).toArray().length`)),
      3,
    );
    assert.equal(h.value(`db.c.findOne({ a: "B" }, {}, { collation: ${CI} })._id`), 4);
    assert.equal(h.value(`db.c.countDocuments({ a: "CAFÉ" }, { collation: ${CI} })`), 2);
    assert.deepEqual(plain(h.value(`db.c.distinct("a", {}, { collation: ${CI} })`)), ['b', 'cafe', 'café']);
  });

  it('collation: aggregate, updateMany, deleteMany and findOneAndUpdate take a collation option', () => {
    const h = harness();
    h.run(SETUP);
    assert.equal(h.value(`db.c.aggregate([{ $match: { a: "CAFÉ" } }], { collation: ${CI} }).toArray().length`), 2);
    assert.equal(h.value(`db.c.updateMany({ a: "CAFÉ" }, { $set: { x: 1 } }, { collation: ${CI} }).modifiedCount`), 2);
    assert.equal(
      h.value(`db.c.findOneAndUpdate({ a: "B" }, { $set: { x: 2 } }, { collation: ${CI}, returnDocument: "after" }).x`),
      2,
    );
    assert.equal(
      h.value(`db.c.deleteMany({ a: "CAFE" }, { collation: { locale: "en", strength: 1 } }).deletedCount`),
      3,
    );
  });

  it('collation: createCollection and createIndex take a collation; getIndexes shows it in full', () => {
    const h = harness();
    h.run(`db.createCollection("d", { collation: ${CI} }); db.d.createIndex({ a: 1 });`);
    assert.equal(h.value(`db.d.getIndexes().find((i) => i.name === "a_1").collation.locale`), 'en');
    assert.equal(h.value(`db.d.getIndexes().find((i) => i.name === "a_1").collation.version`), '57.1');
  });
});
