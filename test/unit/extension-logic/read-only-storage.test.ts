/**
 * A window whose data folder another process holds opens it read-only, and refuses what would
 * change the folder itself (Compact Now, acknowledging a damage report) with code 20, naming the
 * holder and the ways out. The holder is a real second process that takes the lock as lock.ts does.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { EmbeddedBackend } from '../../../src/extension/backend/embedded-backend';
import { readOnlyFolderRefusal } from '../../../src/extension/logic/read-only-storage';

const LOCK_MODULE = path.resolve(__dirname, '../../../src/storage/lock.js');

/** A second process holding `dir`'s lock as `by`; resolves once the lock is taken. */
async function holdFolder(dir: string, by: string): Promise<ChildProcess> {
  const script = `const r = require(${JSON.stringify(LOCK_MODULE)}).acquireLock(${JSON.stringify(dir)}, ${JSON.stringify(by)});
if (!r.ok) { console.log('refused'); process.exit(1); }
console.log('held'); setInterval(() => {}, 1 << 30);`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', (d: Buffer) =>
      d.toString().startsWith('held') ? resolve() : reject(new Error(`the holder said ${d.toString()}`)),
    );
    child.once('exit', (code) => reject(new Error(`the holder exited with ${code}`)));
  });
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

describe('read-only data folder: a window refuses to change a folder another process holds', () => {
  test('the folder opens read-only naming the holder; Compact Now is refused with IllegalOperation (20), who holds it and what to do', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-held-'));
    const holder = await holdFolder(dir, 'ttl-workbench serve');
    const backend = new EmbeddedBackend({}, { dataDir: dir });
    try {
      const info = await backend.storageInfo();
      assert.equal(info.mode, 'folder');
      assert.equal(info.readOnly, true);
      assert.ok(
        info.notes.some((n) => n.includes(`in use by process ${holder.pid} (ttl-workbench serve)`)),
        JSON.stringify(info.notes),
      );
      await assert.rejects(backend.compactNow(), (err: { code?: number; codeName?: string; message: string }) => {
        assert.equal(err.code, 20);
        assert.equal(err.codeName, 'IllegalOperation');
        assert.equal(
          err.message,
          `${dir} is open read-only: process ${holder.pid} (ttl-workbench serve) holds it, so this window cannot compact it. Do it there, or close that window (stop that process) and reload this one.`,
        );
        return true;
      });
      // Documents still go into the in-memory engine (the welcome says nothing here is saved).
      const files = () =>
        fs
          .readdirSync(dir)
          .sort()
          .map((f) => `${f}:${fs.statSync(path.join(dir, f)).size}`);
      const before = files();
      await backend.runCommand('app', { insert: 'events', documents: [{ a: 1 }] });
      assert.equal((await backend.runCommand('app', { count: 'events' })).n, 1);
      assert.deepEqual(files(), before, 'nothing written to the held folder');
    } finally {
      backend.dispose();
      await stop(holder);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a lock that names no process, or a folder read-only for another reason, says so instead of naming a holder', () => {
    const unnamed = readOnlyFolderRefusal('/d', 'compact it', { pid: 0 });
    assert.equal(unnamed.code, 20);
    assert.match(unnamed.message, /^\/d is open read-only: another VS Code window or ttl-workbench process holds it, /);
    const disk = readOnlyFolderRefusal('/d', 'compact it', undefined, 'the disk refused a write');
    assert.equal(
      disk.message,
      '/d is open read-only (the disk refused a write), so this window cannot compact it. Fix what the note says, then reload the window.',
    );
  });
});
