/**
 * Generated scripts over the db / collection / cursor / bulk helpers mongosh documents. Each starts
 * from the same seed (30 documents with numbers, strings, dates and nested arrays) and prints what
 * it wants compared. Nothing here prints a value that differs by nature between two runs
 * (generated ObjectIds, collection UUIDs, the wall clock).
 */
import type { ParityScript } from '../harness';

const SEED = `db.items.insertMany(Array.from({ length: 30 }, (_, i) => ({ _id: i, n: i % 7, tag: ['a', 'b', 'c'][i % 3], at: new Date(Date.UTC(2026, 0, 1, i)), nested: { k: i, arr: [i, [i + 1, [i + 2]]] } })));\n`;

const scripts: ParityScript[] = [];

function add(group: string, label: string, body: string, seeded = true): void {
  const name = `generated/${group}/${String(scripts.length).padStart(3, '0')}-${label.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '')}`;
  scripts.push({ name, source: `${seeded ? SEED : ''}${body}\n` });
}

// find with every cursor method
for (const k of [0, 1, 5, 25]) add('cursor', `limit ${k}`, `print(db.items.find({}, { _id: 1 }).limit(${k}));`);
for (const k of [0, 3, 29, 40])
  add('cursor', `skip ${k}`, `printjson(db.items.find({}, { n: 1 }).skip(${k}).toArray());`);
for (const sort of ['{ n: 1, _id: 1 }', '{ n: -1, _id: 1 }', '{ tag: 1, _id: -1 }', "{ 'nested.k': -1 }"])
  add('cursor', `sort ${sort}`, `print(db.items.find({}, { n: 1, tag: 1 }).sort(${sort}).limit(8));`);
for (const projection of ['{ n: 1 }', '{ _id: 0, tag: 1 }', '{ nested: 0, at: 0 }', "{ 'nested.arr': { $slice: 1 } }"])
  add('cursor', `projection ${projection}`, `print(db.items.find({ _id: { $lt: 4 } }, ${projection}));`);
for (const b of [1, 7, 100])
  add('cursor', `batchSize ${b}`, `print(db.items.find().batchSize(${b}).toArray().length);`);
for (const filter of ['{}', '{ n: 3 }', "{ tag: 'b' }", '{ n: { $gte: 5 } }'])
  add(
    'cursor',
    `count size itcount ${filter}`,
    `print(db.items.find(${filter}).count(), db.items.find(${filter}).limit(2).size(), db.items.find(${filter}).itcount());`,
  );
