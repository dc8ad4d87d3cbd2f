/**
 * A StorageFs that fails chosen calls: the storage code runs as it does in production, on Node's
 * file system, except that the n-th `open`, `write`, `fsync`, `rename`, ... from the moment the
 * fault is armed throws ENOSPC or EIO (as a full or failing disk does). Not a mock of the engine
 * or the store: only the disk misbehaves.
 */
import * as fs from 'node:fs';
import type { StorageFs } from '../../../src/storage/storage-fs';

export type FsOp = 'open' | 'write' | 'fsync' | 'rename' | 'link' | 'truncate' | 'read' | 'unlink' | 'mkdir';
export type FsErrno = 'ENOSPC' | 'EIO';

function errnoError(code: FsErrno, syscall: string): NodeJS.ErrnoException {
  const text = code === 'ENOSPC' ? 'no space left on device' : 'i/o error';
  return Object.assign(new Error(`${code}: ${text}, ${syscall}`), {
    code,
    errno: code === 'ENOSPC' ? -28 : -5,
    syscall,
  });
}

export class FaultyFs {
  private counts = new Map<FsOp, number>();
  private fault: { op: FsOp; nth: number; code: FsErrno; sticky: boolean } | undefined;
  /** The calls that failed, for messages. */
  readonly failed: string[] = [];
  readonly fs: StorageFs;

  constructor() {
    const hit = (op: FsOp, syscall: string): void => {
      const n = (this.counts.get(op) ?? 0) + 1;
      this.counts.set(op, n);
      const f = this.fault;
      if (!f || f.op !== op || (f.sticky ? n < f.nth : n !== f.nth)) return;
      this.failed.push(`${syscall} #${n}`);
      throw errnoError(f.code, syscall);
    };
    const wrap =
      <A extends unknown[], R>(op: FsOp, syscall: string, call: (...args: A) => R) =>
      (...args: A): R => {
        hit(op, syscall);
        return call(...args);
      };
    const io = {
      mkdirSync: wrap('mkdir', 'mkdir', fs.mkdirSync),
      readdirSync: fs.readdirSync,
      existsSync: fs.existsSync,
      openSync: wrap('open', 'open', fs.openSync),
      closeSync: fs.closeSync,
      readSync: wrap('read', 'read', fs.readSync),
      writeSync: wrap('write', 'write', fs.writeSync),
      fsyncSync: wrap('fsync', 'fsync', fs.fsyncSync),
      fdatasyncSync: wrap('fsync', 'fdatasync', fs.fdatasyncSync),
      fsync: (fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
        try {
          hit('fsync', 'fsync');
        } catch (err) {
          setImmediate(() => cb(err as NodeJS.ErrnoException));
          return;
        }
        fs.fsync(fd, cb);
      },
      ftruncateSync: wrap('truncate', 'ftruncate', fs.ftruncateSync),
      fstatSync: fs.fstatSync,
      statSync: fs.statSync,
      readFileSync: wrap('read', 'read', fs.readFileSync),
      writeFileSync: wrap('write', 'write', fs.writeFileSync),
      renameSync: wrap('rename', 'rename', fs.renameSync),
      rmSync: wrap('unlink', 'unlink', fs.rmSync),
      linkSync: wrap('link', 'link', fs.linkSync),
      copyFileSync: wrap('write', 'copyfile', fs.copyFileSync),
      promises: {
        rm: async (p: fs.PathLike, o?: fs.RmOptions) => {
          hit('unlink', 'unlink');
          return fs.promises.rm(p, o);
        },
      },
    };
    this.fs = io as unknown as StorageFs;
  }

  /**
   * From now on, the `nth` call of `op` fails with `code` (`sticky`: that call and every later
   * one, as a disk that stays full). Counting starts again at each arm.
   */
  arm(op: FsOp, nth: number, code: FsErrno, sticky = false): void {
    this.counts.clear();
    this.fault = { op, nth, code, sticky };
  }

  disarm(): void {
    this.fault = undefined;
  }

  /** How many calls of `op` were made since the last arm. */
  calls(op: FsOp): number {
    return this.counts.get(op) ?? 0;
  }
}
