/**
 * The file store's folder logic: generations of snapshots and journals, recovery from each point
 * a compaction can be interrupted at, torn tails and corruption, read-only second openers.
 * Records here are plain documents (a key-value log), so the store's logic is tested on its own;
 * the engine's records are tested with the engine.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BSON, Double, Int32, type Document } from 'bson';
import { FileStore, FolderLockedError, NewerFormatError } from '../../../src/storage/file-store';
import { encodeFrame, scanFrames } from '../../../src/storage/frames';
import { compactedKvFolder, openKvStore } from './kv-store';
import { RecordingFs } from './recording-fs';

const tmpDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-store-'));

const open = openKvStore;

const snapshotOf = (state: Map<string, string>) => [...state].map(([k, v]) => ({ k, v }));

describe('file store: recovery', () => {
  it('an empty folder recovers to nothing; committed records come back after a reopen', () => {
    const dir = tmpDir();
    const a = open(dir);
    assert.equal(a.state.size, 0);
    a.store.append({ set: 'x', v: '1' });
    a.store.append({ set: 'y', v: '2' });
    a.store.append({ del: 'x' });
    a.store.close();
    const b = open(dir);
    assert.deepEqual([...b.state], [['y', '2']]);
    assert.deepEqual([b.report.snapshot, b.report.journalRecords, b.report.problems], [undefined, 3, []]);
    b.store.close();
  });

  it('compaction: snapshot + the new journal; older files are removed', () => {
    const dir = tmpDir();
    const a = open(dir);
    for (let i = 0; i < 10; i++) a.store.append({ set: `k${i}`, v: String(i) });
    for (let i = 0; i < 10; i++) a.state.set(`k${i}`, String(i));
    const g = a.store.beginCompaction();
    a.store.append({ set: 'after', v: 'switch' });
    a.store.writeSnapshot(g, snapshotOf(a.state));
    a.store.close();
    assert.deepEqual(fs.readdirSync(dir).sort(), ['journal-1.ttlj', 'snapshot-1.ttls', 'ttl-store.manifest']);
    const b = open(dir);
    assert.equal(b.state.size, 11);
    assert.equal(b.state.get('after'), 'switch');
    assert.deepEqual([b.report.snapshot, b.report.snapshotRecords, b.report.journalRecords], [1, 10, 1]);
    b.store.close();
  });

  it('a crash after the journal switch but before the snapshot: the old journal and the new one are replayed', () => {
    const dir = tmpDir();
    const a = open(dir);
    a.store.append({ set: 'a', v: '1' });
    a.store.beginCompaction();
    a.store.append({ set: 'b', v: '2' });
    a.store.close(); // no snapshot written
    // A temporary snapshot file left by the crash is not a snapshot.
    fs.writeFileSync(path.join(dir, '.snapshot-1.ttls.123.tmp'), 'partial');
    const b = open(dir);
    assert.deepEqual(
      [...b.state],
      [
        ['a', '1'],
        ['b', '2'],
      ],
    );
    assert.equal(b.report.snapshot, undefined);
    assert.ok(!fs.readdirSync(dir).some((f) => f.endsWith('.tmp')), 'the temporary file is cleaned up');
    b.store.close();
  });

  it('a crash after the snapshot rename but before old files were removed: the old journal is not replayed again', () => {
    const dir = tmpDir();
    const a = open(dir);
    a.store.append({ set: 'a', v: 'old' });
    const g = a.store.beginCompaction();
    a.store.append({ set: 'a', v: 'new' });
    // Keep the old journal around, as if the process died right after the rename.
    const kept = fs.readFileSync(path.join(dir, 'journal-0.ttlj'));
    a.store.writeSnapshot(g, [{ k: 'a', v: 'old' }]);
    fs.writeFileSync(path.join(dir, 'journal-0.ttlj'), kept);
    a.store.close();
    const b = open(dir);
    assert.deepEqual([...b.state], [['a', 'new']]);
    assert.deepEqual([b.report.snapshot, b.report.journalRecords], [1, 1]);
    b.store.close();
  });

  it('a damaged newest snapshot falls back to the older snapshot and the journals since', () => {
    const dir = tmpDir();
    const a = open(dir);
    a.store.append({ set: 'a', v: '1' });
    a.store.writeSnapshot(a.store.beginCompaction(), [{ k: 'a', v: '1' }]);
    a.store.append({ set: 'b', v: '2' });
    // Compaction 2 switches journals; its snapshot is then damaged on disk.
    const g2 = a.store.beginCompaction();
    a.store.append({ set: 'c', v: '3' });
    fs.writeFileSync(path.join(dir, `snapshot-${g2}.ttls`), Buffer.from('not a snapshot at all, just bytes'));
    a.store.close();
    const b = open(dir);
    assert.deepEqual([...b.state].sort(), [
      ['a', '1'],
      ['b', '2'],
      ['c', '3'],
    ]);
    assert.equal(b.report.snapshot, 1);
    assert.match(b.report.problems[0], /snapshot-2\.ttls is damaged/);
    b.store.close();
  });

  it('a snapshot of a newer storage format refuses the open and changes nothing (older files would show less than the folder holds)', () => {
    const dir = tmpDir();
    const a = open(dir);
    a.store.append({ set: 'a', v: '1' });
    a.store.writeSnapshot(a.store.beginCompaction(), [{ k: 'a', v: '1' }]);
    a.store.append({ set: 'b', v: '2' });
    a.store.close();
    // Rewrite the snapshot's header as a later version would write it.
    const file = path.join(dir, 'snapshot-1.ttls');
    const frames = scanFrames(fs.readFileSync(file)).frames;
    const header = BSON.deserialize(frames[0].payload);
    const newer = [BSON.serialize({ ...header, format: 99 }), ...frames.slice(1).map((f) => f.payload)];
    fs.writeFileSync(file, Buffer.concat(newer.map((p) => encodeFrame(p))));
    const files = () =>
      fs
        .readdirSync(dir)
        .sort()
        .map((f) => [f, fs.readFileSync(path.join(dir, f)).toString('hex')]);
    const before = files();
    for (let attempt = 0; attempt < 2; attempt++) {
      // The second attempt meets the same refusal, not a lock left by the first.
      assert.throws(
        () => open(dir),
        (err: unknown) => {
          assert.ok(err instanceof NewerFormatError);
          assert.match(
            err.message,
            /snapshot-1\.ttls .* newer TTL Workbench \(storage format 99; this version reads up to \d+\)\. Update the extension/,
          );
          return true;
        },
      );
    }
    assert.deepEqual(files(), before);
  });

  it('a torn last record is cut off and reported in one line; appends continue after it', () => {
    const dir = tmpDir();
    const a = open(dir);
    a.store.append({ set: 'a', v: '1' });
    a.store.close();
    fs.appendFileSync(path.join(dir, 'journal-0.ttlj'), Buffer.from([40, 0, 0, 0, 7, 7, 7]));
    const b = open(dir);
    assert.deepEqual([...b.state], [['a', '1']]);
    assert.equal(b.report.problems.length, 1);
    assert.match(
      b.report.problems[0],
      /journal-0\.ttlj: a torn last record \(7 bytes at offset \d+, a crash mid-append; it was never acknowledged\) was cut off/,
    );
    b.store.append({ set: 'b', v: '2' });
    b.store.close();
    const c = open(dir);
    assert.deepEqual(
      [...c.state],
      [
        ['a', '1'],
        ['b', '2'],
      ],
    );
    assert.deepEqual(c.report.problems, []);
    c.store.close();
  });

  it('corruption in the middle: records before it recovered, the offset reported, the damaged file kept, new commits in a new journal', () => {
    const dir = tmpDir();
    const a = open(dir);
    for (let i = 0; i < 5; i++) a.store.append({ set: `k${i}`, v: String(i) });
    a.store.close();
    const file = path.join(dir, 'journal-0.ttlj');
    const bytes = fs.readFileSync(file);
    const third = bytes.length * 0.5;
    bytes[Math.floor(third)] ^= 0xff;
    fs.writeFileSync(file, bytes);
    const b = open(dir);
    assert.ok(b.report.stoppedAt, 'stopped at the damage');
    assert.ok(b.state.size >= 1 && b.state.size < 5);
    assert.match(
      b.report.problems[0],
      /journal-0\.ttlj: damaged at byte offset \d+ \(a record fails its CRC-32 check\); everything before it was recovered/,
    );
    assert.equal(b.report.needsBaseSnapshot, true);
    assert.throws(
      () => b.store.append({ set: 'early', v: 'x' }),
      /recovered from a damaged folder is not saved yet/,
      'no write before the recovered state is the base',
    );
    const kept = b.store.saveRecoveredState(snapshotOf(b.state));
    assert.match(kept.join('\n'), /journal-0\.ttlj was kept as journal-0\.ttlj\.damaged-\d+/);
    assert.ok(fs.readdirSync(dir).some((f) => f.startsWith('journal-0.ttlj.damaged-')));
    b.store.append({ set: 'later', v: 'x' });
    b.store.close();
    const c = open(dir);
    assert.deepEqual(
      new Map([...c.state].filter(([k]) => k !== 'later')),
      b.state,
      'the recovered records survive the next open',
    );
    assert.equal(c.state.get('later'), 'x');
    assert.deepEqual(c.report.problems, []);
    c.store.close();
  });
});

describe('file store: snapshot order', () => {
  it('two whole snapshot records swapped, or one dropped with the count fixed, are damage: every frame checksum holds, the chain of them does not', () => {
    for (const edit of ['swap', 'drop'] as const) {
      const dir = tmpDir();
      const a = open(dir);
      a.store.append({ set: 'j', v: 'journal' });
      const g = a.store.beginCompaction();
      a.store.writeSnapshot(g, [
        { k: 'a', v: '1' },
        { k: 'b', v: '2' },
        { k: 'a', v: '3' },
      ]);
      a.store.close();
      const file = path.join(dir, `snapshot-${g}.ttls`);
      const bytes = fs.readFileSync(file);
      const frames = scanFrames(bytes).frames;
      const whole = (i: number) =>
        bytes.subarray(frames[i].offset, i + 1 < frames.length ? frames[i + 1].offset : bytes.length);
      const footer = (records: number) =>
        encodeFrame(BSON.serialize({ ...BSON.deserialize(frames[4].payload), records }));
      const edited =
        edit === 'swap'
          ? Buffer.concat([whole(0), whole(3), whole(2), whole(1), whole(4)])
          : Buffer.concat([whole(0), whole(1), whole(2), footer(2)]);
      fs.writeFileSync(file, edited);
      assert.equal(scanFrames(edited).damage, undefined, `${edit}: every frame is whole`);
      const b = open(dir);
      assert.match(
        b.report.problems.join('\n'),
        /snapshot-1\.ttls is damaged: its records are whole but not the ones written, in that order/,
        edit,
      );
      assert.equal(b.report.needsBaseSnapshot, true);
      b.store.close();
    }
  });
});

describe('file store: sequence numbers', () => {
  /** The journal's whole frames as byte ranges. */
  function frameBytes(file: string): Buffer[] {
    const bytes = fs.readFileSync(file);
    const frames = scanFrames(bytes).frames;
    return frames.map((f, i) => bytes.subarray(f.offset, i + 1 < frames.length ? frames[i + 1].offset : bytes.length));
  }

  it('a whole record cut out of a journal, repeated, or two swapped (every checksum valid) is damage at its offset, not a quiet replay', () => {
    for (const edit of ['cut', 'repeat', 'swap'] as const) {
      const dir = tmpDir();
      const a = open(dir);
      for (let i = 0; i < 6; i++) a.store.append({ set: `k${i}`, v: String(i) });
      a.store.close();
      const file = path.join(dir, 'journal-0.ttlj');
      const f = frameBytes(file);
      const edited =
        edit === 'cut'
          ? [f[0], f[1], f[3], f[4], f[5]]
          : edit === 'repeat'
            ? [f[0], f[1], f[2], f[2], f[3], f[4], f[5]]
            : [f[0], f[1], f[3], f[2], f[4], f[5]];
      fs.writeFileSync(file, Buffer.concat(edited));
      const b = open(dir);
      const where = edit === 'repeat' ? 3 : 2;
      assert.deepEqual(
        [...b.state.keys()],
        Array.from({ length: where }, (_, i) => `k${i}`),
        `${edit}: the records before it`,
      );
      const reason =
        edit === 'cut'
          ? /1 record is missing before this one \(sequence number 4 after 2\)/
          : edit === 'repeat'
            ? /a record repeats sequence number 3 \(after 3\)/
            : /1 record is missing before this one \(sequence number 4 after 2\)/;
      assert.match(b.report.problems[0], reason, edit);
      assert.deepEqual(
        b.report.stoppedAt?.offset,
        edited.slice(0, where).reduce((n, x) => n + x.length, 0),
        `${edit}: at the offset of the first record out of sequence`,
      );
      b.store.close();
    }
  });

  it('numbers continue across a compaction, a reopen, a torn tail and a recovery: a long history reopens clean', () => {
    const dir = tmpDir();
    let o = open(dir);
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 5; i++) o.store.append({ set: `r${round}i${i}`, v: 'x' });
      if (round === 1) {
        const g = o.store.beginCompaction();
        o.store.append({ set: 'during', v: 'compaction' });
        o.state.set('during', 'compaction');
        o.store.writeSnapshot(
          g,
          snapshotOf(
            new Map([
              ...o.state,
              ...Array.from({ length: 10 }, (_, i): [string, string] => [`r${Math.floor(i / 5)}i${i % 5}`, 'x']),
            ]),
          ),
        );
      }
      o.store.close();
      if (round === 2) fs.appendFileSync(path.join(dir, 'journal-1.ttlj'), Buffer.from([40, 0, 0, 0, 1]));
      o = open(dir);
      assert.deepEqual(
        o.report.problems.filter((p) => !/torn/.test(p)),
        [],
        `round ${round}`,
      );
    }
    assert.equal(o.state.size, 21);
    o.store.close();
  });
});