add('cursor', 'hasNext next', `const c = db.items.find({ n: 2 }); while (c.hasNext()) print(c.next()._id);`);
add(
  'cursor',
  'next past the end',
  `const c = db.items.find({ _id: 1 }); printjson(c.next()); print(c.hasNext()); printjson(c.tryNext());`,
);
add('cursor', 'forEach printjson', `db.items.find({ n: 6 }, { tag: 1 }).forEach(printjson);`);
add('cursor', 'forEach print', `db.items.find({ n: 6 }).forEach((d) => print(d._id, d.tag, d.at));`);
add('cursor', 'map', `print(db.items.find({ n: 1 }).map((d) => d._id * 10).toArray());`);
add('cursor', 'map to documents', `print(db.items.find({ n: 1 }).map((d) => ({ id: d._id, k: d.nested.k })));`);
const operators = [
  '{ _id: { $gt: 26 } }',
  '{ tag: { $in: ["a", "c"] }, n: 0 }',
  '{ tag: { $regex: "^b" }, n: { $lt: 2 } }',
  '{ missing: { $exists: false }, _id: { $lt: 2 } }',
  '{ "nested.arr": { $elemMatch: { $gte: 28 } } }',
  '{ $or: [{ _id: 1 }, { _id: 29 }] }',
  '{ $and: [{ n: 4 }, { tag: "a" }] }',
  '{ _id: { $not: { $lt: 28 } } }',
  '{ at: { $type: "date" }, _id: { $in: [3, 4] } }',
  '{ $expr: { $eq: ["$n", { $mod: ["$_id", 7] }] }, _id: { $gt: 27 } }',
  '{ at: { $gte: ISODate("2026-01-02T03:00:00Z") } }',
  '{ "nested.arr.1.0": 5 }',
];
for (const op of operators) add('query', `operator ${op}`, `printjson(db.items.find(${op}, { _id: 1 }).toArray());`);
add('cursor', 'hint', `db.items.createIndex({ n: 1 }); print(db.items.find({ n: 2 }, { _id: 1 }).hint({ n: 1 }));`);
add(
  'cursor',
  'hint by name',
  `db.items.createIndex({ n: 1 }); print(db.items.find({ n: 2 }, { _id: 1 }).hint('n_1').toArray().length);`,
);
add('cursor', 'hint unknown index', `print(db.items.find().hint({ nope: 1 }).toArray());`);
add(
  'cursor',
  'min max',
  `db.items.createIndex({ n: 1 }); print(db.items.find({}, { _id: 1, n: 1 }).min({ n: 5 }).max({ n: 6 }).hint({ n: 1 }));`,
);
add(
  'cursor',
  'returnKey',
  `db.items.createIndex({ n: 1 }); print(db.items.find({ n: 3 }).hint({ n: 1 }).returnKey(true));`,
);
add(
  'cursor',
  'comment maxTimeMS',
  `print(db.items.find({ n: 3 }, { _id: 1 }).comment('c').maxTimeMS(5000).toArray());`,
);
add(
  'cursor',
  'collation',
  `db.words.insertMany([{ _id: 1, w: 'b' }, { _id: 2, w: 'A' }, { _id: 3, w: 'a' }]); print(db.words.find().sort({ w: 1, _id: 1 }).collation({ locale: 'en', strength: 1 }));`,
  false,
);
add(
  'cursor',
  'allowDiskUse noCursorTimeout',
  `print(db.items.find({ n: 0 }, { _id: 1 }).allowDiskUse().noCursorTimeout().toArray());`,
);
add('cursor', 'close isClosed', `const c = db.items.find(); c.next(); c.close(); print(c.isClosed());`);
add(
  'cursor',
  'isExhausted',
  `const c = db.items.find({ _id: 1 }); print(c.isExhausted()); c.next(); print(c.isExhausted());`,
);
add('cursor', 'objsLeftInBatch', `const c = db.items.find({ n: 1 }); c.next(); print(c.objsLeftInBatch());`);
add('cursor', 'pretty', `print(db.items.find({ _id: 2 }).pretty());`);
add(
  'cursor',
  'toArray length and spread',
  `const all = db.items.find().toArray(); print(all.length, all[29]._id, Array.isArray(all));`,
);
add('cursor', 'for of', `for (const d of db.items.find({ n: 5 })) print(d._id);`);
add('cursor', 'findOne', `printjson(db.items.findOne({ n: 4 }, { tag: 1 }));`);
add('cursor', 'findOne none', `printjson(db.items.findOne({ n: 99 }));`);
add('cursor', 'print cursor of 30', `print(db.items.find({}, { _id: 1 }));`);
add('cursor', 'printjson cursor', `printjson(db.items.find({ _id: { $lt: 2 } }, { nested: 1 }));`);
add(
  'cursor',
  'countDocuments estimated',
  `print(db.items.countDocuments({ n: 1 }), db.items.estimatedDocumentCount());`,
);
add('cursor', 'distinct', `print(db.items.distinct('tag'), db.items.distinct('n', { tag: 'a' }));`);

// aggregate
const pipelines = [
  '[{ $match: { n: 2 } }, { $project: { _id: 1 } }]',
  '[{ $group: { _id: "$tag", total: { $sum: "$n" }, count: { $sum: 1 } } }, { $sort: { _id: 1 } }]',
  '[{ $sort: { n: -1, _id: 1 } }, { $limit: 3 }, { $project: { n: 1 } }]',
  '[{ $count: "all" }]',
  '[{ $match: { _id: { $lt: 2 } } }, { $unwind: "$nested.arr" }, { $project: { "nested.arr": 1 } }]',
  '[{ $match: { _id: 3 } }, { $addFields: { twice: { $multiply: ["$n", 2] } } }, { $project: { twice: 1 } }]',
  '[{ $bucket: { groupBy: "$n", boundaries: [0, 3, 7], default: "other" } }]',
  '[{ $facet: { low: [{ $match: { n: 0 } }, { $count: "c" }], high: [{ $match: { n: 6 } }, { $count: "c" }] } }]',
  '[{ $match: { _id: 5 } }, { $project: { day: { $dateToString: { date: "$at", format: "%Y-%m-%d %H:%M" } } } }]',
  '[{ $match: { _id: { $lt: 3 } } }, { $lookup: { from: "items", localField: "n", foreignField: "_id", as: "peer" } }, { $project: { "peer._id": 1 } }]',
  '[{ $group: { _id: null, first: { $min: "$at" }, last: { $max: "$at" } } }]',
  '[{ $sortByCount: "$tag" }]',
  '[{ $match: { _id: 7 } }, { $replaceWith: "$nested" }]',
  '[{ $skip: 28 }, { $project: { _id: 1 } }]',
  '[{ $match: { _id: 2 } }, { $set: { l: { $toLong: "$n" }, d: { $toDecimal: "$n" } } }, { $project: { l: 1, d: 1 } }]',
  '[{ $project: { _id: 1 } }, { $limit: 25 }]',
];
for (const p of pipelines) add('aggregate', `pipeline ${p.slice(0, 40)}`, `print(db.items.aggregate(${p}));`);
add(
  'aggregate',
  'toArray',
  `printjson(db.items.aggregate([{ $match: { n: 6 } }, { $project: { tag: 1 } }]).toArray());`,
);
add('aggregate', 'unknown stage', `db.items.aggregate([{ $nope: 1 }]).toArray();`);
add(
  'aggregate',
  'out stage',
  `db.items.aggregate([{ $match: { n: 1 } }, { $out: 'ones' }]); print(db.ones.countDocuments());`,
);
add('aggregate', 'forEach', `db.items.aggregate([{ $match: { n: 6 } }]).forEach((d) => print(d._id));`);

