/**
 * An engine on a data folder: opens the FileStore, builds the Engine with the store as its
 * durable storage, restores the stored state, keeps time monotonic, and compacts in the
 * background. Used by the CLI (`run --data DIR`) and the extension (`ttlWorkbench.storage`).
 */
import * as path from 'node:path';
import { Engine, type EngineOptions, type Flavor, type ServerVersion } from '../engine';
import { captureSnapshot, snapshotRecords } from '../engine/storage/snapshot';
import { writeFileAtomic } from './atomic-file';
import {
  FileStore,
  MANIFEST_FILE,
  RecoveryWriteError,
  StorageReadError,
  type FileStoreOptions,
  type RecoveryReport,
} from './file-store';
import { nodeFs, type StorageFs } from './storage-fs';

/** What a folder was created for: an engine of another flavor must not read it. */
const META_FILE = 'ttl-workbench.json';

interface FolderMeta {
  format: 1;
  flavor: Flavor;
  serverVersion: ServerVersion;
  created: string;
  /** The clock the engine last ran on here; absent in folders from before the system clock was allowed (virtual). */
  clock?: ClockKind;
}

type ClockKind = 'virtual' | 'system';

/**
 * An open on the system clock refused: the folder's virtual clock went ahead of the wall clock,
 * and switching would move time backwards (documents already expired would be live again, and
 * TTL thresholds would go back).
 */
export class ClockWouldRunBackwardsError extends Error {
  constructor(
    readonly dir: string,
    readonly storedClockMs: number,
    readonly systemMs: number,
  ) {
    super(
      `${dir} keeps a virtual clock at ${new Date(storedClockMs).toISOString()}, ${aheadText(storedClockMs - systemMs)} ahead of the system clock: switching it to the system clock would move time backwards. Keep the virtual clock (--clock virtual, or the ttlWorkbench.clock setting "virtual") until the system clock passes that time, or use another folder.`,
    );
  }
}

function aheadText(ms: number): string {
  const units: Array<[number, string]> = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1000, 'second'],
  ];
  for (const [size, name] of units)
    if (ms >= size) {
      const n = Math.floor(ms / size);
      return `${n} ${name}${n === 1 ? '' : 's'}`;
    }
  return `${ms} ms`;
}

/** A clock the store can move forward after a restore (the virtual clock); a system clock cannot be moved. */
export interface MovableClock {
  now(): number;
  set?(ms: number): unknown;
  readonly kind?: string;
}

export interface StoredEngineOptions extends FileStoreOptions {
  engine?: Omit<EngineOptions, 'storage'>;
  /** Open read-only when another process writes to the folder (otherwise FolderLockedError). */
  allowReadOnly?: boolean;
  /**
   * Open read-only without taking (or even looking at) the lock, for this reason: recovery then
   * writes nothing at all (no torn tail cut, no recovered state saved, no folder meta, no
   * manifest). `ttl-workbench verify` and `salvage` read a folder this way.
   */
  readOnlyBecause?: string;
  /**
   * Compact in the background once the journal passes `compactAfterBytes` (default true; the CLI
   * and tests that look at files turn it off). Reports each compaction, or its failure.
   */
  autoCompact?: boolean;
  onCompaction?: (result: CompactionResult | Error) => void;
}

export interface OpenedEngine {
  engine: Engine;
  store: FileStore;
  recovery: RecoveryReport;
  /** Flavor and version the folder holds (they win over the requested ones, which `notes` mentions). */
  meta: FolderMeta;
  /** One line per thing the user should know (damage found, a read-only open, a settings mismatch). */
  notes: string[];
  documents: number;
  /** The newest engine time stored in the folder (undefined: a new folder). */
  storedClockMs?: number;
  /** Damage recovered at this or an earlier open that the user has not acknowledged yet. */
  damage?: DamageRecord;
}

/**
 * What a recovery from damage lost, kept in the folder until the user acknowledges it (the tree
 * shows it until then): one entry per recovery, with its notes and what it kept per collection.
 */
export const DAMAGE_FILE = 'ttl-store.damage.json';
export interface DamageRecord {
  recoveries: Array<{ at: string; notes: string[]; documents: Record<string, number> }>;
}

