/**
 * src/storage/file-store.ts, the promises its older tests (file-store, engine-store) leave
 * unasserted: what recovery removes, lists and keeps aside (with the exact lines it reports), how
 * an unreadable manifest or file is handled, what the store refuses and says when it cannot take a
 * write, when compaction is due, and how a compaction stops cleanly when the disk refuses it.
 * Found by the mutation run of file-store.ts (issue 28). Records are a key-value log, as in
 * file-store.test.ts.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BSON } from 'bson';
import {
  FileStore,
  FolderLockedError,
  MANIFEST_FILE,
  NewerFormatError,
  RecoveryWriteError,
  StorageReadError,
} from '../../../src/storage/file-store';
import { encodeFrame, scanFrames } from '../../../src/storage/frames';
import { JournalWriter } from '../../../src/storage/journal';
import type { StorageFs } from '../../../src/storage/storage-fs';
import { compactedKvFolder, journalKvFolder, openKvStore } from './kv-store';
import { RecordingFs } from './recording-fs';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-store-recovery-'));
  dirs.push(d);
  return d;
}

/** A closed folder whose journal-0 holds `n` records k0..k(n-1). */
const journalFolder = (n: number): string => journalKvFolder(tmpDir(), n);

/** A closed folder with snapshot 1 (a, b) and journal 1 (c). */
const compactedFolder = (): string => compactedKvFolder(tmpDir());
const open = openKvStore;

function flipMiddle(file: string): void {
  const bytes = fs.readFileSync(file);
  bytes.writeUInt32LE(0xdeadbeef, Math.floor(bytes.length / 2));
  fs.writeFileSync(file, bytes);
}

describe('file store: what recovery clears away and lists', () => {
  it("a compaction's leftover temporary file is removed by a writable open, left by a read-only one", () => {
    const dir = journalFolder(1);
    const tmp = path.join(dir, '.snapshot-1.ttls.4242.tmp');
    fs.writeFileSync(tmp, 'half a snapshot');
    const reader = open(dir, { readOnlyBecause: 'looking' });
    assert.equal(fs.existsSync(tmp), true);
    assert.deepEqual(reader.report.problems, []);
    reader.store.close();
    const writer = open(dir);
    assert.equal(fs.existsSync(tmp), false);
    assert.deepEqual([...writer.state], [['k0', '0']]);
    writer.store.close();
  });

  it('names that are not the store\'s are listed in one line: "a file" for one, a count for more, five at most', () => {
    const one = journalFolder(1);
    fs.writeFileSync(path.join(one, 'journal-00.ttlj'), '');
    const a = open(one);
    assert.deepEqual(a.report.problems, ['ignored a file whose name is not one this store writes: journal-00.ttlj']);
    a.store.close();
    const many = journalFolder(1);
    const names = ['journal-01.ttlj', 'journal-02.ttlj', 'snapshot-01.ttls', 'snapshot-02.ttls', 'snapshot-03.ttls'];
    for (const f of names) fs.writeFileSync(path.join(many, f), '');
    const b = open(many);
    assert.deepEqual(b.report.problems, [
      `ignored 5 files whose names are not one this store writes: ${names.join(', ')}`,
    ]);
    b.store.close();
    fs.writeFileSync(path.join(many, 'snapshot-04.ttls'), '');
    const c = open(many);
    assert.deepEqual(c.report.problems, [
      `ignored 6 files whose names are not one this store writes: ${names.join(', ')}, …`,
    ]);
    assert.deepEqual([...c.state], [['k0', '0']]);
    c.store.close();
  });

  it('kept-aside copies and temporary files are not listed as strays', () => {
    const dir = journalFolder(1);
    fs.writeFileSync(path.join(dir, 'journal-0.ttlj.damaged-5'), 'x');
    fs.writeFileSync(path.join(dir, 'snapshot-7.ttls.unreplayed-5'), 'x');
    const reader = open(dir, { readOnlyBecause: 'looking' });
    fs.writeFileSync(path.join(dir, '.snapshot-3.ttls.1.tmp'), 'x');
    const again = open(dir, { readOnlyBecause: 'looking' });
    assert.deepEqual([reader.report.problems, again.report.problems], [[], []]);
    reader.store.close();
    again.store.close();
  });

  it('stray names are listed in name order, whatever order the file system lists the folder in', () => {
    const dir = journalFolder(1);
    for (const f of ['journal-01.ttlj', 'snapshot-01.ttls', 'journal-02.ttlj']) fs.writeFileSync(path.join(dir, f), '');
    // A file system that lists newest first (Node sorts only where the platform does).
    const io: StorageFs = {
      ...new RecordingFs().fs,
      readdirSync: ((p: fs.PathLike) => fs.readdirSync(p).reverse()) as StorageFs['readdirSync'],
    };
    const a = open(dir, { fs: io });
    assert.deepEqual(a.report.problems, [
      'ignored 3 files whose names are not one this store writes: journal-01.ttlj, journal-02.ttlj, snapshot-01.ttls',
    ]);
    a.store.close();
  });

  it('a name that only contains "journal-" or "snapshot-" (old-journal-1.ttlj, a backup\'s copy) is not the store\'s: never listed as stray', () => {
    const dir = journalFolder(1);
    fs.writeFileSync(path.join(dir, 'old-journal-1.ttlj'), 'x');
    fs.writeFileSync(path.join(dir, 'backup-snapshot-2.ttls'), 'x');
    const a = open(dir);
    assert.deepEqual([a.report.problems, [...a.state]], [[], [['k0', '0']]]);
    a.store.close();
  });
});