// bulkWrite
add(
  'bulk',
  'ordered mix',
  `printjson(db.items.bulkWrite([{ insertOne: { document: { _id: 100 } } }, { updateOne: { filter: { _id: 1 }, update: { $set: { x: 1 } } } }, { updateMany: { filter: { n: 2 }, update: { $inc: { n: 10 } } } }, { deleteOne: { filter: { _id: 2 } } }, { deleteMany: { filter: { n: 6 } } }, { replaceOne: { filter: { _id: 3 }, replacement: { r: 1 } } }]));`,
);
add(
  'bulk',
  'upserts',
  `printjson(db.items.bulkWrite([{ updateOne: { filter: { _id: 200 }, update: { $set: { u: 1 } }, upsert: true } }, { replaceOne: { filter: { _id: 201 }, replacement: { u: 2 }, upsert: true } }]));`,
);
add(
  'bulk',
  'unordered',
  `printjson(db.items.bulkWrite([{ insertOne: { document: { _id: 300 } } }, { insertOne: { document: { _id: 301 } } }], { ordered: false }));`,
);
add(
  'bulk',
  'ordered duplicate key',
  `db.items.bulkWrite([{ insertOne: { document: { _id: 400 } } }, { insertOne: { document: { _id: 1 } } }, { insertOne: { document: { _id: 401 } } }]);`,
);
add(
  'bulk',
  'unordered duplicate key caught',
  `try { db.items.bulkWrite([{ insertOne: { document: { _id: 1 } } }, { insertOne: { document: { _id: 500 } } }], { ordered: false }); } catch (e) { print(e.name, e.code, e.writeErrors.length, e.result.insertedCount); } print(db.items.countDocuments());`,
);
add('bulk', 'empty', `db.items.bulkWrite([]);`);
add('bulk', 'unknown operation', `db.items.bulkWrite([{ frobnicate: {} }]);`);
add(
  'bulk',
  'result fields',
  `const r = db.items.bulkWrite([{ deleteMany: { filter: { n: 0 } } }]); print(r.deletedCount, r.acknowledged, r.insertedCount);`,
);

// insertMany and friends
add(
  'insert',
  'insertMany 120000 documents',
  `const r = db.big.insertMany(Array.from({ length: 120000 }, (_, i) => ({ _id: i }))); print(r.acknowledged, Object.keys(r.insertedIds).length, r.insertedIds[119999]); print(db.big.countDocuments());`,
  false,
);
add(
  'insert',
  'insertMany 100001 unordered',
  `const r = db.big.insertMany(Array.from({ length: 100001 }, (_, i) => ({ _id: i })), { ordered: false }); print(Object.keys(r.insertedIds).length); print(db.big.estimatedDocumentCount());`,
  false,
);
add('insert', 'insertMany duplicate ordered', `db.items.insertMany([{ _id: 50 }, { _id: 1 }, { _id: 51 }]);`);
add(
  'insert',
  'insertMany duplicate unordered caught',
  `try { db.items.insertMany([{ _id: 50 }, { _id: 1 }, { _id: 51 }], { ordered: false }); } catch (e) { print(e.name, e.code, e.codeName, e.writeErrors.length); } print(db.items.countDocuments());`,
);
add('insert', 'insertMany empty', `db.items.insertMany([]);`);
add('insert', 'insertMany result', `printjson(db.fresh.insertMany([{ _id: 'a' }, { _id: 'b' }]));`, false);
add(
  'insert',
  'insertOne result',
  `printjson(db.fresh.insertOne({ _id: NumberLong('7'), v: NumberDecimal('1.10') })); printjson(db.fresh.findOne());`,
  false,
);
add('insert', 'insertOne duplicate', `db.items.insertOne({ _id: 3 });`);
add(
  'insert',
  'insert legacy',
  `printjson(db.fresh.insert({ _id: 1 })); printjson(db.fresh.insert([{ _id: 2 }, { _id: 3 }]));`,
  false,
);