export function readDamageRecord(dir: string, io: StorageFs = nodeFs): DamageRecord | undefined {
  try {
    const record = JSON.parse(io.readFileSync(path.join(dir, DAMAGE_FILE), 'utf8')) as DamageRecord;
    return Array.isArray(record.recoveries) && record.recoveries.length > 0 ? record : undefined;
  } catch /* Stryker disable next-line BlockStatement: emptied, the function falls off its end, which returns undefined too */ {
    return undefined;
  }
}

/** The user has seen the damage: the record goes (the damaged files kept aside stay). */
export function acknowledgeDamage(dir: string, io: StorageFs = nodeFs): void {
  io.rmSync(path.join(dir, DAMAGE_FILE), { force: true });
}

/** Documents per namespace, for the damage record. */
function documentsPerCollection(engine: Engine): Record<string, number> {
  const out: Record<string, number> = {};
  for (const db of engine.databases.values())
    for (const coll of db.collections.values()) out[coll.ns] = coll.records.size;
  return out;
}

/** The folder's meta file; undefined for a new folder. A meta file that cannot be read or makes no sense refuses the open: guessing could open the data as another flavor. */
function readMeta(io: StorageFs, dir: string): FolderMeta | undefined {
  const file = path.join(dir, META_FILE);
  let text: string;
  try {
    text = io.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StorageReadError(file, err as Error);
  }
  let meta: Partial<FolderMeta> | undefined;
  try {
    meta = JSON.parse(text) as Partial<FolderMeta>;
  } catch /* Stryker disable next-line BlockStatement: meta is declared without a value and only the try assigns it, so it is undefined here either way */ {
    meta = undefined;
  }
  if (
    !meta ||
    (meta.flavor !== 'mongodb' && meta.flavor !== 'cosmos') ||
    (meta.serverVersion !== '8.0' && meta.serverVersion !== '7.0')
  ) {
    throw new Error(
      `${file} is not a TTL Workbench folder description (expected {"format": 1, "flavor": "mongodb" | "cosmos", "serverVersion": "8.0" | "7.0"}). Restore it, or delete it to open the folder as a MongoDB 8.0 engine; nothing in the folder was changed.`,
    );
  }
  return meta as FolderMeta;
}

/**
 * Open an engine on a data folder. When the disk refuses a write that recovery needs (cutting a
 * torn tail, saving the state recovered from damage), the folder is opened again read-only and a
 * note says why: what is stored is shown, and nothing is written until the disk is fixed.
 */
export function openStoredEngine(dir: string, options: StoredEngineOptions = {}): OpenedEngine {
  try {
    return openStoredEngineOnce(dir, options);
  } catch (err) {
    if (!(err instanceof RecoveryWriteError)) throw err;
    return openStoredEngineOnce(dir, { ...options, readOnlyBecause: err.message });
  }
}

