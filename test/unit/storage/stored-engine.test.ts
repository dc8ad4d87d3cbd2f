/**
 * src/storage/engine-store.ts, the promises its older tests (engine-store, clock-mode) leave
 * unasserted: what the folder description holds and which ones refuse an open, the notes an open
 * gives (read-only, another flavor, a clock set back), what a recovery from damage records until
 * it is acknowledged, when background compaction does not start, and what clearing a folder
 * removes. Found by the mutation run of engine-store.ts (issue 28).
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SystemClock, VirtualClock } from '../../../src/engine';
import {
  acknowledgeDamage,
  clearDataFolder,
  ClockWouldRunBackwardsError,
  closeStoredEngine,
  compact,
  DAMAGE_FILE,
  openStoredEngine,
  readDamageRecord,
  storedClockKind,
  type CompactionResult,
  type OpenedEngine,
} from '../../../src/storage/engine-store';
import { StorageReadError } from '../../../src/storage/file-store';
import { nodeFs, type StorageFs } from '../../../src/storage/storage-fs';
import { RecordingFs } from './recording-fs';

const T0 = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;
const META = 'ttl-workbench.json';
const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-stored-engine-'));
  dirs.push(d);
  return d;
}
const readMeta = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, META), 'utf8')) as Record<string, unknown>;

/** A closed folder on a virtual clock at `at` holding `app.c` with `n` documents, one command each. */
function folderWith(n: number, at = T0): string {
  const dir = tmpDir();
  const opened = openStoredEngine(dir, { engine: { clock: new VirtualClock(at) }, autoCompact: false });
  for (let i = 0; i < n; i++) opened.engine.runCommand('app', { insert: 'c', documents: [{ _id: i }] });
  closeStoredEngine(opened);
  return dir;
}

/** Flip bytes in the middle of journal-0, so recovery stops there and saves what came before. */
function damageJournal(dir: string): void {
  const journal = path.join(dir, 'journal-0.ttlj');
  const bytes = fs.readFileSync(journal);
  bytes.writeUInt32LE(0xdeadbeef, Math.floor(bytes.length / 2));
  fs.writeFileSync(journal, bytes);
}

/** A closed folder holding `app.c` and `app.d` (inserts alternating, one command each), its journal damaged in the middle. */
function twoCollectionsDamaged(): string {
  const dir = tmpDir();
  const opened = openStoredEngine(dir, { engine: { clock: new VirtualClock(T0) }, autoCompact: false });
  for (let i = 0; i < 8; i++) opened.engine.runCommand('app', { insert: i % 2 ? 'd' : 'c', documents: [{ _id: i }] });
  closeStoredEngine(opened);
  damageJournal(dir);
  return dir;
}

const openAt = (dir: string, at = T0, extra: Parameters<typeof openStoredEngine>[1] = {}): OpenedEngine =>
  openStoredEngine(dir, { engine: { clock: new VirtualClock(at) }, autoCompact: false, ...extra });

describe('engine store: how far ahead a refused clock switch says the folder is', () => {
  const aheadIn = (ms: number) => {
    const err = new ClockWouldRunBackwardsError('/data', T0 + ms, T0);
    const m = /, (.*) ahead of the system clock/.exec(err.message);
    return m?.[1];
  };

  it('ClockWouldRunBackwardsError: the largest whole unit, singular for exactly one, ms under a second', () => {
    assert.equal(aheadIn(DAY), '1 day');
    assert.equal(aheadIn(3 * DAY - 1), '2 days');
    assert.equal(aheadIn(DAY - 1), '23 hours');
    assert.equal(aheadIn(3_600_000), '1 hour');
    assert.equal(aheadIn(3_600_000 - 1), '59 minutes');
    assert.equal(aheadIn(60_000), '1 minute');
    assert.equal(aheadIn(60_000 - 1), '59 seconds');
    assert.equal(aheadIn(1000), '1 second');
    assert.equal(aheadIn(999), '999 ms');
  });

  it('ClockWouldRunBackwardsError: names the folder and the stored time, and keeps both times', () => {
    const err = new ClockWouldRunBackwardsError('/data', T0 + DAY, T0);
    assert.ok(
      err.message.startsWith(`/data keeps a virtual clock at ${new Date(T0 + DAY).toISOString()}, 1 day ahead`),
    );
    assert.deepEqual([err.dir, err.storedClockMs, err.systemMs], ['/data', T0 + DAY, T0]);
  });
});

