/**
 * `ttl-workbench verify --data DIR` and `ttl-workbench salvage --data DIR --to NEW` (issue 27), on
 * the bundled dist/cli.js: clean, bit-rotted, snapshot-damaged and torn folders; the folder's
 * names, bytes and mtimes unchanged by either command in every case (and no file call that writes,
 * watched through the store's StorageFs); a salvaged folder that opens clean with exactly the state
 * the damaged folder recovers; usage errors.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { Int32, Long } from 'bson';
import { loadLegacyIndexSpec, VirtualClock, type Document, type Engine } from '../../../src/engine';
import { parseArgs, UsageError } from '../../../src/cli/args';
import { closeStoredEngine, compact, openStoredEngine, type OpenedEngine } from '../../../src/storage/engine-store';
import { closeInspection, inspectFolder } from '../../../src/storage/inspect';
import { nodeFs } from '../../../src/storage/storage-fs';
import { dump } from '../storage/engine-state';

const root = path.resolve(__dirname, '../../../..');
const cli = path.join(root, 'dist', 'cli.js');
const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;

function run(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', cwd: root });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const tempDirs: string[] = [];
after(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});
function tmpDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-verify-'));
  tempDirs.push(dir);
  return dir;
}

function open(
  dir: string,
  flavor: 'mongodb' | 'cosmos' = 'mongodb',
  serverVersion: '8.0' | '7.0' = '8.0',
): OpenedEngine & { clock: VirtualClock } {
  const clock = new VirtualClock(T0);
  return { ...openStoredEngine(dir, { engine: { clock, flavor, serverVersion }, autoCompact: false }), clock };
}

/** Every kind of stored state: TTL indexes (partial, hidden, NaN), capped, clustered and time-series collections, parameters, a TTL pass. */
function workload(engine: Engine, clock: VirtualClock, n = 40): void {
  engine.runCommand('app', {
    createIndexes: 'events',
    indexes: [
      { key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 },
      { key: { kind: 1 }, name: 'kind_1', partialFilterExpression: { kind: 'x' } },
    ],
  });
  for (let i = 0; i < n; i++)
    engine
      .db('app')
      .collection('events')
      .insertOne({
        _id: i,
        t: new Date(T0 + i * 60_000),
        kind: i % 2 ? 'x' : 'y',
        i: new Int32(i),
        l: Long.fromNumber(i),
        pad: 'p'.repeat(40),
      });
  engine.runCommand('app', { collMod: 'events', index: { name: 'kind_1', hidden: true } });
  engine.runCommand('app', { create: 'log', capped: true, size: 4096, max: 3 });
  for (let i = 0; i < 5; i++) engine.db('app').collection('log').insertOne({ i });
  engine.runCommand('app', {
    create: 'sessions',
    clusteredIndex: { key: { _id: 1 }, unique: true },
    expireAfterSeconds: 600,
  });
  engine
    .db('app')
    .collection('sessions')
    .insertMany([{ _id: new Date(T0 - HOUR) }, { _id: new Date(T0 + HOUR) }]);
  engine.runCommand('app', {
    create: 'metrics',
    timeseries: { timeField: 'at', metaField: 'm', granularity: 'minutes' },
    expireAfterSeconds: 86400,
  });
  engine
    .db('app')
    .collection('metrics')
    .insertMany([
      { at: new Date(T0), m: 'debug', v: 1 },
      { at: new Date(T0), m: 'info', v: new Int32(2) },
    ]);
  loadLegacyIndexSpec(engine, 'app', 'legacy', { key: { purgeAt: 1 }, name: 'purgeAt_1', expireAfterSeconds: NaN });
  engine.runCommand('admin', { setParameter: 1, ttlMonitorSleepSecs: 30 });
  clock.advance(31_000);
  for (let i = 0; i < n; i++)
    engine
      .db('other')
      .collection('late')
      .insertOne({ _id: i, at: new Date(T0 + i) });
}

/** A cleanly closed folder holding the workload in its journal alone. */
function journalFolder(): string {
  const dir = tmpDir();
  const a = open(dir);
  workload(a.engine, a.clock);
  closeStoredEngine(a);
  return dir;
}