function openStoredEngineOnce(dir: string, options: StoredEngineOptions & { readOnlyBecause?: string }): OpenedEngine {
  const store = FileStore.open(dir, options);
  const io = store.io;
  const notes: string[] = [];
  const requested = options.engine ?? {};
  let meta: FolderMeta | undefined;
  try {
    meta = readMeta(io, dir);
  } catch (err) {
    store.close();
    throw err;
  }
  if (!meta) {
    meta = {
      format: 1,
      flavor: requested.flavor ?? 'mongodb',
      serverVersion: requested.serverVersion ?? '8.0',
      created: new Date().toISOString(),
      clock: clockKindOf(requested.clock),
    };
    if (!store.readOnly) {
      try {
        // Atomic: a crash while creating the folder never leaves a half-written description behind.
        writeFileAtomic(path.join(dir, META_FILE), [Buffer.from(`${JSON.stringify(meta, null, 2)}\n`)], io);
      } catch (err) {
        store.close();
        throw new RecoveryWriteError(dir, `write ${META_FILE}`, err as Error);
      }
    }
  } else if (
    (requested.flavor && requested.flavor !== meta.flavor) ||
    (requested.serverVersion && requested.serverVersion !== meta.serverVersion)
  ) {
    notes.push(
      `${dir} holds a ${meta.flavor} ${meta.serverVersion} engine; it opens as such (asked for ${requested.flavor ?? meta.flavor} ${requested.serverVersion ?? meta.serverVersion}). Use another folder for another flavor or version.`,
    );
  }
  if (store.readOnlyReason !== undefined) notes.push(store.readOnlyReason);
  else if (store.readOnly && store.lockHolder?.pid === 0)
    notes.push(
      `${dir} has a lock file that names no process (another TTL Workbench may be opening it): opened read-only; changes here are not saved. Reload once it is free, or delete ${dir}/LOCK if nothing else uses the folder.`,
    );
  else if (store.readOnly)
    notes.push(
      `${dir} is in use by process ${store.lockHolder?.pid}${store.lockHolder?.by ? ` (${store.lockHolder.by})` : ''}: opened read-only; changes here are not saved.`,
    );
  let compactionQueued = false;
  const autoCompact = options.autoCompact !== false;
  const engine: Engine = new Engine({
    ...requested,
    flavor: meta.flavor,
    serverVersion: meta.serverVersion,
    storage: store.readOnly
      ? undefined
      : {
          commit: (frame) => {
            store.append(frame);
            if (!autoCompact || compactionQueued || store.isCompacting || !store.needsCompaction) return;
            // Between commands, never inside one: the capture must see whole commits.
            compactionQueued = true;
            setImmediate(() => {
              compactionQueued = false;
              if (engine.isClosed || store.isCompacting) return;
              compact(engine, store).then(
                (r) => options.onCompaction?.(r),
                (err: Error) => options.onCompaction?.(err),
              );
            });
          },
        },
  });
  let recovery!: RecoveryReport;
  engine.ttl.suspendSleep();
  let summary;
  try {
    summary = engine.restoreFromStorage((restorer) => {
      recovery = store.recover({
        snapshotRecord: (d) => restorer.snapshotRecord(d),
        journalRecord: (d) => restorer.journalRecord(d),
      });
    });
  } catch (err) {
    // The folder stays as it was, and free for a version that can open it.
    engine.close();
    store.close();
    throw err;
  }
  // Time never runs backwards across a reopen: a virtual clock behind the stored time moves up.
  const clock = engine.clock as MovableClock;
  if (
    summary.clockMs !== undefined &&
    clock.now() < summary.clockMs &&
    typeof clock.set === 'function' &&
    clock.kind !== 'system'
  )
    clock.set(summary.clockMs);
  const storedKind: ClockKind = meta.clock ?? 'virtual';
  const kind = clockKindOf(requested.clock);
  if (summary.clockMs !== undefined && clock.now() < summary.clockMs) {
    if (storedKind === 'virtual' && kind === 'system') {
      // The folder stays as it was (its clock mode too), and free for an open on the virtual clock.
      engine.close();
      store.close();
      throw new ClockWouldRunBackwardsError(dir, summary.clockMs, clock.now());
    }
    // Not a switch: the system clock itself was set back since the last run here.
    notes.push(
      `the system clock is ${aheadText(summary.clockMs - clock.now())} behind the last time stored here (${new Date(summary.clockMs).toISOString()}): it was set back since the last run; TTL thresholds follow the system clock.`,
    );
  }
  if (storedKind !== kind) {
    notes.push(
      `${dir} ran on the ${storedKind} clock; it runs on the ${kind} clock now${kind === 'virtual' ? ', from the stored time' : ' (the stored time is not ahead of it)'}.`,
    );
    if (!store.readOnly) {
      meta = { ...meta, clock: kind };
      try {
        writeFileAtomic(path.join(dir, META_FILE), [Buffer.from(`${JSON.stringify(meta, null, 2)}\n`)], io);
      } catch (err) {
        engine.close();
        store.close();
        throw new RecoveryWriteError(dir, `write ${META_FILE}`, err as Error);
      }
    }
  }
  notes.push(...recovery.problems);
  if (store.awaitingRecoveredState) {
    // Damage cost something: what was recovered becomes the folder's base before any write, or
    // the next open (which no longer reads the damaged files) would lose it. The monitor is still
    // asleep, so the snapshot is exactly the recovered state.
    const state = captureSnapshot(engine);
    try {
      notes.push(...store.saveRecoveredState(snapshotRecords(state)));
      const perCollection = documentsPerCollection(engine);
      const listed = Object.entries(perCollection)
        .map(([ns, n]) => `${ns} ${n}`)
        .join(', ');
      notes.push(
        `the recovered state (${state.documentCount} document${state.documentCount === 1 ? '' : 's'}${listed ? `: ${listed}` : ''}) was saved as the folder's new base`,
      );
      // Kept until the user acknowledges it, beside any earlier recovery not acknowledged yet.
      const record: DamageRecord = {
        recoveries: [
          ...(readDamageRecord(dir, io)?.recoveries ?? []),
          { at: new Date().toISOString(), notes: [...notes], documents: perCollection },
        ],
      };
      try {
        writeFileAtomic(path.join(dir, DAMAGE_FILE), [Buffer.from(`${JSON.stringify(record, null, 2)}\n`)], io);
      } catch (err) {
        notes.push(
          `the damage record could not be written (${(err as Error).message}): these notes are shown this time only`,
        );
      }
    } catch (err) {
      engine.close();
      throw err;
    } finally {
      state.release();
    }
  }
  engine.ttl.restartSleep();
  const damage = readDamageRecord(dir, io);
  return {
    engine,
    store,
    recovery,
    meta,
    notes,
    documents: summary.documents,
    ...(summary.clockMs !== undefined ? { storedClockMs: summary.clockMs } : {}),
    ...(damage ? { damage } : {}),
  };
}