describe('engine store: the folder description', () => {
  it('a new folder gets one: format 1, the flavor and version asked for (mongodb 8.0 by default), when, and its clock, as indented JSON', () => {
    const before = Date.now();
    const plain = tmpDir();
    closeStoredEngine(openStoredEngine(plain, { engine: { clock: new VirtualClock(T0) } }));
    const text = fs.readFileSync(path.join(plain, META), 'utf8');
    const meta = JSON.parse(text) as { created: string };
    assert.equal(text, `${JSON.stringify(meta, null, 2)}\n`);
    assert.deepEqual(
      { ...meta, created: undefined },
      {
        format: 1,
        flavor: 'mongodb',
        serverVersion: '8.0',
        created: undefined,
        clock: 'virtual',
      },
    );
    const created = Date.parse(meta.created);
    assert.ok(created >= before - 1000 && created <= Date.now(), meta.created);
    const cosmos = tmpDir();
    closeStoredEngine(
      openStoredEngine(cosmos, { engine: { clock: new VirtualClock(T0), flavor: 'cosmos', serverVersion: '7.0' } }),
    );
    assert.deepEqual([readMeta(cosmos).flavor, readMeta(cosmos).serverVersion], ['cosmos', '7.0']);
  });

  it('a read-only open of a new folder writes none (nor anything else)', () => {
    const dir = tmpDir();
    const opened = openStoredEngine(dir, { readOnlyBecause: 'looking only', engine: { clock: new VirtualClock(T0) } });
    closeStoredEngine(opened);
    assert.deepEqual(fs.readdirSync(dir), []);
  });

  for (const [what, text] of [
    ['text that is not JSON', '{flavor'],
    ['null', 'null'],
    ['an unknown flavor', JSON.stringify({ format: 1, flavor: 'mongo', serverVersion: '8.0' })],
    ['an unknown server version', JSON.stringify({ format: 1, flavor: 'cosmos', serverVersion: '6.0' })],
    ['no flavor', JSON.stringify({ format: 1, serverVersion: '7.0' })],
  ]) {
    it(`a description holding ${what} refuses the open, changes nothing and frees the folder`, () => {
      const dir = folderWith(1);
      fs.writeFileSync(path.join(dir, META), text);
      const before = fs.readdirSync(dir).sort();
      assert.throws(() => openAt(dir), {
        message: `${path.join(dir, META)} is not a TTL Workbench folder description (expected {"format": 1, "flavor": "mongodb" | "cosmos", "serverVersion": "8.0" | "7.0"}). Restore it, or delete it to open the folder as a MongoDB 8.0 engine; nothing in the folder was changed.`,
      });
      assert.deepEqual(fs.readdirSync(dir).sort(), before);
      assert.equal(fs.readFileSync(path.join(dir, META), 'utf8'), text);
      assert.equal(storedClockKind(dir), 'virtual');
      fs.rmSync(path.join(dir, META));
      const again = openAt(dir);
      assert.equal(again.documents, 1);
      closeStoredEngine(again);
    });
  }

  it('a description that cannot be read (a folder in its place) refuses the open as a read error and frees the folder', () => {
    const dir = folderWith(1);
    fs.rmSync(path.join(dir, META));
    fs.mkdirSync(path.join(dir, META));
    assert.throws(
      () => openAt(dir),
      (err: unknown) =>
        err instanceof StorageReadError && err.message.startsWith(`Could not read ${path.join(dir, META)} (EISDIR`),
    );
    fs.rmdirSync(path.join(dir, META));
    const again = openAt(dir);
    assert.equal(again.documents, 1);
    closeStoredEngine(again);
  });

  it('when the disk refuses the new description the folder opens read-only saying why, and the lock is freed at close', () => {
    const dir = tmpDir();
    const rec = new RecordingFs();
    rec.failOn('rename', 1, 'EIO');
    const opened = openStoredEngine(dir, { fs: rec.fs, engine: { clock: new VirtualClock(T0) } });
    assert.equal(opened.store.readOnly, true);
    assert.ok(
      opened.notes.some((n) => n.startsWith(`${dir}: could not write ${META} (EIO: injected failure, rename)`)),
      opened.notes.join('\n'),
    );
    closeStoredEngine(opened);
    assert.equal(fs.existsSync(path.join(dir, 'LOCK')), false);
  });
});