// update family
add(
  'update',
  'updateOne',
  `printjson(db.items.updateOne({ _id: 1 }, { $set: { s: 'x' } })); printjson(db.items.findOne({ _id: 1 }, { s: 1 }));`,
);
add('update', 'updateOne no match', `printjson(db.items.updateOne({ _id: 999 }, { $set: { s: 'x' } }));`);
add(
  'update',
  'updateOne upsert',
  `printjson(db.items.updateOne({ _id: 999 }, { $set: { s: 'x' } }, { upsert: true }));`,
);
add(
  'update',
  'updateMany',
  `printjson(db.items.updateMany({ tag: 'c' }, { $inc: { n: 100 } })); print(db.items.countDocuments({ n: { $gte: 100 } }));`,
);
add(
  'update',
  'updateMany pipeline',
  `printjson(db.items.updateMany({ _id: { $lt: 3 } }, [{ $set: { sum: { $add: ['$n', '$_id'] } } }])); print(db.items.find({ _id: { $lt: 3 } }, { sum: 1 }));`,
);
add(
  'update',
  'updateMany arrayFilters',
  `printjson(db.items.updateMany({ _id: 4 }, { $set: { 'nested.arr.$[x]': 0 } }, { arrayFilters: [{ x: { $eq: 4 } }] })); printjson(db.items.findOne({ _id: 4 }).nested);`,
);
add('update', 'update without operator', `db.items.updateOne({ _id: 1 }, { s: 1 });`);
add(
  'update',
  'replaceOne',
  `printjson(db.items.replaceOne({ _id: 5 }, { only: true })); printjson(db.items.findOne({ _id: 5 }));`,
);
add('update', 'replaceOne with operator', `db.items.replaceOne({ _id: 5 }, { $set: { a: 1 } });`);
add('update', 'replaceOne upsert', `printjson(db.items.replaceOne({ _id: 'new' }, { v: 1 }, { upsert: true }));`);
add(
  'update',
  'findOneAndUpdate before',
  `printjson(db.items.findOneAndUpdate({ _id: 6 }, { $inc: { n: 1 } }, { projection: { n: 1 } }));`,
);
add(
  'update',
  'findOneAndUpdate after',
  `printjson(db.items.findOneAndUpdate({ _id: 6 }, { $inc: { n: 1 } }, { returnDocument: 'after', projection: { n: 1 } }));`,
);
add(
  'update',
  'findOneAndUpdate returnNewDocument',
  `printjson(db.items.findOneAndUpdate({ n: 3 }, { $set: { hit: 1 } }, { sort: { _id: -1 }, returnNewDocument: true, projection: { hit: 1 } }));`,
);
add(
  'update',
  'findOneAndUpdate upsert',
  `printjson(db.items.findOneAndUpdate({ _id: 77 }, { $set: { v: 1 } }, { upsert: true, returnDocument: 'after' }));`,
);
add('update', 'findOneAndUpdate none', `printjson(db.items.findOneAndUpdate({ _id: 77 }, { $set: { v: 1 } }));`);
add(
  'update',
  'findOneAndReplace',
  `printjson(db.items.findOneAndReplace({ _id: 8 }, { r: 1 }, { returnDocument: 'after' }));`,
);
add(
  'update',
  'findOneAndDelete',
  `printjson(db.items.findOneAndDelete({ n: 5 }, { sort: { _id: -1 }, projection: { tag: 1 } })); print(db.items.countDocuments({ n: 5 }));`,
);
add(
  'update',
  'deleteOne deleteMany',
  `printjson(db.items.deleteOne({ n: 1 })); printjson(db.items.deleteMany({ n: 1 })); printjson(db.items.deleteMany({}));`,
);
add(
  'update',
  'upsert with $setOnInsert',
  `printjson(db.items.updateOne({ _id: 'u' }, { $setOnInsert: { created: ISODate('2026-01-01T00:00:00Z') } }, { upsert: true })); printjson(db.items.findOne({ _id: 'u' }));`,
);
add('update', 'update operator error', `db.items.updateOne({ _id: 1 }, { $inc: { tag: 1 } });`);
add('update', 'unknown operator', `db.items.updateOne({ _id: 1 }, { $frob: { tag: 1 } });`);

