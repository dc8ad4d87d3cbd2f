/**
 * src/storage/inspect.ts in process (the CLI's verify and salvage tests run the bundled CLI, which
 * a change to the source does not reach until the next build): how a folder's files are named and
 * classified, which folders are refused as no data folder, what an inspection reports, and what a
 * salvage refuses and writes.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { Engine, VirtualClock } from '../../../src/engine';
import { closeStoredEngine, openStoredEngine } from '../../../src/storage/engine-store';
import { MANIFEST_FILE } from '../../../src/storage/file-store';
import {
  closeInspection,
  FolderUsageError,
  inspectFolder,
  listFolderFiles,
  salvageInto,
  summarize,
} from '../../../src/storage/inspect';
import { LOCK_FILE, peekLock, type LockHolder } from '../../../src/storage/lock';
import type { StorageFs } from '../../../src/storage/storage-fs';
import { RecordingFs } from './recording-fs';

const T0 = Date.UTC(2026, 0, 1);
const made: string[] = [];
after(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});
function tmpDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-inspect-'));
  made.push(dir);
  return dir;
}

/** A closed folder with two collections: `app.b` (3 documents, a TTL index) and `app.a` (clustered, collection TTL). */
function dataFolder(): string {
  const dir = tmpDir();
  const opened = openStoredEngine(dir, { engine: { clock: new VirtualClock(T0) }, autoCompact: false });
  const { engine } = opened;
  engine.runCommand('app', { createIndexes: 'b', indexes: [{ key: { at: 1 }, name: 'at_1', expireAfterSeconds: 60 }] });
  engine
    .db('app')
    .collection('b')
    .insertMany([{ at: new Date(T0 + 3_600_000) }, { at: new Date(T0 + 3_600_000) }, { x: 1 }]);
  engine.runCommand('app', { create: 'a', clusteredIndex: { key: { _id: 1 }, unique: true }, expireAfterSeconds: 600 });
  closeStoredEngine(opened);
  return dir;
}

describe('inspect: the files of a folder', () => {
  it('listFolderFiles: every entry by name, with its size, kind and generation', () => {
    const dir = tmpDir();
    const names: Record<string, string> = {
      'ttl-workbench.json': '{}',
      [MANIFEST_FILE]: 'm',
      [LOCK_FILE]: 'l',
      'snapshot-12.ttls': 'ss',
      'journal-0.ttlj': 'jjj',
      'journal-7.ttlj.damaged-3': 'k',
      'snapshot-2.ttls.unreplayed-1': 'k',
      '.snapshot-3.ttls.99.tmp': 't',
      'LOCK.123.abc.tmp': 't',
      'snapshot-012.ttls': 'x',
      'journal-x.ttlj': 'x',
      'notes.txt': 'hello',
    };
    for (const [name, text] of Object.entries(names)) fs.writeFileSync(path.join(dir, name), text);
    fs.mkdirSync(path.join(dir, 'sub'));
    fs.writeFileSync(path.join(dir, 'sub', 'inside'), 'not listed');
    assert.deepEqual(listFolderFiles(dir), [
      { name: '.snapshot-3.ttls.99.tmp', bytes: 1, kind: 'temporary' },
      { name: 'LOCK', bytes: 1, kind: 'lock' },
      { name: 'LOCK.123.abc.tmp', bytes: 1, kind: 'temporary' },
      { name: 'journal-0.ttlj', bytes: 3, kind: 'journal', generation: 0 },
      { name: 'journal-7.ttlj.damaged-3', bytes: 1, kind: 'kept' },
      { name: 'journal-x.ttlj', bytes: 1, kind: 'stray' },
      { name: 'notes.txt', bytes: 5, kind: 'other' },
      { name: 'snapshot-012.ttls', bytes: 1, kind: 'stray' },
      { name: 'snapshot-12.ttls', bytes: 2, kind: 'snapshot', generation: 12 },
      { name: 'snapshot-2.ttls.unreplayed-1', bytes: 1, kind: 'kept' },
      { name: 'sub', bytes: 0, kind: 'folder' },
      { name: MANIFEST_FILE, bytes: 1, kind: 'manifest' },
      { name: 'ttl-workbench.json', bytes: 2, kind: 'meta' },
    ]);
  });
});