describe('file store: the manifest', () => {
  /** A folder closed cleanly: snapshot 1 (a, b) and journal 1 (c). */
  const folder = (): string => compactedKvFolder(tmpDir());

  it('a deleted or emptied journal, or a deleted snapshot, is reported by name (no checksum can see a file that is gone), and what is left becomes the new base', () => {
    const cases: Array<[string, (dir: string) => void, RegExp, string[]]> = [
      [
        'journal deleted',
        (dir) => fs.rmSync(path.join(dir, 'journal-1.ttlj')),
        /records up to sequence number 3 were committed, but the files hold only 2: the journal is missing/,
        ['a', 'b'],
      ],
      [
        'journal emptied',
        (dir) => fs.writeFileSync(path.join(dir, 'journal-1.ttlj'), ''),
        /records up to sequence number 3 were committed, but the files hold only 2: journal-1\.ttlj was cut short or emptied/,
        ['a', 'b'],
      ],
      [
        'snapshot deleted',
        (dir) => fs.rmSync(path.join(dir, 'snapshot-1.ttls')),
        /snapshot-1\.ttls is missing: the folder's manifest names it/,
        ['c'],
      ],
    ];
    for (const [what, harm, message, keys] of cases) {
      const dir = folder();
      harm(dir);
      const b = open(dir);
      assert.match(b.report.problems.join('\n'), message, what);
      assert.deepEqual([...b.state.keys()].sort(), keys, what);
      assert.equal(b.report.needsBaseSnapshot, true, what);
      b.store.saveRecoveredState(snapshotOf(b.state));
      b.store.append({ set: 'after', v: 'x' });
      b.store.close();
      const c = open(dir);
      assert.deepEqual(c.report.problems, [], `${what}: the next open is clean`);
      assert.deepEqual([...c.state.keys()].sort(), [...keys, 'after'].sort(), what);
      c.store.close();
    }
  });

  it('without the manifest too, journals left without their snapshot are found: numbered records must start at 1', () => {
    const dir = folder();
    fs.rmSync(path.join(dir, 'ttl-store.manifest'));
    fs.rmSync(path.join(dir, 'snapshot-1.ttls'));
    const b = open(dir);
    assert.match(b.report.problems.join('\n'), /2 records are missing before this one \(sequence number 3 after 0\)/);
    assert.equal(b.report.needsBaseSnapshot, true);
    b.store.close();
  });

  it('folders without a manifest (older versions) open without the check, and get one at their first clean close', () => {
    const dir = folder();
    fs.rmSync(path.join(dir, 'ttl-store.manifest'));
    const b = open(dir);
    assert.deepEqual(b.report.problems, []);
    b.store.close();
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, 'ttl-store.manifest'), 'utf8')), {
      format: 1,
      snapshot: 1,
      seq: 3,
    });
  });
});