// indexes
add('index', 'createIndex name', `print(db.items.createIndex({ n: 1, tag: -1 }));`);
add(
  'index',
  'createIndex ttl',
  `print(db.items.createIndex({ at: 1 }, { expireAfterSeconds: 3600 })); printjson(db.items.getIndexes());`,
);
add(
  'index',
  'createIndex options',
  `print(db.items.createIndex({ tag: 1 }, { name: 'byTag', unique: false, sparse: true })); printjson(db.items.getIndexes()[1]);`,
);
add('index', 'createIndexes', `printjson(db.items.createIndexes([{ n: 1 }, { tag: 1 }, { 'nested.k': -1 }]));`);
add(
  'index',
  'createIndexes with options',
  `printjson(db.items.createIndexes([{ at: 1 }], { expireAfterSeconds: 60 })); printjson(db.items.getIndexes()[1]);`,
);
add('index', 'createIndex same twice', `print(db.items.createIndex({ n: 1 })); print(db.items.createIndex({ n: 1 }));`);
add(
  'index',
  'createIndex options conflict',
  `db.items.createIndex({ at: 1 }, { expireAfterSeconds: 60 }); db.items.createIndex({ at: 1 }, { expireAfterSeconds: 120 });`,
);
add(
  'index',
  'createIndex name conflict',
  `db.items.createIndex({ n: 1 }, { name: 'x' }); db.items.createIndex({ tag: 1 }, { name: 'x' });`,
);
add('index', 'createIndex unique violation', `db.items.createIndex({ tag: 1 }, { unique: true });`);
add('index', 'createIndex bad ttl', `db.items.createIndex({ at: 1 }, { expireAfterSeconds: -5 });`);
add('index', 'createIndex ttl string', `db.items.createIndex({ at: 1 }, { expireAfterSeconds: '60' });`);
add('index', 'getIndexes', `printjson(db.items.getIndexes());`);
add('index', 'getIndexKeys', `db.items.createIndex({ n: 1 }); printjson(db.items.getIndexKeys());`);
add(
  'index',
  'hideIndex by name',
  `db.items.createIndex({ n: 1 }); printjson(db.items.hideIndex('n_1')); printjson(db.items.getIndexes()[1]);`,
);
add(
  'index',
  'hideIndex by key',
  `db.items.createIndex({ n: 1 }); printjson(db.items.hideIndex({ n: 1 })); print(db.items.getIndexes()[1].hidden);`,
);
add(
  'index',
  'hideIndex twice',
  `db.items.createIndex({ n: 1 }); db.items.hideIndex('n_1'); printjson(db.items.hideIndex('n_1'));`,
);
add(
  'index',
  'unhideIndex',
  `db.items.createIndex({ n: 1 }, { hidden: true }); printjson(db.items.unhideIndex('n_1')); printjson(db.items.getIndexes()[1]);`,
);
add('index', 'hideIndex missing', `db.items.hideIndex('nope_1');`);
add('index', 'hideIndex _id', `db.items.hideIndex('_id_');`);
add(
  'index',
  'hidden index not used by hint',
  `db.items.createIndex({ n: 1 }, { hidden: true }); db.items.find().hint({ n: 1 }).toArray();`,
);
add(
  'index',
  'dropIndex by name',
  `db.items.createIndex({ n: 1 }); printjson(db.items.dropIndex('n_1')); printjson(db.items.getIndexes().length);`,
);
add('index', 'dropIndex by key', `db.items.createIndex({ n: 1 }); printjson(db.items.dropIndex({ n: 1 }));`);
add('index', 'dropIndex missing', `db.items.dropIndex('nope');`);
add(
  'index',
  'dropIndexes all',
  `db.items.createIndexes([{ n: 1 }, { tag: 1 }]); printjson(db.items.dropIndexes()); printjson(db.items.getIndexes().map((i) => i.name));`,
);
add(
  'index',
  'dropIndexes list',
  `db.items.createIndexes([{ n: 1 }, { tag: 1 }]); printjson(db.items.dropIndexes(['n_1', 'tag_1']));`,
);
add('index', 'dropIndexes star', `db.items.createIndexes([{ n: 1 }]); printjson(db.items.dropIndexes('*'));`);
add('index', 'dropIndexes missing', `db.items.dropIndexes('nope_1');`);
add(
  'index',
  'collMod ttl',
  `db.items.createIndex({ at: 1 }, { expireAfterSeconds: 60 }); printjson(db.runCommand({ collMod: 'items', index: { name: 'at_1', expireAfterSeconds: 120 } }));`,
);
add(
  'index',
  'collMod hidden',
  `db.items.createIndex({ at: 1 }); printjson(db.runCommand({ collMod: 'items', index: { keyPattern: { at: 1 }, hidden: true } }));`,
);

