/**
 * The append-only journal: one frame (frames.ts) per committed engine command. `fsync` mode
 * makes every append durable before it returns (before the command is acknowledged); `batched`
 * mode groups appends and syncs them at most `groupCommitMs` (100 ms) later, so that much
 * acknowledged work is at risk in a power loss (not in a crash of the process alone: the bytes
 * are in the OS's page cache once writeSync returns).
 */
import { encodeFrame, FileSource, walkFrames, type Damage } from './frames';
import { nodeFs, type StorageFs } from './storage-fs';

export type Durability = 'fsync' | 'batched';

export const GROUP_COMMIT_MS = 100;

export class JournalWriter {
  private fd: number;
  private size: number;
  private unsynced = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** A failed background sync: surfaced by the next append, so no write is acknowledged after it. */
  private syncError: Error | undefined;

  constructor(
    readonly path: string,
    private readonly durability: Durability,
    private readonly groupCommitMs = GROUP_COMMIT_MS,
    private readonly io: StorageFs = nodeFs,
  ) {
    this.fd = io.openSync(path, 'a');
    this.size = io.fstatSync(this.fd).size;
  }

  get bytes(): number {
    return this.size;
  }

  /**
   * Append one record; durable on return in `fsync` mode. Throws if the disk refused, and from
   * then on refuses every append: after a failed write or sync the file's state on disk is not
   * known (a sync that failed once may report success the next time with the data gone), so
   * nothing more may be acknowledged through it. A partly written frame is cut off if possible.
   */
  append(payload: Uint8Array): void {
    if (this.syncError) throw this.syncError;
    const frame = encodeFrame(payload);
    let written = 0;
    try {
      while (written < frame.length) written += this.io.writeSync(this.fd, frame, written, frame.length - written);
    } catch (err) {
      this.syncError = err as Error;
      try {
        if (written > 0) this.io.ftruncateSync(this.fd, this.size);
      } catch {
        // Left as a torn tail: recovery cuts it, since nothing follows it.
      }
      throw err;
    }
    this.size += frame.length;
    if (this.durability === 'fsync') {
      try {
        this.io.fdatasyncSync(this.fd);
      } catch (err) {
        this.syncError = err as Error;
        throw err;
      }
      return;
    }
    this.unsynced++;
    this.timer ??= setTimeout(() => this.syncNow(), this.groupCommitMs);
  }

  /** Make everything appended so far durable (batched mode's group commit; also on close). */
  syncNow(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.unsynced === 0) return;
    try {
      this.io.fdatasyncSync(this.fd);
      this.unsynced = 0;
    } catch (err) {
      this.syncError = err as Error;
    }
  }

  /** Sync and close; throws when a sync failed (acknowledged writes of a group commit may not be on disk). */
  close(): void {
    if (this.fd < 0) return;
    this.syncNow();
    try {
      this.io.closeSync(this.fd);
    } finally {
      this.fd = -1;
    }
    if (this.syncError) throw this.syncError;
  }

  /** Refuse every later append with `err` (a failure found elsewhere: an earlier journal's sync). */
  fail(err: Error): void {
    this.syncError ??= err;
  }

  /** The failure that stopped this journal, if any. */
  get failure(): Error | undefined {
    return this.syncError;
  }
}

export interface JournalRead {
  /** Whole records read before any damage. */
  frames: number;
  /** Damage found (a torn tail or corruption), with the byte offset. */
  damage?: Damage;
  /** Bytes up to the end of the last whole record. */
  validEnd: number;
  bytes: number;
}

/**
 * Read a journal file record by record (a missing file reads as empty): a window of a few MiB at
 * a time, so a journal of any size opens in memory bounded by its largest record. `onFrame`
 * gets each whole record's payload, valid only during the call.
 */
export function readJournal(
  path: string,
  onFrame: (payload: Buffer, offset: number) => void,
  io: StorageFs = nodeFs,
): JournalRead {
  let fd: number;
  try {
    fd = io.openSync(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { frames: 0, validEnd: 0, bytes: 0 };
    throw err;
  }
  try {
    const size = io.fstatSync(fd).size;
    const walk = walkFrames(new FileSource(io, fd, size), onFrame);
    return {
      frames: walk.frames,
      validEnd: walk.validEnd,
      bytes: size,
      ...(walk.damage ? { damage: walk.damage } : {}),
    };
  } finally {
    io.closeSync(fd);
  }
}

/** Cut a torn tail off, so appends continue after the last whole record (durably). */
export function truncateJournal(path: string, validEnd: number, io: StorageFs = nodeFs): void {
  const fd = io.openSync(path, 'r+');
  try {
    io.ftruncateSync(fd, validEnd);
    io.fsyncSync(fd);
  } finally {
    io.closeSync(fd);
  }
}
