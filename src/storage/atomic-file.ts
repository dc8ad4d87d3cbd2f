/**
 * Writing a file so that it is either wholly there or not at all, across crashes: write a
 * temporary file beside it, fsync it, rename it over the target, fsync the folder (the rename is
 * durable only once the directory entry is).
 */
import * as path from 'node:path';
import { nodeFs, type StorageFs } from './storage-fs';

export function syncDirectory(dir: string, io: StorageFs = nodeFs): void {
  let fd: number | undefined;
  try {
    fd = io.openSync(dir, 'r');
    io.fsyncSync(fd);
  } catch (err) {
    // Some platforms (Windows) cannot open or fsync a directory; the rename is then as durable as it gets.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EBADF') throw err;
  } finally {
    if (fd !== undefined) io.closeSync(fd);
  }
}

interface Temp {
  dir: string;
  tmp: string;
  fd: number;
  io: StorageFs;
}

/** The temporary file beside `target` that an atomic write fills first. */
function openTemp(target: string, io: StorageFs): Temp {
  const dir = path.dirname(target);
  const tmp = path.join(dir, `.${path.basename(target)}.${process.pid}.tmp`);
  return { dir, tmp, fd: io.openSync(tmp, 'w'), io };
}

/** Durable, then in place: fsync the file, rename it over the target, fsync the folder. */
function commitTemp(t: Temp, target: string): void {
  t.io.fsyncSync(t.fd);
  t.io.closeSync(t.fd);
  t.io.renameSync(t.tmp, target);
  syncDirectory(t.dir, t.io);
}

/** commitTemp with the file's fsync on libuv's thread pool: flushing a 100 MB snapshot takes a while. */
async function commitTempAsync(t: Temp, target: string): Promise<void> {
  await new Promise<void>((resolve, reject) => t.io.fsync(t.fd, (err) => (err ? reject(err) : resolve())));
  t.io.closeSync(t.fd);
  t.io.renameSync(t.tmp, target);
  syncDirectory(t.dir, t.io);
}

function abandonTemp(t: Temp): void {
  try {
    t.io.closeSync(t.fd);
  } catch {
    // Closed already (the failure came after the fsync): the file still goes.
  }
  try {
    t.io.rmSync(t.tmp, { force: true });
  } catch {
    // A temporary file that cannot be removed is ignored by recovery and removed at the next open.
  }
}

function writeAll(io: StorageFs, fd: number, bytes: Uint8Array, length = bytes.length): void {
  let written = 0;
  while (written < length) written += io.writeSync(fd, bytes, written, length - written);
}

/**
 * Write `chunks` (produced lazily, so a large file never sits in memory whole) to `target`
 * atomically. Returns the bytes written.
 */
export function writeFileAtomic(target: string, chunks: Iterable<Uint8Array>, io: StorageFs = nodeFs): number {
  const t = openTemp(target, io);
  let bytes = 0;
  try {
    for (const chunk of chunks) {
      writeAll(io, t.fd, chunk);
      bytes += chunk.length;
    }
    commitTemp(t, target);
  } catch (err) {
    abandonTemp(t);
    throw err;
  }
  return bytes;
}

/**
 * writeFileAtomic for large files written while other work goes on: chunks are gathered into
 * 1 MiB writes, the event loop gets a turn whenever a stretch took over `yieldEveryMs`, and the
 * final fsync runs off the main thread.
 */
export async function writeFileAtomicAsync(
  target: string,
  chunks: Iterable<Uint8Array>,
  yieldEveryMs = 20,
  io: StorageFs = nodeFs,
): Promise<number> {
  const t = openTemp(target, io);
  let bytes = 0;
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  let used = 0;
  try {
    let slice = performance.now();
    for (const chunk of chunks) {
      if (used + chunk.length > buffer.length) {
        writeAll(io, t.fd, buffer, used);
        used = 0;
      }
      if (chunk.length > buffer.length) writeAll(io, t.fd, chunk);
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
    writeAll(io, t.fd, buffer, used);
    await commitTempAsync(t, target);
  } catch (err) {
    abandonTemp(t);
    throw err;
  }
  return bytes;
}
