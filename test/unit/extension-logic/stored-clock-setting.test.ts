/**
 * ttlWorkbench.clock with storage: "system" on a data folder whose virtual clock is ahead of the
 * wall clock would move time backwards, so the window's engine stays on the folder's virtual
 * clock, at its stored time, and the storage notes say why; "system" on a folder that is not
 * ahead runs on the system clock and the folder records it.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { VirtualClock } from '../../../src/engine';
import { EmbeddedBackend } from '../../../src/extension/backend/embedded-backend';
import { closeStoredEngine, openStoredEngine } from '../../../src/storage/engine-store';

const DAY = 86_400_000;
const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function folderWithVirtualTime(aheadMs: number): { dir: string; storedMs: number } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-clock-setting-'));
  dirs.push(dir);
  const clock = new VirtualClock(Date.now() + aheadMs);
  const opened = openStoredEngine(dir, { engine: { clock } });
  opened.engine.runCommand('app', { insert: 'events', documents: [{ a: 1 }] });
  const storedMs = clock.now();
  closeStoredEngine(opened);
  return { dir, storedMs };
}

describe('ttlWorkbench.clock "system" with storage', () => {
  it('a folder whose virtual clock is 2 days ahead keeps the virtual clock, at its stored time, and says why', async () => {
    const { dir, storedMs } = folderWithVirtualTime(2 * DAY);
    const backend = new EmbeddedBackend({ clock: 'system' }, { dataDir: dir });
    try {
      const clock = await backend.clock();
      assert.equal(clock.mode, 'virtual');
      assert.ok(clock.now.getTime() >= storedMs, 'time did not move backwards');
      const info = await backend.storageInfo();
      assert.match(
        info.notes[0],
        /ahead of the system clock: switching it to the system clock would move time backwards/,
      );
    } finally {
      backend.dispose();
    }
  });

  it('a folder whose virtual clock is behind the wall clock switches to the system clock', async () => {
    const { dir } = folderWithVirtualTime(-DAY);
    const backend = new EmbeddedBackend({ clock: 'system' }, { dataDir: dir });
    try {
      assert.equal((await backend.clock()).mode, 'system');
      const info = await backend.storageInfo();
      assert.ok(info.notes.some((n) => /runs on the system clock now/.test(n)));
    } finally {
      backend.dispose();
    }
    const meta = JSON.parse(fs.readFileSync(path.join(dir, 'ttl-workbench.json'), 'utf8')) as { clock: string };
    assert.equal(meta.clock, 'system');
  });
});