describe('engine store: the notes of an open', () => {
  it('asking for another server version of the same flavor is noted; asking for what the folder holds is not', () => {
    const dir = folderWith(1);
    const other = openAt(dir, T0, { engine: { clock: new VirtualClock(T0), serverVersion: '7.0' } });
    assert.deepEqual(other.notes, [
      `${dir} holds a mongodb 8.0 engine; it opens as such (asked for mongodb 7.0). Use another folder for another flavor or version.`,
    ]);
    assert.equal(other.engine.serverVersion, '8.0');
    closeStoredEngine(other);
    const same = openAt(dir, T0, { engine: { clock: new VirtualClock(T0), flavor: 'mongodb', serverVersion: '8.0' } });
    assert.deepEqual(same.notes, []);
    closeStoredEngine(same);
  });

  it('asking for another flavor alone is noted with the stored version; the folder opens as the flavor it holds', () => {
    const dir = folderWith(1);
    const other = openAt(dir, T0, { engine: { clock: new VirtualClock(T0), flavor: 'cosmos' } });
    assert.deepEqual(other.notes, [
      `${dir} holds a mongodb 8.0 engine; it opens as such (asked for cosmos 8.0). Use another folder for another flavor or version.`,
    ]);
    assert.equal(other.meta.flavor, 'mongodb');
    closeStoredEngine(other);
    const both = openAt(dir, T0, { engine: { clock: new VirtualClock(T0), flavor: 'cosmos', serverVersion: '7.0' } });
    assert.deepEqual(both.notes, [
      `${dir} holds a mongodb 8.0 engine; it opens as such (asked for cosmos 7.0). Use another folder for another flavor or version.`,
    ]);
    closeStoredEngine(both);
  });

  it('a folder another writer holds opens read-only (when allowed) naming that process and what it is', () => {
    const dir = folderWith(1);
    const writer = openStoredEngine(dir, { engine: { clock: new VirtualClock(T0) }, holder: 'VS Code window' });
    const anon = openStoredEngine(path.join(dir), { engine: { clock: new VirtualClock(T0) }, allowReadOnly: true });
    try {
      assert.equal(anon.store.readOnly, true);
      assert.deepEqual(anon.notes, [
        `${dir} is in use by process ${process.pid} (VS Code window): opened read-only; changes here are not saved.`,
      ]);
    } finally {
      closeStoredEngine(anon);
      closeStoredEngine(writer);
    }
    const unnamed = openStoredEngine(dir, { engine: { clock: new VirtualClock(T0) } });
    const reader = openStoredEngine(dir, { engine: { clock: new VirtualClock(T0) }, allowReadOnly: true });
    try {
      assert.deepEqual(reader.notes, [
        `${dir} is in use by process ${process.pid}: opened read-only; changes here are not saved.`,
      ]);
    } finally {
      closeStoredEngine(reader);
      closeStoredEngine(unnamed);
    }
  });

  it('a lock file naming no process opens read-only (when allowed) with what to do', () => {
    const dir = folderWith(1);
    fs.writeFileSync(path.join(dir, 'LOCK'), '\u0000garbage{');
    const opened = openStoredEngine(dir, { engine: { clock: new VirtualClock(T0) }, allowReadOnly: true });
    try {
      assert.equal(opened.store.readOnly, true);
      assert.deepEqual(opened.notes, [
        `${dir} has a lock file that names no process (another TTL Workbench may be opening it): opened read-only; changes here are not saved. Reload once it is free, or delete ${dir}/LOCK if nothing else uses the folder.`,
      ]);
    } finally {
      closeStoredEngine(opened);
    }
  });

  it('a system clock behind the time a system-clock folder stored is noted (it was set back), and the open goes on', () => {
    // The stored time is two days ahead of the wall clock, as if the system clock was set back since.
    const dir = folderWith(1, Date.now() + 2 * DAY + 60_000);
    fs.writeFileSync(path.join(dir, META), JSON.stringify({ ...readMeta(dir), clock: 'system' }));
    const opened = openStoredEngine(dir, { engine: { clock: new SystemClock() } });
    try {
      assert.equal(opened.documents, 1);
      assert.equal(opened.notes.length, 1, opened.notes.join('\n'));
      assert.match(
        opened.notes[0],
        /^the system clock is 2 days behind the last time stored here \(\d{4}-\d\d-\d\dT[\d:.]+Z\): it was set back since the last run; TTL thresholds follow the system clock\.$/,
      );
      assert.ok(opened.engine.clock.now() < (opened.storedClockMs ?? 0), 'a system clock is never moved');
    } finally {
      closeStoredEngine(opened);
    }
  });

  it('a virtual clock ahead of the stored time stays where it is', () => {
    const dir = folderWith(1);
    const opened = openAt(dir, T0 + DAY);
    assert.equal(opened.engine.clock.now(), T0 + DAY);
    assert.equal(opened.storedClockMs, T0);
    closeStoredEngine(opened);
  });

  it('a folder that stored no time reports none', () => {
    const opened = openAt(tmpDir());
    assert.equal('storedClockMs' in opened, false);
    closeStoredEngine(opened);
  });

  it('a clock switch seen by a read-only open is noted, but the description is not rewritten', () => {
    const dir = folderWith(1, Date.now() - DAY);
    const before = fs.readFileSync(path.join(dir, META), 'utf8');
    const opened = openStoredEngine(dir, { readOnlyBecause: 'looking only', engine: { clock: new SystemClock() } });
    assert.ok(
      opened.notes.includes(
        `${dir} ran on the virtual clock; it runs on the system clock now (the stored time is not ahead of it).`,
      ),
      opened.notes.join('\n'),
    );
    closeStoredEngine(opened);
    assert.equal(fs.readFileSync(path.join(dir, META), 'utf8'), before);
  });

  it('when the disk refuses the clock switch in the description the folder opens read-only saying why, lock freed at close', () => {
    const dir = folderWith(1, Date.now() - DAY);
    const rec = new RecordingFs();
    rec.failOn('rename', 1, 'EIO');
    const opened = openStoredEngine(dir, { fs: rec.fs, engine: { clock: new SystemClock() } });
    assert.equal(opened.store.readOnly, true);
    assert.ok(
      opened.notes.some((n) => n.startsWith(`${dir}: could not write ${META} (EIO: injected failure, rename)`)),
      opened.notes.join('\n'),
    );
    closeStoredEngine(opened);
    assert.equal(fs.existsSync(path.join(dir, 'LOCK')), false);
    assert.equal(readMeta(dir).clock, 'virtual');
  });
});

