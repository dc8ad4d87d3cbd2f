/**
 * src/storage/atomic-file.ts, watched call by call through a recording file system: a file written
 * atomically is whole on disk before it replaces the old one (temporary file written in full,
 * fsync'd and closed, renamed, folder fsync'd), and a failure at any step leaves the old file and
 * no temporary behind.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { syncDirectory, writeFileAtomic, writeFileAtomicAsync } from '../../../src/storage/atomic-file';
import { CallFailed, RecordingFs } from './recording-fs';

const MiB = 1024 * 1024;

describe('atomic files, call by call', () => {
  let dir: string;
  let target: string;
  let rec: RecordingFs;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-atomic-'));
    target = path.join(dir, 'snapshot-3.ttls');
    fs.writeFileSync(target, 'old');
    rec = new RecordingFs();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** The calls made, as `name path` with the folder's own path shortened to `dir`. */
  const trace = (): string[] =>
    rec.calls.map(
      (c) =>
        `${c.failed ? `${c.name}!` : c.name} ${(c.path ?? '').split(dir).join('dir').replace(`${process.pid}`, 'pid')}`,
    );

  it('atomic file: the temporary file beside the target is written, fsync’d and closed before the rename, and the folder is fsync’d after it', () => {
    const n = writeFileAtomic(target, [Buffer.from('new '), Buffer.from('content')], rec.fs);
    assert.equal(n, 11);
    assert.equal(fs.readFileSync(target, 'utf8'), 'new content');
    assert.deepEqual(trace(), [
      'open dir/.snapshot-3.ttls.pid.tmp',
      'write dir/.snapshot-3.ttls.pid.tmp',
      'write dir/.snapshot-3.ttls.pid.tmp',
      'fsync dir/.snapshot-3.ttls.pid.tmp',
      'close dir/.snapshot-3.ttls.pid.tmp',
      'rename dir/.snapshot-3.ttls.pid.tmp -> dir/snapshot-3.ttls',
      'open dir',
      'fsync dir',
      'close dir',
    ]);
  });

  it('atomic file: a write the file system cuts short is continued until every byte is written', () => {
    rec.maxWrite = 3;
    assert.equal(writeFileAtomic(target, [Buffer.from('abcdefgh'), Buffer.from('ij')], rec.fs), 10);
    assert.equal(fs.readFileSync(target, 'utf8'), 'abcdefghij');
    assert.deepEqual(
      rec.calls.filter((c) => c.name === 'write').map((c) => [c.n, c.asked]),
      [
        [3, 8],
        [3, 5],
        [2, 2],
        [2, 2],
      ],
    );
  });

  for (const step of ['write', 'fsync', 'close', 'rename'] as const) {
    it(`atomic file: a failed ${step} leaves the old file, removes the temporary one and throws the failure`, () => {
      rec.failOn(step);
      assert.throws(() => writeFileAtomic(target, [Buffer.from('new')], rec.fs), CallFailed);
      assert.equal(fs.readFileSync(target, 'utf8'), 'old');
      assert.deepEqual(fs.readdirSync(dir), ['snapshot-3.ttls']);
      assert.ok(trace().includes(`rm dir/.snapshot-3.ttls.pid.tmp`), trace().join('\n'));
      assert.ok(!trace().includes('rename dir/.snapshot-3.ttls.pid.tmp -> dir/snapshot-3.ttls'), 'never renamed');
    });
  }

  it('atomic file: after a failure the temporary file is closed before it is removed (no descriptor is left open)', () => {
    rec.failOn('write', 1, 'ENOSPC');
    assert.throws(() => writeFileAtomic(target, [Buffer.from('new')], rec.fs), { code: 'ENOSPC' });
    assert.deepEqual(trace(), [
      'open dir/.snapshot-3.ttls.pid.tmp',
      'write! dir/.snapshot-3.ttls.pid.tmp',
      'close dir/.snapshot-3.ttls.pid.tmp',
      'rm dir/.snapshot-3.ttls.pid.tmp',
    ]);
  });

  it('atomic file: a temporary file that cannot be removed after a failure does not hide the failure', () => {
    rec.failOn('write', 1, 'ENOSPC');
    rec.failOn('rm', 1, 'EACCES');
    assert.throws(() => writeFileAtomic(target, [Buffer.from('new')], rec.fs), { code: 'ENOSPC' });
    assert.equal(fs.readFileSync(target, 'utf8'), 'old');
  });

  it('atomic file: a failed folder fsync after the rename is thrown (the rename is not yet durable)', () => {
    rec.failOn('fsync', 2, 'EIO');
    assert.throws(() => writeFileAtomic(target, [Buffer.from('new')], rec.fs), { code: 'EIO' });
    const calls = trace();
    const at = calls.indexOf('fsync! dir');
    assert.deepEqual(calls.slice(at - 1, at + 2), ['open dir', 'fsync! dir', 'close dir']);
    assert.equal(fs.readFileSync(target, 'utf8'), 'new', 'renamed before the folder sync failed');
  });

  for (const code of ['EISDIR', 'EPERM', 'EINVAL', 'EBADF']) {
    it(`syncDirectory: a folder that cannot be fsync'd (${code}, as on Windows) is accepted and still closed`, () => {
      rec.failOn('fsync', 1, code);
      syncDirectory(dir, rec.fs);
      assert.deepEqual(trace(), ['open dir', 'fsync! dir', 'close dir']);
    });
  }

  it('syncDirectory: a folder that cannot be opened (EISDIR) is accepted with nothing to close; EIO is thrown', () => {
    rec.failOn('open', 1, 'EISDIR');
    syncDirectory(dir, rec.fs);
    assert.deepEqual(trace(), ['open! dir']);
    rec.failOn('open', 1, 'EIO');
    assert.throws(() => syncDirectory(dir, rec.fs), { code: 'EIO' });
  });

  it('atomic file (async): chunks are gathered into writes of up to 1 MiB; a chunk over 1 MiB is written on its own, in order', async () => {
    const chunk = (size: number, byte: number) => Buffer.alloc(size, byte);
    const chunks = [chunk(600 * 1024, 1), chunk(600 * 1024, 2), chunk(2 * MiB, 3), chunk(10, 4)];
    const n = await writeFileAtomicAsync(target, chunks, 20, rec.fs);
    assert.equal(n, 1200 * 1024 + 2 * MiB + 10);
    assert.deepEqual(fs.readFileSync(target), Buffer.concat(chunks));
    assert.deepEqual(
      rec.calls.filter((c) => c.name === 'write').map((c) => c.n),
      [600 * 1024, 600 * 1024, 2 * MiB, 10],
    );
  });

  it('atomic file (async): chunks that fill 1 MiB exactly are one write; a chunk of exactly 1 MiB too', async () => {
    const halves = [Buffer.alloc(MiB / 2, 1), Buffer.alloc(MiB / 2, 2)];
    await writeFileAtomicAsync(target, halves, 20, rec.fs);
    assert.deepEqual(fs.readFileSync(target), Buffer.concat(halves));
    assert.deepEqual(
      rec.calls.filter((c) => c.name === 'write').map((c) => c.n),
      [MiB],
    );
  });

  it('atomic file (async): the temporary file is fsync’d, closed, renamed, then the folder fsync’d', async () => {
    await writeFileAtomicAsync(target, [Buffer.from('new')], 20, rec.fs);
    assert.equal(fs.readFileSync(target, 'utf8'), 'new');
    assert.deepEqual(trace(), [
      'open dir/.snapshot-3.ttls.pid.tmp',
      'write dir/.snapshot-3.ttls.pid.tmp',
      'fsync dir/.snapshot-3.ttls.pid.tmp',
      'close dir/.snapshot-3.ttls.pid.tmp',
      'rename dir/.snapshot-3.ttls.pid.tmp -> dir/snapshot-3.ttls',
      'open dir',
      'fsync dir',
      'close dir',
    ]);
  });

  it('atomic file (async): a failed fsync or write leaves the old file, removes the temporary one and rejects', async () => {
    for (const step of ['fsync', 'write'] as const) {
      rec.heal();
      rec.failOn(step, 1, 'ENOSPC');
      await assert.rejects(writeFileAtomicAsync(target, [Buffer.from('new')], 20, rec.fs), { code: 'ENOSPC' });
      assert.equal(fs.readFileSync(target, 'utf8'), 'old', step);
      assert.deepEqual(fs.readdirSync(dir), ['snapshot-3.ttls'], step);
    }
  });

  it('atomic file (async): a long write gives the event loop a turn once a stretch took over yieldEveryMs, and none before', async () => {
    const turnsSeen = async (yieldEveryMs: number): Promise<boolean[]> => {
      let turned = false;
      setImmediate(() => (turned = true));
      const seen: boolean[] = [];
      function* chunks(): Generator<Uint8Array> {
        for (let i = 0; i < 3; i++) {
          seen.push(turned);
          const until = performance.now() + 2;
          while (performance.now() < until); // a stretch of work that takes 2 ms
          yield Buffer.from([i]);
        }
      }
      await writeFileAtomicAsync(target, chunks(), yieldEveryMs, rec.fs);
      return seen;
    };
    assert.deepEqual(await turnsSeen(1), [false, true, true]);
    assert.deepEqual(await turnsSeen(1e9), [false, false, false]);
    // What counts is the time a stretch took, not the clock's reading: a limit as long as this
    // process has run so far is far beyond three 2 ms stretches, though below the clock's value.
    assert.deepEqual(await turnsSeen(performance.now()), [false, false, false]);
    assert.deepEqual(fs.readFileSync(target), Buffer.from([0, 1, 2]));
  });

  it('atomic file (async): a stretch is timed from the last turn, so one long stretch gives one turn, not one per chunk after it', async () => {
    // Counts the event loop's turns: each yield of the writer lets one tick run.
    let turns = 0;
    let counting = true;
    const tick = () => {
      turns++;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    const seen: number[] = [];
    function* chunks(): Generator<Uint8Array> {
      for (const ms of [250, 1, 1]) {
        seen.push(turns);
        const until = performance.now() + ms;
        while (performance.now() < until); // a stretch of work
        yield Buffer.from([ms]);
      }
    }
    try {
      await writeFileAtomicAsync(target, chunks(), 200, rec.fs);
    } finally {
      counting = false;
    }
    assert.deepEqual(seen, [0, 1, 1]);
  });
});