describe('inspect: which folders are data folders', () => {
  it('inspectFolder: a missing folder, a file and a folder without store files are usage errors saying what to give', () => {
    const dir = tmpDir();
    const missing = path.join(dir, 'nope');
    assert.throws(() => inspectFolder(missing), {
      constructor: FolderUsageError,
      message: `${missing} does not exist: give the data folder that \`ttl-workbench run --data\` or the extension wrote`,
    });
    const file = path.join(dir, 'file');
    fs.writeFileSync(file, 'x');
    assert.throws(() => inspectFolder(file), {
      constructor: FolderUsageError,
      message: `${file} is not a folder: give the data folder that \`ttl-workbench run --data\` or the extension wrote`,
    });
    const other = tmpDir();
    for (const name of ['notes.txt', LOCK_FILE, '.snapshot-3.ttls.99.tmp'])
      fs.writeFileSync(path.join(other, name), 'x');
    fs.mkdirSync(path.join(other, 'snapshot-1.ttls'));
    assert.throws(() => inspectFolder(other), {
      constructor: FolderUsageError,
      message: `${other} holds no TTL Workbench data (no ttl-workbench.json, snapshot-<g>.ttls or journal-<g>.ttlj): is it the right folder?`,
    });
  });

  for (const name of [
    'journal-0.ttlj',
    'snapshot-1.ttls',
    'journal-3.ttlj.damaged-1',
    'journal-01.ttlj',
    MANIFEST_FILE,
  ]) {
    it(`inspectFolder: a folder holding only ${name} is a data folder (opened, not refused as the wrong folder)`, () => {
      const dir = tmpDir();
      fs.writeFileSync(path.join(dir, name), '');
      let inspection;
      try {
        inspection = inspectFolder(dir);
      } catch (err) {
        assert.ok(!(err instanceof FolderUsageError), `refused as no data folder: ${(err as Error).message}`);
        return;
      }
      closeInspection(inspection);
    });
  }
});

describe('inspect: what an inspection reports', () => {
  it('inspectFolder: collections by namespace with their documents, indexes and collection TTL; no lock when none is held', () => {
    const dir = dataFolder();
    const inspection = inspectFolder(dir);
    try {
      assert.equal(inspection.lock, undefined);
      assert.equal('lock' in inspection, false);
      assert.deepEqual(
        inspection.collections.map((c) => [c.ns, c.documents, c.indexes.map((i) => i.name), c.expireAfterSeconds]),
        [
          ['app.a', 0, ['_id_'], 600],
          ['app.b', 3, ['_id_', 'at_1'], undefined],
        ],
      );
      assert.equal('expireAfterSeconds' in inspection.collections[1], false);
      assert.deepEqual(inspection.damage, []);
      assert.deepEqual(inspection.torn, []);
      assert.equal(inspection.opened.store.readOnly, true);
    } finally {
      closeInspection(inspection);
    }
  });

  it('inspectFolder: a live holder of the lock is reported and its lock left as it was', () => {
    const dir = dataFolder();
    const holder = { pid: process.pid, since: '2026-01-01T00:00:00.000Z', by: 'VS Code window' };
    fs.writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify(holder));
    const inspection = inspectFolder(dir);
    try {
      assert.deepEqual(inspection.lock, { ...holder, alive: true });
    } finally {
      closeInspection(inspection);
    }
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8')), holder);
  });

  it('inspectFolder: a torn last record is reported as torn, not as damage; a flipped byte is damage', () => {
    const dir = dataFolder();
    const journal = path.join(dir, 'journal-0.ttlj');
    const whole = fs.readFileSync(journal);
    fs.appendFileSync(journal, whole.subarray(0, 12));
    const torn = inspectFolder(dir);
    try {
      assert.equal(torn.torn.length, 1);
      assert.deepEqual(torn.damage, []);
      assert.equal(torn.torn[0], torn.recovery.tornTail);
    } finally {
      closeInspection(torn);
    }
    const damaged = Buffer.from(whole);
    damaged[Math.floor(damaged.length / 2)] ^= 0xff;
    fs.writeFileSync(journal, damaged);
    const bad = inspectFolder(dir);
    try {
      assert.equal(bad.damage.length, 1, bad.damage.join('\n'));
      assert.deepEqual(bad.torn, []);
    } finally {
      closeInspection(bad);
    }
  });
});