/** Names, sizes, mtimes and contents of every entry. */
function fingerprint(dir: string): Document {
  const out: Document = {};
  for (const name of fs.readdirSync(dir).sort()) {
    const st = fs.statSync(path.join(dir, name));
    out[name] = {
      size: st.size,
      mtimeMs: st.mtimeMs,
      sha: st.isFile()
        ? createHash('sha256')
            .update(fs.readFileSync(path.join(dir, name)))
            .digest('hex')
        : 'dir',
    };
  }
  return out;
}

/** Frame offsets of a journal or snapshot (length | CRC-32 | BSON). */
function frameOffsets(bytes: Buffer): number[] {
  const offsets: number[] = [];
  for (let o = 0; o + 8 <= bytes.length;) {
    offsets.push(o);
    o += 8 + bytes.readUInt32LE(o);
  }
  return offsets;
}

/** Flip a byte in the middle of `file`; returns the offset of the frame that holds it. */
function flipMiddle(file: string): { at: number; frame: number } {
  const bytes = fs.readFileSync(file);
  const at = Math.floor(bytes.length / 2);
  bytes[at] ^= 0xff;
  fs.writeFileSync(file, bytes);
  const frame = frameOffsets(bytes)
    .filter((o) => o <= at)
    .pop()!;
  return { at, frame };
}

/** The state a folder recovers, read-only: what verify reports and salvage must copy. */
function recoveredDump(dir: string): { dump: string; counts: Map<string, number>; clock?: number } {
  const o = openStoredEngine(dir, {
    readOnlyBecause: 'test',
    autoCompact: false,
    engine: { clock: new VirtualClock(0) },
  });
  try {
    const counts = new Map<string, number>();
    for (const db of o.engine.databases.values())
      for (const c of db.collections.values()) counts.set(c.ns, c.records.size);
    return { dump: dump(o.engine), counts, ...(o.storedClockMs !== undefined ? { clock: o.storedClockMs } : {}) };
  } finally {
    o.engine.close();
    o.store.close();
  }
}

/** The `ns  N documents` lines of a verify report. */
function reportedCounts(stdout: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const m of stdout.matchAll(/^ {2}(\S+\.\S+) +(\d+) documents?;/gm)) counts.set(m[1], Number(m[2]));
  return counts;
}

/** Verify `dir` and check it was not changed; returns the run. */
function verify(dir: string): ReturnType<typeof run> {
  const before = fingerprint(dir);
  const r = run(['verify', '--data', dir]);
  assert.deepEqual(fingerprint(dir), before, `verify changed ${dir}`);
  return r;
}

/** Salvage `dir` into a new folder, checking `dir` was not changed and NEW opens clean with exactly the state `dir` recovers. */
function salvageAndCheck(dir: string, expectCode: number): { r: ReturnType<typeof run>; to: string } {
  const expected = recoveredDump(dir);
  const before = fingerprint(dir);
  const to = path.join(tmpDir(), 'salvaged');
  const r = run(['salvage', '--data', dir, '--to', to]);
  assert.equal(r.code, expectCode, r.stdout + r.stderr);
  assert.deepEqual(fingerprint(dir), before, 'salvage changed the source folder');
  const reopened = openStoredEngine(to, { engine: { clock: new VirtualClock(0) }, autoCompact: false });
  try {
    assert.deepEqual(reopened.recovery.problems, [], 'the salvaged folder opens clean');
    assert.deepEqual(reopened.notes, []);
    assert.equal(
      dump(reopened.engine),
      expected.dump,
      'documents, options, listIndexes (TTL specs, NaN), parameters and metrics as the damaged folder recovers them',
    );
    assert.equal(reopened.storedClockMs, expected.clock, 'the stored clock is kept');
    assert.deepEqual(
      reopened.meta.flavor,
      JSON.parse(fs.readFileSync(path.join(dir, 'ttl-workbench.json'), 'utf8')).flavor,
    );
    assert.deepEqual(
      reopened.meta.serverVersion,
      JSON.parse(fs.readFileSync(path.join(dir, 'ttl-workbench.json'), 'utf8')).serverVersion,
    );
  } finally {
    closeStoredEngine(reopened);
  }
  // What verify reports as recovered is what was salvaged.
  const v = verify(dir);
  assert.deepEqual(reportedCounts(v.stdout), expected.counts);
  const vn = verify(to);
  assert.equal(vn.code, 0, vn.stdout);
  assert.deepEqual(reportedCounts(vn.stdout), reportedCounts(v.stdout));
  return { r, to };
}

