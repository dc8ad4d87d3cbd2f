/**
 * Test helpers: an engine's whole visible state as one comparable string, and a check that every
 * index holds exactly the entries its documents call for (no stale entry, none missing).
 */
import assert from 'node:assert/strict';
import { EJSON } from 'bson';
import type BTree from 'sorted-btree';
import type { Document, Engine } from '../../../src/engine';

/** Everything a user can see of an engine, as canonical EJSON (types included). */
export function dump(engine: Engine): string {
  const out: Document = {};
  const dbs = (engine.runCommand('admin', { listDatabases: 1, nameOnly: true }).databases as Document[])
    .map((d) => String(d.name))
    .sort();
  for (const db of dbs) {
    const colls = ((engine.runCommand(db, { listCollections: 1 }).cursor as Document).firstBatch as Document[])
      .map((c): Document => ({ ...c, info: { ...(c.info as Document), uuid: undefined } }))
      .sort((a, b) => String(a.name).localeCompare(String(b.name)));
    for (const c of colls) {
      const name = String(c.name);
      const ns = `${db}.${name}`;
      const indexes = (engine.runCommand(db, { listIndexes: name }).cursor as Document).firstBatch;
      const docs = (engine.runCommand(db, { find: name, batchSize: 100_000 }).cursor as Document).firstBatch;
      out[ns] = { options: c.options, type: c.type, indexes, docs };
    }
  }
  out.params = engine.runCommand('admin', { getParameter: '*' });
  out.ttl = engine.ttlMetrics;
  return EJSON.stringify(out, { relaxed: false });
}

/** Every secondary index of every collection: a valid tree whose entries are exactly its documents' keys; `_id` finds each document. */
export function assertIndexesAgree(engine: Engine, context = ''): void {
  for (const db of engine.databases.values()) {
    for (const coll of db.collections.values()) {
      const live = new Set<number>();
      for (const record of coll.records.values()) live.add(record.rid);
      for (const index of coll.indexes.values()) {
        const tree = (index as { tree?: BTree<unknown[], { rid: number; doc: Document }> }).tree;
        if (index.name === '_id_' || !tree) continue;
        tree.checkValid(true);
        const perRid = new Map<number, number>();
        tree.forEachPair((_key, record) => {
          assert.ok(
            live.has(record.rid),
            `${context}${coll.ns} ${index.name}: an entry of a removed document (rid ${record.rid})`,
          );
          perRid.set(record.rid, (perRid.get(record.rid) ?? 0) + 1);
        });
        for (const record of coll.records.values()) {
          const keys = index.keysOf(record.doc);
          assert.equal(
            perRid.get(record.rid) ?? 0,
            keys ? keys.length : 0,
            `${context}${coll.ns} ${index.name}: entries of rid ${record.rid}`,
          );
        }
      }
      if (!coll.indexes.has('_id_')) continue;
      for (const record of coll.records.values()) {
        const found = engine.runCommand(db.name, { find: coll.name, filter: { _id: record.doc._id }, batchSize: 2 });
        assert.equal(
          ((found.cursor as Document).firstBatch as Document[]).length,
          1,
          `${context}${coll.ns}: _id ${EJSON.stringify({ id: record.doc._id })} found once`,
        );
      }
    }
  }
}