// stats, validate, rename, names, infos
add('admin', 'stats fields', `const s = db.items.stats(); print(s.ns, s.count, s.nindexes, typeof s.size, s.ok);`);
add(
  'admin',
  'stats with index',
  `db.items.createIndex({ n: 1 }); const s = db.items.stats(); print(s.nindexes, Object.keys(s.indexSizes));`,
);
add('admin', 'stats missing collection', `const s = db.nothing.stats(); print(s.ok, s.count);`);
add('admin', 'db stats fields', `const s = db.stats(); print(s.db, s.collections, s.objects, s.indexes, s.ok);`);
add(
  'admin',
  'validate',
  `const v = db.items.validate(); print(v.ns, v.valid, v.nrecords, v.nIndexes, v.errors.length, v.ok);`,
);
add('admin', 'validate full', `const v = db.items.validate({ full: true }); print(v.valid, v.nrecords);`);
add('admin', 'validate missing', `db.nothing.validate();`);
add(
  'admin',
  'renameCollection',
  `printjson(db.items.renameCollection('things')); print(db.getCollectionNames()); print(db.things.countDocuments());`,
);
add('admin', 'renameCollection existing target', `db.other.insertOne({ _id: 1 }); db.items.renameCollection('other');`);
add(
  'admin',
  'renameCollection dropTarget',
  `db.other.insertOne({ _id: 1 }); printjson(db.items.renameCollection('other', true)); print(db.other.countDocuments());`,
);
add('admin', 'renameCollection missing', `db.nothing.renameCollection('x');`, false);
add(
  'admin',
  'getCollectionNames',
  `db.b.insertOne({}); db.a.insertOne({}); db.createCollection('c'); printjson(db.getCollectionNames());`,
  false,
);
add(
  'admin',
  'getCollectionInfos filter',
  `db.createCollection('capped', { capped: true, size: 4096 }); db.createCollection('plain'); printjson(db.getCollectionInfos({ name: 'capped' }).map((i) => [i.name, i.type, i.options]));`,
  false,
);
add(
  'admin',
  'getCollectionInfos nameOnly',
  `db.createCollection('x'); db.createCollection('y'); printjson(db.getCollectionInfos({}, { nameOnly: true }));`,
  false,
);
add('admin', 'createCollection exists', `db.createCollection('x'); db.createCollection('x');`, false);
add('admin', 'createCollection result', `printjson(db.createCollection('x'));`, false);
add('admin', 'drop', `print(db.items.drop()); print(db.items.drop()); print(db.getCollectionNames());`);
add('admin', 'dropDatabase', `printjson(db.dropDatabase()); print(db.getCollectionNames());`);
add(
  'admin',
  'getCollection',
  `print(db.getCollection('items').countDocuments(), db.getCollection('items').getName());`,
);
add(
  'admin',
  'collection names as values',
  `print(db.items, db.getName(), db.items.getFullName(), db.items.getDB().getName());`,
);
add(
  'admin',
  'isCapped',
  `db.createCollection('cap', { capped: true, size: 4096 }); print(db.cap.isCapped(), db.items.isCapped());`,
);

// show, use, it
add('shell', 'show dbs', `show('dbs');`);
add(
  'shell',
  'show collections',
  `db.createCollection('b'); db.createCollection('a'); print(show('collections'));`,
  false,
);
add('shell', 'show databases value', `print(show('databases'));`);
add(
  'shell',
  'use',
  `print(use('other')); print(db.getName()); db.x.insertOne({ _id: 1 }); print(use('other')); print(use('test')); print(db.getName());`,
);
add('shell', 'use bad name', `use('has space');`, false);
add(
  'shell',
  'db assignment',
  `db = db.getSiblingDB('second'); db.x.insertOne({ _id: 1 }); print(db.getName(), db.x.countDocuments());`,
  false,
);
add('shell', 'show unknown', `show('nothing');`, false);

// printing values
const values: Array<[string, string]> = [
  ['long', `NumberLong('9007199254740993')`],
  ['long small', `NumberLong(5)`],
  ['int', `NumberInt(42)`],
  ['decimal', `NumberDecimal('123.4500')`],
  ['double', `Double(1.5)`],
  ['binary', `BinData(0, 'AAECAwQ=')`],
  ['binary subtype 3', `BinData(3, 'ASNFZ4mrze8BI0VniavN7w==')`],
  ['uuid', `UUID('0123456789abcdef0123456789abcdef')`],
  ['md5', `MD5('0123456789abcdef0123456789abcdef')`],
  ['objectid', `ObjectId('0123456789abcdef01234567')`],
  ['timestamp', `Timestamp({ t: 1700000000, i: 3 })`],
  ['minkey maxkey', `[MinKey(), MaxKey()]`],
  ['regex', `{ r: /ab+c/i, b: BSONRegExp('x', 'm') }`],
  ['date', `ISODate('2026-03-04T05:06:07.890Z')`],
  ['invalid date', `new Date('nope')`],
  ['nested arrays', `[1, [2, [3, [4, [5, [6, [7, [8]]]]]]]]`],
  ['nested objects', `{ a: { b: { c: { d: { e: { f: { g: { h: 1 } } } } } } } }`],
  ['array of 101', `Array.from({ length: 101 }, (_, i) => i)`],
  ['array of 250 strings', `Array.from({ length: 250 }, (_, i) => 's' + i)`],
  ['array of 7 numbers', `[1, 22, 333, 4444, 55555, 666666, 7777777]`],
  ['long string', `'x'.repeat(200)`],
  ['string with newline', `'a\\nb'`],
  ['string with control char', `'a\\u0001b'`],
  ['inspect custom', `{ [Symbol.for('nodejs.util.inspect.custom')]() { return 'CUSTOM'; } }`],
  ['nested inspect custom', `{ x: { [Symbol.for('nodejs.util.inspect.custom')]() { return 'INNER'; } } }`],
  ['map set', `[new Map([['a', 1]]), new Set([1, 2])]`],
  ['null undefined', `[null, undefined, true, -0, NaN, Infinity]`],
  ['sparse array', `[1, , 3]`],
  ['function', `function named() {}`],
  ['error', `new Error('boom')`],
  [
    'mixed document',
    `{ _id: 1, l: NumberLong(3), d: NumberDecimal('0.1'), b: BinData(0, 'AQ=='), when: ISODate('2026-01-01T00:00:00Z'), list: [NumberLong(1), [NumberDecimal('2')]] }`,
  ],
  ['wide document', `Object.fromEntries(Array.from({ length: 12 }, (_, i) => ['field' + i, i * 1000]))`],
  ['quoted keys', `{ 'with space': 1, 'dash-key': 2, $dollar: 3, '': 4 }`],
  ['symbol', `Symbol('s')`],
  ['bigint', `10n`],
];
for (const [label, expr] of values) {
  add('print', `print ${label}`, `print(${expr});`, false);
  add('printjson', `printjson ${label}`, `printjson(${expr});`, false);
}
add('print', 'console.log several', `console.log('a', 1, { b: [2] }, NumberLong(3));`, false);
add('print', 'print no arguments', `print();`, false);
add('print', 'printjson several', `printjson({ a: 1 }, [2]);`, false);
add('print', 'print documents read back', `print(db.items.findOne({ _id: 3 }));`);
add('print', 'printjson documents read back', `printjson(db.items.find({ _id: { $lt: 2 } }).toArray());`);
add(
  'print',
  'read back realm',
  `const d = db.items.findOne({ _id: 1 }); print(d instanceof Object, Array.isArray(d.nested.arr), d.at instanceof Date, typeof d.n);`,
);
add('print', 'JSON.stringify read back', `print(JSON.stringify(db.items.findOne({ _id: 1 })));`);
add(
  'print',
  'template literal',
  `const d = db.items.findOne({ _id: 2 }); print(\`id \${d._id} at \${d.at.toISOString()}\`);`,
);