describe('file store: records written before they were numbered', () => {
  /** journal-0 of a new folder, as a version that did not number records wrote it. */
  function unnumberedJournal(records: Array<{ set: string; v: string }>): string {
    const dir = tmpDir();
    const w = new JournalWriter(path.join(dir, 'journal-0.ttlj'), 'fsync');
    for (const r of records) w.append(BSON.serialize(r));
    w.close();
    return dir;
  }

  it('a journal written before records were numbered replays whole, and the records appended to it are numbered from 1', () => {
    const dir = unnumberedJournal([
      { set: 'a', v: '1' },
      { set: 'b', v: '2' },
    ]);
    const a = open(dir);
    assert.deepEqual(
      [a.report.problems, a.report.journalRecords, [...a.state]],
      [
        [],
        2,
        [
          ['a', '1'],
          ['b', '2'],
        ],
      ],
    );
    a.store.append({ set: 'c', v: '3' });
    a.store.close();
    const frames = scanFrames(fs.readFileSync(path.join(dir, 'journal-0.ttlj'))).frames;
    assert.equal(BSON.deserialize(frames[2].payload).q, 1);
    const b = open(dir);
    assert.deepEqual([b.report.problems, b.state.size], [[], 3]);
    b.store.close();
  });

  it('after unnumbered records the first numbered one is still checked: a record cut out before it is damage at its offset', () => {
    const dir = unnumberedJournal([
      { set: 'a', v: '1' },
      { set: 'b', v: '2' },
    ]);
    const a = open(dir);
    for (const k of ['x', 'y', 'z']) a.store.append({ set: k, v: k });
    a.store.close();
    const file = path.join(dir, 'journal-0.ttlj');
    const bytes = fs.readFileSync(file);
    const starts = scanFrames(bytes).frames.map((f) => f.offset);
    // Frames: a, b, x (q 1), y (q 2), z (q 3); x is cut out.
    fs.writeFileSync(file, Buffer.concat([bytes.subarray(0, starts[2]), bytes.subarray(starts[3])]));
    const b = open(dir);
    assert.deepEqual(b.report.problems, [
      `journal-0.ttlj: damaged at byte offset ${starts[2]} (1 record is missing before this one (sequence number 2 after 0)); everything before it was recovered, nothing after it was applied`,
    ]);
    assert.deepEqual(
      [...b.state],
      [
        ['a', '1'],
        ['b', '2'],
      ],
    );
    b.store.close();
  });
  it('a snapshot written before frames were chained and records numbered (no chain in its footer, no seq in its header) opens whole, and records appended after it reopen clean', () => {
    const dir = tmpDir();
    const frames = [
      { magic: 'ttl-workbench snapshot', format: 1, generation: 1, written: new Date() },
      { k: 'a', v: '1' },
      { k: 'b', v: '2' },
      { end: true, records: 2 },
    ].map((d) => encodeFrame(BSON.serialize(d)));
    fs.writeFileSync(path.join(dir, 'snapshot-1.ttls'), Buffer.concat(frames));
    const a = open(dir);
    assert.deepEqual(
      [a.report.problems, a.report.snapshot, [...a.state]],
      [
        [],
        1,
        [
          ['a', '1'],
          ['b', '2'],
        ],
      ],
    );
    a.store.append({ set: 'c', v: '3' });
    a.store.close();
    const b = open(dir);
    assert.deepEqual([b.report.problems, b.report.journalRecords, b.state.size], [[], 1, 3]);
    b.store.close();
  });
});

