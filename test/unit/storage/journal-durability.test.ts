/**
 * The journal's promises about the disk, watched call by call through a recording file system:
 * an acknowledged append is on disk (fsync mode) or will be within the group-commit window
 * (batched mode), a failed write or sync stops the journal for good, and close syncs first.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { serialize } from 'bson';
import { GROUP_COMMIT_MS, JournalWriter, readJournal, truncateJournal } from '../../../src/storage/journal';
import { FRAME_HEADER_BYTES } from '../../../src/storage/frames';
import { CallFailed, RecordingFs } from './recording-fs';

const payload = (n: number): Uint8Array => serialize({ n, pad: 'x'.repeat(40) });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('journal durability', () => {
  let dir: string;
  let file: string;
  let rec: RecordingFs;
  const open: JournalWriter[] = [];
  const writer = (durability: 'fsync' | 'batched', groupCommitMs?: number): JournalWriter => {
    const j = new JournalWriter(file, durability, groupCommitMs, rec.fs);
    open.push(j);
    return j;
  };
  const frames = (): number[] => {
    const seen: number[] = [];
    readJournal(file, (p) => seen.push(p.length));
    return seen;
  };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-journal-'));
    file = path.join(dir, 'journal-0.ttlj');
    rec = new RecordingFs();
  });
  afterEach(() => {
    for (const j of open.splice(0)) {
      try {
        j.close();
      } catch {
        // closed already, or a failure the test made
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("journal: an acknowledged append has been written whole and fdatasync'd before it returns (fsync mode)", () => {
    const j = writer('fsync');
    const before = rec.calls.length;
    const p = payload(1);
    j.append(p);
    assert.deepEqual(rec.names(before), ['write', 'fdatasync']);
    assert.equal(rec.calls[before].n, FRAME_HEADER_BYTES + p.length);
    assert.equal(rec.calls[before + 1].path, file);
    assert.equal(j.bytes, FRAME_HEADER_BYTES + p.length);
    assert.deepEqual(frames(), [p.length]);
  });

  it('journal: a short write is continued until the whole frame is on disk', () => {
    const j = writer('fsync');
    rec.maxWrite = 7;
    const p = payload(2);
    const before = rec.calls.length;
    j.append(p);
    const writes = rec.calls.slice(before).filter((c) => c.name === 'write');
    assert.equal(writes.length, Math.ceil((FRAME_HEADER_BYTES + p.length) / 7));
    let left = FRAME_HEADER_BYTES + p.length;
    for (const w of writes) {
      assert.equal(w.asked, left, 'each write asks for exactly the rest of the frame');
      left -= w.n!;
    }
    assert.equal(
      writes.reduce((sum, c) => sum + c.n!, 0),
      FRAME_HEADER_BYTES + p.length,
    );
    assert.deepEqual(rec.names(before).slice(-1), ['fdatasync']);
    assert.deepEqual(frames(), [p.length]);
  });

  it('journal: opening an existing journal appends after its bytes', () => {
    writer('fsync').append(payload(1));
    open.splice(0).forEach((j) => j.close());
    const size = fs.statSync(file).size;
    const j = writer('fsync');
    assert.equal(j.bytes, size);
    j.append(payload(2));
    assert.equal(j.bytes, fs.statSync(file).size);
    assert.equal(frames().length, 2);
  });

  it('journal: a write that fails part-way cuts the partial frame off, is thrown, and refuses every later append', () => {
    const j = writer('fsync');
    j.append(payload(1));
    const good = j.bytes;
    rec.maxWrite = 10;
    rec.failOn('write', 2, 'ENOSPC');
    assert.throws(() => j.append(payload(2)), { code: 'ENOSPC' });
    const cut = rec.calls.find((c) => c.name === 'ftruncate');
    assert.ok(cut, 'the partial frame is truncated');
    assert.equal(cut.n, good);
    assert.equal(fs.statSync(file).size, good);
    assert.equal(j.failure?.message, 'ENOSPC: injected failure, write');
    rec.heal();
    rec.maxWrite = undefined;
    const before = rec.calls.length;
    assert.throws(() => j.append(payload(3)), { code: 'ENOSPC' });
    assert.deepEqual(rec.names(before), [], 'nothing is written after the failure');
    assert.deepEqual(frames().length, 1);
  });

  it('journal: a write that fails before any byte is written truncates nothing', () => {
    const j = writer('fsync');
    j.append(payload(1));
    rec.failOn('write', 1, 'EIO');
    assert.throws(() => j.append(payload(2)), { code: 'EIO' });
    assert.equal(rec.count('ftruncate'), 0);
  });

  it('journal: when cutting a torn frame off fails too, the write failure is what is thrown', () => {
    const j = writer('fsync');
    rec.maxWrite = 10;
    rec.failOn('write', 2, 'EIO');
    rec.failOn('ftruncate', 1, 'EROFS');
    assert.throws(() => j.append(payload(1)), { code: 'EIO' });
    assert.equal(j.failure instanceof CallFailed && j.failure.code, 'EIO');
  });

  it('journal: a failed fdatasync is thrown (the write is not acknowledged) and refuses every later append (fsync mode)', () => {
    const j = writer('fsync');
    rec.failOn('fdatasync', 1, 'EIO');
    assert.throws(() => j.append(payload(1)), { code: 'EIO' });
    rec.heal();
    const before = rec.calls.length;
    assert.throws(() => j.append(payload(2)), { code: 'EIO' });
    assert.deepEqual(rec.names(before), []);
    assert.throws(() => j.close(), { code: 'EIO' }, 'close reports it again');
  });

  it("journal: batched mode acknowledges before syncing and fdatasync's the group once, within the window", async () => {
    const j = writer('batched', 40);
    const before = rec.calls.length;
    j.append(payload(1));
    j.append(payload(2));
    j.append(payload(3));
    assert.equal(rec.count('fdatasync', before), 0, 'not synced on the append path');
    await sleep(200);
    assert.equal(rec.count('fdatasync', before), 1, 'one sync for the group');
    assert.deepEqual(rec.names(before), ['write', 'write', 'write', 'fdatasync']);
  });

  it('journal: batched mode starts a new group-commit timer after each sync', async () => {
    const j = writer('batched', 30);
    const before = rec.calls.length;
    j.append(payload(1));
    await sleep(150);
    j.append(payload(2));
    await sleep(150);
    assert.deepEqual(rec.names(before), ['write', 'fdatasync', 'write', 'fdatasync']);
  });

  it(`journal: batched mode syncs after GROUP_COMMIT_MS (${GROUP_COMMIT_MS} ms) by default, not at once`, async () => {
    assert.equal(GROUP_COMMIT_MS, 100);
    const j = writer('batched');
    const before = rec.calls.length;
    j.append(payload(1));
    await sleep(20);
    assert.equal(rec.count('fdatasync', before), 0);
    await sleep(400);
    assert.equal(rec.count('fdatasync', before), 1);
  });

  it('journal: a failed background sync is kept: the next append and close throw it', async () => {
    const j = writer('batched', 20);
    rec.failOn('fdatasync', 1, 'EIO');
    j.append(payload(1));
    await sleep(120);
    assert.equal(j.failure instanceof CallFailed && j.failure.code, 'EIO');
    rec.heal();
    const before = rec.calls.length;
    assert.throws(() => j.append(payload(2)), { code: 'EIO' });
    assert.deepEqual(rec.names(before), [], 'nothing written after a failed sync');
    assert.throws(() => j.close(), { code: 'EIO' });
  });

  it('journal: syncNow with nothing appended since the last sync does not sync again', () => {
    const j = writer('batched', 10_000);
    j.append(payload(1));
    j.syncNow();
    const before = rec.calls.length;
    j.syncNow();
    assert.deepEqual(rec.names(before), []);
  });

  it('journal: close syncs what batched mode has not synced yet, then closes, once', () => {
    const j = writer('batched', 10_000);
    const before = rec.calls.length;
    j.append(payload(1));
    j.close();
    assert.deepEqual(rec.names(before), ['write', 'fdatasync', 'close']);
    j.close();
    assert.deepEqual(rec.names(before), ['write', 'fdatasync', 'close'], 'a second close does nothing');
  });

  it('journal: close in fsync mode does not sync again (every append was synced)', () => {
    const j = writer('fsync');
    j.append(payload(1));
    const before = rec.calls.length;
    j.close();
    assert.deepEqual(rec.names(before), ['close']);
  });

  it('journal: a close that fails still leaves the journal closed', () => {
    const j = writer('fsync');
    rec.failOn('close', 1, 'EIO');
    assert.throws(() => j.close(), { code: 'EIO' });
    rec.heal();
    const before = rec.calls.length;
    j.close();
    assert.deepEqual(rec.names(before), []);
  });

  it('journal: an append after close() is refused, and nothing reaches the file', () => {
    const j = writer('fsync');
    j.append(payload(1));
    j.close();
    const size = fs.statSync(file).size;
    assert.throws(() => j.append(payload(2)));
    assert.equal(fs.statSync(file).size, size);
    assert.ok(j.failure, 'the journal is failed from then on');
  });

  it('journal: fail() refuses later appends with the first failure given', () => {
    const j = writer('fsync');
    const first = new Error('an earlier journal failed to sync');
    j.fail(first);
    j.fail(new Error('second'));
    assert.equal(j.failure, first);
    const before = rec.calls.length;
    assert.throws(() => j.append(payload(1)), first);
    assert.deepEqual(rec.names(before), []);
  });

  it('journal: fail() does not replace a failure the journal found itself', () => {
    const j = writer('fsync');
    rec.failOn('fdatasync', 1, 'EIO');
    assert.throws(() => j.append(payload(1)));
    j.fail(new Error('later'));
    assert.equal((j.failure as CallFailed).code, 'EIO');
  });

  it('journal: reading a missing journal finds nothing; any other open failure is thrown', () => {
    assert.deepEqual(
      readJournal(file, () => assert.fail('no frame')),
      { frames: 0, validEnd: 0, bytes: 0 },
    );
    rec.failOn('open', 1, 'EACCES');
    assert.throws(() => readJournal(file, () => undefined, rec.fs), { code: 'EACCES' });
  });

  it('journal: reading reports whole frames, where they end, and no damage key when there is none', () => {
    const j = writer('fsync');
    j.append(payload(1));
    j.append(payload(2));
    const offsets: number[] = [];
    const before = rec.calls.length;
    const read = readJournal(file, (_p, offset) => offsets.push(offset), rec.fs);
    assert.deepEqual(read, { frames: 2, validEnd: j.bytes, bytes: j.bytes });
    assert.ok(!('damage' in read));
    assert.deepEqual(offsets, [0, j.bytes / 2]);
    assert.deepEqual(rec.names(before).slice(-1), ['close'], 'the file is closed after reading');
  });

  it('journal: reading a torn journal reports the damage and closes the file even when a frame callback throws', () => {
    const j = writer('fsync');
    j.append(payload(1));
    fs.appendFileSync(file, Buffer.from([200, 0, 0, 0, 1, 2]));
    const read = readJournal(file, () => undefined);
    assert.equal(read.frames, 1);
    assert.deepEqual(read.damage, { kind: 'torn', offset: j.bytes, bytes: 6 });
    const before = rec.calls.length;
    assert.throws(
      () =>
        readJournal(
          file,
          () => {
            throw new Error('callback');
          },
          rec.fs,
        ),
      /callback/,
    );
    assert.deepEqual(rec.names(before), ['open', 'read', 'close']);
  });

  it('journal: truncating cuts a torn tail off durably (ftruncate, then fsync, then close)', () => {
    const j = writer('fsync');
    j.append(payload(1));
    const valid = j.bytes;
    fs.appendFileSync(file, Buffer.from([200, 0, 0, 0, 1, 2]));
    const before = rec.calls.length;
    truncateJournal(file, valid, rec.fs);
    assert.deepEqual(rec.names(before), ['open', 'ftruncate', 'fsync', 'close']);
    assert.equal(rec.calls[before + 1].n, valid);
    assert.equal(fs.statSync(file).size, valid);
  });

  it('journal: truncating closes the file even when the sync fails', () => {
    writer('fsync').append(payload(1));
    rec.failOn('fsync', 1, 'EIO');
    const before = rec.calls.length;
    assert.throws(() => truncateJournal(file, 0, rec.fs), { code: 'EIO' });
    assert.deepEqual(rec.names(before), ['open', 'ftruncate', 'fsync!', 'close']);
  });
});