describe('file store: names', () => {
  it('only exact generation names are read: a stray journal-00.ttlj is not replayed twice, a 20-digit snapshot name breaks nothing; both are listed', () => {
    const dir = tmpDir();
    const a = open(dir);
    a.store.append({ set: 'n', v: '1' });
    a.store.close();
    fs.copyFileSync(path.join(dir, 'journal-0.ttlj'), path.join(dir, 'journal-00.ttlj'));
    fs.writeFileSync(path.join(dir, 'snapshot-99999999999999999999.ttls'), 'not read');
    fs.writeFileSync(path.join(dir, 'notes.txt'), "not the store's: not mentioned");
    const b = open(dir);
    assert.deepEqual([...b.state], [['n', '1']]);
    assert.equal(b.report.journalRecords, 1, 'journal-0 once');
    assert.deepEqual(b.report.problems, [
      'ignored 2 files whose names are not one this store writes: journal-00.ttlj, snapshot-99999999999999999999.ttls',
    ]);
    b.store.close();
  });
});

describe('file store: one writer', () => {
  it('a second opener is refused, or opens read-only and cannot write', () => {
    const dir = tmpDir();
    const a = open(dir, { holder: 'test window' });
    a.store.append({ set: 'a', v: '1' });
    assert.throws(
      () => FileStore.open(dir),
      (err: unknown) => err instanceof FolderLockedError && /in use by process \d+ \(test window\)/.test(err.message),
    );
    const ro = open(dir, { allowReadOnly: true });
    assert.equal(ro.store.readOnly, true);
    assert.deepEqual([...ro.state], [['a', '1']], 'a reader sees what the writer committed');
    assert.throws(() => ro.store.append({ set: 'b', v: '2' }), /read-only/);
    ro.store.close();
    a.store.close();
  });

  it('a lock file holding garbage, written just now, is refused with what to do (not "process 0")', () => {
    const dir = tmpDir();
    fs.writeFileSync(path.join(dir, 'LOCK'), '\u0000garbage{');
    assert.throws(
      () => FileStore.open(dir),
      (err: unknown) =>
        err instanceof FolderLockedError &&
        /names no process/.test(err.message) &&
        /delete .*LOCK/.test(err.message) &&
        !/process 0/.test(err.message),
    );
  });
});