// EJSON
add(
  'ejson',
  'stringify relaxed',
  `print(EJSON.stringify({ a: NumberLong('5'), d: ISODate('2026-01-01T00:00:00Z'), i: NumberInt(1), x: 1.5 }));`,
  false,
);
add(
  'ejson',
  'stringify canonical',
  `print(EJSON.stringify({ a: NumberLong('5'), i: NumberInt(1), x: 1.5 }, { relaxed: false }));`,
  false,
);
add(
  'ejson',
  'stringify indent',
  `print(EJSON.stringify({ a: [1, 2], o: ObjectId('0123456789abcdef01234567') }, null, 2));`,
  false,
);
add(
  'ejson',
  'parse',
  `printjson(EJSON.parse('{"a":{"$numberLong":"5"},"d":{"$date":"2026-01-01T00:00:00Z"},"o":{"$oid":"0123456789abcdef01234567"}}'));`,
  false,
);
add('ejson', 'parse relaxed false', `printjson(EJSON.parse('{"i":{"$numberInt":"3"}}', { relaxed: false }));`, false);
add(
  'ejson',
  'serialize deserialize',
  `printjson(EJSON.serialize({ l: NumberLong('9') })); printjson(EJSON.deserialize({ l: { $numberLong: '9' } }));`,
  false,
);
add('ejson', 'stringify read back', `print(EJSON.stringify(db.items.findOne({ _id: 3 })));`);
add('ejson', 'parse bad', `EJSON.parse('{ nope');`, false);

