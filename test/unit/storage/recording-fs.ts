/**
 * A StorageFs for tests that keeps a log of the calls that decide durability (open, write,
 * fsync, fdatasync, ftruncate, rename, close, ...) on Node's real file system, and can fail any
 * of them or cut writes short. With it a test asserts the order that makes a promise true
 * ("the frame was written, then fdatasync'd, before append returned") rather than trusting it.
 * Only the disk is stood in for: the storage code runs unchanged.
 */
import * as fs from 'node:fs';
import type { StorageFs } from '../../../src/storage/storage-fs';

export type CallName =
  | 'mkdir'
  | 'open'
  | 'close'
  | 'read'
  | 'write'
  | 'fsync'
  | 'fdatasync'
  | 'ftruncate'
  | 'rename'
  | 'rm'
  | 'link'
  | 'copyFile'
  | 'readFile'
  | 'writeFile';

export interface Call {
  name: CallName;
  /** The path the call names, or the path the descriptor was opened with. */
  path?: string;
  fd?: number;
  /** write: bytes written; ftruncate: the length. */
  n?: number;
  /** write: the bytes the caller asked to write (more than `n` when the write was cut short). */
  asked?: number;
  /** The call threw the injected failure (and did nothing). */
  failed?: boolean;
}

export class CallFailed extends Error {
  constructor(
    readonly code: string,
    readonly syscall: string,
  ) {
    super(`${code}: injected failure, ${syscall}`);
  }
}

export class RecordingFs {
  readonly calls: Call[] = [];
  private readonly paths = new Map<number, string>();
  private failures: { name: CallName; nth: number; code: string; sticky: boolean; seen: number }[] = [];
  /** When set, each writeSync writes at most this many bytes (a short write, as a signal or a pipe may cause). */
  maxWrite: number | undefined;
  readonly fs: StorageFs;

  constructor() {
    const record = (call: Call): void => {
      for (const f of this.failures) {
        if (f.name !== call.name) continue;
        f.seen++;
        if (f.seen === f.nth || (f.sticky && f.seen > f.nth)) {
          this.calls.push({ ...call, n: undefined, failed: true });
          throw new CallFailed(f.code, call.name);
        }
      }
      this.calls.push(call);
    };
    const io = {
      mkdirSync: (p: fs.PathLike, o?: fs.MakeDirectoryOptions) => {
        record({ name: 'mkdir', path: String(p) });
        return fs.mkdirSync(p, o);
      },
      readdirSync: fs.readdirSync,
      existsSync: fs.existsSync,
      statSync: fs.statSync,
      fstatSync: fs.fstatSync,
      openSync: (p: fs.PathLike, flags: fs.OpenMode, mode?: fs.Mode) => {
        record({ name: 'open', path: String(p) });
        const fd = fs.openSync(p, flags, mode);
        this.paths.set(fd, String(p));
        return fd;
      },
      closeSync: (fd: number) => {
        record({ name: 'close', fd, path: this.paths.get(fd) });
        fs.closeSync(fd);
        this.paths.delete(fd);
      },
      readSync: (fd: number, buf: NodeJS.ArrayBufferView, off: number, len: number, pos: number | null) => {
        record({ name: 'read', fd, path: this.paths.get(fd) });
        return fs.readSync(fd, buf, off, len, pos);
      },
      writeSync: (fd: number, buf: NodeJS.ArrayBufferView, off?: number, len?: number, pos?: number | null) => {
        const asked = len ?? buf.byteLength - (off ?? 0);
        const length = Math.min(asked, this.maxWrite ?? Infinity);
        record({ name: 'write', fd, path: this.paths.get(fd), n: length, asked });
        return fs.writeSync(fd, buf, off, length, pos);
      },
      fsyncSync: (fd: number) => {
        record({ name: 'fsync', fd, path: this.paths.get(fd) });
        fs.fsyncSync(fd);
      },
      fdatasyncSync: (fd: number) => {
        record({ name: 'fdatasync', fd, path: this.paths.get(fd) });
        fs.fdatasyncSync(fd);
      },
      fsync: (fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
        try {
          record({ name: 'fsync', fd, path: this.paths.get(fd) });
        } catch (err) {
          setImmediate(() => cb(err as NodeJS.ErrnoException));
          return;
        }
        fs.fsync(fd, cb);
      },
      ftruncateSync: (fd: number, len?: number) => {
        record({ name: 'ftruncate', fd, path: this.paths.get(fd), n: len });
        fs.ftruncateSync(fd, len);
      },
      readFileSync: (p: fs.PathOrFileDescriptor, o?: unknown) => {
        record({ name: 'readFile', path: String(p) });
        return fs.readFileSync(p, o as undefined);
      },
      writeFileSync: (p: fs.PathOrFileDescriptor, data: string | NodeJS.ArrayBufferView, o?: fs.WriteFileOptions) => {
        record({ name: 'writeFile', path: String(p) });
        fs.writeFileSync(p, data, o);
      },
      renameSync: (from: fs.PathLike, to: fs.PathLike) => {
        record({ name: 'rename', path: `${String(from)} -> ${String(to)}` });
        fs.renameSync(from, to);
      },
      rmSync: (p: fs.PathLike, o?: fs.RmOptions) => {
        record({ name: 'rm', path: String(p) });
        fs.rmSync(p, o);
      },
      linkSync: (a: fs.PathLike, b: fs.PathLike) => {
        record({ name: 'link', path: `${String(a)} -> ${String(b)}` });
        fs.linkSync(a, b);
      },
      copyFileSync: (a: fs.PathLike, b: fs.PathLike, mode?: number) => {
        record({ name: 'copyFile', path: `${String(a)} -> ${String(b)}` });
        fs.copyFileSync(a, b, mode);
      },
      promises: {
        rm: async (p: fs.PathLike, o?: fs.RmOptions) => {
          record({ name: 'rm', path: String(p) });
          return fs.promises.rm(p, o);
        },
      },
    };
    this.fs = io as unknown as StorageFs;
  }

  /** The `nth` next call of `name` (counted from now) throws `code`; `sticky`: and every one after it. */
  failOn(name: CallName, nth = 1, code = 'EIO', sticky = false): void {
    this.failures.push({ name, nth, code, sticky, seen: 0 });
  }

  heal(): void {
    this.failures = [];
  }

  /** The names of the calls made since `from` (an index into `calls`), optionally on one path only. */
  names(from = 0, path?: string): string[] {
    return this.calls
      .slice(from)
      .filter((c) => path === undefined || c.path === path)
      .map((c) => (c.failed ? `${c.name}!` : c.name));
  }

  count(name: CallName, from = 0): number {
    return this.calls.slice(from).filter((c) => c.name === name && !c.failed).length;
  }
}