describe('file store: how snapshot records decode', () => {
  it('a record whose first field is `plain` comes back with plain numbers; any other keeps Int32 and Double as they were stored', () => {
    const dir = tmpDir();
    const a = open(dir);
    const g = a.store.beginCompaction();
    a.store.writeSnapshot(g, [
      { plain: [{ n: new Int32(5), d: new Double(1.5) }] },
      { typed: [{ n: new Int32(5), d: new Double(1.5) }] },
      // Only the exact field name counts: `plainer` starts with the same five letters.
      { plainer: [{ n: new Int32(5) }] },
      { n: new Int32(7), plain: true },
    ]);
    a.store.close();
    const store = FileStore.open(dir);
    const seen: Document[] = [];
    store.recover({ snapshotRecord: (d) => void seen.push(d), journalRecord: () => undefined });
    store.close();
    assert.equal(seen.length, 4);
    assert.deepEqual(seen[0].plain, [{ n: 5, d: 1.5 }]);
    assert.ok(seen[1].typed[0].n instanceof Int32 && seen[1].typed[0].d instanceof Double, 'typed: kept');
    assert.ok(seen[2].plainer[0].n instanceof Int32, '`plainer` is not `plain`');
    assert.ok(seen[3].n instanceof Int32, '`plain` later in the record does not count');
  });
});

