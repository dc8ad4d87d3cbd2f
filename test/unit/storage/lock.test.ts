/**
 * src/storage/lock.ts: one writer per data folder. What the lock file says, how it appears whole
 * (a hard link of a file of our own, or an exclusive create where links fail), when a lock is
 * stale and taken over, and what `peekLock` reports without touching it.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { acquireLock, LOCK_FILE, peekLock } from '../../../src/storage/lock';
import type { StorageFs } from '../../../src/storage/storage-fs';
import { RecordingFs } from './recording-fs';

/** A pid that named a real process, gone by now. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('the one-writer lock, in detail', () => {
  let dir: string;
  let lock: string;
  let rec: RecordingFs;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-lock-'));
    lock = path.join(dir, LOCK_FILE);
    rec = new RecordingFs();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const ageLock = (ms: number) => {
    const t = new Date(Date.now() - ms);
    fs.utimesSync(lock, t, t);
  };

  it('lock: the file names this process, when it took the folder, what it is and which opener; nothing it was not told', () => {
    const before = Date.now();
    const held = acquireLock(dir, 'VS Code window', undefined, { owner: 'token-7' });
    assert.ok(held.ok);
    const text = JSON.parse(fs.readFileSync(lock, 'utf8'));
    assert.deepEqual(Object.keys(text), ['pid', 'since', 'by', 'owner']);
    assert.equal(text.pid, process.pid);
    assert.equal(text.by, 'VS Code window');
    assert.equal(text.owner, 'token-7');
    assert.ok(Date.parse(text.since) >= before - 1000 && Date.parse(text.since) <= Date.now(), text.since);
    assert.equal(new Date(text.since).toISOString(), text.since);
    held.release();
    const bare = acquireLock(dir);
    assert.ok(bare.ok);
    assert.deepEqual(Object.keys(JSON.parse(fs.readFileSync(lock, 'utf8'))), ['pid', 'since']);
    assert.equal('tookOverFrom' in bare, false, 'a free folder is taken from nobody');
    bare.release();
  });

  it('lock: it appears whole, as a hard link of a file of its own that is removed after', () => {
    const held = acquireLock(dir, 'x', rec.fs);
    assert.ok(held.ok);
    const [write, link, rm] = rec.calls;
    assert.deepEqual(
      rec.calls.map((c) => c.name),
      ['writeFile', 'link', 'rm'],
    );
    assert.match(path.basename(write.path!), new RegExp(`^LOCK\\.${process.pid}\\.[0-9a-z]+\\.tmp$`));
    assert.equal(link.path, `${write.path} -> ${lock}`);
    assert.equal(rm.path, write.path);
    assert.deepEqual(fs.readdirSync(dir), [LOCK_FILE]);
    held.release();
  });

  for (const code of ['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']) {
    it(`lock: where hard links fail (${code}) it is created exclusively instead, and the file of its own removed`, () => {
      rec.failOn('link', 1, code);
      const held = acquireLock(dir, 'x', rec.fs);
      assert.ok(held.ok);
      assert.deepEqual(rec.names(), ['writeFile', 'link!', 'writeFile', 'rm']);
      assert.equal(rec.calls[2].path, lock);
      assert.deepEqual(fs.readdirSync(dir), [LOCK_FILE]);
      assert.equal(JSON.parse(fs.readFileSync(lock, 'utf8')).by, 'x');
      held.release();
    });
  }

  it('lock: any other failure to link is thrown, and the file of its own still removed', () => {
    rec.failOn('link', 1, 'EIO');
    assert.throws(() => acquireLock(dir, 'x', rec.fs), { code: 'EIO' });
    assert.deepEqual(fs.readdirSync(dir), []);
  });

  it('lock: a file of its own that cannot be written leaves an exclusive create of the lock instead', () => {
    rec.failOn('writeFile', 1, 'EACCES');
    const held = acquireLock(dir, 'x', rec.fs);
    assert.ok(held.ok);
    assert.deepEqual(rec.names(), ['writeFile!', 'writeFile']);
    assert.equal(rec.calls[1].path, lock);
    assert.equal(JSON.parse(fs.readFileSync(lock, 'utf8')).by, 'x');
    held.release();
  });

  it('lock: a file of its own that cannot be removed after the link is no failure to lock', () => {
    rec.failOn('rm', 1, 'EBUSY');
    const held = acquireLock(dir, 'x', rec.fs);
    assert.ok(held.ok);
    assert.deepEqual(rec.names(), ['writeFile', 'link', 'rm!']);
    assert.equal(fs.readdirSync(dir).length, 2, 'the stray temporary name stays beside the lock');
    held.release();
    assert.equal(fs.existsSync(lock), false);
  });

  it('lock: a lock that cannot be read is being written (refused for 2 s), then stale (taken over from nobody known)', () => {
    fs.writeFileSync(lock, '{"pid":');
    assert.deepEqual(acquireLock(dir), { ok: false, holder: { pid: 0, since: 'just now' } });
    ageLock(1500);
    assert.deepEqual(acquireLock(dir), { ok: false, holder: { pid: 0, since: 'just now' } });
    ageLock(2500);
    const taken = acquireLock(dir, 'me');
    assert.ok(taken.ok);
    assert.deepEqual(taken.tookOverFrom, { pid: 0, since: 'unknown' });
    assert.equal(JSON.parse(fs.readFileSync(lock, 'utf8')).by, 'me');
    taken.release();
  });

  it('lock: a lock whose pid is no number counts as unreadable', () => {
    fs.writeFileSync(lock, JSON.stringify({ pid: String(process.pid), since: 'x' }));
    assert.deepEqual(acquireLock(dir), { ok: false, holder: { pid: 0, since: 'just now' } });
    assert.deepEqual(peekLock(dir), { pid: 0, since: 'unknown', alive: false });
  });

  it("lock: a dead holder's lock is taken over with its holder reported; a live one is refused", () => {
    const gone = { pid: deadPid(), since: '2026-01-01T00:00:00.000Z', by: 'ttl-workbench run' };
    fs.writeFileSync(lock, JSON.stringify(gone));
    const taken = acquireLock(dir, 'me');
    assert.ok(taken.ok);
    assert.deepEqual(taken.tookOverFrom, gone);
    taken.release();
    const live = { pid: process.ppid, since: '2026-01-01T00:00:00.000Z' };
    fs.writeFileSync(lock, JSON.stringify(live));
    assert.deepEqual(acquireLock(dir), { ok: false, holder: live });
  });

  it('lock: a stale lock that will not go away is reported after two tries, never shared', () => {
    const gone = { pid: deadPid(), since: '2026-01-01T00:00:00.000Z' };
    fs.writeFileSync(lock, JSON.stringify(gone));
    // A file system that says it removed the lock and did not.
    const stubborn = { ...rec.fs, rmSync: () => undefined } as unknown as StorageFs;
    assert.deepEqual(acquireLock(dir, 'me', stubborn), { ok: false, holder: gone });
    assert.equal(rec.count('link'), 2, 'two attempts');
  });

  it('lock: the exclusive create used where a file of its own or a hard link fails never overwrites a live lock', () => {
    const live = { pid: process.ppid, since: '2026-01-01T00:00:00.000Z', by: 'another window' };
    fs.writeFileSync(lock, JSON.stringify(live));
    rec.failOn('writeFile', 1, 'EACCES');
    assert.deepEqual(acquireLock(dir, 'x', rec.fs), { ok: false, holder: live });
    assert.deepEqual(JSON.parse(fs.readFileSync(lock, 'utf8')), live);
    rec.heal();
    rec.failOn('link', 1, 'EPERM');
    assert.deepEqual(acquireLock(dir, 'x', rec.fs), { ok: false, holder: live });
    assert.deepEqual(JSON.parse(fs.readFileSync(lock, 'utf8')), live);
    assert.deepEqual(fs.readdirSync(dir), [LOCK_FILE], 'the file of its own is removed');
  });

  it("lock: a token named in takeOverFrom frees only a lock of this process, never another process's live lock", () => {
    const other = { pid: process.ppid, since: '2026-01-01T00:00:00.000Z', owner: 'token-1' };
    fs.writeFileSync(lock, JSON.stringify(other));
    assert.deepEqual(acquireLock(dir, 'x', undefined, { owner: 'token-2', takeOverFrom: ['token-1'] }), {
      ok: false,
      holder: other,
    });
  });

  it('lock: a lock this process released but could not remove is stale only while it names this process', () => {
    const held = acquireLock(dir, 'a', rec.fs);
    assert.ok(held.ok);
    rec.failOn('rm', 1, 'EIO');
    held.release();
    const other = { pid: process.ppid, since: '2026-01-01T00:00:00.000Z' };
    fs.writeFileSync(lock, JSON.stringify(other));
    assert.deepEqual(acquireLock(dir, 'b'), { ok: false, holder: other });
  });

  it('lock: an unreadable stale lock that will not go away is reported after two tries as held by nobody known', () => {
    fs.writeFileSync(lock, 'garbage');
    ageLock(2500);
    const stubborn = { ...rec.fs, rmSync: () => undefined } as unknown as StorageFs;
    assert.deepEqual(acquireLock(dir, 'me', stubborn), { ok: false, holder: { pid: 0, since: 'unknown' } });
    assert.equal(fs.readFileSync(lock, 'utf8'), 'garbage');
  });

  it('lock: a stale lock another opener removes first is no error: the folder is taken', () => {
    const gone = { pid: deadPid(), since: '2026-01-01T00:00:00.000Z' };
    fs.writeFileSync(lock, JSON.stringify(gone));
    // Another process takes the stale lock away between this opener's read and its remove.
    const racing = {
      ...rec.fs,
      readFileSync: (p: fs.PathOrFileDescriptor, o?: unknown) => {
        const text = fs.readFileSync(p, o as undefined);
        if (p === lock) fs.rmSync(lock);
        return text;
      },
    } as unknown as StorageFs;
    const taken = acquireLock(dir, 'me', racing);
    assert.ok(taken.ok);
    assert.deepEqual(taken.tookOverFrom, gone);
    assert.equal(JSON.parse(fs.readFileSync(lock, 'utf8')).by, 'me');
  });

  it('lock: releasing a lock whose file is already gone marks nothing stale: a later live lock of this process is still refused', () => {
    const first = acquireLock(dir, 'a');
    assert.ok(first.ok);
    fs.rmSync(lock);
    first.release();
    const second = acquireLock(dir, 'b');
    assert.ok(second.ok);
    const third = acquireLock(dir, 'c');
    assert.equal(third.ok, false, 'the live lock of the second opener stays its own');
    second.release();
  });

  it('lock: release removes only its own lock; one rewritten unreadable is still its own', () => {
    const held = acquireLock(dir, 'a');
    assert.ok(held.ok);
    const other = { pid: process.ppid, since: 'x' };
    fs.writeFileSync(lock, JSON.stringify(other));
    held.release();
    assert.deepEqual(JSON.parse(fs.readFileSync(lock, 'utf8')), other, 'another holder is left alone');
    const sibling = { pid: process.pid, since: 'x', owner: 'another worker' };
    fs.writeFileSync(lock, JSON.stringify(sibling));
    held.release();
    assert.deepEqual(JSON.parse(fs.readFileSync(lock, 'utf8')), sibling, 'another opener in this process too');
    fs.writeFileSync(lock, 'garbage');
    held.release();
    assert.equal(fs.existsSync(lock), false, 'an unreadable lock is ours to remove');
  });

  it('lock: a lock this process released but could not remove is taken over by its next opener, once', () => {
    const held = acquireLock(dir, 'a', rec.fs);
    assert.ok(held.ok);
    rec.failOn('rm', 1, 'EIO');
    held.release();
    assert.equal(fs.existsSync(lock), true, 'left behind');
    const next = acquireLock(dir, 'b');
    assert.ok(next.ok, 'released: stale although its pid lives');
    assert.equal(next.tookOverFrom?.pid, process.pid);
    assert.equal(next.tookOverFrom?.by, 'a');
    // The next one's own lock is live again: the memory of the release is gone.
    assert.ok(!acquireLock(dir, 'c').ok);
    next.release();
  });

  it('peekLock: no lock is undefined; a holder is reported with whether it runs; an unreadable one names pid 0', () => {
    assert.equal(peekLock(dir), undefined);
    const held = acquireLock(dir, 'w');
    assert.ok(held.ok);
    assert.deepEqual({ ...peekLock(dir), since: 'T' }, { pid: process.pid, since: 'T', by: 'w', alive: true });
    held.release();
    const gone = { pid: deadPid(), since: 'x' };
    fs.writeFileSync(lock, JSON.stringify(gone));
    assert.deepEqual(peekLock(dir), { ...gone, alive: false });
    fs.writeFileSync(lock, '');
    assert.deepEqual(peekLock(dir), { pid: 0, since: 'unknown', alive: false });
  });

  it("lock: a lock of this process naming a token in takeOverFrom (a dead worker's) is taken over; one naming another token is refused", () => {
    const dead = { pid: process.pid, since: '2026-01-01T00:00:00.000Z', by: 'worker 1', owner: 'token-1' };
    fs.writeFileSync(lock, JSON.stringify(dead));
    const refused = acquireLock(dir, 'worker 3', undefined, { owner: 'token-3', takeOverFrom: ['token-2'] });
    assert.deepEqual(refused, { ok: false, holder: dead });
    const next = acquireLock(dir, 'worker 2', undefined, { owner: 'token-2', takeOverFrom: ['token-0', 'token-1'] });
    assert.ok(next.ok);
    assert.deepEqual(next.tookOverFrom, dead);
    assert.equal(JSON.parse(fs.readFileSync(lock, 'utf8')).owner, 'token-2');
    next.release();
  });

  it("peekLock: a holder this process may not signal (another user's, EPERM) is alive", () => {
    if (process.getuid?.() !== 0) {
      // pid 1 is another user's process here, or this user's own: alive either way.
      const init = { pid: 1, since: '2026-01-01T00:00:00.000Z' };
      fs.writeFileSync(lock, JSON.stringify(init));
      assert.deepEqual(peekLock(dir), { ...init, alive: true });
      return;
    }
    // Root may signal every process: the check runs in a child of another user, on this process.
    const holder = { pid: process.pid, since: '2026-01-01T00:00:00.000Z' };
    fs.writeFileSync(lock, JSON.stringify(holder));
    fs.chmodSync(dir, 0o755);
    // The child reads a copy of the compiled module beside the lock: the checkout (a clone under
    // /root, Stryker's sandbox) may be closed to that user. lock.js needs only storage-fs.js.
    const copies = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-lock-module-'));
    fs.chmodSync(copies, 0o755);
    for (const file of ['lock.js', 'storage-fs.js'])
      fs.copyFileSync(path.join(__dirname, '../../../src/storage', file), path.join(copies, file));
    const lockModule = path.join(copies, 'lock.js');
    const script = `process.stdout.write(JSON.stringify(require(${JSON.stringify(lockModule)}).peekLock(${JSON.stringify(dir)})))`;
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', uid: 65534, gid: 65534 });
    fs.rmSync(copies, { recursive: true, force: true });
    assert.equal(child.status, 0, child.stderr);
    assert.deepEqual(JSON.parse(child.stdout), { ...holder, alive: true });
  });
});