/** A closed folder holding the workload in snapshot-1 and one more insert in journal-1 after it. */
async function compactedWithOneMore(): Promise<string> {
  const dir = tmpDir();
  const a = open(dir);
  workload(a.engine, a.clock);
  await compact(a.engine, a.store);
  a.engine
    .db('app')
    .collection('events')
    .insertOne({ _id: 'after', t: new Date(T0) });
  closeStoredEngine(a);
  return dir;
}

describe('ttl-workbench verify', () => {
  test('a clean folder: exit 0, its files with sizes, documents and indexes per collection, records read; nothing changed', () => {
    const dir = journalFolder();
    const r = verify(dir);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /journal-0\.ttlj +\d+ bytes +journal, generation 0/);
    assert.match(r.stdout, /ttl-workbench\.json +\d+ bytes +folder description \(mongodb 8\.0\)/);
    assert.match(r.stdout, /journals: \d+ records replayed/);
    assert.match(r.stdout, /app\.events +40 documents; indexes: _id_, t_1 \(TTL 3600 s\), kind_1/);
    assert.match(r.stdout, /app\.legacy +0 documents; indexes: _id_, purgeAt_1 \(TTL NaN s\)/);
    assert.match(r.stdout, /app\.sessions +1 document; .*collection TTL 600 s/);
    assert.match(r.stdout, /other\.late +40 documents/);
    assert.doesNotMatch(r.stdout, /problems:/);
    assert.match(r.stdout, /^verdict: clean\. Nothing was changed\.$/m);
    assert.deepEqual(reportedCounts(r.stdout), recoveredDump(dir).counts);
  });

  test('a flipped byte in the middle of the journal: exit 1, the offset of the damaged record, what was recovered before it; nothing changed', () => {
    const dir = journalFolder();
    const { at, frame } = flipMiddle(path.join(dir, 'journal-0.ttlj'));
    assert.ok(frame > 0 && frame <= at);
    const r = verify(dir);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      new RegExp(`stopped at journal-0\\.ttlj, byte offset ${frame}: nothing after it was applied`),
    );
    assert.match(r.stdout, new RegExp(`^problems:\\n {2}journal-0\\.ttlj: damaged at byte offset ${frame} \\(`, 'm'));
    assert.match(r.stdout, /^verdict: DAMAGED \(1 problem\)/m);
    assert.deepEqual(reportedCounts(r.stdout), recoveredDump(dir).counts);
  });

  test('a damaged snapshot: exit 1, named with its offset, not loaded; the journal after it is still read; nothing changed', async () => {
    const dir = await compactedWithOneMore();
    const { frame } = flipMiddle(path.join(dir, 'snapshot-1.ttls'));
    const r = verify(dir);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      new RegExp(`snapshot-1\\.ttls is damaged at byte offset ${frame}: none of its records were applied`),
    );
    assert.match(r.stdout, /snapshot-1\.ttls +\d+ bytes +snapshot, generation 1: not loaded/);
    assert.match(r.stdout, /no snapshot loaded/);
    assert.match(r.stdout, /app\.events +1 document;/, 'the write after the snapshot, from journal-1');
  });

  test('a torn last record: reported, exit 0 (never acknowledged: not damage), and not cut off by verify', () => {
    const dir = journalFolder();
    const file = path.join(dir, 'journal-0.ttlj');
    const bytes = fs.readFileSync(file);
    const offsets = frameOffsets(bytes);
    const lastFrame = bytes.subarray(offsets[offsets.length - 1]);
    // A crash mid-append: the start of one more record (it never reached the manifest).
    fs.appendFileSync(file, lastFrame.subarray(0, Math.floor(lastFrame.length / 2)));
    const r = verify(dir);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, new RegExp(`journal-0\\.ttlj: a torn last record \\(\\d+ bytes at offset ${bytes.length}`));
    assert.match(r.stdout, /^verdict: clean, apart from a torn last record/m);
    assert.equal(
      fs.statSync(file).size,
      bytes.length + Math.floor(lastFrame.length / 2),
      'the torn tail is still there',
    );
  });

  test("read-only recovery makes no file call that writes, on a folder with damage and a torn tail (the store's own StorageFs, watched)", async () => {
    const dir = tmpDir();
    const a = open(dir);
    workload(a.engine, a.clock);
    await compact(a.engine, a.store);
    for (let i = 0; i < 30; i++)
      a.engine
        .db('app')
        .collection('events')
        .insertOne({ _id: `more-${i}`, t: new Date(T0) });
    closeStoredEngine(a);
    fs.writeFileSync(path.join(dir, '.snapshot-9.ttls.1.tmp'), 'left by a compaction');
    fs.writeFileSync(path.join(dir, 'journal-01.ttlj'), 'stray');
    flipMiddle(path.join(dir, 'journal-1.ttlj'));
    fs.appendFileSync(path.join(dir, 'journal-1.ttlj'), Buffer.from([200, 0, 0, 0, 1, 2, 3]));
    const calls: string[] = [];
    const writing = new Set([
      'mkdirSync',
      'writeSync',
      'fsyncSync',
      'fdatasyncSync',
      'fsync',
      'ftruncateSync',
      'writeFileSync',
      'renameSync',
      'rmSync',
      'linkSync',
      'copyFileSync',
    ]);
    const watched = new Proxy(nodeFs, {
      get(target, key: string) {
        const value = (target as unknown as Record<string, unknown>)[key];
        if (key === 'promises')
          return { rm: (...args: unknown[]) => (calls.push(`promises.rm ${String(args[0])}`), Promise.resolve()) };
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (writing.has(key)) calls.push(`${key} ${String(args[0])}`);
          if (key === 'openSync' && args[1] !== 'r') calls.push(`openSync ${String(args[0])} ${String(args[1])}`);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const before = fingerprint(dir);
    const inspection = inspectFolder(dir, { fs: watched });
    try {
      assert.ok(inspection.damage.length >= 2, inspection.damage.join('\n'));
      assert.ok(inspection.recovery.needsBaseSnapshot);
    } finally {
      closeInspection(inspection);
    }
    assert.deepEqual(calls, []);
    assert.deepEqual(fingerprint(dir), before);
  });

  test('a folder another process writes to: verified anyway (exit 0), says so, and the lock is left alone', () => {
    const dir = journalFolder();
    const live = open(dir);
    try {
      const r = verify(dir);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout, new RegExp(`LOCK +\\d+ bytes +lock of process ${process.pid} .*: running`));
      assert.match(r.stdout, new RegExp(`note: process ${process.pid} holds the folder's lock and may be writing`));
      live.engine.db('app').collection('events').insertOne({ _id: 'still writable' });
    } finally {
      closeStoredEngine(live);
    }
  });

  test('usage: no --data, a missing folder, a folder that holds no data, stray arguments: exit 2 with what to do', () => {
    let r = run(['verify']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /verify needs the data folder to check: ttl-workbench verify --data DIR/);
    const missing = path.join(tmpDir(), 'nope');
    r = run(['verify', '--data', missing]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /nope does not exist: give the data folder/);
    assert.equal(fs.existsSync(missing), false, 'verify does not create the folder');
    const empty = tmpDir();
    fs.writeFileSync(path.join(empty, 'notes.txt'), 'hi');
    r = run(['verify', '--data', empty]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /holds no TTL Workbench data .*is it the right folder\?/);
    r = run(['verify', '--data', empty, 'extra']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /verify takes no FILE or PATH, got 'extra': use --data DIR/);
    r = run(['verify', '--data', empty, '--json']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown option '--json' for verify/);
  });
});

