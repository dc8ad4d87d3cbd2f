/**
 * dbHash: an MD5 per collection over its documents' BSON in `_id` order (natural order for a
 * collection without an `_id` index), and one over those hashes in name order, as mongod computes
 * them, so two databases with the same data answer the same hashes. Views have no documents and
 * are left out, as mongod leaves them out.
 */
import { createHash } from 'node:crypto';
import { serialize } from 'bson';
import type { Collection } from '../catalog/collection';
import { fail } from '../errors';
import { compareValues } from '../values/compare';
import { bsonTypeOf, type Document } from '../values/types';
import type { CommandContext, CommandHandler } from './context';

function collectionHash(coll: Collection): string {
  const md5 = createHash('md5');
  const docs = [...coll.scanRecords()].map((r) => r.doc);
  if (coll.idIndex && !coll.isClustered) docs.sort((a, b) => compareValues(a._id, b._id));
  for (const doc of docs) md5.update(serialize(doc));
  return md5.digest('hex');
}

function wantedCollections(cmd: Document): Set<string> | undefined {
  const list = cmd.collections;
  if (!Array.isArray(list)) return undefined;
  for (const name of list)
    if (typeof name !== 'string')
      fail('BadValue', `collections entries have to be strings, found ${bsonTypeOf(name)}: list collection names.`);
  return new Set(list as string[]);
}

function dbHash({ engine, dbName }: CommandContext, cmd: Document): Document {
  // A string in the first field would name a namespace below the database: never a valid one.
  const first = cmd[Object.keys(cmd)[0]];
  if (typeof first === 'string')
    fail('InvalidNamespace', `Invalid db name: ${dbName}.${first}. Run {dbHash: 1} on the database to hash.`);
  const wanted = wantedCollections(cmd);
  const colls = [...(engine.getDatabase(dbName)?.collections.values() ?? [])]
    .filter((c) => !c.isView && (wanted === undefined || wanted.has(c.name)))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const collections: Document = {};
  const uuids: Document = {};
  const capped: string[] = [];
  const all = createHash('md5');
  for (const coll of colls) {
    const hash = collectionHash(coll);
    Object.defineProperty(collections, coll.name, { value: hash, enumerable: true, writable: true });
    Object.defineProperty(uuids, coll.name, { value: coll.uuid, enumerable: true, writable: true });
    if (coll.isCapped) capped.push(coll.name);
    all.update(hash);
  }
  return { host: 'localhost', collections, capped, uuids, md5: all.digest('hex'), timeMillis: 0, ok: 1 };
}

export const dbHashCommands: Record<string, CommandHandler> = { dbHash };