describe('engine store: the record of a recovery from damage', () => {
  it('says what was saved per collection, is kept in the folder with its notes, and another recovery adds to it', () => {
    const dir = folderWith(6);
    damageJournal(dir);
    const before = Date.now();
    const first = openAt(dir);
    const kept = first.engine.getCollection('app', 'c')!.records.size;
    assert.ok(kept > 1 && kept < 6, `${kept} documents before the damage`);
    assert.equal(
      first.notes.at(-1),
      `the recovered state (${kept} documents: app.c ${kept}) was saved as the folder's new base`,
    );
    const record = readDamageRecord(dir)!;
    assert.equal(record.recoveries.length, 1);
    assert.deepEqual(record.recoveries[0].notes, first.notes);
    assert.deepEqual(record.recoveries[0].documents, { 'app.c': kept });
    const at = Date.parse(record.recoveries[0].at);
    assert.ok(at >= before - 1000 && at <= Date.now(), record.recoveries[0].at);
    assert.deepEqual(first.damage, record);
    closeStoredEngine(first);
    // Damage again, in the journal written since: the new recovery is added beside the first.
    const again = openAt(dir);
    for (let i = 10; i < 16; i++) again.engine.runCommand('app', { insert: 'd', documents: [{ _id: i }] });
    closeStoredEngine(again);
    const journal = fs.readdirSync(dir).find((f) => /^journal-\d+\.ttlj$/.test(f))!;
    const bytes = fs.readFileSync(path.join(dir, journal));
    bytes.writeUInt32LE(0xdeadbeef, Math.floor(bytes.length / 2));
    fs.writeFileSync(path.join(dir, journal), bytes);
    const second = openAt(dir);
    assert.equal(second.damage?.recoveries.length, 2);
    assert.deepEqual(second.damage?.recoveries[0], record.recoveries[0]);
    assert.deepEqual(second.damage?.recoveries[1].notes, second.notes);
    closeStoredEngine(second);
    acknowledgeDamage(dir);
    assert.equal(fs.existsSync(path.join(dir, DAMAGE_FILE)), false);
    const third = openAt(dir);
    assert.equal(third.damage, undefined);
    assert.equal('damage' in third, false);
    closeStoredEngine(third);
  });

  it('one document saved is said in the singular; no collection at all lists none', () => {
    const one = folderWith(3);
    damageJournal(one);
    // Only the first insert is before the damage in a three-record journal cut in its middle.
    const a = openAt(one);
    assert.equal(a.engine.getCollection('app', 'c')?.records.size, 1);
    assert.equal(a.notes.at(-1), "the recovered state (1 document: app.c 1) was saved as the folder's new base");
    closeStoredEngine(a);
    const none = folderWith(1);
    const journal = path.join(none, 'journal-0.ttlj');
    const bytes = fs.readFileSync(journal);
    bytes.writeUInt32LE(0xdeadbeef, 8);
    fs.writeFileSync(journal, bytes);
    const b = openAt(none);
    assert.equal(b.notes.at(-1), "the recovered state (0 documents) was saved as the folder's new base");
    closeStoredEngine(b);
  });

  it('a record the disk will not take is said in a note; the recovered state is saved all the same', () => {
    const dir = folderWith(6);
    damageJournal(dir);
    const rec = new RecordingFs();
    // The renames of an open after damage: the snapshot, the manifest, then the damage record.
    rec.failOn('rename', 3, 'ENOSPC');
    const opened = openStoredEngine(dir, { fs: rec.fs, engine: { clock: new VirtualClock(T0) }, autoCompact: false });
    try {
      assert.equal(opened.store.readOnly, false);
      assert.match(
        opened.notes.at(-1) ?? '',
        /^the damage record could not be written \(ENOSPC: injected failure, rename\): these notes are shown this time only$/,
      );
      assert.equal(readDamageRecord(dir), undefined);
    } finally {
      closeStoredEngine(opened);
    }
  });

  it('names every collection it saved, each with its count, separated by commas', () => {
    const dir = twoCollectionsDamaged();
    const opened = openAt(dir);
    try {
      const c = opened.engine.getCollection('app', 'c')!.records.size;
      const d = opened.engine.getCollection('app', 'd')!.records.size;
      assert.ok(c > 0 && d > 0, `${c} and ${d} documents before the damage`);
      assert.equal(
        opened.notes.at(-1),
        `the recovered state (${c + d} documents: app.c ${c}, app.d ${d}) was saved as the folder's new base`,
      );
      assert.deepEqual(opened.damage?.recoveries[0].documents, { 'app.c': c, 'app.d': d });
    } finally {
      closeStoredEngine(opened);
    }
  });

  it('the capture that saved the recovered state stops watching the collections: they have the observers of a clean open', () => {
    const dir = twoCollectionsDamaged();
    const observers = (o: OpenedEngine) =>
      ['c', 'd'].map((name) => o.engine.getCollection('app', name)!.observers.length);
    const recovered = openAt(dir);
    const afterRecovery = observers(recovered);
    closeStoredEngine(recovered);
    // The saved state is now the folder's base: this open recovers nothing and captures nothing.
    const clean = openAt(dir);
    try {
      assert.equal(clean.store.awaitingRecoveredState, false);
      assert.deepEqual(afterRecovery, observers(clean));
    } finally {
      closeStoredEngine(clean);
    }
  });

  it('a recovered state the disk refuses to save opens read-only saying which step failed, shows what was recovered, and loses nothing', () => {
    const dir = twoCollectionsDamaged();
    const rec = new RecordingFs();
    // An open after damage keeps the damaged journal aside by a link; its first rename is the snapshot's.
    rec.failOn('rename', 1, 'ENOSPC');
    const opened = openStoredEngine(dir, { fs: rec.fs, engine: { clock: new VirtualClock(T0) }, autoCompact: false });
    let counts: number[];
    try {
      assert.equal(opened.store.readOnly, true);
      assert.ok(
        opened.notes.some((n) =>
          /: could not save the recovered state as snapshot-\d+\.ttls \(ENOSPC: injected failure, rename\)\. Nothing stored was lost; the folder is open read-only/.test(
            n,
          ),
        ),
        opened.notes.join('\n'),
      );
      counts = ['c', 'd'].map((name) => opened.engine.getCollection('app', name)!.records.size);
      assert.ok(counts[0] > 0 && counts[1] > 0, counts.join(' '));
      assert.equal(readDamageRecord(dir), undefined);
    } finally {
      closeStoredEngine(opened);
    }
    assert.equal(fs.existsSync(path.join(dir, 'LOCK')), false);
    // The disk is fixed: the next open recovers the same state and saves it.
    const again = openAt(dir);
    try {
      assert.equal(again.store.readOnly, false);
      assert.deepEqual(
        ['c', 'd'].map((name) => again.engine.getCollection('app', name)!.records.size),
        counts,
      );
      assert.equal(again.damage?.recoveries.length, 1);
    } finally {
      closeStoredEngine(again);
    }
  });

  it('acknowledgeDamage: a record already acknowledged (or never written) is nothing to do', () => {
    const dir = tmpDir();
    fs.writeFileSync(path.join(dir, DAMAGE_FILE), '{"recoveries": []}');
    acknowledgeDamage(dir);
    acknowledgeDamage(dir);
    assert.deepEqual(fs.readdirSync(dir), []);
  });

  it('readDamageRecord: none for a missing, unreadable or empty record', () => {
    const dir = tmpDir();
    assert.equal(readDamageRecord(dir), undefined);
    for (const text of ['{', '{}', '{"recoveries": []}', '{"recoveries": {"length": 1}}']) {
      fs.writeFileSync(path.join(dir, DAMAGE_FILE), text);
      assert.equal(readDamageRecord(dir), undefined, text);
    }
    const record = { recoveries: [{ at: 'x', notes: ['n'], documents: {} }] };
    fs.writeFileSync(path.join(dir, DAMAGE_FILE), JSON.stringify(record));
    assert.deepEqual(readDamageRecord(dir), record);
  });
});

