/**
 * The file store: a data folder holding
 *
 *   LOCK                   the one writer's pid (lock.ts)
 *   snapshot-<g>.ttls      a whole state, written by compaction (atomic-file.ts); newest valid wins
 *   journal-<g>.ttlj       the records committed since compaction <g> switched to it
 *
 * Recovery = the newest valid snapshot <s> (or nothing) + every journal <g> ≥ <s>, in order.
 * Compaction switches new commits to journal <g+1> first, then writes snapshot <g+1> (in slices,
 * between other work: the records it reads may already include later commits, which is why every
 * journal record must be idempotent: a full document by `_id`, a delete by `_id`, a collection's
 * whole catalog entry), then removes files older than <g+1>. A crash at any point leaves either
 * the old snapshot with both journals, or the new snapshot with the new journal.
 *
 * The store knows frames and files, not what is in them: the engine side (engine-storage.ts)
 * turns engine state into records and back.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BSON, type Document } from 'bson';
import { writeFileAtomic, writeFileAtomicAsync } from './atomic-file';
import { encodeFrame, scanFrames, type Damage, type Frame } from './frames';
import { JournalWriter, readJournal, truncateJournal, type Durability } from './journal';
import { acquireLock, type LockHolder } from './lock';

const SNAPSHOT = /^snapshot-(\d+)\.ttls$/;
const JOURNAL = /^journal-(\d+)\.ttlj$/;
/** The first record of a snapshot file: what it is, so a stray file is never read as one. */
const SNAPSHOT_MAGIC = 'ttl-workbench snapshot';
/** 2: snapshots may hold flat batches (engine/storage/flat-batch.ts), which format 1 readers would skip. */
const FORMAT = 2;
/** Int32 and Long stay themselves (and doubles come as Double): the reader restores the engine's types. */
const DECODE = { promoteValues: false } as const;
/** A record whose first field is `plain` says its values need no such care (see engine/storage/snapshot.ts). */
const DECODE_PLAIN = { promoteValues: true } as const;
const PLAIN_KEY = Buffer.from('plain\0', 'latin1');

/** Decode a record, promoted when it starts with a `plain` field (after the 4-byte size and the type byte). */
function decodeRecord(payload: Uint8Array): Document {
  const plain = payload.length > 5 + PLAIN_KEY.length && Buffer.from(payload.buffer, payload.byteOffset + 5, PLAIN_KEY.length).equals(PLAIN_KEY);
  return BSON.deserialize(payload, plain ? DECODE_PLAIN : DECODE);
}

export interface RecoveryReport {
  /** Generation of the snapshot loaded (undefined: none, the journals alone). */
  snapshot?: number;
  snapshotRecords: number;
  journalRecords: number;
  /** One line per problem found and how it was handled (also logged by the caller). */
  problems: string[];
  /** Damage that stopped recovery early: later records were not applied. */
  stoppedAt?: { file: string; offset: number };
  millis: number;
}

export interface StoreReader {
  /** Called once per snapshot record (after the header), in order. */
  snapshotRecord(doc: Document): void;
  /** Called once per journal record, in commit order. */
  journalRecord(doc: Document): void;
}

export interface FileStoreOptions {
  durability?: Durability;
  /** Compaction starts when the journal grows past this many bytes (default 64 MiB). */
  compactAfterBytes?: number;
  /** Who holds the lock, for the message a second opener sees. */
  holder?: string;
}

export class FolderLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly holder: LockHolder,
  ) {
    super(`${dir} is in use by process ${holder.pid}${holder.by ? ` (${holder.by})` : ''} since ${holder.since}: one writer per data folder. Open it read-only, or use another folder.`);
  }
}

/** The folder holds a snapshot this version cannot read: opening it would show (and then write over) less than it holds. */
export class NewerFormatError extends Error {
  constructor(
    readonly dir: string,
    readonly file: string,
    readonly format: number,
  ) {
    super(`${file} in ${dir} was written by a newer TTL Workbench (storage format ${format}; this version reads up to ${FORMAT}). Update the extension to open this folder; nothing in it was changed.`);
  }
}

function generations(dir: string, re: RegExp): number[] {
  return fs
    .readdirSync(dir)
    .map((f) => re.exec(f))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}

const snapshotPath = (dir: string, g: number) => path.join(dir, `snapshot-${g}.ttls`);
const journalPath = (dir: string, g: number) => path.join(dir, `journal-${g}.ttlj`);

