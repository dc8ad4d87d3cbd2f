/**
 * One writer per data folder. The writer holds `LOCK` (created exclusively, holding its pid and
 * start time); a second process finds it and opens the folder read-only instead of corrupting it.
 * A lock whose process is gone (a crash, kill -9) is stale and taken over.
 */
import * as path from 'node:path';
import { nodeFs, type StorageFs } from './storage-fs';

export const LOCK_FILE = 'LOCK';

export interface LockHolder {
  pid: number;
  since: string;
  /** What the holder is (e.g. "VS Code window", "ttl-workbench run"). */
  by?: string;
  /** Which opener inside the process (an engine host worker's token): see LockOptions. */
  owner?: string;
}

/**
 * A pid names a process, not a thread. The extension's engine host runs the store in a worker
 * thread; when it has to terminate that worker (code that never stops, an out-of-memory end), the
 * dead worker's lock still names the live process. Its successor takes it over by naming the dead
 * worker's `owner` token in `takeOverFrom`: nobody else knows that token, so no other opener in the
 * process (an isolated second store) can take a live lock. A host names every token it issued:
 * a worker that died before it opened the folder leaves the lock of the one before it.
 */
export interface LockOptions {
  owner?: string;
  takeOverFrom?: readonly string[];
}

export type LockResult =
  { ok: true; release: () => void; tookOverFrom?: LockHolder } | { ok: false; holder: LockHolder };

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(io: StorageFs, file: string): LockHolder | undefined {
  try {
    const h = JSON.parse(io.readFileSync(file, 'utf8')) as LockHolder;
    return typeof h.pid === 'number' ? h : undefined;
  } catch {
    return undefined;
  }
}

function mtimeOf(io: StorageFs, file: string): number {
  try {
    return io.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Create `file` holding `text`, failing with EEXIST when it exists, and never visible half
 * written: the text goes to a file of our own first, which is then hard-linked as the lock (a
 * link either appears whole or not at all). A holder killed while writing leaves no empty lock
 * that would turn the next opener away. Where links are not supported, an exclusive create.
 */
function createWhole(io: StorageFs, file: string, text: string): void {
  const own = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    // Stryker disable next-line ObjectLiteral,StringLiteral: its name holds the pid and a random part, so it never exists before
    io.writeFileSync(own, text, { flag: 'wx' });
  } catch {
    io.writeFileSync(file, text, { flag: 'wx' });
    return;
  }
  try {
    io.linkSync(own, file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS' && code !== 'EXDEV')
      throw err;
    io.writeFileSync(file, text, { flag: 'wx' });
  } finally {
    try {
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: the file of its own always exists here, and a failure is swallowed below
      io.rmSync(own, { force: true });
    } catch {
      // A stray temporary name: never read as a lock.
    }
  }
}

/** Lock files this process released but could not remove (a failing disk): stale, though they name a live pid. */
const released = new Set<string>();

export function acquireLock(dir: string, by?: string, io: StorageFs = nodeFs, options: LockOptions = {}): LockResult {
  const file = path.join(dir, LOCK_FILE);
  const me: LockHolder = {
    pid: process.pid,
    since: new Date().toISOString(),
    ...(by ? { by } : {}),
    ...(options.owner ? { owner: options.owner } : {}),
  };
  let tookOverFrom: LockHolder | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      createWhole(io, file, JSON.stringify(me));
      const release = () => {
        // Only our own lock: a folder taken over meanwhile (it should not be) stays locked. A
        // lock that cannot be read back (a failing disk) is still ours: nobody takes over a live
        // holder's lock.
        const holder = readHolder(io, file);
        if (holder !== undefined && (holder.pid !== process.pid || holder.owner !== me.owner)) return;
        try {
          io.rmSync(file, { force: true });
        } catch {
          // Left behind: another process finds its holder dead and takes it over; this process
          // remembers it let go.
          released.add(file);
        }
      };
      return { ok: true, release, ...(tookOverFrom ? { tookOverFrom } : {}) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = readHolder(io, file);
    // Our own pid counts as alive: a second store in this process must not share the folder.
    const deadThread =
      holder !== undefined &&
      holder.pid === process.pid &&
      holder.owner !== undefined &&
      options.takeOverFrom?.includes(holder.owner) === true;
    if (holder && alive(holder.pid) && !(holder.pid === process.pid && released.has(file)) && !deadThread)
      return { ok: false, holder };
    released.delete(file);
    // An unreadable lock is either being written right now (give it a moment) or was left by a
    // writer that died in between.
    if (!holder && Date.now() - mtimeOf(io, file) < 2000) return { ok: false, holder: { pid: 0, since: 'just now' } };
    tookOverFrom = holder ?? { pid: 0, since: 'unknown' };
    io.rmSync(file, { force: true });
  }
  const holder = readHolder(io, file);
  return { ok: false, holder: holder ?? { pid: 0, since: 'unknown' } };
}

/**
 * Who holds `dir`'s lock, read without touching it (for `ttl-workbench verify`): undefined when
 * there is no lock file; `alive` says whether the named process still runs (a dead holder's lock
 * is stale and taken over by the next writer); a lock that cannot be read names pid 0.
 */
export function peekLock(dir: string, io: StorageFs = nodeFs): (LockHolder & { alive: boolean }) | undefined {
  const file = path.join(dir, LOCK_FILE);
  if (!io.existsSync(file)) return undefined;
  const holder = readHolder(io, file);
  if (!holder) return { pid: 0, since: 'unknown', alive: false };
  return { ...holder, alive: alive(holder.pid) };
}