describe('engine store: background compaction that must not start', () => {
  const passing = async (autoCompact: boolean, closeAtOnce: boolean) => {
    const dir = tmpDir();
    const results: Array<CompactionResult | Error> = [];
    const opened = openStoredEngine(dir, {
      engine: { clock: new VirtualClock(T0) },
      compactAfterBytes: 1,
      autoCompact,
      onCompaction: (r) => results.push(r),
    });
    opened.engine.runCommand('app', { insert: 'c', documents: [{ _id: 1 }] });
    if (closeAtOnce) closeStoredEngine(opened);
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 10));
    if (!closeAtOnce) closeStoredEngine(opened);
    return { results, files: fs.readdirSync(dir) };
  };

  it('autoCompact false: a journal past compactAfterBytes is not compacted', async () => {
    const { results, files } = await passing(false, false);
    assert.deepEqual(results, []);
    assert.equal(
      files.some((f) => f.startsWith('snapshot-')),
      false,
      files.join(' '),
    );
  });

  it('an engine closed right after the write that passed compactAfterBytes starts no compaction', async () => {
    const { results, files } = await passing(true, true);
    assert.deepEqual(results, []);
    assert.equal(
      files.some((f) => f.startsWith('snapshot-')),
      false,
      files.join(' '),
    );
  });

  it('compact: the time the engine was held is part of the whole, and both are measured, not guessed', async () => {
    const dir = tmpDir();
    const opened = openAt(dir);
    opened.engine.runCommand('app', { insert: 'c', documents: [{ _id: 1 }, { _id: 2 }] });
    const started = performance.now();
    const r = await compact(opened.engine, opened.store);
    const elapsed = performance.now() - started;
    try {
      assert.equal(r.documents, 2);
      assert.ok(r.heldMs >= 0 && r.heldMs <= r.totalMs && r.totalMs <= elapsed, JSON.stringify(r));
    } finally {
      closeStoredEngine(opened);
    }
  });
});