describe('file store: damage and what is kept aside', () => {
  it('journals after a damaged one are not applied, are listed by name and kept as .unreplayed, and the new base is past every generation', () => {
    const dir = tmpDir();
    const a = open(dir);
    a.store.append({ set: 'a', v: '1' });
    a.store.append({ set: 'b', v: '2' });
    a.store.append({ set: 'c', v: '3' });
    // Two journal switches whose snapshots never came: journals 0, 1 and 2 are all replayed.
    a.store.beginCompaction();
    a.store.abandonCompaction();
    a.store.append({ set: 'd', v: '4' });
    a.store.beginCompaction();
    a.store.abandonCompaction();
    a.store.append({ set: 'e', v: '5' });
    a.store.close();
    flipMiddle(path.join(dir, 'journal-0.ttlj'));
    const b = open(dir);
    assert.equal(b.report.stoppedAt?.file, path.join(dir, 'journal-0.ttlj'));
    assert.equal(b.report.needsBaseSnapshot, true);
    assert.deepEqual(b.report.problems.slice(1), [
      'journal-1.ttlj comes after the damage and was not applied',
      'journal-2.ttlj comes after the damage and was not applied',
    ]);
    assert.equal(b.store.awaitingRecoveredState, true);
    const notes = b.store.saveRecoveredState([...b.state].map(([k, v]) => ({ k, v })));
    assert.equal(notes.length, 3);
    assert.match(notes[0], /^journal-0\.ttlj was kept as journal-0\.ttlj\.damaged-\d+$/);
    assert.match(
      notes[1],
      /^journal-1\.ttlj was kept as journal-1\.ttlj\.unreplayed-\d+ \(not applied: it comes after the damage\)$/,
    );
    assert.match(
      notes[2],
      /^journal-2\.ttlj was kept as journal-2\.ttlj\.unreplayed-\d+ \(not applied: it comes after the damage\)$/,
    );
    assert.deepEqual(
      fs
        .readdirSync(dir)
        .filter((f) => /^(snapshot-\d+\.ttls|journal-\d+\.ttlj)$/.test(f))
        .sort(),
      ['journal-3.ttlj', 'snapshot-3.ttls'],
    );
    b.store.append({ set: 'z', v: '9' });
    b.store.close();
    const c = open(dir);
    assert.deepEqual(c.report.problems, []);
    assert.equal(c.state.get('z'), '9');
    c.store.close();
  });

  it('a torn record in a journal that is not the last one is damage (it cannot come from a crash), not a torn tail', () => {
    const dir = tmpDir();
    const a = open(dir);
    a.store.append({ set: 'a', v: '1' });
    a.store.beginCompaction();
    a.store.abandonCompaction();
    a.store.append({ set: 'b', v: '2' });
    a.store.close();
    const j0 = path.join(dir, 'journal-0.ttlj');
    const bytes = fs.readFileSync(j0);
    fs.appendFileSync(j0, bytes.subarray(0, 12));
    const b = open(dir);
    assert.equal(b.report.tornTail, undefined);
    assert.deepEqual(b.report.stoppedAt, { file: j0, offset: bytes.length });
    assert.equal(b.report.needsBaseSnapshot, true);
    assert.deepEqual([...b.state], [['a', '1']]);
    b.store.close();
  });

  it('where the disk cannot link a kept file, it is copied; an interrupted save that already linked it adds no second name', () => {
    const dir = journalFolder(6);
    const journal = path.join(dir, 'journal-0.ttlj');
    flipMiddle(journal);
    const damaged = fs.readFileSync(journal);
    const rec = new RecordingFs();
    const first = open(dir, { fs: rec.fs });
    rec.failOn('link', 1, 'EPERM', true);
    // The snapshot's rename fails: the copy is made, then the save stops (a crash there is the same).
    rec.failOn('rename', 1, 'EIO');
    assert.throws(
      () => first.store.saveRecoveredState([...first.state].map(([k, v]) => ({ k, v }))),
      (err: unknown) =>
        err instanceof RecoveryWriteError && /could not save the recovered state as snapshot-1\.ttls/.test(err.message),
    );
    assert.ok(rec.calls.some((c) => c.name === 'copyFile' && !c.failed));
    const keptNames = () => fs.readdirSync(dir).filter((f) => f.startsWith('journal-0.ttlj.damaged-'));
    const [copied] = keptNames();
    assert.equal(keptNames().length, 1);
    assert.deepEqual(fs.readFileSync(path.join(dir, copied)), damaged);
    // A save interrupted after linking the file (here: linked by hand) finds that name again at the next open.
    const second = open(dir);
    const linked = 'journal-0.ttlj.damaged-1';
    fs.linkSync(journal, path.join(dir, linked));
    const notes = second.store.saveRecoveredState([...second.state].map(([k, v]) => ({ k, v })));
    assert.deepEqual(notes, [], 'the file was linked already: no new name');
    assert.deepEqual(keptNames().sort(), [copied, linked].sort());
    second.store.close();
  });

  it("in a folder without a manifest, a damaged snapshot is skipped and the journal after it still replays (its numbers continue the lost snapshot's)", () => {
    const dir = compactedFolder();
    fs.rmSync(path.join(dir, MANIFEST_FILE));
    flipMiddle(path.join(dir, 'snapshot-1.ttls'));
    const a = open(dir);
    assert.equal(a.report.problems.length, 1);
    assert.match(
      a.report.problems[0],
      /^snapshot-1\.ttls is damaged at byte offset \d+: none of its records were applied$/,
    );
    assert.deepEqual([a.report.stoppedAt, a.report.journalRecords, [...a.state]], [undefined, 1, [['c', '3']]]);
    assert.equal(a.report.needsBaseSnapshot, true);
    a.store.close();
  });

  it('a damaged snapshot and the journal after it cut short: both are kept aside when the recovered state is saved', () => {
    const dir = compactedFolder();
    flipMiddle(path.join(dir, 'snapshot-1.ttls'));
    fs.writeFileSync(path.join(dir, 'journal-1.ttlj'), '');
    const a = open(dir);
    assert.deepEqual(a.report.problems.slice(1), [
      'records up to sequence number 3 were committed, but the files hold only 0: journal-1.ttlj was cut short or emptied, or a journal is missing; everything found was recovered',
    ]);
    const notes = a.store.saveRecoveredState([]);
    assert.equal(notes.length, 2);
    assert.match(notes[0], /^snapshot-1\.ttls was kept as snapshot-1\.ttls\.damaged-\d+$/);
    assert.match(notes[1], /^journal-1\.ttlj was kept as journal-1\.ttlj\.damaged-\d+$/);
    assert.equal(fs.existsSync(path.join(dir, notes[1].split(' ').at(-1)!)), true);
    a.store.close();
  });

  it('awaitingRecoveredState: false after a clean recovery, true after damage until the recovered state is saved', () => {
    const clean = open(journalFolder(2));
    assert.equal(clean.store.awaitingRecoveredState, false);
    clean.store.close();
    const dir = journalFolder(6);
    flipMiddle(path.join(dir, 'journal-0.ttlj'));
    const a = open(dir);
    assert.equal(a.store.awaitingRecoveredState, true);
    a.store.saveRecoveredState([...a.state].map(([k, v]) => ({ k, v })));
    assert.equal(a.store.awaitingRecoveredState, false);
    a.store.close();
  });

  it('a save makes its snapshot the base in the manifest at once: a crash right after it reopens clean, with the state saved', () => {
    const dir = journalFolder(6);
    flipMiddle(path.join(dir, 'journal-0.ttlj'));
    const a = open(dir);
    const recovered = [...a.state];
    a.store.saveRecoveredState(recovered.map(([k, v]) => ({ k, v })));
    // The folder as a crash now would leave it: every file but the lock of this (live) process.
    const crashed = tmpDir();
    for (const f of fs.readdirSync(dir)) if (f !== 'LOCK') fs.copyFileSync(path.join(dir, f), path.join(crashed, f));
    a.store.close();
    const b = open(crashed);
    assert.deepEqual([b.report.problems, [...b.state]], [[], recovered]);
    b.store.close();
  });

  it('an earlier kept file of the same name that is another file is never taken for this one: the damaged journal gets its own name', () => {
    for (const inodes of ['real', 'none'] as const) {
      const dir = journalFolder(6);
      const journal = path.join(dir, 'journal-0.ttlj');
      flipMiddle(journal);
      const damaged = fs.readFileSync(journal);
      const earlier = path.join(dir, 'journal-0.ttlj.damaged-1');
      fs.writeFileSync(earlier, 'an earlier incident');
      // A file system that reports no inode numbers (0 for every file) cannot tell files apart.
      const io: StorageFs = {
        ...new RecordingFs().fs,
        statSync: ((p: fs.PathLike) =>
          inodes === 'none' ? Object.assign(fs.statSync(p), { ino: 0 }) : fs.statSync(p)) as StorageFs['statSync'],
      };
      const a = open(dir, { fs: io });
      const notes = a.store.saveRecoveredState([...a.state].map(([k, v]) => ({ k, v })));
      assert.equal(notes.length, 1, inodes);
      const kept = /^journal-0\.ttlj was kept as (journal-0\.ttlj\.damaged-\d+)$/.exec(notes[0])?.[1];
      assert.ok(kept && kept !== 'journal-0.ttlj.damaged-1', `${inodes}: ${notes[0]}`);
      assert.deepEqual(fs.readFileSync(path.join(dir, kept)), damaged, inodes);
      assert.equal(fs.readFileSync(earlier, 'utf8'), 'an earlier incident', inodes);
      a.store.close();
    }
  });
});

