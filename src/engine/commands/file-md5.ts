/**
 * filemd5: the MD5 of a GridFS file, read from `<root>.chunks` in `n` order through the
 * `{files_id: 1, n: 1}` index mongod requires for it. `partialOk` stops quietly at a gap and hands
 * back nothing to resume from: the engine cannot serialize an MD5 in progress, so `md5state` is
 * accepted only to be checked, as mongod checks it.
 */
import { createHash } from 'node:crypto';
import type { Binary } from 'bson';
import { fail } from '../errors';
import { valuesEqual } from '../values/compare';
import { toDouble } from '../values/numbers';
import { bsonClassOf, bsonTypeOf, isNumeric, type Document } from '../values/types';
import type { CommandContext, CommandHandler } from './context';

function hasChunkIndex(keys: Document[]): boolean {
  return keys.some((key) => valuesEqual(key, { files_id: 1, n: 1 }));
}

function fileMd5({ engine, dbName }: CommandContext, cmd: Document): Document {
  const filesId = cmd.filemd5;
  const root = cmd.root === undefined ? 'fs' : cmd.root;
  if (typeof root !== 'string') fail('TypeMismatch', `filemd5's root must be a string, got ${bsonTypeOf(root)}.`);
  const partialOk = cmd.partialOk !== undefined && cmd.partialOk !== false && cmd.partialOk !== 0;
  if (partialOk && cmd.md5state !== undefined && bsonClassOf(cmd.md5state) !== 'Binary')
    fail(50847, `md5state must be BinData, but type ${bsonTypeOf(cmd.md5state)} was found.`);
  let n = cmd.startAt === undefined ? 0 : isNumeric(cmd.startAt) ? Math.trunc(toDouble(cmd.startAt)) : 0;
  const chunks = engine.getCollection(dbName, `${root}.chunks`);
  // No chunks collection: nothing to read and no plan to refuse, so the file is empty.
  if (!chunks) return { numChunks: n, md5: createHash('md5').digest('hex'), ok: 1 };
  if (!hasChunkIndex([...chunks.indexes.values()].map((i) => i.spec.key as Document)))
    fail('BadValue', `filemd5 needs an index on {files_id: 1, n: 1} in ${dbName}.${root}.chunks: create it first.`);
  const docs = [...chunks.scanRecords()]
    .map((r) => r.doc)
    .filter((d) => valuesEqual(d.files_id, filesId) && isNumeric(d.n) && toDouble(d.n) >= n)
    .sort((a, b) => toDouble(a.n) - toDouble(b.n));
  const md5 = createHash('md5');
  for (const chunk of docs) {
    if (Math.trunc(toDouble(chunk.n)) !== n) {
      if (partialOk) break;
      fail('BadValue', `chunks out of order at n ${n} of file ${JSON.stringify(filesId)}: a chunk is missing.`);
    }
    if (!Object.hasOwn(chunk, 'data'))
      fail(
        50848,
        `chunk ${n} of file ${JSON.stringify(filesId)} has no 'data' field: every chunk holds its bytes in data.`,
      );
    if (bsonClassOf(chunk.data) !== 'Binary')
      fail(50849, `chunk ${n}'s 'data' must be BinData, but type ${bsonTypeOf(chunk.data)} was found.`);
    const data = chunk.data as Binary;
    md5.update(data.buffer.subarray(0, data.position));
    n++;
  }
  return { numChunks: n, md5: md5.digest('hex'), ok: 1 };
}

export const fileMd5Commands: Record<string, CommandHandler> = { filemd5: fileMd5 };
