/**
 * The batch-delete snippet offered before a TTL change on a big collection (issue 21): a playground
 * notebook bound to the connection the preview ran on, whose cells, run by mongosh's own runtime
 * against the wire endpoint, count exactly the documents the TTL index would make eligible (the
 * partial filter included) and delete those, batch by batch, and nothing else.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MongoClient } from 'mongodb';
import type { PlaygroundSession } from '../../../src/extension/backend/backend';
import { openMongoshSession } from '../../../src/extension/backend/mongosh-session';
import { batchDeleteSnippet } from '../../../src/extension/logic/batch-delete-snippet';
import { connectionRequestOf } from '../../../src/extension/logic/notebook-connection';
import { codeCells, parseTtlbook } from '../../../src/formats/ttlbook';
import { startServer, type RunningServer } from '../../../src/wire';

const HOUR = 3_600_000;

async function runCell(session: PlaygroundSession, source: string): Promise<{ texts: string[]; ok: boolean }> {
  const texts: string[] = [];
  let ok = true;
  for await (const e of session.run(source)) {
    if (e.kind === 'print') texts.push(e.text);
    else {
      ok &&= e.ok;
      for (const o of e.outputs) texts.push(o.text);
    }
  }
  return { texts, ok };
}

describe('batch-delete snippet', () => {
  let server: RunningServer;
  let client: MongoClient;
  let session: PlaygroundSession;

  before(async () => {
    server = await startServer({});
    client = new MongoClient(server.uri);
    const now = Date.now();
    // 30 hourly dates, kinds a/b alternating: 10 h or older are those i ≥ 10 (20), kind a among them 10.
    await client
      .db('shop')
      .collection<{ _id: number; at: Date; kind: string }>('carts')
      .insertMany(
        Array.from({ length: 30 }, (_, i) => ({
          _id: i,
          at: new Date(now - i * HOUR - 60_000),
          kind: i % 2 ? 'b' : 'a',
        })),
      );
    session = await openMongoshSession({ uri: server.uri });
  });

  after(async () => {
    session.dispose();
    await client.close();
    await server.stop();
  });

  test('the notebook is bound to the connection the preview ran on, and says where its cells run', () => {
    const text = batchDeleteSnippet({
      db: 'shop',
      collection: 'carts',
      field: 'at',
      expireAfterSeconds: 36_000,
      connection: 'staging',
    });
    const book = parseTtlbook(text);
    assert.deepEqual(connectionRequestOf(book.metadata), { connection: 'staging' });
    assert.match(book.cells[0].source, /run on the connection \*\*staging\*\*/);
    const embedded = parseTtlbook(
      batchDeleteSnippet({ db: 'shop', collection: 'carts', field: 'at', expireAfterSeconds: 60 }),
    );
    assert.deepEqual(connectionRequestOf(embedded.metadata), {});
  });

  test('its cells count exactly the eligible documents (partial filter included) and delete those in batches, nothing else', async () => {
    const text = batchDeleteSnippet({
      db: 'shop',
      collection: 'carts',
      field: 'at',
      expireAfterSeconds: 10 * 3600,
      partialFilterExpression: { kind: 'a' },
      connection: 'staging',
      batchSize: 3,
      pauseMs: 1,
    });
    const [define, count, remove] = codeCells(parseTtlbook(text)).map((c) => c.source);
    assert.equal((await runCell(session, define)).ok, true);
    assert.equal((await runCell(session, define)).ok, true, 'the first cell runs again');
    assert.deepEqual((await runCell(session, count)).texts, ['10']);
    const removed = await runCell(session, remove);
    assert.equal(removed.ok, true, removed.texts.join('\n'));
    assert.deepEqual(removed.texts, ['deleted 10 documents']);
    const left = await client
      .db('shop')
      .collection('carts')
      .find({}, { projection: { _id: 1 } })
      .sort({ _id: 1 })
      .toArray();
    const expected = Array.from({ length: 30 }, (_, i) => i).filter((i) => !(i >= 10 && i % 2 === 0));
    assert.deepEqual(
      left.map((d) => d._id),
      expected,
    );
    assert.deepEqual((await runCell(session, count)).texts, ['0'], 'nothing eligible is left');
  });
});