describe('file store: the manifest and what it finds missing', () => {
  it('a manifest that is not one is reported (the check is skipped for this open), and a clean close writes a good one', () => {
    for (const text of [
      '{',
      '{"format":2,"snapshot":null,"seq":0}',
      '{"format":1,"snapshot":"1","seq":0}',
      '{"format":1,"snapshot":null,"seq":1.5}',
    ]) {
      const dir = journalFolder(2);
      fs.writeFileSync(path.join(dir, MANIFEST_FILE), text);
      const a = open(dir);
      assert.deepEqual(
        a.report.problems,
        [
          `${MANIFEST_FILE} is unreadable: missing or shortened files cannot be checked at this open (it is written again at the next clean close)`,
        ],
        text,
      );
      a.store.close();
      assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, MANIFEST_FILE), 'utf8')), {
        format: 1,
        snapshot: null,
        seq: 2,
      });
    }
  });

  it('a manifest naming snapshot 1 and seq 3 is accepted as written (no problem at the open)', () => {
    const dir = compactedFolder();
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, MANIFEST_FILE), 'utf8')), {
      format: 1,
      snapshot: 1,
      seq: 3,
    });
    const a = open(dir);
    assert.deepEqual([a.report.problems, a.report.needsBaseSnapshot], [[], false]);
    a.store.close();
  });

  it('a manifest that cannot be read (a folder in its place) refuses the open and frees the folder', () => {
    const dir = journalFolder(1);
    fs.rmSync(path.join(dir, MANIFEST_FILE));
    fs.mkdirSync(path.join(dir, MANIFEST_FILE));
    assert.throws(
      () => open(dir),
      (err: unknown) =>
        err instanceof StorageReadError &&
        err.message.startsWith(`Could not read ${path.join(dir, MANIFEST_FILE)} (EISDIR`),
    );
    fs.rmdirSync(path.join(dir, MANIFEST_FILE));
    const again = open(dir);
    assert.deepEqual([...again.state], [['k0', '0']]);
    again.store.close();
  });

  it('every journal gone while the manifest counts records: "the journal is missing", and the new base is saved', () => {
    const dir = journalFolder(3);
    fs.rmSync(path.join(dir, 'journal-0.ttlj'));
    const a = open(dir);
    assert.deepEqual(a.report.problems, [
      'records up to sequence number 3 were committed, but the files hold only 0: the journal is missing; everything found was recovered',
    ]);
    assert.deepEqual(a.report.stoppedAt, { file: path.join(dir, 'journal-0.ttlj'), offset: 0 });
    assert.equal(a.store.awaitingRecoveredState, true);
    assert.deepEqual(a.store.saveRecoveredState([]), []);
    a.store.append({ set: 'x', v: '1' });
    a.store.close();
    const b = open(dir);
    assert.deepEqual([b.report.problems, [...b.state]], [[], [['x', '1']]]);
    b.store.close();
  });

  it('a journal cut short after a snapshot is reported by name with how many records are missing', () => {
    const dir = compactedFolder();
    fs.writeFileSync(path.join(dir, 'journal-1.ttlj'), '');
    const a = open(dir);
    assert.deepEqual(a.report.problems, [
      'records up to sequence number 3 were committed, but the files hold only 2: journal-1.ttlj was cut short or emptied, or a journal is missing; everything found was recovered',
    ]);
    assert.deepEqual([...a.state].sort(), [
      ['a', '1'],
      ['b', '2'],
    ]);
    a.store.close();
  });

  it('an older snapshot present while the manifest names a newer, missing one: the older is used and the newer reported missing', () => {
    const dir = compactedFolder();
    // The manifest says snapshot 2 is the base (as after a later compaction whose file is gone).
    fs.writeFileSync(path.join(dir, MANIFEST_FILE), JSON.stringify({ format: 1, snapshot: 2, seq: 3 }));
    const a = open(dir);
    assert.equal(a.report.snapshot, 1);
    assert.deepEqual(a.report.problems, [
      "snapshot-2.ttls is missing: the folder's manifest names it as the base of its state; what the other files hold was recovered",
    ]);
    assert.deepEqual(a.report.stoppedAt, { file: path.join(dir, 'snapshot-2.ttls'), offset: 0 });
    a.store.close();
  });

  it('a manifest older than the snapshot loaded (its own snapshot compacted away since, as a restored backup leaves it) reports nothing missing', () => {
    const dir = compactedFolder();
    const older = fs.readFileSync(path.join(dir, MANIFEST_FILE));
    const a = open(dir);
    const g = a.store.beginCompaction();
    a.store.writeSnapshot(
      g,
      [...a.state].map(([k, v]) => ({ k, v })),
    );
    a.store.append({ set: 'd', v: '4' });
    a.store.close();
    assert.equal(fs.existsSync(path.join(dir, 'snapshot-1.ttls')), false);
    fs.writeFileSync(path.join(dir, MANIFEST_FILE), older);
    const b = open(dir);
    assert.deepEqual([b.report.snapshot, b.report.problems, b.report.needsBaseSnapshot], [2, [], false]);
    assert.equal(b.state.get('d'), '4');
    b.store.close();
  });
});