describe('engine store: what a compaction leaves behind', () => {
  it('compact: its capture stops watching the collections once the snapshot is written, and when the disk refuses it', async () => {
    const dir = tmpDir();
    const rec = new RecordingFs();
    const opened = openAt(dir, T0, { fs: rec.fs });
    try {
      opened.engine.runCommand('app', { insert: 'c', documents: [{ _id: 1 }, { _id: 2 }] });
      const coll = opened.engine.getCollection('app', 'c')!;
      const before = coll.observers.length;
      const written = await compact(opened.engine, opened.store);
      assert.equal(written.documents, 2);
      assert.equal(coll.observers.length, before);
      // The snapshot's rename is the compaction's first.
      rec.failOn('rename', 1, 'ENOSPC');
      await assert.rejects(compact(opened.engine, opened.store), /ENOSPC: injected failure, rename/);
      assert.equal(coll.observers.length, before);
    } finally {
      closeStoredEngine(opened);
    }
  });
});

describe('engine store: closing and clearing', () => {
  it('closeStoredEngine: a second close, or a close after the engine was closed, does nothing more', () => {
    const dir = folderWith(1);
    const opened = openAt(dir);
    opened.engine.close();
    closeStoredEngine(opened);
    closeStoredEngine(opened);
    assert.equal(fs.existsSync(path.join(dir, 'LOCK')), false);
  });

  it("clearDataFolder: removes the store's files only (exact names), and a missing folder is nothing to do", () => {
    const dir = tmpDir();
    const store = [
      'snapshot-3.ttls',
      'snapshot-13.ttls',
      'journal-12.ttlj',
      'journal-2.ttlj.damaged-17',
      'snapshot-4.ttls.unreplayed-1',
      '.snapshot-5.ttls.123.tmp',
      '.snapshot-15.ttls.123.tmp',
      META,
      'ttl-store.manifest',
      DAMAGE_FILE,
    ];
    const others = [
      'notes.txt',
      'LOCK',
      'journal-1.ttlj.bak',
      'old-journal-1.ttlj',
      'snapshot-x.ttls',
      'journal-3.ttlj.damaged-',
      '.snapshot-5.ttls.tmp',
      '.snapshot-5.ttls.123.tmp.bak',
      'x.snapshot-5.ttls.1.tmp',
      `${META}.bak`,
    ];
    for (const f of [...store, ...others]) fs.writeFileSync(path.join(dir, f), 'x');
    clearDataFolder(dir);
    assert.deepEqual(fs.readdirSync(dir).sort(), [...others].sort());
    clearDataFolder(path.join(dir, 'missing'));
    assert.equal(fs.existsSync(path.join(dir, 'missing')), false);
  });
  it('clearDataFolder: a store file someone else removed after the listing is no error; the rest is removed', () => {
    const dir = tmpDir();
    const names = ['journal-1.ttlj', 'journal-2.ttlj', META, 'notes.txt'];
    for (const f of names) fs.writeFileSync(path.join(dir, f), 'x');
    const racing: StorageFs = {
      ...nodeFs,
      readdirSync: ((d: string) => {
        const listed = fs.readdirSync(d);
        fs.rmSync(path.join(dir, 'journal-1.ttlj'));
        return listed;
      }) as StorageFs['readdirSync'],
    };
    clearDataFolder(dir, racing);
    assert.deepEqual(fs.readdirSync(dir), ['notes.txt']);
  });
});

