/**
 * Playground cells on a connection run through mongosh's own runtime (issue 21): the real
 * `@mongosh/shell-evaluator`, `@mongosh/shell-api` and `@mongosh/service-provider-node-driver`
 * against the wire endpoint (`startServer`, port 0), so every answer crosses a real socket and
 * every text is mongosh's formatter's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { PlaygroundEvent, PlaygroundSession } from '../../../src/extension/backend/backend';
import { openMongoshSession } from '../../../src/extension/backend/mongosh-session';
import type { CellOutput } from '../../../src/shell/cell-outputs';
import { startServer, type RunningServer } from '../../../src/wire';

async function run(
  session: PlaygroundSession,
  source: string,
  signal?: AbortSignal,
): Promise<{ prints: string[]; outputs: CellOutput[]; ok?: boolean; complete: boolean; order: string[] }> {
  const prints: string[] = [];
  const outputs: CellOutput[] = [];
  const order: string[] = [];
  let ok: boolean | undefined;
  const gen = session.run(source, { filename: 'cell 1', ...(signal ? { signal } : {}) });
  for (;;) {
    const step = await gen.next();
    if (step.done) return { prints, outputs, ok, complete: step.value.complete, order };
    const e: PlaygroundEvent = step.value;
    order.push(e.kind);
    if (e.kind === 'print') prints.push(e.text);
    else {
      ok = e.ok;
      outputs.push(...e.outputs);
    }
  }
}

describe('mongosh runtime on a connection', () => {
  let server: RunningServer;
  let session: PlaygroundSession;

  before(async () => {
    server = await startServer({});
    session = await openMongoshSession({ uri: server.uri });
  });

  after(async () => {
    session.dispose();
    await server.stop();
  });

  test('a cell prints its lines first, then its last value as mongosh formats it', async () => {
    const use = await run(session, 'use app');
    assert.equal((use.outputs[0] as { text: string }).text, 'switched to db app');
    assert.equal(session.dbName, 'app');
    const r = await run(
      session,
      'print("inserting", 2)\nconst ids = db.events.insertMany([{_id: 1, t: new Date(0)}, {_id: 2}]).insertedIds\nids',
    );
    assert.equal(r.ok, true);
    assert.deepEqual(r.prints, ['inserting 2']);
    assert.deepEqual(r.order, ['print', 'statement', 'statement', 'statement']);
    assert.equal(r.outputs.length, 1, 'a declaration prints nothing, as in mongosh');
    assert.equal((r.outputs[0] as { text: string }).text, "{ '0': 1, '1': 2 }");
  });

  test('a find prints a document list as mongosh does, with relaxed EJSON for the table', async () => {
    const r = await run(session, 'db.events.find().sort({_id: 1})');
    const out = r.outputs[0] as Extract<CellOutput, { kind: 'value' }>;
    assert.equal(out.shape, 'documents');
    assert.equal(out.text, "[ { _id: 1, t: ISODate('1970-01-01T00:00:00.000Z') }, { _id: 2 } ]");
    assert.deepEqual(out.json, [{ _id: 1, t: { $date: '1970-01-01T00:00:00Z' } }, { _id: 2 }]);
    assert.equal(out.hasMore, false);
  });

  test('a cursor with more than one batch says Type "it" for more, as mongosh does', async () => {
    await run(session, 'db.many.insertMany(Array.from({length: 25}, (_, i) => ({_id: i})))');
    const r = await run(session, 'db.many.find()');
    const out = r.outputs[0] as Extract<CellOutput, { kind: 'value' }>;
    assert.equal(out.hasMore, true);
    assert.match(out.text, /Type "it" for more$/);
    assert.equal((out.json as unknown[]).length, 20);
  });

  test('variables and the current database persist from one cell to the next', async () => {
    const first = await run(session, "const limit = 7; use('other')");
    assert.equal(first.ok, true, JSON.stringify(first.outputs));
    const r = await run(session, 'limit * 6');
    assert.equal((r.outputs[0] as { text: string }).text, '42');
    assert.equal(session.dbName, 'other');
    await run(session, "use('app')");
  });

  test('a server error shows as mongosh shows it, with its code and codeName', async () => {
    const r = await run(session, 'db.events.insertOne({_id: 1})');
    assert.equal(r.ok, false);
    const err = r.outputs[0] as Extract<CellOutput, { kind: 'error' }>;
    assert.equal(err.kind, 'error');
    assert.equal(err.code, 11000);
    assert.equal(err.codeName, 'DuplicateKey');
    assert.match(err.text, /^MongoServerError\[DuplicateKey\]: E11000 duplicate key error/);
  });

  test('a TTL index created from a cell is on the server, as createIndex answers in mongosh', async () => {
    const r = await run(session, 'db.events.createIndex({t: 1}, {expireAfterSeconds: 3600})');
    assert.equal((r.outputs[0] as { text: string }).text, 't_1');
    const listed = await run(session, 'db.events.getIndexes().find(i => i.name === "t_1").expireAfterSeconds');
    assert.equal((listed.outputs[0] as { text: string }).text, '3600');
  });

  test('undefined and an empty cursor print nothing', async () => {
    assert.deepEqual((await run(session, 'const nothing = undefined; nothing')).outputs, []);
    assert.deepEqual((await run(session, 'db.none.find()')).outputs, []);
  });

  test('an interrupt ends a running cell: the run is not complete and the session runs the next cell', async () => {
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 300);
    const t0 = Date.now();
    const r = await run(session, 'sleep(20000); print("not reached")', stop.signal);
    assert.equal(r.complete, false);
    assert.ok(Date.now() - t0 < 10_000, 'the sleep was cut short');
    assert.ok(!r.prints.includes('not reached'));
    assert.equal((await run(session, '1 + 1')).outputs[0].kind, 'value');
  });

  test('a refused connection says mongosh could not connect, with HostUnreachable (6) and no password', async () => {
    await assert.rejects(
      openMongoshSession({
        uri: 'mongodb://user:s3cret@127.0.0.1:1/?serverSelectionTimeoutMS=500',
        redact: (s) => s.split('s3cret').join('****'),
      }),
      (err: { code?: number; codeName?: string; message: string }) => {
        assert.equal(err.code, 6);
        assert.equal(err.codeName, 'HostUnreachable');
        assert.match(err.message, /mongosh could not connect/);
        assert.doesNotMatch(err.message, /s3cret/);
        return true;
      },
    );
  });
});