describe('file store: snapshots that cannot be used', () => {
  it('a snapshot that cannot be read (a folder in its place) refuses the open and frees the folder', () => {
    const dir = compactedFolder();
    fs.rmSync(path.join(dir, 'snapshot-1.ttls'));
    fs.mkdirSync(path.join(dir, 'snapshot-1.ttls'));
    assert.throws(
      () => open(dir),
      (err: unknown) =>
        err instanceof StorageReadError &&
        err.message.startsWith(`Could not read ${path.join(dir, 'snapshot-1.ttls')} (EISDIR`),
    );
    fs.rmdirSync(path.join(dir, 'snapshot-1.ttls'));
    const again = open(dir);
    again.store.close();
  });

  it('a snapshot record the reader refuses stops the open with where it is and what to do; the folder is freed', () => {
    const dir = compactedFolder();
    const store = FileStore.open(dir);
    assert.throws(
      () =>
        store.recover({
          snapshotRecord: (d) => {
            if (d.k === 'b') throw new Error('not a record');
          },
          journalRecord: () => undefined,
        }),
      (err: Error) =>
        /^.*snapshot-1\.ttls: the record at byte offset \d+ passes its CRC-32 check but cannot be applied \(not a record\)\. Nothing in the folder was changed; move this snapshot out of the folder to open it from its other files\.$/.test(
          err.message,
        ),
    );
    const again = open(dir);
    assert.deepEqual([...again.state].sort(), [
      ['a', '1'],
      ['b', '2'],
      ['c', '3'],
    ]);
    again.store.close();
  });

  it('a snapshot of exactly this format opens; one format newer is refused with NewerFormatError naming both', () => {
    const dir = compactedFolder();
    const file = path.join(dir, 'snapshot-1.ttls');
    const bytes = fs.readFileSync(file);
    // The header is the first frame: rewrite it with format 3 and the same length (2 → 3).
    const header = BSON.deserialize(bytes.subarray(8, 8 + bytes.readInt32LE(8)));
    assert.equal(header.format, 2);
    const a = open(dir);
    assert.equal(a.report.snapshot, 1);
    a.store.close();
    const rewritten = encodeFrame(BSON.serialize({ ...header, format: 3 }));
    const rest = bytes.subarray(8 + bytes.readInt32LE(8));
    fs.writeFileSync(file, Buffer.concat([rewritten, rest]));
    assert.throws(
      () => open(dir),
      (err: unknown) =>
        err instanceof NewerFormatError &&
        err.message ===
          `snapshot-1.ttls in ${dir} was written by a newer TTL Workbench (storage format 3; this version reads up to 2). Update the extension to open this folder; nothing in it was changed.`,
    );
  });
  it('a snapshot whose frames are all whole but that is not one (another magic) is reported damaged without an offset and skipped', () => {
    const dir = compactedFolder();
    const file = path.join(dir, 'snapshot-1.ttls');
    const bytes = fs.readFileSync(file);
    const header = BSON.deserialize(bytes.subarray(8, 8 + bytes.readInt32LE(8)));
    const rest = bytes.subarray(8 + bytes.readInt32LE(8));
    fs.writeFileSync(file, Buffer.concat([encodeFrame(BSON.serialize({ ...header, magic: 'not a snapshot' })), rest]));
    const a = open(dir);
    assert.deepEqual(a.report.problems[0], 'snapshot-1.ttls is damaged: none of its records were applied');
    assert.equal(a.report.snapshot, undefined);
    a.store.close();
  });
  it('a snapshot without a chain (written before it) that lost a whole record is damaged: its footer counts one more', () => {
    const dir = tmpDir();
    const frames = [
      { magic: 'ttl-workbench snapshot', format: 1, generation: 1, written: new Date() },
      { k: 'a', v: '1' },
      { end: true, records: 2 },
    ].map((d) => encodeFrame(BSON.serialize(d)));
    fs.writeFileSync(path.join(dir, 'snapshot-1.ttls'), Buffer.concat(frames));
    const a = open(dir);
    assert.deepEqual(
      [a.report.problems, a.report.snapshot, a.state.size],
      [['snapshot-1.ttls is damaged: none of its records were applied'], undefined, 0],
    );
    a.store.close();
  });
});

