/**
 * What one connection may hold up or take: a 48,000,000-byte frame that arrives slowly does not
 * stall the others, and a client that sends without reading its replies (back-pressure) gets no
 * more read from it once WRITE_HIGH_WATER bytes of replies wait, so the memory it holds stays
 * bounded; everything it sent is still answered, in order, once it reads.
 */
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { MongoClient } from 'mongodb';
import { Engine } from '../../../src/engine';
import { startServer, WireServer, type RunningServer } from '../../../src/wire';
import { WRITE_HIGH_WATER, type WireConnection } from '../../../src/wire/connection';
import { bson, opMsg, RawClient } from './raw-client';

const MAX_MESSAGE_BYTES = 48_000_000;

/** A valid OP_MSG of exactly 48,000,000 bytes: an insert with a sequence of 1 MB documents. */
function bigInsert(requestID: number): { frame: Buffer; documents: number } {
  const body = bson({ insert: 'big', $db: 'slow' });
  const fixed = 16 + 4 + 1 + body.length + 1 + 4 + 'documents\0'.length;
  const room = MAX_MESSAGE_BYTES - fixed;
  // Documents {_id: n, s: 'x' * k} of 22 + k bytes (n an int32), about 1 MB each.
  const count = Math.ceil(room / 1_000_000);
  const docs: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const size = i < count - 1 ? Math.floor(room / count) : room - Math.floor(room / count) * (count - 1);
    docs.push(bson({ _id: i, s: 'x'.repeat(size - 22) }));
  }
  const frame = opMsg({ requestID, body, sequences: [{ identifier: 'documents', documents: docs }] });
  assert.equal(frame.length, MAX_MESSAGE_BYTES);
  return { frame, documents: docs.length };
}

describe('wire limits: a slow 48 MB frame', () => {
  let server: RunningServer;
  let client: MongoClient;

  before(async () => {
    server = await startServer();
    client = new MongoClient(server.uri, { maxPoolSize: 2 });
    await client.connect();
  });

  after(async () => {
    await client.close();
    await server.stop();
  });

  it('other connections go on while it arrives; then it is read whole and answered', async () => {
    const { frame, documents } = bigInsert(77);
    const raw = await RawClient.connect(server.port);
    const coll = client.db('load').collection('c');
    await coll.insertOne({ warm: true });
    let sending = true;
    const latencies: number[] = [];
    const load = (async () => {
      for (let i = 0; sending; i++) {
        const t = performance.now();
        await coll.insertOne({ i });
        await coll.findOne({ i });
        latencies.push(performance.now() - t);
      }
    })();
    // About 2 s: 375 pieces of 128 KB, 5 ms apart; all but the last piece first.
    const piece = 128 * 1024;
    let at = 0;
    for (; at + piece < frame.length; at += piece) {
      raw.socket.write(frame.subarray(at, at + piece));
      await new Promise((r) => setTimeout(r, 5));
    }
    sending = false;
    await load;
    latencies.sort((a, b) => a - b);
    const p50 = latencies[Math.floor(latencies.length / 2)];
    const max = latencies[latencies.length - 1];
    assert.ok(latencies.length > 50, `only ${latencies.length} operations while the frame arrived`);
    assert.ok(p50 < 20, `p50 ${p50.toFixed(1)} ms while the frame arrived`);
    assert.ok(max < 500, `max ${max.toFixed(1)} ms while the frame arrived`);
    assert.equal(raw.replies.length, 0);

    raw.socket.write(frame.subarray(at));
    const done = await raw.until(() => raw.replies.length > 0 || raw.closed, 30_000);
    assert.ok(done, 'answered or closed');
    assert.equal(raw.replies.length, 1, 'answered');
    assert.equal(raw.replies[0].responseTo, 77);
    assert.equal(raw.replies[0].doc.ok, 1);
    assert.equal(raw.replies[0].doc.n, documents);
    raw.destroy();
    await client.db('slow').dropDatabase();
  });

  it('a client that leaves halfway through a 48 MB frame takes its buffered bytes with it', async () => {
    const before = server.connections;
    const raw = await RawClient.connect(server.port);
    const { frame } = bigInsert(78);
    raw.socket.write(frame.subarray(0, 20_000_000));
    await new Promise((r) => setTimeout(r, 100));
    raw.destroy();
    for (let i = 0; i < 100 && server.connections > before; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(server.connections, before);
  });
});

describe('wire limits: back-pressure', () => {
  it('a client that does not read its replies is not read from past WRITE_HIGH_WATER; then all are answered', async () => {
    const engine = new Engine();
    const connections: WireConnection[] = [];
    const server = new WireServer({ engine, onConnection: (c) => connections.push(c) });
    const { port } = await server.start();
    try {
      // A 200 KB document: each find of it is a 200 KB reply to a ~60-byte request.
      engine.runCommand('app', { insert: 'c', documents: [{ _id: 1, s: 'x'.repeat(200_000) }] });
      const requests = 2000; // 400 MB of replies if nothing held them back
      const frames = Buffer.concat(
        Array.from({ length: requests }, (_, i) =>
          opMsg({ requestID: i + 1, body: bson({ find: 'c', filter: { _id: 1 }, $db: 'app' }) }),
        ),
      );
      const socket = net.connect(port, '127.0.0.1');
      await new Promise((r) => socket.once('connect', r));
      socket.pause(); // reads nothing (only what fills the kernel's and the stream's buffers)
      socket.write(frames);
      const served = () => engine.opcounters.query;
      let maxWaiting = 0;
      let last = -1;
      // Sample until the server stops answering (it is held back), for at most 3 s.
      for (let i = 0; i < 300; i++) {
        await new Promise((r) => setTimeout(r, 10));
        maxWaiting = Math.max(maxWaiting, connections[0]?.socket.writableLength ?? 0);
        if (served() === last && i > 20) break;
        last = served();
      }
      assert.ok(served() < requests, `all ${requests} requests were read without their replies being read`);
      const bound = WRITE_HIGH_WATER + 2 * 200_100;
      assert.ok(maxWaiting <= bound, `${maxWaiting} bytes waited for the client (bound ${bound})`);

      // The client reads now: every request is answered, in order.
      let pending = Buffer.alloc(0);
      const responseTos: number[] = [];
      socket.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= 4 && pending.length >= pending.readInt32LE(0)) {
          responseTos.push(pending.readInt32LE(8));
          maxWaiting = Math.max(maxWaiting, connections[0].socket.writableLength);
          pending = pending.subarray(pending.readInt32LE(0));
        }
      });
      socket.resume();
      for (let i = 0; i < 1000 && responseTos.length < requests; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(responseTos.length, requests);
      assert.deepEqual(
        responseTos,
        Array.from({ length: requests }, (_, i) => i + 1),
      );
      assert.ok(maxWaiting <= bound, `${maxWaiting} bytes waited for the client (bound ${bound})`);
      socket.destroy();
    } finally {
      await server.stop();
      engine.close();
    }
  });
});