describe('file store: durability and what recovery reports of itself', () => {
  it('by default an acknowledged append has been fdatasync-ed; with batched durability it returns before any sync', () => {
    for (const durability of [undefined, 'batched'] as const) {
      const dir = tmpDir();
      const rec = new RecordingFs();
      const a = open(dir, { fs: rec.fs, ...(durability ? { durability } : {}) });
      const journal = path.join(dir, 'journal-0.ttlj');
      const from = rec.calls.length;
      a.store.append({ set: 'x', v: '1' });
      assert.deepEqual(
        rec.names(from, journal),
        durability ? ['write'] : ['write', 'fdatasync'],
        `durability ${durability ?? 'default'}`,
      );
      a.store.close();
      assert.ok(rec.count('fdatasync', from) >= 1, 'a close syncs what is left');
    }
  });

  it("recovery's millis is measured: not negative, and no more than the call took", () => {
    const dir = tmpDir();
    const a = open(dir);
    for (let i = 0; i < 50; i++) a.store.append({ set: `k${i}`, v: String(i) });
    a.store.close();
    const started = performance.now();
    const b = open(dir);
    const took = performance.now() - started;
    assert.equal(b.state.size, 50);
    assert.ok(b.report.millis >= 0 && b.report.millis <= took, `${b.report.millis} of ${took}`);
    b.store.close();
  });
});