describe('engine store: background compaction and what it reports', () => {
  /** Waits (on a loaded machine, up to 10 s) until `n` compactions have reported. */
  const reported = async (results: unknown[], n: number) => {
    const deadline = Date.now() + 10_000;
    while (results.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  };

  it('a compaction the disk refuses is handed to onCompaction as the error; commits go on, the next compaction succeeds, nothing is lost', async () => {
    const dir = tmpDir();
    const rec = new RecordingFs();
    const results: Array<CompactionResult | Error> = [];
    const opened = openStoredEngine(dir, {
      engine: { clock: new VirtualClock(T0) },
      compactAfterBytes: 1,
      fs: rec.fs,
      onCompaction: (r) => results.push(r),
    });
    // The new journal's directory sync is the compaction's first fsync (appends use fdatasync).
    rec.failOn('fsync', 1, 'EIO');
    opened.engine.runCommand('app', { insert: 'c', documents: [{ _id: 1 }] });
    await reported(results, 1);
    assert.equal(results.length, 1);
    assert.ok(results[0] instanceof Error && /EIO/.test(results[0].message), String(results[0]));
    rec.heal();
    opened.engine.runCommand('app', { insert: 'c', documents: [{ _id: 2 }] });
    await reported(results, 2);
    assert.equal(results.length, 2);
    const done = results[1] as CompactionResult;
    assert.deepEqual([done.generation, done.documents], [1, 2]);
    closeStoredEngine(opened);
    const again = openAt(dir);
    assert.equal(again.recovery.snapshot, 1);
    assert.deepEqual(again.engine.runCommand('app', { count: 'c' }).n, 2);
    closeStoredEngine(again);
  });
});
