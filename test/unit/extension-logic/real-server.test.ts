/**
 * The driver Backend's tree, TTL commands and preview against whatever real servers this machine
 * can reach: always the wire endpoint (`startServer`, system clock), and also a real `mongod`
 * when one is there — `TTL_WORKBENCH_MONGOD_URI` (a server you run), or one that
 * mongodb-memory-server-core downloads. Offline (CI, this project's machines) the download fails
 * and that part is skipped with a plain notice; the endpoint's part always runs, so the checks
 * themselves are never dead code. Only what a real mongod does alike is asserted: server time,
 * no virtual clock, no engine internals.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DriverBackend } from '../../../src/extension/backend/driver-backend';
import { startServer } from '../../../src/wire';

const HOUR = 3_600_000;
/** How long a mongod download may take before the real-server part gives up (online it is seconds). */
const DOWNLOAD_BUDGET_MS = 120_000;

interface Target {
  uri: string;
  stop(): Promise<void>;
}

/** A real mongod, or why there is none. */
async function realMongod(): Promise<Target | string> {
  const given = process.env.TTL_WORKBENCH_MONGOD_URI;
  if (given) return { uri: given, stop: async () => undefined };
  try {
    const { MongoMemoryServer } = await import('mongodb-memory-server-core');
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no mongod after ${DOWNLOAD_BUDGET_MS / 1000} s`)), DOWNLOAD_BUDGET_MS);
    });
    const server = await Promise.race([MongoMemoryServer.create(), budget]).finally(() => clearTimeout(timer));
    return { uri: server.getUri(), stop: async () => void (await server.stop()) };
  } catch (err) {
    // mongodb-memory-server's DownloadError keeps the network's answer (ENOTFOUND offline) in `msg`.
    const e = err as Error & { msg?: string };
    return [e.message.split('\n')[0].replace(/,? Details:$/, ''), e.msg].filter(Boolean).join(': ');
  }
}

function checksOn(name: string, target: () => Promise<Target | string>): void {
  describe(`DriverBackend on ${name}`, () => {
    let t: Target | undefined;
    let skipped: string | undefined;
    let backend: DriverBackend;
    const db = `ttl_workbench_it_${process.pid}`;

    before(async () => {
      const got = await target();
      if (typeof got === 'string') {
        skipped = got;
        console.log(
          `real-server.test: skipped the real mongod part — no mongod here (${got}). Set TTL_WORKBENCH_MONGOD_URI to run it against one.`,
        );
        return;
      }
      t = got;
      backend = new DriverBackend({
        uri: t.uri,
        label: name,
        redact: (s) => s,
        monitorRefreshMs: 0,
        clientOptions: { serverSelectionTimeoutMS: 5000 },
      });
      await backend.connect();
      const now = (await backend.clock()).now.getTime();
      const docs = Array.from({ length: 10 }, (_, i) => ({ _id: i, t: new Date(now - (i + 0.5) * HOUR) }));
      await backend.runCommand(db, { insert: 'events', documents: docs });
    });

    after(async () => {
      if (!t) return;
      await backend.runCommand(db, { dropDatabase: 1 }).catch(() => undefined);
      backend.dispose();
      await t.stop();
    });

    test('the server: a driver backend with a system clock that cannot be advanced', async (c) => {
      if (skipped) return c.skip(skipped);
      const info = await backend.info();
      assert.equal(info.kind, 'driver');
      assert.equal(info.server?.canWrite, true);
      const clock = await backend.clock();
      assert.equal(clock.canAdvance, false);
      assert.ok(Math.abs(clock.now.getTime() - Date.now()) < 60_000, 'the server time is the real time');
    });

    test('rule 7.7: Create TTL Index, then the tree lists it and the preview counts what the next pass deletes', async (c) => {
      if (skipped) return c.skip(skipped);
      await backend.runCommand(db, {
        createIndexes: 'events',
        indexes: [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 3 * 3600 }],
      });
      const colls = await backend.listCollections(db);
      assert.equal(colls.find((x) => x.name === 'events')?.count, 10);
      const [, ttl] = await backend.listIndexes(db, 'events');
      assert.equal(Number(ttl.spec.expireAfterSeconds), 3 * 3600);
      const r = await backend.expiryCounts(ttl, 3 * 3600);
      assert.ok(r.ok, JSON.stringify(r));
      // Dates now−0.5 h … now−9.5 h; older than 3 h: i = 3..9.
      if (r.ok) assert.equal(r.counts.expiredNow, 7);
    });

    test('rule 3.1: Change expireAfterSeconds with collMod, as the server reports it back', async (c) => {
      if (skipped) return c.skip(skipped);
      const reply = await backend.runCommand(db, {
        collMod: 'events',
        index: { keyPattern: { t: 1 }, expireAfterSeconds: 3600 },
      });
      assert.equal(Number(reply.expireAfterSeconds_old), 3 * 3600);
      assert.equal(Number(reply.expireAfterSeconds_new), 3600);
      const [, ttl] = await backend.listIndexes(db, 'events');
      assert.equal(Number(ttl.spec.expireAfterSeconds), 3600);
    });

    test('the TTL monitor node from serverStatus and getParameter', async (c) => {
      if (skipped) return c.skip(skipped);
      const status = await backend.monitorStatus();
      assert.equal(typeof status.enabled, 'boolean');
      assert.equal(typeof status.sleepSecs, 'number');
      assert.equal(typeof status.passes, 'number');
    });
  });
}

checksOn('the wire endpoint (system clock)', async () => {
  const server = await startServer();
  return { uri: server.uri, stop: () => server.stop() };
});
checksOn('a real mongod', realMongod);
