/**
 * Writing a file so that it is either wholly there or not at all, across crashes: write a
 * temporary file beside it, fsync it, rename it over the target, fsync the folder (the rename is
 * durable only once the directory entry is).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch (err) {
    // Some platforms (Windows) cannot open or fsync a directory; the rename is then as durable as it gets.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EBADF') throw err;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The temporary file beside `target` that an atomic write fills first. */
function openTemp(target: string): { dir: string; tmp: string; fd: number } {
  const dir = path.dirname(target);
  const tmp = path.join(dir, `.${path.basename(target)}.${process.pid}.tmp`);
  return { dir, tmp, fd: fs.openSync(tmp, 'w') };
}

/** Durable, then in place: fsync the file, rename it over the target, fsync the folder. */
function commitTemp(t: { dir: string; tmp: string; fd: number }, target: string): void {
  fs.fsyncSync(t.fd);
  fs.closeSync(t.fd);
  fs.renameSync(t.tmp, target);
  syncDirectory(t.dir);
}

/** commitTemp with the file's fsync on libuv's thread pool: flushing a 100 MB snapshot takes a while. */
async function commitTempAsync(t: { dir: string; tmp: string; fd: number }, target: string): Promise<void> {
  await new Promise<void>((resolve, reject) => fs.fsync(t.fd, (err) => (err ? reject(err) : resolve())));
  fs.closeSync(t.fd);
  fs.renameSync(t.tmp, target);
  syncDirectory(t.dir);
}

function abandonTemp(t: { tmp: string; fd: number }): void {
  try {
    fs.closeSync(t.fd);
  } catch {
    // Closed already (the failure came after the fsync): the file still goes.
  }
  fs.rmSync(t.tmp, { force: true });
}

function writeAll(fd: number, bytes: Uint8Array, length = bytes.length): void {
  let written = 0;
  while (written < length) written += fs.writeSync(fd, bytes, written, length - written);
}

/**
 * Write `chunks` (produced lazily, so a large file never sits in memory whole) to `target`
 * atomically. Returns the bytes written.
 */
export function writeFileAtomic(target: string, chunks: Iterable<Uint8Array>): number {
  const t = openTemp(target);
  let bytes = 0;
  try {
    for (const chunk of chunks) {
      writeAll(t.fd, chunk);
      bytes += chunk.length;
    }
  } catch (err) {
    abandonTemp(t);
    throw err;
  }
  commitTemp(t, target);
  return bytes;
}

/**
 * writeFileAtomic for large files written while other work goes on: chunks are gathered into
 * 1 MiB writes, the event loop gets a turn whenever a stretch took over `yieldEveryMs`, and the
 * final fsync runs off the main thread.
 */
export async function writeFileAtomicAsync(target: string, chunks: Iterable<Uint8Array>, yieldEveryMs = 20): Promise<number> {
  const t = openTemp(target);
  let bytes = 0;
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  let used = 0;
  try {
    let slice = performance.now();
    for (const chunk of chunks) {
      if (used + chunk.length > buffer.length) {
        writeAll(t.fd, buffer, used);
        used = 0;
      }
      if (chunk.length > buffer.length) writeAll(t.fd, chunk);
      else {
        buffer.set(chunk, used);
        used += chunk.length;
      }
      bytes += chunk.length;
      if (performance.now() - slice > yieldEveryMs) {
        await new Promise((resolve) => setImmediate(resolve));
        slice = performance.now();
      }
    }
    writeAll(t.fd, buffer, used);
    await commitTempAsync(t, target);
  } catch (err) {
    abandonTemp(t);
    throw err;
  }
  return bytes;
}