describe('file store: what it says when it cannot take a write', () => {
  it('append names why: read-only for a reason, another writer, a damaged folder not saved, closed, not recovered', () => {
    const dir = journalFolder(1);
    const reason = open(dir, { readOnlyBecause: 'looking only' });
    assert.throws(() => reason.store.append({ set: 'x' }), { message: `${dir} is open read-only: looking only.` });
    reason.store.close();
    const writer = open(dir);
    const second = open(dir, { allowReadOnly: true });
    assert.throws(() => second.store.append({ set: 'x' }), {
      message: `${dir} is open read-only: process ${process.pid} writes to it.`,
    });
    second.store.close();
    writer.store.close();
    assert.throws(() => writer.store.append({ set: 'x' }), { message: 'the store is closed' });
    const fresh = FileStore.open(dir);
    assert.throws(() => fresh.append({ set: 'x' }), { message: 'the store is not recovered yet' });
    fresh.close();
    const damaged = journalFolder(6);
    flipMiddle(path.join(damaged, 'journal-0.ttlj'));
    const d = open(damaged);
    assert.throws(() => d.store.append({ set: 'x' }), {
      message: 'the state recovered from a damaged folder is not saved yet (saveRecoveredState)',
    });
    d.store.close();
  });

  it('a folder locked by a live process is refused naming it (and what it is); one that cannot be created is a RecoveryWriteError', () => {
    const dir = journalFolder(1);
    const holder = open(dir, { holder: 'VS Code window' });
    assert.throws(
      () => FileStore.open(dir),
      (err: unknown) =>
        err instanceof FolderLockedError &&
        err.message.startsWith(`${dir} is in use by process ${process.pid} (VS Code window) since `) &&
        err.message.endsWith(': one writer per data folder. Open it read-only, or use another folder.'),
    );
    holder.store.close();
    const anonymous = open(dir);
    assert.throws(
      () => FileStore.open(dir),
      (err: unknown) =>
        err instanceof FolderLockedError && err.message.startsWith(`${dir} is in use by process ${process.pid} since `),
    );
    anonymous.store.close();
    const file = path.join(tmpDir(), 'file');
    fs.writeFileSync(file, '');
    assert.throws(
      () => FileStore.open(path.join(file, 'data')),
      (err: unknown) =>
        err instanceof RecoveryWriteError &&
        err.message.startsWith(`${path.join(file, 'data')}: could not create the folder or its lock file (`),
    );
  });
});