describe('inspect: salvage', () => {
  it('salvageInto: the recovered state becomes the first snapshot of a new folder, at the stored time', () => {
    const from = dataFolder();
    const to = path.join(tmpDir(), 'new');
    const inspection = inspectFolder(from);
    try {
      const result = salvageInto(inspection, to);
      assert.deepEqual(
        { ...result, bytes: result.bytes > 0 },
        {
          dir: to,
          documents: 3,
          snapshot: result.snapshot,
          bytes: true,
        },
      );
      assert.match(result.snapshot, /^snapshot-\d+\.ttls$/);
      assert.equal(fs.statSync(path.join(to, result.snapshot)).size, result.bytes);
    } finally {
      closeInspection(inspection);
    }
    const reopened = openStoredEngine(to, { engine: { clock: new VirtualClock(0) }, autoCompact: false });
    try {
      assert.equal(reopened.engine.db('app').collection('b').countDocuments({}), 3);
      assert.equal(reopened.engine.clock.now(), T0);
    } finally {
      closeStoredEngine(reopened);
    }
  });

  it('salvageInto: a folder that stored no time starts at the time of the salvage', () => {
    const from = tmpDir();
    fs.writeFileSync(path.join(from, 'journal-0.ttlj'), '');
    const to = path.join(tmpDir(), 'new');
    const inspection = inspectFolder(from);
    const before = Date.now();
    try {
      salvageInto(inspection, to);
    } finally {
      closeInspection(inspection);
    }
    const reopened = openStoredEngine(to, { engine: { clock: new VirtualClock(0) }, autoCompact: false });
    try {
      const now = reopened.engine.clock.now();
      assert.ok(now >= before && now <= Date.now(), `${now} within the salvage`);
    } finally {
      closeStoredEngine(reopened);
    }
  });

  it('salvageInto: a target that holds data is refused and left as it was', () => {
    const from = dataFolder();
    const to = dataFolder();
    const before = fs.readdirSync(to).sort();
    const inspection = inspectFolder(from);
    try {
      assert.throws(() => salvageInto(inspection, to), { message: `${to} is not empty` });
    } finally {
      closeInspection(inspection);
    }
    assert.deepEqual(fs.readdirSync(to).sort(), before);
  });

  it('salvageInto: a target whose journal holds records but no document (an empty collection) is refused too', () => {
    const to = tmpDir();
    const target = openStoredEngine(to, { engine: { clock: new VirtualClock(T0) }, autoCompact: false });
    target.engine.runCommand('app', { create: 'empty' });
    closeStoredEngine(target);
    const inspection = inspectFolder(dataFolder());
    try {
      assert.throws(() => salvageInto(inspection, to), { message: `${to} is not empty` });
    } finally {
      closeInspection(inspection);
    }
  });
});

// The tests below came with the mutation run of inspect.ts (issue 28); they stay after the older
// ones so that a run's report shows which mutants only they catch.

describe("inspect: which files and folders are the store's", () => {
  it('listFolderFiles: by name whatever order the file system lists them in', () => {
    const dir = tmpDir();
    for (const name of ['a.txt', 'journal-0.ttlj', 'snapshot-1.ttls', 'z.txt'])
      fs.writeFileSync(path.join(dir, name), '');
    const reversed: StorageFs = {
      ...new RecordingFs().fs,
      readdirSync: ((d: string) => fs.readdirSync(d).reverse()) as StorageFs['readdirSync'],
    };
    assert.deepEqual(
      listFolderFiles(dir, reversed).map((f) => f.name),
      ['a.txt', 'journal-0.ttlj', 'snapshot-1.ttls', 'z.txt'],
    );
  });

  it("listFolderFiles: a name that only contains a store name (before or after it) is another file, not the store's", () => {
    const dir = tmpDir();
    for (const name of ['LOCK.1.tmp.old', 'old-LOCK.1.tmp', 'old-journal-1.ttlj', 'my-snapshot-1.ttls'])
      fs.writeFileSync(path.join(dir, name), 'x');
    assert.deepEqual(
      listFolderFiles(dir).map((f) => [f.name, f.kind]),
      [
        ['LOCK.1.tmp.old', 'other'],
        ['my-snapshot-1.ttls', 'other'],
        ['old-LOCK.1.tmp', 'other'],
        ['old-journal-1.ttlj', 'other'],
      ],
    );
  });

  it('inspectFolder: a folder holding only its description (ttl-workbench.json) is a data folder of that flavor', () => {
    const dir = tmpDir();
    const meta = { format: 1, flavor: 'cosmos', serverVersion: '7.0', created: '2026-01-01T00:00:00.000Z' };
    fs.writeFileSync(path.join(dir, 'ttl-workbench.json'), JSON.stringify(meta));
    const inspection = inspectFolder(dir);
    try {
      assert.deepEqual(
        inspection.files.map((f) => f.kind),
        ['meta'],
      );
      assert.deepEqual([inspection.opened.meta.flavor, inspection.opened.meta.serverVersion], ['cosmos', '7.0']);
      assert.deepEqual(inspection.collections, []);
    } finally {
      closeInspection(inspection);
    }
  });
});