describe('ttl-workbench salvage', () => {
  test('a folder with a flipped byte in its journal: exit 1; NEW opens clean with exactly the recovered state (listIndexes, NaN TTL, clock); what was lost is listed', () => {
    const dir = journalFolder();
    const { frame } = flipMiddle(path.join(dir, 'journal-0.ttlj'));
    const { r, to } = salvageAndCheck(dir, 1);
    assert.match(
      r.stdout,
      new RegExp(
        `salvaged into ${to.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(snapshot-1\\.ttls, \\d+ bytes\\): \\d+ documents`,
      ),
    );
    assert.match(
      r.stdout,
      new RegExp(`^lost \\(not in the new folder\\):\\n {2}journal-0\\.ttlj: damaged at byte offset ${frame}`, 'm'),
    );
    assert.match(r.stdout, /^verdict: DAMAGED source/m);
    assert.deepEqual(fs.readdirSync(to).sort(), [
      'journal-1.ttlj',
      'snapshot-1.ttls',
      'ttl-store.manifest',
      'ttl-workbench.json',
    ]);
  });

  test('a damaged snapshot of a cosmos 7.0 folder: exit 1; NEW keeps the flavor, version and what the journal after it holds', async () => {
    const dir = tmpDir();
    const a = open(dir, 'cosmos', '7.0');
    a.engine
      .db('app')
      .collection('c')
      .insertMany([{ _id: 1, ttl: 60 }, { _id: 2 }]);
    a.engine.runCommand('app', {
      createIndexes: 'c',
      indexes: [{ key: { _ts: 1 }, name: '_ts_1', expireAfterSeconds: 3600 }],
    });
    await compact(a.engine, a.store);
    a.engine.db('app').collection('c').insertOne({ _id: 3, ttl: 120 });
    a.clock.advance(HOUR / 2);
    closeStoredEngine(a);
    flipMiddle(path.join(dir, 'snapshot-1.ttls'));
    const { to } = salvageAndCheck(dir, 1);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(to, 'ttl-workbench.json'), 'utf8')).flavor, 'cosmos');
  });

  test('a clean folder (a torn tail included): exit 0, everything copied', async () => {
    const dir = await compactedWithOneMore();
    fs.appendFileSync(path.join(dir, 'journal-1.ttlj'), Buffer.from([200, 0, 0, 0, 1, 2, 3]));
    const { r } = salvageAndCheck(dir, 0);
    assert.match(r.stdout, /note: the torn last record \(never acknowledged\) was not copied/);
    assert.match(r.stdout, /^verdict: clean source: everything was copied/m);
  });

  test('refuses a non-empty --to, a --to inside DIR, and missing options (exit 2); nothing written anywhere', () => {
    const dir = journalFolder();
    const before = fingerprint(dir);
    const to = tmpDir();
    fs.writeFileSync(path.join(to, 'keep.txt'), 'mine');
    let r = run(['salvage', '--data', dir, '--to', to]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /is not empty \(1 entry\): salvage writes only into a new or empty folder/);
    assert.deepEqual(fs.readdirSync(to), ['keep.txt']);
    r = run(['salvage', '--data', dir, '--to', path.join(dir, 'inner')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /is inside the folder being salvaged/);
    r = run(['salvage', '--data', dir, '--to', dir]);
    assert.equal(r.code, 2);
    r = run(['salvage', '--data', dir]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /salvage needs a new folder to write into \(--to NEW/);
    r = run(['salvage', '--to', path.join(tmpDir(), 'x')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /salvage needs the damaged data folder \(--data DIR\)/);
    const fresh = path.join(tmpDir(), 'new');
    r = run(['salvage', '--data', path.join(tmpDir(), 'missing'), '--to', fresh]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /missing does not exist/);
    assert.equal(fs.existsSync(fresh), false);
    assert.deepEqual(fingerprint(dir), before);
    // An empty --to is fine.
    const emptyTo = tmpDir();
    r = run(['salvage', '--data', dir, '--to', emptyTo]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
  });

  test('parseArgs and --help', () => {
    assert.deepEqual(parseArgs(['verify', '--data', 'd']), { command: 'verify', options: { data: 'd' } });
    assert.deepEqual(parseArgs(['salvage', '--to', 'n', '--data', 'd']), {
      command: 'salvage',
      options: { data: 'd', to: 'n' },
    });
    assert.throws(() => parseArgs(['verify', '--data']), UsageError);
    assert.throws(() => parseArgs(['verify', '--data', 'a', '--data', 'b']), /--data is given twice/);
    const help = run(['--help']);
    assert.match(help.stdout, /ttl-workbench verify --data DIR/);
    assert.match(help.stdout, /ttl-workbench salvage --data DIR --to NEW/);
  });
});