describe('file store: when compaction is due, and how it stops', () => {
  it('needsCompaction: only once the journal is past compactAfterBytes, not at it', () => {
    const probe = journalFolder(0);
    const p = open(probe);
    p.store.append({ set: 'k', v: 'v' });
    const one = p.store.journalBytes;
    p.store.close();
    const dir = tmpDir();
    const a = open(dir, { compactAfterBytes: one });
    assert.equal(a.store.compactAfterBytes, one);
    a.store.append({ set: 'k', v: 'v' });
    assert.equal(a.store.journalBytes, one);
    assert.equal(a.store.needsCompaction, false);
    a.store.append({ set: 'k', v: 'v' });
    assert.equal(a.store.needsCompaction, true);
    a.store.close();
    assert.equal(a.store.journalBytes, 0);
    const b = open(tmpDir());
    assert.equal(b.store.compactAfterBytes, 64 * 1024 * 1024);
    b.store.close();
  });

  it('beginCompaction refuses a read-only store and a second compaction; after abandon or a written snapshot the next may start', () => {
    const dir = journalFolder(1);
    const reader = open(dir, { readOnlyBecause: 'looking' });
    assert.throws(() => reader.store.beginCompaction(), {
      message: 'a read-only or unrecovered store does not compact',
    });
    reader.store.close();
    const a = open(dir);
    const g = a.store.beginCompaction();
    assert.equal(a.store.isCompacting, true);
    assert.throws(() => a.store.beginCompaction(), { message: 'a compaction is already running' });
    a.store.abandonCompaction();
    assert.equal(a.store.isCompacting, false);
    const g2 = a.store.beginCompaction();
    assert.equal(g2, g + 1);
    a.store.writeSnapshot(g2, [{ k: 'k0', v: '0' }]);
    assert.equal(a.store.isCompacting, false);
    a.store.close();
  });

  it('a new journal whose directory entry cannot be synced stops the compaction; commits go on in the old journal', () => {
    const dir = journalFolder(1);
    const rec = new RecordingFs();
    const a = open(dir, { fs: rec.fs });
    rec.failOn('fsync', 1, 'EIO');
    assert.throws(() => a.store.beginCompaction(), /EIO/);
    assert.equal(a.store.isCompacting, false);
    a.store.append({ set: 'after', v: '1' });
    a.store.close();
    const b = open(dir);
    assert.equal(b.state.get('after'), '1');
    assert.deepEqual(b.report.problems, []);
    b.store.close();
  });

  it('a failed group commit of the old journal stops the compaction and fails the new journal too (the snapshot would cover writes not on disk)', async () => {
    const dir = journalFolder(0);
    const rec = new RecordingFs();
    const a = open(dir, { fs: rec.fs, durability: 'batched' });
    a.store.append({ set: 'x', v: '1' });
    rec.failOn('fdatasync', 1, 'EIO', true);
    assert.throws(() => a.store.beginCompaction(), /EIO/);
    assert.equal(a.store.isCompacting, false);
    assert.throws(() => a.store.append({ set: 'y', v: '2' }), /EIO/);
    rec.heal();
    assert.throws(() => a.store.close(), /EIO/);
    // The close after a failure writes no manifest: what reached the disk is not known.
    assert.equal(
      rec.calls.some((c) => c.name === 'rename' && c.path?.endsWith(MANIFEST_FILE)),
      false,
    );
  });

  it('writeSnapshotAsync removes the older generations and moves the manifest to the new snapshot', async () => {
    const dir = journalFolder(2);
    const a = open(dir);
    const g = a.store.beginCompaction();
    a.store.append({ set: 'k2', v: '2' });
    const bytes = await a.store.writeSnapshotAsync(g, [
      { k: 'k0', v: '0' },
      { k: 'k1', v: '1' },
    ]);
    assert.equal(fs.statSync(path.join(dir, `snapshot-${g}.ttls`)).size, bytes);
    assert.equal(a.store.isCompacting, false);
    assert.deepEqual(
      fs
        .readdirSync(dir)
        .filter((f) => /^(snapshot|journal)-/.test(f))
        .sort(),
      [`journal-${g}.ttlj`, `snapshot-${g}.ttls`],
    );
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, MANIFEST_FILE), 'utf8')), {
      format: 1,
      snapshot: g,
      seq: 2,
    });
    a.store.close();
    const b = open(dir);
    assert.deepEqual([...b.state].sort(), [
      ['k0', '0'],
      ['k1', '1'],
      ['k2', '2'],
    ]);
    b.store.close();
  });

  it('a close while a compaction is unwritten, or with work before unlock, leaves the manifest as it was', () => {
    const dir = journalFolder(2);
    const manifest = () => fs.readFileSync(path.join(dir, MANIFEST_FILE), 'utf8');
    const before = manifest();
    const a = open(dir);
    a.store.beginCompaction();
    a.store.append({ set: 'k2', v: '2' });
    a.store.close();
    assert.equal(manifest(), before);
    const b = open(dir);
    b.store.append({ set: 'k3', v: '3' });
    let ran = false;
    b.store.close(() => {
      ran = true;
    });
    assert.equal(ran, true);
    assert.equal(manifest(), before);
  });
});

