/**
 * The file store's file-level pieces: the journal writer in both durability modes, torn-tail
 * truncation, atomic files, and the one-writer lock (a live holder refuses, a dead one is taken over).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BSON } from 'bson';
import { writeFileAtomic } from '../../../src/storage/atomic-file';
import { JournalWriter, readJournal, truncateJournal } from '../../../src/storage/journal';
import { acquireLock, LOCK_FILE } from '../../../src/storage/lock';

const tmpDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-store-'));
const doc = (i: number) => BSON.serialize({ i });
/** The journal's records, decoded, and what its reader found. */
function readAll(file: string): { ids: number[]; damage?: unknown; validEnd: number; bytes: number } {
  const ids: number[] = [];
  const read = readJournal(file, (payload) => ids.push(BSON.deserialize(payload).i as number));
  assert.equal(read.frames, ids.length);
  return { ids, validEnd: read.validEnd, bytes: read.bytes, ...(read.damage ? { damage: read.damage } : {}) };
}

describe('journal files', () => {
  it('fsync mode: every append is in the file when append returns; reopening appends after it', () => {
    const file = path.join(tmpDir(), 'journal-0.ttlj');
    const w = new JournalWriter(file, 'fsync');
    for (let i = 0; i < 3; i++) w.append(doc(i));
    assert.equal(readAll(file).ids.length, 3);
    w.close();
    const again = new JournalWriter(file, 'fsync');
    again.append(doc(3));
    again.close();
    assert.deepEqual(readAll(file).ids, [0, 1, 2, 3]);
  });

  it('batched mode: appends reach the file at once and are synced by one group commit', async () => {
    const file = path.join(tmpDir(), 'journal-0.ttlj');
    const w = new JournalWriter(file, 'batched', 20);
    for (let i = 0; i < 100; i++) w.append(doc(i));
    assert.equal(readAll(file).ids.length, 100, 'written (in the page cache) before the sync');
    await new Promise((r) => setTimeout(r, 50));
    w.close();
    assert.equal(readAll(file).ids.length, 100);
  });

  it('a torn tail is truncated so later appends follow the last whole record', () => {
    const file = path.join(tmpDir(), 'journal-0.ttlj');
    const w = new JournalWriter(file, 'fsync');
    w.append(doc(0));
    w.append(doc(1));
    w.close();
    fs.appendFileSync(file, Buffer.from([9, 0, 0, 0, 1, 2])); // half a header: a crash mid-append
    const read = readJournal(file, () => undefined);
    assert.equal(read.damage?.kind, 'torn');
    truncateJournal(file, read.validEnd);
    const w2 = new JournalWriter(file, 'fsync');
    w2.append(doc(2));
    w2.close();
    const after = readAll(file);
    assert.equal(after.damage, undefined);
    assert.deepEqual(after.ids, [0, 1, 2]);
  });

  it('a missing journal reads as empty', () => {
    assert.deepEqual(
      readJournal(path.join(tmpDir(), 'nope.ttlj'), () => assert.fail('no record')),
      { frames: 0, validEnd: 0, bytes: 0 },
    );
  });
});

describe('atomic files', () => {
  it('writes through a temporary file and renames it over the target, leaving no temporary behind', () => {
    const dir = tmpDir();
    const target = path.join(dir, 'snapshot-1.ttls');
    fs.writeFileSync(target, 'old');
    const n = writeFileAtomic(target, [Buffer.from('new '), Buffer.from('content')]);
    assert.equal(n, 11);
    assert.equal(fs.readFileSync(target, 'utf8'), 'new content');
    assert.deepEqual(fs.readdirSync(dir), ['snapshot-1.ttls']);
  });

  it('a failure while writing leaves the old file as it was', () => {
    const dir = tmpDir();
    const target = path.join(dir, 'snapshot-1.ttls');
    fs.writeFileSync(target, 'old');
    function* failing(): Generator<Uint8Array> {
      yield Buffer.from('partial');
      throw new Error('disk full');
    }
    assert.throws(() => writeFileAtomic(target, failing()), /disk full/);
    assert.equal(fs.readFileSync(target, 'utf8'), 'old');
    assert.deepEqual(fs.readdirSync(dir), ['snapshot-1.ttls']);
  });
});

describe('the one-writer lock', () => {
  it('a second open of a locked folder is refused with the holder, also within one process', () => {
    const dir = tmpDir();
    const first = acquireLock(dir, 'test');
    assert.ok(first.ok);
    const second = acquireLock(dir);
    assert.ok(!second.ok);
    assert.equal(second.holder.pid, process.pid);
    assert.equal(second.holder.by, 'test');
    first.release();
    const third = acquireLock(dir);
    assert.ok(third.ok);
    third.release();
    assert.ok(!fs.existsSync(path.join(dir, LOCK_FILE)));
  });

  it('a lock left by a process that died (kill -9) is taken over', () => {
    const dir = tmpDir();
    // A real process that is gone by now: its pid cannot be signalled.
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    const deadPid = Number(child.stdout);
    fs.writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ pid: deadPid, since: '2026-01-01T00:00:00Z' }));
    const taken = acquireLock(dir);
    assert.ok(taken.ok);
    assert.equal(taken.tookOverFrom?.pid, deadPid);
    taken.release();
  });

  it("a terminated worker thread's lock (same pid) is taken over only by the successor that names its owner token", () => {
    const dir = tmpDir();
    const dead = acquireLock(dir, 'worker 1', undefined, { owner: 'token-1' });
    assert.ok(dead.ok);
    // Another opener in this process, naming no token or a wrong one: refused, the holder is alive.
    assert.ok(!acquireLock(dir, 'other').ok);
    const wrong = acquireLock(dir, 'other', undefined, { owner: 'token-x', takeOverFrom: ['token-y'] });
    assert.ok(!wrong.ok);
    assert.equal(wrong.holder.owner, 'token-1');
    const successor = acquireLock(dir, 'worker 2', undefined, {
      owner: 'token-2',
      takeOverFrom: ['token-0', 'token-1'],
    });
    assert.ok(successor.ok);
    assert.equal(successor.tookOverFrom?.owner, 'token-1');
    // The dead worker's release (had it run late) leaves the successor's lock alone.
    dead.release();
    assert.ok(fs.existsSync(path.join(dir, LOCK_FILE)));
    successor.release();
    assert.ok(!fs.existsSync(path.join(dir, LOCK_FILE)));
  });
});