/** The clock mode a folder last ran on (virtual for a new folder, or one that cannot be read: the open reports that). */
export function storedClockKind(dir: string, io: StorageFs = nodeFs): ClockKind {
  try {
    return readMeta(io, dir)?.clock ?? 'virtual';
  } catch {
    return 'virtual';
  }
}

function clockKindOf(clock: { kind?: string } | undefined): ClockKind {
  return clock?.kind === 'system' ? 'system' : 'virtual';
}

/**
 * Remove a data folder's stored state (snapshots, journals, kept damaged files, folder meta): a
 * reset to a fresh engine. The folder itself and files that are not the store's stay.
 */
export function clearDataFolder(dir: string, io: StorageFs = nodeFs): void {
  if (!io.existsSync(dir)) return;
  for (const f of io.readdirSync(dir)) {
    if (
      /^(snapshot-\d+\.ttls|journal-\d+\.ttlj)((\.damaged|\.unreplayed)-\d+)?$|^\.snapshot-\d+\.ttls\.\d+\.tmp$/.test(
        f,
      ) ||
      f === META_FILE ||
      f === MANIFEST_FILE ||
      f === DAMAGE_FILE
    )
      io.rmSync(path.join(dir, f), { force: true });
  }
}

/**
 * A clean shutdown: the clock's time is stored (so a virtual clock that moved without writes does
 * not run backwards at the next open), the engine stops, the journal is synced and the lock freed.
 * `beforeUnlock` runs with the journal closed and the lock still held (a reset clears the folder
 * there, so no other window opens it half cleared).
 */
export function closeStoredEngine(opened: Pick<OpenedEngine, 'engine' | 'store'>, beforeUnlock?: () => void): void {
  try {
    if (!opened.store.readOnly && !opened.engine.isClosed) opened.engine.persistClock();
  } finally {
    opened.engine.close();
    opened.store.close(beforeUnlock);
  }
}

export interface CompactionResult {
  generation: number;
  bytes: number;
  documents: number;
  /** Time the engine was held (the synchronous capture), ms. */
  heldMs: number;
  totalMs: number;
}

/**
 * Compact: switch journals and capture the state (synchronously: references only), then encode
 * and write the snapshot, yielding to the event loop between slices when `yieldEvery` is given.
 */
export async function compact(engine: Engine, store: FileStore, yieldEveryMs = 4): Promise<CompactionResult> {
  const started = performance.now();
  const generation = store.beginCompaction();
  let state;
  try {
    state = captureSnapshot(engine);
  } catch (err) {
    store.abandonCompaction();
    throw err;
  }
  const heldMs = performance.now() - started;
  try {
    const bytes = await store.writeSnapshotAsync(generation, snapshotRecords(state), yieldEveryMs);
    return { generation, bytes, documents: state.documentCount, heldMs, totalMs: performance.now() - started };
  } finally {
    state.release();
  }
}