function describeDamage(file: string, d: Damage): string {
  return d.kind === 'torn'
    ? `${path.basename(file)}: a torn last record (${d.bytes} bytes at offset ${d.offset}, a crash mid-append; it was never acknowledged) was cut off`
    : `${path.basename(file)}: damaged at byte offset ${d.offset} (${d.reason}); everything before it was recovered, nothing after it was applied`;
}

function* snapshotFrames(g: number, records: Iterable<Document>): Generator<Uint8Array> {
  let n = 0;
  yield encodeFrame(BSON.serialize({ magic: SNAPSHOT_MAGIC, format: FORMAT, generation: g, written: new Date() }));
  for (const r of records) {
    yield encodeFrame(BSON.serialize(r));
    n++;
  }
  yield encodeFrame(BSON.serialize({ end: true, records: n }));
}

export class FileStore {
  private journal: JournalWriter | undefined;
  private generation = 0;
  /** A compaction is between beginCompaction and its snapshot's rename. */
  private compacting = false;
  private releaseLock: (() => void) | undefined;
  readonly readOnly: boolean;
  readonly lockHolder: LockHolder | undefined;
  private readonly durability: Durability;
  readonly compactAfterBytes: number;

  private constructor(
    readonly dir: string,
    options: FileStoreOptions,
    lock: ReturnType<typeof acquireLock>,
  ) {
    this.durability = options.durability ?? 'fsync';
    this.compactAfterBytes = options.compactAfterBytes ?? 64 * 1024 * 1024;
    if (lock.ok) {
      this.releaseLock = lock.release;
      this.readOnly = false;
    } else {
      this.readOnly = true;
      this.lockHolder = lock.holder;
    }
  }

  /**
   * Open a data folder (created if missing). Without the lock (another writer has it) the store
   * opens read-only when `allowReadOnly`, and refuses with FolderLockedError otherwise.
   */
  static open(dir: string, options: FileStoreOptions & { allowReadOnly?: boolean } = {}): FileStore {
    fs.mkdirSync(dir, { recursive: true });
    const lock = acquireLock(dir, options.holder);
    if (!lock.ok && !options.allowReadOnly) throw new FolderLockedError(dir, lock.holder);
    return new FileStore(dir, options, lock);
  }

  /** Read everything back into `reader`; then (writable stores) start appending. */
  recover(reader: StoreReader): RecoveryReport {
    const started = performance.now();
    const report: RecoveryReport = { snapshotRecords: 0, journalRecords: 0, problems: [], millis: 0 };
    if (!this.readOnly) {
      // A compaction that died before its rename left its temporary file: never a snapshot.
      for (const f of fs.readdirSync(this.dir)) if (/^\.snapshot-\d+\.ttls\.\d+\.tmp$/.test(f)) fs.rmSync(path.join(this.dir, f), { force: true });
    }
    const snapshots = generations(this.dir, SNAPSHOT);
    let base = 0;
    for (const g of [...snapshots].reverse()) {
      let loaded;
      try {
        loaded = this.readSnapshot(g);
      } catch (err) {
        // A folder this version cannot read: free it for one that can.
        this.close();
        throw err;
      }
      if (typeof loaded === 'string') {
        report.problems.push(loaded);
        continue;
      }
      // Records are decoded one at a time as they are applied: a million documents never sit
      // decoded in a list beside the engine's own copies.
      for (let i = 0; i < loaded.frames.length; i++) reader.snapshotRecord(decodeRecord(loaded.frames[i].payload));
      report.snapshot = g;
      report.snapshotRecords = loaded.frames.length;
      base = g;
      break;
    }
    const journals = generations(this.dir, JOURNAL).filter((g) => g >= base);
    let last = base;
    for (const g of journals) {
      const file = journalPath(this.dir, g);
      const read = readJournal(file);
      for (const frame of read.frames) {
        reader.journalRecord(BSON.deserialize(frame.payload, DECODE));
        report.journalRecords++;
      }
      last = g;
      if (!read.damage) continue;
      report.problems.push(describeDamage(file, read.damage));
      if (read.damage.kind === 'torn' && g === journals[journals.length - 1]) {
        if (!this.readOnly) truncateJournal(file, read.validEnd);
        continue;
      }
      // Corruption (or a torn tail before a newer journal, which cannot happen in normal
      // operation): keep the damaged file for inspection and stop; the next compaction writes
      // what was recovered as a new snapshot.
      report.stoppedAt = { file, offset: read.damage.offset };
      if (!this.readOnly) {
        const kept = `${file}.damaged-${Date.now()}`;
        fs.renameSync(file, kept);
        report.problems.push(`the damaged journal was kept as ${path.basename(kept)}`);
      }
      break;
    }
    this.generation = report.stoppedAt ? last + 1 : last;
    if (!this.readOnly) this.journal = new JournalWriter(journalPath(this.dir, this.generation), this.durability);
    report.millis = performance.now() - started;
    return report;
  }

