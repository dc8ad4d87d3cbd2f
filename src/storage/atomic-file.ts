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

/**
 * Write `chunks` (produced lazily, so a large file never sits in memory whole) to `target`
 * atomically. Returns the bytes written.
 */
export function writeFileAtomic(target: string, chunks: Iterable<Uint8Array>): number {
  const dir = path.dirname(target);
  const tmp = path.join(dir, `.${path.basename(target)}.${process.pid}.tmp`);
  const fd = fs.openSync(tmp, 'w');
  let bytes = 0;
  try {
    for (const chunk of chunks) {
      let written = 0;
      while (written < chunk.length) written += fs.writeSync(fd, chunk, written, chunk.length - written);
      bytes += chunk.length;
    }
    fs.fsyncSync(fd);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  fs.closeSync(fd);
  fs.renameSync(tmp, target);
  syncDirectory(dir);
  return bytes;
}