describe('inspect: nothing in the folder changes', () => {
  it('inspectFolder: opens read-only for its stated reason, which the notes give', () => {
    const inspection = inspectFolder(dataFolder());
    try {
      const reason = 'opened read-only to inspect it: nothing in it is changed';
      assert.equal(inspection.opened.store.readOnlyReason, reason);
      assert.ok(inspection.opened.notes.includes(reason), inspection.opened.notes.join('\n'));
    } finally {
      closeInspection(inspection);
    }
  });

  it('inspectFolder: a torn tail is not cut and no file is added, removed or rewritten, even after closeInspection', () => {
    const dir = dataFolder();
    const journal = path.join(dir, 'journal-0.ttlj');
    fs.appendFileSync(journal, fs.readFileSync(journal).subarray(0, 12));
    const contents = () =>
      fs
        .readdirSync(dir)
        .sort()
        .map((name) => [name, fs.readFileSync(path.join(dir, name)).toString('base64')]);
    const before = contents();
    const inspection = inspectFolder(dir);
    try {
      assert.equal(inspection.torn.length, 1);
      assert.deepEqual(contents(), before);
    } finally {
      closeInspection(inspection);
    }
    assert.deepEqual(contents(), before);
  });

  it('inspectFolder: the TTL monitor is stopped, so moving the clock past every expiry deletes nothing', () => {
    const inspection = inspectFolder(dataFolder());
    try {
      const { engine } = inspection.opened;
      assert.equal(engine.ttl.status().running, false);
      (engine.clock as VirtualClock).set(T0 + 10 * 86_400_000);
      assert.equal(engine.ttl.status().metrics.passes, 0);
      assert.equal(engine.db('app').collection('b').countDocuments({}), 3);
    } finally {
      closeInspection(inspection);
    }
  });

  it('closeInspection: the recovered engine is closed', () => {
    const inspection = inspectFolder(dataFolder());
    closeInspection(inspection);
    assert.equal(inspection.opened.engine.isClosed, true);
  });
});

describe('inspect: collections in namespace order', () => {
  it('summarize: every collection of every database, sorted by namespace whatever order they were created in', () => {
    const engine = new Engine({ clock: new VirtualClock(T0) });
    try {
      for (const [db, coll] of [
        ['b', 'z'],
        ['a', 'y'],
        ['b', 'a'],
        ['a', 'b'],
        ['c', 'm'],
        ['a', 'c'],
      ])
        engine.runCommand(db, { create: coll });
      assert.deepEqual(
        summarize(engine).map((c) => c.ns),
        ['a.b', 'a.c', 'a.y', 'b.a', 'b.z', 'c.m'],
      );
    } finally {
      engine.close();
    }
  });
});

