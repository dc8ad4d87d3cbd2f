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
import * as path from 'node:path';
import { BSON, type Document } from 'bson';
import { syncDirectory, writeFileAtomic, writeFileAtomicAsync } from './atomic-file';
import { crc32Continue } from './crc32';
import { COMPACTION_TMP_NAME, JOURNAL_NAME, KEPT_NAME, SNAPSHOT_NAME } from './file-names';
import { encodeFrame, FileSource, FRAME_HEADER_BYTES, walkFrames, type Damage } from './frames';
import { JournalWriter, readJournal, truncateJournal, type Durability } from './journal';
import { acquireLock, type LockHolder, type LockOptions } from './lock';
import { nodeFs, type StorageFs } from './storage-fs';

const SNAPSHOT = SNAPSHOT_NAME;
const JOURNAL = JOURNAL_NAME;
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
  const plain =
    payload.length > 5 + PLAIN_KEY.length &&
    Buffer.from(payload.buffer, payload.byteOffset + 5, PLAIN_KEY.length).equals(PLAIN_KEY);
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
  /**
   * Recovery skipped or stopped at damage, so the files no longer add up to the state recovered:
   * a writable store accepts no write until `saveRecoveredState` has made that state the folder's
   * new base (otherwise the next open, which no longer reads the damaged file, would lose it).
   */
  needsBaseSnapshot: boolean;
  /** The problem line of a torn last record (cut off, never acknowledged): not damage. */
  tornTail?: string;
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
  /** Lock ownership across threads of one process (see LockOptions in lock.ts). */
  lock?: LockOptions;
  /** The file system (tests inject faults here); Node's `fs` by default. */
  fs?: StorageFs;
}

/**
 * The disk refused a write that recovery needs (cutting a torn tail, saving the recovered state,
 * starting the journal): nothing acknowledged was lost, but the folder cannot take writes now.
 * The engine store reopens the folder read-only with this message.
 */
export class RecoveryWriteError extends Error {
  constructor(
    readonly dir: string,
    readonly step: string,
    override readonly cause: Error,
  ) {
    super(
      `${dir}: could not ${step} (${cause.message}). Nothing stored was lost; the folder is open read-only until this is fixed (free disk space, check permissions) and the window is reloaded.`,
    );
  }
}

/** A stored file could not be read: recovery would show less than the folder holds, so it refuses. */
export class StorageReadError extends Error {
  constructor(
    readonly file: string,
    override readonly cause: Error,
  ) {
    super(
      `Could not read ${file} (${cause.message}); nothing in the folder was changed. Check the disk and permissions, then open it again.`,
    );
  }
}

export class FolderLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly holder: LockHolder,
  ) {
    super(
      holder.pid === 0
        ? `${dir} has a lock file (LOCK) that names no process, written ${holder.since}: another TTL Workbench may be opening the folder right now. Try again in a moment; if no other window or command uses this folder, delete ${dir}/LOCK.`
        : `${dir} is in use by process ${holder.pid}${holder.by ? ` (${holder.by})` : ''} since ${holder.since}: one writer per data folder. Open it read-only, or use another folder.`,
    );
  }
}

/** The folder holds a snapshot this version cannot read: opening it would show (and then write over) less than it holds. */
export class NewerFormatError extends Error {
  constructor(
    readonly dir: string,
    readonly file: string,
    readonly format: number,
  ) {
    super(
      `${file} in ${dir} was written by a newer TTL Workbench (storage format ${format}; this version reads up to ${FORMAT}). Update the extension to open this folder; nothing in it was changed.`,
    );
  }
}

