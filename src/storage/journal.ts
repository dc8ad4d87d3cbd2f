/**
 * The append-only journal: one frame (frames.ts) per committed engine command. `fsync` mode
 * makes every append durable before it returns (before the command is acknowledged); `batched`
 * mode groups appends and syncs them at most `groupCommitMs` (100 ms) later, so that much
 * acknowledged work is at risk in a power loss (not in a crash of the process alone: the bytes
 * are in the OS's page cache once writeSync returns).
 */
import * as fs from 'node:fs';
import { encodeFrame, scanFrames, type Damage, type Frame } from './frames';

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
  ) {
    this.fd = fs.openSync(path, 'a');
    this.size = fs.fstatSync(this.fd).size;
  }

  get bytes(): number {
    return this.size;
  }

  /** Append one record; durable on return in `fsync` mode. Throws if the disk refused. */
  append(payload: Uint8Array): void {
    if (this.syncError) throw this.syncError;
    const frame = encodeFrame(payload);
    let written = 0;
    while (written < frame.length) written += fs.writeSync(this.fd, frame, written, frame.length - written);
    this.size += frame.length;
    if (this.durability === 'fsync') {
      fs.fdatasyncSync(this.fd);
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
      fs.fdatasyncSync(this.fd);
      this.unsynced = 0;
    } catch (err) {
      this.syncError = err as Error;
    }
  }

  close(): void {
    this.syncNow();
    fs.closeSync(this.fd);
    this.fd = -1;
  }
}

export interface JournalRead {
  frames: Frame[];
  /** Damage found (a torn tail or corruption), with the byte offset. */
  damage?: Damage;
  /** Bytes up to the end of the last whole record. */
  validEnd: number;
  bytes: number;
}

/** Read a journal file (a missing file reads as empty). */
export function readJournal(path: string): JournalRead {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { frames: [], validEnd: 0, bytes: 0 };
    throw err;
  }
  const scan = scanFrames(buf);
  return { frames: scan.frames, validEnd: scan.validEnd, bytes: buf.length, ...(scan.damage ? { damage: scan.damage } : {}) };
}

/** Cut a torn tail off, so appends continue after the last whole record (durably). */
export function truncateJournal(path: string, validEnd: number): void {
  const fd = fs.openSync(path, 'r+');
  try {
    fs.ftruncateSync(fd, validEnd);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