  /** A snapshot's record frames (between its header and footer), checked whole before any is applied. */
  private readSnapshot(g: number): { frames: Frame[] } | string {
    const file = snapshotPath(this.dir, g);
    const scan = scanFrames(fs.readFileSync(file));
    const frames = scan.frames;
    const header = frames.length ? BSON.deserialize(frames[0].payload, DECODE) : undefined;
    const footer = frames.length > 1 ? BSON.deserialize(frames[frames.length - 1].payload, DECODE) : undefined;
    // A snapshot is written whole or not at all (rename); anything else is damage, not a torn write.
    if (scan.damage || !header || header.magic !== SNAPSHOT_MAGIC || !footer || footer.end !== true || Number(footer.records) !== frames.length - 2) {
      return `${path.basename(file)} is damaged${scan.damage ? ` at byte offset ${scan.damage.offset}` : ''}; an older snapshot and the journals are used instead`;
    }
    // Not a damaged file to step over: recovering from older files and writing on would lose what it holds.
    if (Number(header.format) > FORMAT) throw new NewerFormatError(this.dir, path.basename(file), Number(header.format));
    return { frames: frames.slice(1, -1) };
  }

  /** Commit one record (durable on return in fsync mode). */
  append(doc: Document): void {
    if (!this.journal) throw new Error(this.readOnly ? `${this.dir} is open read-only: ${this.lockHolder ? `process ${this.lockHolder.pid} writes to it` : 'another writer has it'}.` : 'the store is not recovered yet');
    this.journal.append(BSON.serialize(doc));
  }

  get journalBytes(): number {
    return this.journal?.bytes ?? 0;
  }

  get needsCompaction(): boolean {
    return this.journalBytes > this.compactAfterBytes;
  }

  /**
   * Compaction, step 1 (synchronous, cheap): new commits go to a new journal. Returns the
   * generation the snapshot must be written as.
   */
  beginCompaction(): number {
    if (!this.journal) throw new Error('a read-only or unrecovered store does not compact');
    if (this.compacting) throw new Error('a compaction is already running');
    this.compacting = true;
    this.journal.close();
    this.generation++;
    this.journal = new JournalWriter(journalPath(this.dir, this.generation), this.durability);
    return this.generation;
  }

  /**
   * Compaction, step 2: write the snapshot of generation `g` from `records` (a lazy sequence:
   * the caller may produce it in slices), then drop files older than `g`. Returns its size.
   */
  writeSnapshot(g: number, records: Iterable<Document>): number {
    try {
      const bytes = writeFileAtomic(snapshotPath(this.dir, g), snapshotFrames(g, records));
      this.dropOlderThan(g);
      return bytes;
    } finally {
      this.compacting = false;
    }
  }

  get isCompacting(): boolean {
    return this.compacting;
  }

  /** writeSnapshot that returns to the event loop between slices (compaction while the engine runs). */
  async writeSnapshotAsync(g: number, records: Iterable<Document>, yieldEveryMs = 20): Promise<number> {
    try {
      const bytes = await writeFileAtomicAsync(snapshotPath(this.dir, g), snapshotFrames(g, records), yieldEveryMs);
      // Off the main thread: unlinking a 50 MB snapshot held the event loop ~50 ms (up to ~240 ms
      // measured). Files a crash leaves behind are older generations, which recovery ignores.
      await Promise.all(this.olderThan(g).map((file) => fs.promises.rm(file, { force: true })));
      return bytes;
    } finally {
      this.compacting = false;
    }
  }

  private dropOlderThan(g: number): void {
    for (const file of this.olderThan(g)) fs.rmSync(file, { force: true });
  }

  /** The snapshot and journal files of generations before `g`. */
  private olderThan(g: number): string[] {
    return [
      ...generations(this.dir, SNAPSHOT).filter((old) => old < g).map((old) => snapshotPath(this.dir, old)),
      ...generations(this.dir, JOURNAL).filter((old) => old < g).map((old) => journalPath(this.dir, old)),
    ];
  }

  close(): void {
    this.journal?.close();
    this.journal = undefined;
    this.releaseLock?.();
    this.releaseLock = undefined;
  }
}
