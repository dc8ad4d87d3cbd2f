/**
 * src/storage/file-store.ts when the disk refuses a read, a removal or a sync that its other
 * tests never refuse: what the user gets (the error and the file it names), that nothing stored
 * is lost, and that the folder is freed or stays usable. Found by the mutation run of
 * file-store.ts (issue 28). Only the file system misbehaves (faulty-fs.ts, recording-fs.ts); the
 * store runs unchanged. Records are a key-value log, as in file-store.test.ts.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BSON } from 'bson';
import { FileStore, FolderLockedError, RecoveryWriteError, StorageReadError } from '../../../src/storage/file-store';
import { encodeFrame, scanFrames } from '../../../src/storage/frames';
import type { StorageFs } from '../../../src/storage/storage-fs';
import { FaultyFs } from './faulty-fs';
import { compactedKvFolder, journalKvFolder, openKvStore } from './kv-store';
import { RecordingFs } from './recording-fs';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-store-failures-'));
  dirs.push(d);
  return d;
}

const open = openKvStore;

/** A closed folder whose journal-0 holds `n` records k0..k(n-1). */
const journalFolder = (n: number): string => journalKvFolder(tmpDir(), n);

function eio(syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EIO: i/o error, ${syscall}`), { code: 'EIO', syscall });
}

/** The folder opens again (its lock was freed) and holds exactly `expected`. */
function assertReopens(dir: string, expected: Array<[string, string]>): void {
  const again = open(dir);
  assert.deepEqual([...again.state].sort(), expected);
  again.store.close();
}

describe('file store: a folder that cannot be listed', () => {
  it('a listing refused with EIO stops the recovery with that error (never read as an empty folder)', () => {
    const dir = journalFolder(2);
    let refuse = false;
    const io: StorageFs = {
      ...new RecordingFs().fs,
      readdirSync: ((p: fs.PathLike) => {
        if (refuse) throw eio('scandir');
        return fs.readdirSync(p);
      }) as StorageFs['readdirSync'],
    };
    const store = FileStore.open(dir, { fs: io });
    refuse = true;
    assert.throws(
      () => store.recover({ snapshotRecord: () => undefined, journalRecord: () => undefined }),
      (err: NodeJS.ErrnoException) => err.code === 'EIO' && err.syscall === 'scandir',
    );
    store.close();
    assertReopens(dir, [
      ['k0', '0'],
      ['k1', '1'],
    ]);
  });

  it('a read-only open of a folder that does not exist recovers nothing and lists no problem', () => {
    const dir = path.join(tmpDir(), 'never-created');
    const ro = open(dir, { readOnlyBecause: 'the disk refused the folder' });
    assert.deepEqual([ro.state.size, ro.report.problems, ro.report.snapshot], [0, [], undefined]);
    assert.equal(fs.existsSync(dir), false, 'a read-only open creates nothing');
    ro.store.close();
  });
});

describe('file store: files it cannot read', () => {
  it('a journal that cannot be opened refuses the open with StorageReadError naming it; the folder is freed and loses nothing', () => {
    const dir = journalFolder(2);
    const faulty = new FaultyFs();
    const store = FileStore.open(dir, { fs: faulty.fs });
    // No snapshot here: the first file recovery opens is journal-0.
    faulty.arm('open', 1, 'EIO');
    assert.throws(
      () => store.recover({ snapshotRecord: () => undefined, journalRecord: () => undefined }),
      (err: unknown) =>
        err instanceof StorageReadError &&
        err.file === path.join(dir, 'journal-0.ttlj') &&
        err.message ===
          `Could not read ${path.join(dir, 'journal-0.ttlj')} (EIO: i/o error, open); nothing in the folder was changed. Check the disk and permissions, then open it again.`,
    );
    assertReopens(dir, [
      ['k0', '0'],
      ['k1', '1'],
    ]);
  });

  it('a snapshot that cannot be opened refuses the open with StorageReadError naming it (never an older state); the folder is freed', () => {
    const dir = compactedKvFolder(tmpDir());
    const faulty = new FaultyFs();
    const store = FileStore.open(dir, { fs: faulty.fs });
    faulty.arm('open', 1, 'EIO');
    const seen: string[] = [];
    assert.throws(
      () =>
        store.recover({
          snapshotRecord: (d) => void seen.push(String(d.k)),
          journalRecord: (d) => void seen.push(String(d.set)),
        }),
      (err: unknown) =>
        err instanceof StorageReadError &&
        err.file === path.join(dir, 'snapshot-1.ttls') &&
        /^Could not read .*snapshot-1\.ttls \(EIO/.test(err.message),
    );
    assert.deepEqual(seen, [], 'nothing was applied');
    assertReopens(dir, [
      ['a', '1'],
      ['b', '2'],
      ['c', '3'],
    ]);
  });

  it('a snapshot whose second reading fails (past the 4 MiB window) refuses the open with StorageReadError, not the raw EIO', () => {
    const dir = tmpDir();
    const a = open(dir);
    const big = 'x'.repeat(1024 * 1024);
    const g = a.store.beginCompaction();
    // Five 1 MiB records: the check's first pass ends with its window at the file's end, so
    // applying the records must read the start again.
    a.store.writeSnapshot(
      g,
      [0, 1, 2, 3, 4].map((i) => ({ k: `big${i}`, v: big })),
    );
    a.store.close();
    let refuse = false;
    const io: StorageFs = {
      ...new RecordingFs().fs,
      readSync: ((fd: number, buf: NodeJS.ArrayBufferView, off: number, len: number, pos: number | null) => {
        if (refuse) throw eio('read');
        return fs.readSync(fd, buf, off, len, pos);
      }) as StorageFs['readSync'],
    };
    const store = FileStore.open(dir, { fs: io });
    let applied = 0;
    assert.throws(
      () =>
        store.recover({
          snapshotRecord: () => {
            applied++;
            refuse = true;
          },
          journalRecord: () => undefined,
        }),
      (err: unknown) =>
        err instanceof StorageReadError &&
        err.file === path.join(dir, 'snapshot-1.ttls') &&
        /^Could not read .*snapshot-1\.ttls \(EIO: i\/o error, read\); nothing in the folder was changed/.test(
          err.message,
        ),
    );
    assert.ok(applied >= 1 && applied < 5, `the failure came mid-apply (${applied} applied)`);
    const again = open(dir);
    assert.equal(again.state.size, 5);
    again.store.close();
  });
});

describe('file store: removals the disk refuses', () => {
  it("a compaction's leftover temporary file that cannot be removed is left, never read, and the open goes on", () => {
    const dir = journalFolder(1);
    const tmp = path.join(dir, '.snapshot-1.ttls.1234.tmp');
    fs.writeFileSync(tmp, 'half a snapshot');
    const faulty = new FaultyFs();
    const store = FileStore.open(dir, { fs: faulty.fs });
    faulty.arm('unlink', 1, 'EIO', true);
    const seen: string[] = [];
    const report = store.recover({
      snapshotRecord: () => undefined,
      journalRecord: (d) => void seen.push(String(d.set)),
    });
    assert.equal(faulty.calls('unlink'), 1, 'the removal was tried');
    assert.deepEqual([seen, report.problems], [['k0'], []]);
    assert.equal(fs.existsSync(tmp), true);
    store.append({ set: 'after', v: '1' });
    // The lock's own removal at close must not meet the fault.
    faulty.disarm();
    store.close();
    assertReopens(dir, [
      ['after', '1'],
      ['k0', '0'],
    ]);
    assert.equal(fs.existsSync(tmp), false, 'the next open removes it');
  });

  it('writeSnapshotAsync resolves when the older generations cannot be removed; the next open uses the new snapshot', async () => {
    const dir = journalFolder(2);
    const faulty = new FaultyFs();
    const a = open(dir, { fs: faulty.fs });
    const g = a.store.beginCompaction();
    faulty.arm('unlink', 1, 'EIO', true);
    const bytes = await a.store.writeSnapshotAsync(g, [
      { k: 'k0', v: '0' },
      { k: 'k1', v: '1' },
    ]);
    assert.ok(bytes > 0);
    assert.equal(a.store.isCompacting, false);
    assert.equal(fs.existsSync(path.join(dir, 'journal-0.ttlj')), true, 'the old journal stayed');
    faulty.disarm();
    a.store.append({ set: 'k2', v: '2' });
    a.store.close();
    const b = open(dir);
    assert.deepEqual([b.report.snapshot, b.report.snapshotRecords, b.report.journalRecords], [1, 2, 1]);
    assert.deepEqual([...b.state].sort(), [
      ['k0', '0'],
      ['k1', '1'],
      ['k2', '2'],
    ]);
    b.store.close();
  });
});

describe('file store: a journal that already failed', () => {
  it('beginCompaction rethrows the failure before a new journal is created (no journal-1.ttlj), and later appends are refused', () => {
    const dir = journalFolder(1);
    const rec = new RecordingFs();
    const a = open(dir, { fs: rec.fs });
    rec.failOn('fdatasync', 1, 'EIO');
    assert.throws(() => a.store.append({ set: 'lost', v: '1' }), /EIO/);
    rec.heal();
    const from = rec.calls.length;
    assert.throws(() => a.store.beginCompaction(), /EIO: injected failure, fdatasync/);
    assert.deepEqual(rec.names(from), [], 'nothing was opened, written or synced');
    assert.equal(fs.existsSync(path.join(dir, 'journal-1.ttlj')), false);
    assert.equal(a.store.isCompacting, false);
    assert.throws(() => a.store.append({ set: 'later', v: '2' }), /EIO/);
    assert.throws(() => a.store.close(), /EIO/);
    const b = open(dir);
    assert.equal(b.state.get('k0'), '0', 'what was acknowledged is there');
    assert.equal(b.state.has('later'), false);
    b.store.close();
  });
});

describe('file store: a write recovery needs that the disk refuses', () => {
  /** The message a RecoveryWriteError gives for `step` failing with `cause`. */
  const refusal = (dir: string, step: string, cause: string): string =>
    `${dir}: could not ${step} (${cause}). Nothing stored was lost; the folder is open read-only until this is fixed (free disk space, check permissions) and the window is reloaded.`;

  it('the open names the step it stopped at (cutting a torn last record off, opening the journal for writing); the folder is freed and loses nothing', () => {
    for (const step of ['truncate', 'open'] as const) {
      const dir = journalFolder(2);
      if (step === 'truncate')
        fs.appendFileSync(path.join(dir, 'journal-0.ttlj'), encodeFrame(BSON.serialize({ set: 'k2' })).subarray(0, 10));
      const faulty = new FaultyFs();
      const store = FileStore.open(dir, { fs: faulty.fs });
      // No snapshot: the first open is the journal's reading, the second its opening for appends.
      faulty.arm(step, step === 'open' ? 2 : 1, 'EIO');
      assert.throws(
        () => store.recover({ snapshotRecord: () => undefined, journalRecord: () => undefined }),
        (err: unknown) =>
          err instanceof RecoveryWriteError &&
          err.message ===
            (step === 'truncate'
              ? refusal(dir, 'cut the torn last record off journal-0.ttlj', 'EIO: i/o error, ftruncate')
              : refusal(dir, 'open journal-0.ttlj for writing', 'EIO: i/o error, open')),
      );
      assertReopens(dir, [
        ['k0', '0'],
        ['k1', '1'],
      ]);
    }
  });

  it('saveRecoveredState names the step it stopped at (keeping files aside, writing the manifest, starting the journal); what was recovered opens again', () => {
    for (const step of ['keep', 'manifest', 'journal'] as const) {
      const dir = journalFolder(6);
      const journal = path.join(dir, 'journal-0.ttlj');
      const bytes = fs.readFileSync(journal);
      bytes.writeUInt32LE(0xdeadbeef, Math.floor(bytes.length / 2));
      fs.writeFileSync(journal, bytes);
      const faulty = new FaultyFs();
      const a = open(dir, { fs: faulty.fs });
      const recovered = [...a.state].sort();
      // keep: the folder's sync after the links; manifest: the second rename (the snapshot's is first);
      // journal: a directory where the new journal goes.
      if (step === 'keep') faulty.arm('fsync', 1, 'EIO');
      if (step === 'manifest') faulty.arm('rename', 2, 'EIO');
      const newJournal = path.join(dir, 'journal-1.ttlj');
      if (step === 'journal') fs.mkdirSync(newJournal);
      assert.throws(
        () => a.store.saveRecoveredState(recovered.map(([k, v]) => ({ k, v }))),
        (err: unknown) =>
          err instanceof RecoveryWriteError &&
          (step === 'keep'
            ? err.message === refusal(dir, 'keep the damaged files aside', 'EIO: i/o error, fsync')
            : step === 'manifest'
              ? err.message === refusal(dir, 'write the folder manifest', 'EIO: i/o error, rename')
              : err.message.startsWith(`${dir}: could not start journal-1.ttlj (EISDIR`)),
        step,
      );
      faulty.disarm();
      if (step === 'journal') fs.rmdirSync(newJournal);
      assertReopens(dir, recovered);
    }
  });
});

describe('file store: every file it opens it closes', () => {
  /** Paths opened and not closed again, from a RecordingFs's log. */
  function leftOpen(rec: RecordingFs, from = 0): string[] {
    const open = new Map<string, number>();
    for (const c of rec.calls.slice(from)) {
      if (c.failed || !c.path || (c.name !== 'open' && c.name !== 'close')) continue;
      open.set(c.path, (open.get(c.path) ?? 0) + (c.name === 'open' ? 1 : -1));
    }
    return [...open].filter(([, n]) => n > 0).map(([p]) => path.basename(p));
  }

  it('a snapshot is closed whether it is applied, damaged, chained wrong or of a newer format', () => {
    for (const kind of ['applied', 'damaged', 'chain', 'newer'] as const) {
      const dir = compactedKvFolder(tmpDir());
      const file = path.join(dir, 'snapshot-1.ttls');
      const bytes = fs.readFileSync(file);
      const frames = scanFrames(bytes).frames;
      const at = (i: number) =>
        bytes.subarray(frames[i].offset, i + 1 < frames.length ? frames[i + 1].offset : bytes.length);
      if (kind === 'damaged') fs.writeFileSync(file, bytes.subarray(0, bytes.length - 3));
      // Two records swapped: every frame whole, the chain of their checksums wrong.
      if (kind === 'chain') fs.writeFileSync(file, Buffer.concat([at(0), at(2), at(1), at(3)]));
      if (kind === 'newer') {
        const header = BSON.deserialize(frames[0].payload);
        fs.writeFileSync(
          file,
          Buffer.concat([encodeFrame(BSON.serialize({ ...header, format: 3 })), bytes.subarray(frames[1].offset)]),
        );
      }
      const rec = new RecordingFs();
      const store = FileStore.open(dir, { fs: rec.fs });
      try {
        store.recover({ snapshotRecord: () => undefined, journalRecord: () => undefined });
      } catch (err) {
        assert.equal(kind, 'newer', String(err));
      }
      store.close();
      assert.deepEqual(leftOpen(rec), [], kind);
    }
  });

  it('a compaction stopped because the folder cannot be synced closes the new journal it had opened', () => {
    const dir = journalFolder(1);
    const rec = new RecordingFs();
    const a = open(dir, { fs: rec.fs });
    const from = rec.calls.length;
    rec.failOn('fsync', 1, 'EIO');
    assert.throws(() => a.store.beginCompaction(), /EIO/);
    assert.deepEqual(leftOpen(rec, from), []);
    a.store.close();
  });
});

describe('file store: a closed store', () => {
  it('closing twice never frees the lock another store of this process has taken since', () => {
    const dir = journalFolder(1);
    const first = open(dir);
    first.store.close();
    const second = open(dir);
    first.store.close();
    assert.throws(
      () => FileStore.open(dir),
      (err: unknown) => err instanceof FolderLockedError,
    );
    second.store.close();
  });

  it('a store closed before its recovered state was saved saves nothing: the folder stays as found, and it awaits nothing', () => {
    const dir = journalFolder(6);
    const journal = path.join(dir, 'journal-0.ttlj');
    const bytes = fs.readFileSync(journal);
    bytes.writeUInt32LE(0xdeadbeef, Math.floor(bytes.length / 2));
    fs.writeFileSync(journal, bytes);
    const a = open(dir);
    assert.equal(a.store.awaitingRecoveredState, true);
    a.store.close();
    const before = fs.readdirSync(dir).sort();
    assert.equal(a.store.awaitingRecoveredState, false);
    assert.deepEqual(a.store.saveRecoveredState([...a.state].map(([k, v]) => ({ k, v }))), []);
    assert.deepEqual(fs.readdirSync(dir).sort(), before);
    assert.throws(() => a.store.append({ set: 'x', v: '1' }), { message: 'the store is closed' });
  });
});