describe('file store: generations are numbers, not names', () => {
  it('journals are replayed by generation number even when the folder lists journal-10 before journal-9', () => {
    const dir = tmpDir();
    const a = open(dir);
    for (let i = 0; i < 9; i++) a.store.writeSnapshot(a.store.beginCompaction(), [{ k: 'x', v: 'base' }]);
    a.store.append({ set: 'x', v: 'older' }); // journal-9
    assert.equal(a.store.beginCompaction(), 10);
    a.store.append({ set: 'x', v: 'newer' }); // journal-10; the process dies before snapshot 10
    a.store.close();
    assert.deepEqual(fs.readdirSync(dir).sort(), [
      'journal-10.ttlj',
      'journal-9.ttlj',
      'snapshot-9.ttls',
      'ttl-store.manifest',
    ]);
    // Many file systems list a folder in name order, where "journal-10" sorts before "journal-9".
    const byName = { ...fs, readdirSync: ((d: fs.PathLike) => fs.readdirSync(d).sort()) as typeof fs.readdirSync };
    const b = open(dir, { fs: byName });
    assert.equal(b.state.get('x'), 'newer', 'journal 9, then journal 10');
    assert.deepEqual([b.report.snapshot, b.report.journalRecords, b.report.problems], [9, 2, []]);
    b.store.close();
  });
});

describe('file store: the snapshot format other versions read', () => {
  it("a snapshot's first record names the file ('ttl-workbench snapshot', format 2), which every version checks before it reads one", () => {
    const dir = tmpDir();
    const a = open(dir);
    a.store.writeSnapshot(a.store.beginCompaction(), [{ k: 'a', v: '1' }]);
    a.store.close();
    const header = BSON.deserialize(scanFrames(fs.readFileSync(path.join(dir, 'snapshot-1.ttls'))).frames[0].payload);
    assert.equal(header.magic, 'ttl-workbench snapshot');
    assert.equal(header.format, 2);
    assert.equal(header.generation, 1);
  });
});

describe('file store: a record that cannot be applied', () => {
  it('a journal record whose checksum holds but which the reader refuses stops replay there, names the reason, and keeps the records before it', () => {
    const dir = tmpDir();
    const a = open(dir);
    a.store.append({ set: 'a', v: '1' });
    a.store.append({ set: 'bad', v: '2' });
    a.store.append({ set: 'c', v: '3' });
    a.store.close();
    const store = FileStore.open(dir);
    const applied: string[] = [];
    const report = store.recover({
      snapshotRecord: () => undefined,
      journalRecord: (d) => {
        if (d.set === 'bad') throw new Error('no such collection');
        applied.push(String(d.set));
      },
    });
    store.close();
    assert.deepEqual(applied, ['a'], 'the record after the refused one is not applied either');
    assert.equal(report.journalRecords, 1);
    assert.match(
      report.problems.join('\n'),
      /journal-0\.ttlj.*a record passes its CRC-32 check but cannot be applied: no such collection/,
    );
    assert.equal(report.needsBaseSnapshot, true);
  });
});