// BSON helpers
add(
  'bson',
  'ISODate forms',
  `print(ISODate('2026-01-02'), ISODate('2026-01-02T03:04:05'), ISODate('2026-01-02T03:04:05.678+02:00'));`,
  false,
);
add('bson', 'ISODate bad', `ISODate('not a date');`, false);
add(
  'bson',
  'ISODate methods',
  `const d = ISODate('2026-05-06T07:08:09Z'); print(d.getTime(), d.toISOString(), d.getUTCDay(), d instanceof Date);`,
  false,
);
add(
  'bson',
  'NumberLong methods',
  `const l = NumberLong('12345678901234'); print(l.toString(), l.toNumber(), l.add(NumberLong('1')), typeof l);`,
  false,
);
add(
  'bson',
  'NumberLong compare',
  `print(NumberLong('5').equals(NumberLong(5)), NumberLong('5').compare(NumberLong('6')), NumberLong('5') == 5);`,
  false,
);
add('bson', 'NumberInt', `const i = NumberInt('7'); print(i, i.valueOf(), typeof i);`, false);
add('bson', 'NumberDecimal', `const d = NumberDecimal('3.14159'); print(d, d.toString());`, false);
add(
  'bson',
  'ObjectId methods',
  `const o = ObjectId('650000000000000000000001'); print(o.toString(), o.toHexString(), o.getTimestamp(), o.equals(ObjectId('650000000000000000000001')), o.str);`,
  false,
);
add('bson', 'ObjectId bad', `ObjectId('xyz');`, false);
add('bson', 'ObjectId createFromTime', `print(ObjectId.createFromTime(1700000000).getTimestamp());`, false);
add(
  'bson',
  'ObjectId new length',
  `print(new ObjectId().toHexString().length, ObjectId.isValid('0123456789abcdef01234567'));`,
  false,
);
add(
  'bson',
  'UUID methods',
  `const u = UUID('01234567-89ab-cdef-0123-456789abcdef'); print(u.toHexString(), u.sub_type, u.length());`,
  false,
);
add('bson', 'UUID bad', `UUID('xyz');`, false);
add('bson', 'UUID new', `print(UUID().toHexString().length);`, false);
add('bson', 'Timestamp', `const t = Timestamp({ t: 5, i: 6 }); print(t, t.getHighBits(), t.getLowBits());`, false);
add('bson', 'BinData base64', `const b = BinData(0, 'aGVsbG8='); print(b.base64(), b.length(), b.sub_type);`, false);
add('bson', 'HexData', `print(HexData(0, '0a0b0c'));`, false);
add('bson', 'Code DBRef', `print(Code('function () { return 1; }'), DBRef('items', 3));`, false);
add('bson', 'bsonsize', `print(bsonsize({ a: 1 }));`, false);
add(
  'bson',
  'round trip types',
  `db.t.insertOne({ _id: 1, l: NumberLong('5'), i: NumberInt(5), d: NumberDecimal('5'), f: 5.5, b: BinData(0, 'AQ=='), u: UUID('0123456789abcdef0123456789abcdef'), ts: Timestamp({ t: 1, i: 1 }) }); printjson(db.t.findOne()); print(typeof db.t.findOne().i);`,
  false,
);

// getSiblingDB, adminCommand, runCommand
add(
  'db',
  'getSiblingDB',
  `const other = db.getSiblingDB('other'); other.c.insertOne({ _id: 1 }); print(other.getName(), other.c.countDocuments(), db.getName());`,
  false,
);
add('db', 'adminCommand ping', `printjson(db.adminCommand({ ping: 1 }));`, false);
add('db', 'adminCommand string', `printjson(db.adminCommand('ping'));`, false);
add(
  'db',
  'adminCommand listDatabases',
  `db.a.insertOne({}); db.getSiblingDB('b').c.insertOne({}); print(db.adminCommand({ listDatabases: 1, nameOnly: true }).databases.map((d) => d.name).sort());`,
  false,
);
add('db', 'runCommand count', `printjson(db.runCommand({ count: 'items', query: { n: 1 } }));`);
add(
  'db',
  'runCommand find',
  `printjson(db.runCommand({ find: 'items', filter: { _id: 3 }, projection: { tag: 1 } }).cursor.firstBatch);`,
);
add('db', 'runCommand unknown', `printjson(db.runCommand({ nope: 1 }));`, false);
add('db', 'runCommand unknown thrown', `db.adminCommand({ nope: 1 }).ok;`, false);
add(
  'db',
  'getCollectionNames other db',
  `db.getSiblingDB('x').y.insertOne({}); print(db.getSiblingDB('x').getCollectionNames());`,
  false,
);
add('db', 'db getMongo', `print(typeof db.getMongo());`, false);

// sleep and the clock
add('time', 'sleep moves the clock', `const before = new Date(); sleep(90 * 1000); print(new Date() - before);`, false);
add(
  'time',
  'sleep runs ttl',
  `db.s.createIndex({ at: 1 }, { expireAfterSeconds: 30 }); db.s.insertOne({ at: new Date() }); sleep(30 * 1000); print(db.s.countDocuments()); sleep(61 * 1000); print(db.s.countDocuments());`,
  false,
);
add('time', 'Date now', `print(new Date(), Date.now() === new Date().getTime());`, false);

// errors as scripts see them
add('errors', 'type error', `null.x;`, false);
add('errors', 'reference error', `nope();`, false);
add('errors', 'thrown string', `throw 'plain';`, false);
add('errors', 'thrown error', `throw new Error('mine');`, false);
add(
  'errors',
  'caught server error fields',
  `try { db.items.insertOne({ _id: 1 }); } catch (e) { print(e.name, e.code, e.codeName, e.message); }`,
);
add(
  'errors',
  'caught bulk error fields',
  `try { db.items.insertMany([{ _id: 1 }]); } catch (e) { print(e.name, e.code, e.codeName, e.writeErrors[0].index, e.result.insertedCount); }`,
);
add(
  'errors',
  'server error instanceof',
  `try { db.items.insertOne({ _id: 1 }); } catch (e) { print(e instanceof Error, e instanceof MongoServerError); }`,
);
add('errors', 'invalid namespace', `db.getCollection('').find().toArray();`, false);
add('errors', 'query operator error', `db.items.find({ $nope: 1 }).toArray();`);
add('errors', 'sort error', `db.items.find().sort({ n: 2 }).toArray();`);

export const generatedScripts: ParityScript[] = scripts;
