/**
 * `ttl-workbench serve` through the bundled CLI (dist/cli.js): the connection string first, a
 * kept data folder across two runs, SIGTERM flushing and unlocking it, exit codes, usage errors.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { MongoClient } from 'mongodb';

const cli = path.resolve(__dirname, '../../../../dist/cli.js');

/** Starts serve; resolves with the process and the URI it printed first. */
async function serve(args: string[]): Promise<{ child: ChildProcessWithoutNullStreams; uri: string }> {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', ...args]);
  const uri = await new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n');
      if (line.length > 1) resolve(line[0]);
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('exit', (code) => reject(new Error(`serve exited with ${code} before printing its URI: ${err}`)));
  });
  return { child, uri };
}

function exitOf(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('ttl-workbench serve', () => {
  test('prints mongodb://127.0.0.1:PORT/ first, serves the driver, and SIGTERM keeps a --data folder whole', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-serve-'));
    try {
      const first = await serve(['--data', data, '--now', '2026-01-01T00:00:00Z']);
      assert.match(first.uri, /^mongodb:\/\/127\.0\.0\.1:\d+\/$/);
      let client = new MongoClient(first.uri);
      await client.db('app').collection('sessions').createIndex({ at: 1 }, { expireAfterSeconds: 60 });
      await client
        .db('app')
        .collection('sessions')
        .insertMany([{ at: new Date('2026-01-01T00:00:00Z') }, { at: new Date('2026-01-01T01:00:00Z') }]);
      await client.db('admin').command({ ttlWorkbench: 'advanceClock', by: '10m' });
      await client.close();
      const exited = exitOf(first.child);
      first.child.kill('SIGTERM');
      assert.equal(await exited, 0);
      assert.equal(fs.existsSync(path.join(data, 'LOCK')), false, 'the folder is unlocked');

      // The second run continues from what the first left: the data, the index and the clock.
      const second = await serve(['--data', data]);
      client = new MongoClient(second.uri);
      const status = await client.db('admin').command({ ttlWorkbench: 'status' });
      assert.equal((status.now as Date).toISOString(), '2026-01-01T00:10:00.000Z');
      assert.equal(await client.db('app').collection('sessions').countDocuments(), 1);
      await client.close();
      const again = exitOf(second.child);
      second.child.kill('SIGINT');
      assert.equal(await again, 0);
    } finally {
      fs.rmSync(data, { recursive: true, force: true });
    }
  });

  test('a port in use: exit code 1 and what to do', async () => {
    const running = await serve([]);
    try {
      const port = new URL(running.uri).port;
      const r = spawnSync(process.execPath, [cli, 'serve', '--port', port], { encoding: 'utf8', timeout: 20_000 });
      assert.equal(r.status, 1);
      assert.match(r.stderr, new RegExp(`port ${port} is in use: pick another with --port, or --port 0`));
    } finally {
      const exited = exitOf(running.child);
      running.child.kill('SIGTERM');
      await exited;
    }
  });

  test('usage errors exit with 2', () => {
    for (const args of [['--port', 'x'], ['--clock', 'sundial'], ['--bogus']]) {
      const r = spawnSync(process.execPath, [cli, 'serve', ...args], { encoding: 'utf8' });
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    }
  });
});

describe('ttl-workbench serve --read-only: a folder another process holds', () => {
  test('serves what the holder wrote; writes answer IllegalOperation (20); the holder keeps its lock and its data', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-serve-readonly-'));
    const holder = await serve(['--data', data]);
    let reader: Awaited<ReturnType<typeof serve>> | undefined;
    try {
      let client = new MongoClient(holder.uri);
      await client
        .db('app')
        .collection('events')
        .insertMany([{ _id: 1 as never }, { _id: 2 as never }]);
      await client.close();
      const lockBefore = fs.readFileSync(path.join(data, 'LOCK'), 'utf8');

      // Without --read-only the folder is refused, and the message names the way out.
      const plain = spawnSync(process.execPath, [cli, 'serve', '--port', '0', '--data', data], { encoding: 'utf8' });
      assert.equal(plain.status, 1);
      assert.match(plain.stderr, /is in use by process \d+ .*Open it read-only/);

      reader = await serve(['--data', data, '--read-only']);
      client = new MongoClient(reader.uri);
      try {
        const events = client.db('app').collection('events');
        assert.equal(await events.countDocuments(), 2);
        await assert.rejects(
          // The driver turns a code 20 answer to its own insert into "does not support retryable
          // writes": the command as sent shows the engine's error.
          client.db('app').command({ insert: 'events', documents: [{ _id: 3 }] }),
          (err: { code?: number; codeName?: string; message?: string }) => {
            assert.equal(err.code, 20, String(err));
            assert.equal(err.codeName, 'IllegalOperation');
            assert.match(err.message ?? '', /the engine is read-only/);
            return true;
          },
        );
      } finally {
        await client.close();
      }
      assert.equal(fs.readFileSync(path.join(data, 'LOCK'), 'utf8'), lockBefore, 'the holder still holds the folder');
      client = new MongoClient(holder.uri);
      assert.equal(await client.db('app').collection('events').countDocuments(), 2, 'nothing changed for the holder');
      await client.close();
    } finally {
      for (const p of [reader, holder]) {
        if (!p) continue;
        const exited = exitOf(p.child);
        p.child.kill('SIGTERM');
        assert.equal(await exited, 0);
      }
      fs.rmSync(data, { recursive: true, force: true });
    }
  });
});