describe('file store: a torn last record', () => {
  it('is reported as the torn tail and cut off by a writable open; a read-only open leaves the file as it found it', () => {
    const dir = journalFolder(2);
    const j0 = path.join(dir, 'journal-0.ttlj');
    const whole = fs.readFileSync(j0).length;
    // Half of a third record: what a crash in the middle of an append leaves.
    fs.appendFileSync(j0, encodeFrame(BSON.serialize({ set: 'k2', v: '2' })).subarray(0, 10));
    const torn = fs.readFileSync(j0).length;
    const reader = open(dir, { readOnlyBecause: 'looking' });
    assert.equal(typeof reader.report.tornTail, 'string');
    assert.equal(reader.report.tornTail, reader.report.problems.at(-1));
    assert.equal(fs.readFileSync(j0).length, torn, 'a read-only open changes nothing');
    assert.deepEqual([...reader.state].length, 2);
    reader.store.close();
    const writer = open(dir);
    assert.equal(writer.report.tornTail, writer.report.problems.at(-1));
    assert.equal(fs.readFileSync(j0).length, whole, 'the writer cut the torn record off');
    writer.store.close();
  });
});

describe('file store: a read-only open of a damaged folder', () => {
  it('reports the damage but holds no new base to save: saveRecoveredState writes nothing, and the folder stays as found', () => {
    const dir = journalFolder(3);
    const j0 = path.join(dir, 'journal-0.ttlj');
    const bytes = fs.readFileSync(j0);
    bytes[20] ^= 0xff; // inside the first record: its checksum fails, so nothing after it is applied
    fs.writeFileSync(j0, bytes);
    const before = fs.readdirSync(dir).sort();
    const reader = open(dir, { readOnlyBecause: 'looking' });
    assert.equal(reader.report.needsBaseSnapshot, true);
    assert.deepEqual(reader.store.saveRecoveredState([]), []);
    reader.store.close();
    assert.deepEqual(fs.readdirSync(dir).sort(), before);
    assert.deepEqual(fs.readFileSync(j0), bytes);
  });
});