describe('inspect: what a salvage writes, and where it refuses', () => {
  it('salvageInto: the new folder keeps the flavor and server version of the one salvaged', () => {
    const from = tmpDir();
    const source = openStoredEngine(from, {
      engine: { clock: new VirtualClock(T0), flavor: 'cosmos', serverVersion: '7.0' },
      autoCompact: false,
    });
    source.engine.runCommand('app', { insert: 'c', documents: [{ _id: 1 }] });
    closeStoredEngine(source);
    const to = path.join(tmpDir(), 'new');
    const inspection = inspectFolder(from);
    try {
      salvageInto(inspection, to);
    } finally {
      closeInspection(inspection);
    }
    const meta = JSON.parse(fs.readFileSync(path.join(to, 'ttl-workbench.json'), 'utf8'));
    assert.deepEqual([meta.flavor, meta.serverVersion], ['cosmos', '7.0']);
  });
  it('salvageInto: writes through the file system it is given, holding the new folder\'s lock as "ttl-workbench salvage" and freeing it after', () => {
    const from = dataFolder();
    const to = path.join(tmpDir(), 'new');
    const rec = new RecordingFs();
    const holders: Array<LockHolder | undefined> = [];
    const io: StorageFs = {
      ...rec.fs,
      renameSync: (a: fs.PathLike, b: fs.PathLike) => {
        holders.push(peekLock(to));
        rec.fs.renameSync(a, b);
      },
    };
    const inspection = inspectFolder(from);
    try {
      const result = salvageInto(inspection, to, { fs: io });
      const tmp = path.join(to, `.${result.snapshot}.${process.pid}.tmp`);
      assert.ok(
        rec.calls.some((c) => c.name === 'write' && c.path === tmp),
        'the snapshot is written through the given file system',
      );
    } finally {
      closeInspection(inspection);
    }
    assert.ok(holders.length > 0, 'a rename while the snapshot is written');
    for (const h of holders) assert.equal(h?.by, 'ttl-workbench salvage');
    assert.equal(peekLock(to), undefined);
  });
  it("salvageInto: the source engine is left without the capture's observers", () => {
    const inspection = inspectFolder(dataFolder());
    try {
      const coll = inspection.opened.engine.getCollection('app', 'b')!;
      const before = coll.observers.length;
      salvageInto(inspection, path.join(tmpDir(), 'new'));
      assert.equal(coll.observers.length, before);
    } finally {
      closeInspection(inspection);
    }
  });
  it('salvageInto: a target holding only a snapshot of an empty state (an earlier salvage of an empty folder) is refused', () => {
    const empty = tmpDir();
    fs.writeFileSync(path.join(empty, 'journal-0.ttlj'), '');
    const to = path.join(tmpDir(), 'new');
    const first = inspectFolder(empty);
    try {
      salvageInto(first, to);
    } finally {
      closeInspection(first);
    }
    const inspection = inspectFolder(dataFolder());
    try {
      assert.throws(() => salvageInto(inspection, to), { message: `${to} is not empty` });
    } finally {
      closeInspection(inspection);
    }
  });
  it('salvageInto: a target the disk will not let it create is refused with why, and nothing is written', () => {
    const to = path.join(tmpDir(), 'new');
    const rec = new RecordingFs();
    rec.failOn('mkdir', 1, 'EACCES', true);
    const inspection = inspectFolder(dataFolder());
    try {
      assert.throws(
        () => salvageInto(inspection, to, { fs: rec.fs }),
        (err: Error) => {
          assert.ok(
            err.message.startsWith(
              `${to} could not be written: ${to}: could not create the folder or its lock file (EACCES`,
            ),
            err.message,
          );
          return true;
        },
      );
    } finally {
      closeInspection(inspection);
    }
    assert.equal(fs.existsSync(to), false);
  });
  it('salvageInto: a target opened read-only because its torn tail could not be cut is refused with every note, space-separated', () => {
    const to = tmpDir();
    fs.writeFileSync(path.join(to, 'journal-0.ttlj'), Buffer.from([1, 2, 3]));
    const rec = new RecordingFs();
    rec.failOn('ftruncate', 1, 'EIO', true);
    const inspection = inspectFolder(dataFolder());
    try {
      assert.throws(
        () => salvageInto(inspection, to, { fs: rec.fs }),
        (err: Error) => {
          const m =
            /^(.*) could not be written: (.*: could not cut the torn last record off journal-0\.ttlj \(EIO.*\)\.[^]*?reloaded\.) (journal-0\.ttlj: a torn last record .*)$/.exec(
              err.message,
            );
          assert.ok(m, err.message);
          assert.equal(m[1], to);
          return true;
        },
      );
    } finally {
      closeInspection(inspection);
    }
  });
});