/** The files of a folder; a folder that could not be created (a read-only open after the disk refused) holds none. */
function listFolder(io: StorageFs, dir: string): string[] {
  try {
    return io.readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

function generations(io: StorageFs, dir: string, re: RegExp): number[] {
  return listFolder(io, dir)
    .map((f) => re.exec(f))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}

const snapshotPath = (dir: string, g: number) => path.join(dir, `snapshot-${g}.ttls`);
/**
 * What the folder must hold, written atomically when it is known durably: after a compaction's
 * snapshot, after a recovery's save, at a clean close. `snapshot`: the generation that must be
 * there (or a newer one); `seq`: the sequence number of the last record durably committed. A
 * snapshot or journal deleted, emptied or cut below it is found at the next open and reported by
 * name, never replayed as if nothing happened. Folders written before it have none: no check.
 */
export const MANIFEST_FILE = 'ttl-store.manifest';
interface Manifest {
  format: 1;
  snapshot: number | null;
  seq: number;
}
const journalPath = (dir: string, g: number) => path.join(dir, `journal-${g}.ttlj`);

function describeDamage(file: string, d: Damage): string {
  return d.kind === 'torn'
    ? `${path.basename(file)}: a torn last record (${d.bytes} bytes at offset ${d.offset}, a crash mid-append; it was never acknowledged) was cut off`
    : `${path.basename(file)}: damaged at byte offset ${d.offset} (${d.reason}); everything before it was recovered, nothing after it was applied`;
}

/**
 * The checksum of a snapshot's frames in order: a CRC-32 over their own CRC-32s. Each frame's
 * checksum only vouches for the frame; this one finds frames dropped, repeated or swapped.
 */
function chainOf(frameCrcs: Iterable<number>): number {
  let chain = 0;
  for (const c of frameCrcs) chain = chainStep(chain, c);
  return chain;
}

const CHAIN_WORD = Buffer.alloc(4);
/** The chain so far, continued by one frame's CRC-32. */
function chainStep(chain: number, crc: number): number {
  CHAIN_WORD.writeUInt32LE(crc, 0);
  return crc32Continue(chain, CHAIN_WORD);
}

/** `seq`: the sequence number of the last journal record the snapshot holds (the next journal's first is seq + 1). */
function* snapshotFrames(g: number, records: Iterable<Document>, seq: number): Generator<Uint8Array> {
  let n = 0;
  const crcs: number[] = [];
  const header = encodeFrame(
    BSON.serialize({ magic: SNAPSHOT_MAGIC, format: FORMAT, generation: g, written: new Date(), seq }),
  );
  crcs.push(header.readUInt32LE(4));
  yield header;
  for (const r of records) {
    const frame = encodeFrame(BSON.serialize(r));
    crcs.push(frame.readUInt32LE(4));
    yield frame;
    n++;
  }
  yield encodeFrame(BSON.serialize({ end: true, records: n, chain: chainOf(crcs) }));
}

/** What a recovery that lost something leaves for `saveRecoveredState`. */
interface PendingBase {
  generation: number;
  /** Files recovery could not use whole (damaged, or not replayed after damage): kept aside, never deleted ('' for a file that is gone). */
  keep: Array<{ file: string; why: 'damaged' | 'unreplayed' }>;
}

export class FileStore {
  private journal: JournalWriter | undefined;
  private generation = 0;
  private pendingBase: PendingBase | undefined;
  /**
   * The sequence number of the last journal record written or recovered. Every record carries
   * the next one (`q`), so recovery finds a record cut out, repeated or moved though every
   * checksum holds.
   */
  private seq = 0;
  /** The sequence number a compaction's snapshot holds up to (set when it switches journals). */
  private compactionSeq = 0;
  /** The generation of the snapshot the folder's state rests on (undefined: the journals alone). */
  private baseSnapshot: number | undefined;
  readonly io: StorageFs;
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
    this.io = options.fs ?? nodeFs;
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
  static open(
    dir: string,
    options: FileStoreOptions & { allowReadOnly?: boolean; readOnlyBecause?: string } = {},
  ): FileStore {
    const io = options.fs ?? nodeFs;
    if (options.readOnlyBecause !== undefined) {
      const store = new FileStore(dir, options, { ok: false, holder: { pid: 0, since: '' } });
      store.readOnlyReason = options.readOnlyBecause;
      return store;
    }
    let lock;
    try {
      io.mkdirSync(dir, { recursive: true });
      lock = acquireLock(dir, options.holder, io, options.lock);
    } catch (err) {
      throw new RecoveryWriteError(dir, 'create the folder or its lock file', err as Error);
    }
    if (!lock.ok && !options.allowReadOnly) throw new FolderLockedError(dir, lock.holder);
    return new FileStore(dir, options, lock);
  }

  /** Why a store that holds no lock is read-only anyway (the disk refused what recovery needed). */
  readOnlyReason: string | undefined;

  /**
   * Read everything back into `reader`; then (writable stores) start appending, or, when damage
   * cost something, wait for `saveRecoveredState`.
   */
  recover(reader: StoreReader): RecoveryReport {
    const started = performance.now();
    const io = this.io;
    const report: RecoveryReport = {
      snapshotRecords: 0,
      journalRecords: 0,
      problems: [],
      needsBaseSnapshot: false,
      millis: 0,
    };
    if (!this.readOnly) {
      // A compaction that died before its rename left its temporary file: never a snapshot.
      for (const f of listFolder(io, this.dir)) {
        if (!COMPACTION_TMP_NAME.test(f)) continue;
        try {
          // Stryker disable next-line ObjectLiteral,BooleanLiteral: the name was just listed; without force a file gone since (a race) throws ENOENT, which the catch swallows like every failure here
          io.rmSync(path.join(this.dir, f), { force: true });
        } catch {
          // Left for the next open: recovery never reads it.
        }
      }
    }
    // Names that look like the store's but are not ones it writes (journal-00.ttlj, a generation
    // too large to be exact) are never read: listed, so nothing is replayed twice or silently.
    const stray = listFolder(io, this.dir)
      .filter(
        (f) =>
          /^(snapshot|journal)-/.test(f) &&
          !SNAPSHOT.test(f) &&
          !JOURNAL.test(f) &&
          !KEPT_NAME.test(f) &&
          !COMPACTION_TMP_NAME.test(f),
      )
      .sort();
    if (stray.length)
      report.problems.push(
        `ignored ${stray.length === 1 ? 'a file' : `${stray.length} files`} whose name${stray.length === 1 ? ' is' : 's are'} not one this store writes: ${stray.slice(0, 5).join(', ')}${stray.length > 5 ? ', …' : ''}`,
      );
    const manifest = this.readManifest(report);
    const keep: PendingBase['keep'] = [];
    const snapshots = generations(io, this.dir, SNAPSHOT);
    let base = 0;
    /** The last sequence number applied (undefined: files written before records carried one). */
    let lastSeq: number | undefined;
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
        keep.push({ file: snapshotPath(this.dir, g), why: 'damaged' });
        continue;
      }
      lastSeq = loaded.seq;
      // Records are decoded one at a time as they are applied: a million documents never sit
      // decoded in a list beside the engine's own copies.
      let refusal: Error | undefined;
      try {
        loaded.apply((payload, offset) => {
          try {
            reader.snapshotRecord(decodeRecord(payload));
          } catch (err) {
            // Part of it is applied already: falling back to older files would mix two states.
            refusal = new Error(
              `${snapshotPath(this.dir, g)}: the record at byte offset ${offset} passes its CRC-32 check but cannot be applied (${(err as Error).message}). Nothing in the folder was changed; move this snapshot out of the folder to open it from its other files.`,
            );
            throw refusal;
          }
        });
      } catch (err) {
        this.close();
        throw err === refusal ? err : new StorageReadError(snapshotPath(this.dir, g), err as Error);
      }
      report.snapshot = g;
      report.snapshotRecords = loaded.records;
      base = g;
      break;
    }
    // With no snapshot at all (none loaded, none skipped) the journals start from the beginning:
    // numbered records must start at 1, so journals left without their snapshot are found.
    // (A snapshot the manifest names but that is gone is reported by name below instead.)
    if (report.snapshot === undefined && keep.length === 0 && (manifest?.snapshot ?? null) === null) lastSeq = 0;
    const allJournals = generations(io, this.dir, JOURNAL);
    const journals = allJournals.filter((g) => g >= base);
    let last = base;
    for (let j = 0; j < journals.length; j++) {
      const g = journals[j];
      const file = journalPath(this.dir, g);
      let read;
      // A record that passes its checksum but cannot be applied (it does not decode, or holds
      // what no engine wrote) is damage at its offset like a checksum failure: reported, kept,
      // and nothing after it applied. Never an internal error that refuses the whole folder.
      let unusable: Damage | undefined;
      try {
        read = readJournal(
          file,
          (payload, offset) => {
            if (unusable) return;
            try {
              const record = BSON.deserialize(payload, DECODE);
              const q = record.q === undefined ? undefined : Number(record.q);
              if (q !== undefined && lastSeq !== undefined && q !== lastSeq + 1) {
                const why =
                  q <= lastSeq
                    ? `a record repeats sequence number ${q} (after ${lastSeq})`
                    : `${q - lastSeq - 1} record${q - lastSeq - 1 === 1 ? ' is' : 's are'} missing before this one (sequence number ${q} after ${lastSeq})`;
                unusable = { kind: 'corrupt', offset, reason: why };
                return;
              }
              reader.journalRecord(record);
              if (q !== undefined) lastSeq = q;
              report.journalRecords++;
            } catch (err) {
              unusable = {
                kind: 'corrupt',
                offset,
                reason: `a record passes its CRC-32 check but cannot be applied: ${(err as Error).message}`,
              };
            }
          },
          io,
        );
      } catch (err) {
        this.close();
        throw new StorageReadError(file, err as Error);
      }
      last = g;
      const damage = unusable ?? read.damage;
      if (!damage) continue;
      report.problems.push(describeDamage(file, damage));
      if (damage.kind === 'torn' && j === journals.length - 1) {
        report.tornTail = report.problems[report.problems.length - 1];
        if (!this.readOnly)
          this.writeStep('cut the torn last record off ' + path.basename(file), () =>
            truncateJournal(file, read.validEnd, io),
          );
        continue;
      }
      // Corruption (or a torn tail before a newer journal, which cannot happen in normal
      // operation): nothing after it is applied; the damaged file and the journals after it are
      // kept aside once the recovered state is saved.
      report.stoppedAt = { file, offset: damage.offset };
      keep.push({ file, why: 'damaged' });
      for (const later of journals.slice(j + 1)) {
        keep.push({ file: journalPath(this.dir, later), why: 'unreplayed' });
        report.problems.push(
          `${path.basename(journalPath(this.dir, later))} comes after the damage and was not applied`,
        );
      }
      break;
    }
    if (manifest && !report.stoppedAt) {
      // What the manifest says was durable must be here: a file deleted, emptied or cut short
      // is found by its absence, which no checksum can see.
      if (
        manifest.snapshot !== null &&
        (report.snapshot === undefined || report.snapshot < manifest.snapshot) &&
        !snapshots.includes(manifest.snapshot)
      ) {
        report.problems.push(
          `${path.basename(snapshotPath(this.dir, manifest.snapshot))} is missing: the folder's manifest names it as the base of its state; what the other files hold was recovered`,
        );
        report.stoppedAt = { file: snapshotPath(this.dir, manifest.snapshot), offset: 0 };
        keep.push({ file: '', why: 'damaged' });
      } else if ((lastSeq ?? 0) < manifest.seq) {
        const newest = journals.length ? journalPath(this.dir, journals[journals.length - 1]) : undefined;
        report.problems.push(
          `records up to sequence number ${manifest.seq} were committed, but the files hold only ${lastSeq ?? 0}: ${newest ? `${path.basename(newest)} was cut short or emptied, or a journal is missing` : 'the journal is missing'}; everything found was recovered`,
        );
        report.stoppedAt = { file: newest ?? journalPath(this.dir, last), offset: 0 };
        // Stryker disable next-line ArrowFunction: without a stoppedAt, keep holds only skipped snapshots, never this journal: the callback is never true
        if (newest && !keep.some((k) => k.file === newest)) keep.push({ file: newest, why: 'damaged' });
        if (!newest) keep.push({ file: '', why: 'damaged' });
      }
    }
    this.seq = lastSeq ?? 0;
    this.baseSnapshot = report.snapshot;
    if (keep.length > 0) {
      report.needsBaseSnapshot = true;
      const newest = Math.max(last, ...snapshots, ...allJournals);
      this.generation = newest + 1;
      if (!this.readOnly) this.pendingBase = { generation: this.generation, keep };
    } else {
      this.generation = last;
      if (!this.readOnly)
        this.writeStep(`open ${path.basename(journalPath(this.dir, last))} for writing`, () => this.openJournal());
    }
    report.millis = performance.now() - started;
    return report;
  }

  /** A new journal's directory entry is synced before anything is acknowledged through it. */
  private openJournal(): void {
    this.journal = new JournalWriter(journalPath(this.dir, this.generation), this.durability, undefined, this.io);
    syncDirectory(this.dir, this.io);
  }

  /** A write recovery needs: a refusal by the disk becomes a RecoveryWriteError (the caller reopens read-only). */
  private writeStep(step: string, write: () => void): void {
    try {
      write();
    } catch (err) {
      this.close();
      throw new RecoveryWriteError(this.dir, step, err as Error);
    }
  }

  /** Whether the recovered state must be saved (saveRecoveredState) before the store takes writes. */
  get awaitingRecoveredState(): boolean {
    return this.pendingBase !== undefined;
  }

  /**
   * After a recovery that lost something: make the recovered state (`records`, a snapshot of it)
   * the folder's new base, so that every later open recovers exactly it plus later writes. The
   * order is what keeps a crash at any moment harmless:
   *   1. each file recovery could not use whole gets a second name `<file>.damaged-<t>` (or
   *      `.unreplayed-<t>`), a hard link (a copy where links are not supported), synced: kept
   *      for inspection and never deleted, whatever happens next;
   *   2. the snapshot of the new generation is written atomically (a crash before its rename
   *      leaves the folder as it was: the next open recovers the same state again);
   *   3. the original names go, and older generations with them (recovery ignores them now);
   *   4. the new journal starts.
   * Returns one line per file kept.
   */
  saveRecoveredState(records: Iterable<Document>): string[] {
    const pending = this.pendingBase;
    if (!pending) return [];
    const io = this.io;
    const stamp = Date.now();
    const notes: string[] = [];
    this.writeStep('keep the damaged files aside', () => {
      for (const { file, why } of pending.keep) {
        if (!file) continue;
        const kept = this.keptNameFor(file, why, stamp);
        if (kept.existed) continue;
        try {
          io.linkSync(file, kept.path);
        } catch {
          io.copyFileSync(file, kept.path);
        }
        notes.push(
          `${path.basename(file)} was kept as ${path.basename(kept.path)}${why === 'unreplayed' ? ' (not applied: it comes after the damage)' : ''}`,
        );
      }
      syncDirectory(this.dir, io);
    });
    this.writeStep(`save the recovered state as ${path.basename(snapshotPath(this.dir, pending.generation))}`, () => {
      writeFileAtomic(
        snapshotPath(this.dir, pending.generation),
        snapshotFrames(pending.generation, records, this.seq),
        io,
      );
    });
    this.pendingBase = undefined;
    this.baseSnapshot = pending.generation;
    this.writeStep('write the folder manifest', () => this.writeManifest());
    // From here on the new snapshot is the base: the old names are only clutter.
    // Stryker disable next-line ConditionalExpression: every kept file is a generation below the new one, which the next line removes anyway; removing '' (a file that is gone) does nothing
    for (const { file } of pending.keep) if (file) this.removeQuietly(file);
    for (const file of this.olderThan(pending.generation)) this.removeQuietly(file);
    this.writeStep(`start ${path.basename(journalPath(this.dir, pending.generation))}`, () => this.openJournal());
    return notes;
  }

  /**
   * The second name of a file kept aside; `existed` when an earlier, interrupted save already
   * linked this very file (same inode), so a crash loop does not pile up names.
   */
  private keptNameFor(file: string, why: 'damaged' | 'unreplayed', stamp: number): { path: string; existed: boolean } {
    const base = path.basename(file);
    try {
      const ino = this.io.statSync(file).ino;
      for (const f of this.io.readdirSync(this.dir)) {
        if (!f.startsWith(`${base}.${why}-`)) continue;
        if (this.io.statSync(path.join(this.dir, f)).ino === ino && ino !== 0)
          return { path: path.join(this.dir, f), existed: true };
      }
    } catch {
      // No inode to compare (or a race): a new name is always safe.
    }
    return { path: `${file}.${why}-${stamp}`, existed: false };
  }

  private readManifest(report: RecoveryReport): Manifest | undefined {
    let text: string;
    try {
      text = this.io.readFileSync(path.join(this.dir, MANIFEST_FILE), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      this.close();
      throw new StorageReadError(path.join(this.dir, MANIFEST_FILE), err as Error);
    }
    try {
      const m = JSON.parse(text) as Manifest;
      if (m.format === 1 && (m.snapshot === null || Number.isSafeInteger(m.snapshot)) && Number.isSafeInteger(m.seq))
        return m;
    } catch {
      // Reported below.
    }
    report.problems.push(
      `${MANIFEST_FILE} is unreadable: missing or shortened files cannot be checked at this open (it is written again at the next clean close)`,
    );
    return undefined;
  }

  /** Record what is durable now (`seq`: the last record the folder must hold). */
  private writeManifest(seq = this.seq): void {
    const manifest: Manifest = { format: 1, snapshot: this.baseSnapshot ?? null, seq };
    writeFileAtomic(path.join(this.dir, MANIFEST_FILE), [Buffer.from(`${JSON.stringify(manifest)}\n`)], this.io);
  }

  private removeQuietly(file: string): void {
    try {
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: without force a file already gone throws ENOENT, which the catch swallows like every failure here
      this.io.rmSync(file, { force: true });
    } catch {
      // An older generation that stays is ignored by recovery.
    }
  }

  /**
   * A snapshot, checked whole before any record is applied: a first pass over the file (through a
   * window, never read whole: any size opens in bounded memory) checks every frame, the header,
   * the footer's count and the chain of the frames' checksums; `apply` then reads the records
   * between header and footer again, one at a time. A string says why it is damaged.
   */
  private readSnapshot(
    g: number,
  ): { records: number; seq?: number; apply(each: (payload: Buffer, offset: number) => void): void } | string {
    const file = snapshotPath(this.dir, g);
    const io = this.io;
    let fd: number;
    let src: FileSource;
    try {
      fd = io.openSync(file, 'r');
      src = new FileSource(io, fd, io.fstatSync(fd).size);
    } catch (err) {
      throw new StorageReadError(file, err as Error);
    }
    const closeFile = () => {
      try {
        io.closeSync(fd);
      } catch {
        // Read-only: nothing to lose.
      }
    };
    let count = 0;
    let header: Document | undefined;
    let chain = 0;
    let pendingCrc: number | undefined;
    let last = { offset: 0, length: 0 };
    let walk;
    try {
      walk = walkFrames(src, (payload, offset, crc) => {
        if (count === 0) {
          try {
            header = BSON.deserialize(payload, DECODE);
          } catch {
            header = undefined; // damage: reported below
          }
        }
        // The footer is not in the chain: each frame is folded in once the next one is seen.
        if (pendingCrc !== undefined) chain = chainStep(chain, pendingCrc);
        pendingCrc = crc;
        last = { offset, length: payload.length };
        count++;
      });
    } catch (err) {
      closeFile();
      throw new StorageReadError(file, err as Error);
    }
    let footer: Document | undefined;
    try {
      footer =
        count > 1 ? BSON.deserialize(src.read(last.offset + FRAME_HEADER_BYTES, last.length), DECODE) : undefined;
    } catch {
      footer = undefined;
    }
    // A snapshot is written whole or not at all (rename); anything else is damage, not a torn write.
    if (
      walk.damage ||
      !header ||
      header.magic !== SNAPSHOT_MAGIC ||
      !footer ||
      footer.end !== true ||
      Number(footer.records) !== count - 2
    ) {
      closeFile();
      return `${path.basename(file)} is damaged${walk.damage ? ` at byte offset ${walk.damage.offset}` : ''}: none of its records were applied`;
    }
    // Not a damaged file to step over: recovering from older files and writing on would lose what it holds.
    if (Number(header.format) > FORMAT) {
      closeFile();
      throw new NewerFormatError(this.dir, path.basename(file), Number(header.format));
    }
    // Snapshots written before the chain was added have none to check.
    if (footer.chain !== undefined && Number(footer.chain) !== chain) {
      closeFile();
      return `${path.basename(file)} is damaged: its records are whole but not the ones written, in that order (dropped, repeated or swapped): none of its records were applied`;
    }
    const records = count - 2;
    return {
      records,
      ...(header.seq !== undefined ? { seq: Number(header.seq) } : {}),
      apply: (each) => {
        let i = 0;
        try {
          walkFrames(src, (payload, offset) => {
            if (i > 0 && i <= records) each(payload, offset);
            i++;
          });
        } finally {
          closeFile();
        }
      },
    };
  }

  /** Commit one record (durable on return in fsync mode). */
  append(doc: Document): void {
    if (!this.journal) {
      if (this.readOnly)
        throw new Error(
          `${this.dir} is open read-only: ${this.readOnlyReason ?? (this.lockHolder ? `process ${this.lockHolder.pid} writes to it` : 'another writer has it')}.`,
        );
      throw new Error(
        this.pendingBase
          ? 'the state recovered from a damaged folder is not saved yet (saveRecoveredState)'
          : this.closed
            ? 'the store is closed'
            : 'the store is not recovered yet',
      );
    }
    this.journal.append(BSON.serialize({ q: this.seq + 1, ...doc }));
    this.seq++;
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
    if (this.journal.failure) throw this.journal.failure;
    // The new journal first: if the disk refuses it, commits go on in the old one.
    const next = new JournalWriter(journalPath(this.dir, this.generation + 1), this.durability, undefined, this.io);
    try {
      syncDirectory(this.dir, this.io);
    } catch (err) {
      next.close();
      throw err;
    }
    const old = this.journal;
    this.journal = next;
    this.generation++;
    this.compacting = true;
    this.compactionSeq = this.seq;
    // A failed group commit of the old journal surfaces here, and the compaction stops: the
    // snapshot would otherwise cover writes that may not be on disk.
    try {
      old.close();
    } catch (err) {
      this.compacting = false;
      next.fail(err as Error);
      throw err;
    }
    return this.generation;
  }

  /**
   * Compaction, step 2: write the snapshot of generation `g` from `records` (a lazy sequence:
   * the caller may produce it in slices), then drop files older than `g`. Returns its size.
   */
  writeSnapshot(g: number, records: Iterable<Document>): number {
    try {
      const bytes = writeFileAtomic(snapshotPath(this.dir, g), snapshotFrames(g, records, this.compactionSeq), this.io);
      // The manifest moves to the new snapshot before older files go: it never names a missing one.
      this.baseSnapshot = g;
      this.writeManifest(this.compactionSeq);
      this.dropOlderThan(g);
      return bytes;
    } finally {
      this.compacting = false;
    }
  }

  /** A compaction that could not capture its state: the next one may start (its journal stays in use). */
  abandonCompaction(): void {
    this.compacting = false;
  }

  get isCompacting(): boolean {
    return this.compacting;
  }

  /** writeSnapshot that returns to the event loop between slices (compaction while the engine runs). */
  async writeSnapshotAsync(g: number, records: Iterable<Document>, yieldEveryMs = 20): Promise<number> {
    try {
      const bytes = await writeFileAtomicAsync(
        snapshotPath(this.dir, g),
        snapshotFrames(g, records, this.compactionSeq),
        yieldEveryMs,
        this.io,
      );
      this.baseSnapshot = g;
      this.writeManifest(this.compactionSeq);
      // Off the main thread: unlinking a 50 MB snapshot held the event loop ~50 ms (up to ~240 ms
      // measured). Files a crash leaves behind are older generations, which recovery ignores.
      await Promise.all(
        // Stryker disable next-line ObjectLiteral,BooleanLiteral: without force a file already gone rejects with ENOENT, which the catch swallows like every failure here
        this.olderThan(g).map((file) => this.io.promises.rm(file, { force: true }).catch(() => undefined)),
      );
      return bytes;
    } finally {
      this.compacting = false;
    }
  }

  private dropOlderThan(g: number): void {
    for (const file of this.olderThan(g)) this.removeQuietly(file);
  }

  /** The snapshot and journal files of generations before `g`. */
  private olderThan(g: number): string[] {
    return [
      ...generations(this.io, this.dir, SNAPSHOT)
        .filter((old) => old < g)
        .map((old) => snapshotPath(this.dir, old)),
      ...generations(this.io, this.dir, JOURNAL)
        .filter((old) => old < g)
        .map((old) => journalPath(this.dir, old)),
    ];
  }

  private closed = false;

  /** `beforeUnlock`: work on the folder after the journal is closed, while the lock is still held. */
  close(beforeUnlock?: () => void): void {
    this.closed = true;
    this.pendingBase = undefined;
    try {
      const journal = this.journal;
      journal?.close();
      // Everything appended is synced now: the manifest may say so. Not after a failure (what
      // reached the disk is not known) nor while a compaction's snapshot is unwritten.
      if (journal && !journal.failure && !this.compacting && !beforeUnlock) this.writeManifest();
      beforeUnlock?.();
    } finally {
      this.journal = undefined;
      this.releaseLock?.();
      this.releaseLock = undefined;
    }
  }
}
