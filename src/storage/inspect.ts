/**
 * A data folder looked at offline (`ttl-workbench verify` and `salvage`): its files listed and
 * classified, and its state recovered read-only WITHOUT changing anything in it — no lock taken
 * (a live writer may hold it), no torn tail cut, no recovered state saved, no folder meta or
 * manifest written (FileStore's `readOnlyBecause` open). `salvageInto` then writes the recovered
 * state into a new folder as its first snapshot.
 */
import * as path from 'node:path';
import { VirtualClock, type Document, type Engine } from '../engine';
import { captureSnapshot, snapshotRecords } from '../engine/storage/snapshot';
import { openStoredEngine, type OpenedEngine } from './engine-store';
import { MANIFEST_FILE, type RecoveryReport } from './file-store';
import { LOCK_FILE, peekLock, type LockHolder } from './lock';
import { nodeFs, type StorageFs } from './storage-fs';
import { COMPACTION_TMP_NAME, JOURNAL_NAME, KEPT_NAME, SNAPSHOT_NAME } from './file-names';

/** The names file-store.ts reads and writes (file-names.ts). */
const SNAPSHOT = SNAPSHOT_NAME;
const JOURNAL = JOURNAL_NAME;
const KEPT = KEPT_NAME;
const COMPACTION_TMP = COMPACTION_TMP_NAME;
const META_FILE = 'ttl-workbench.json';

export type FileKind =
  'meta' | 'manifest' | 'lock' | 'snapshot' | 'journal' | 'kept' | 'temporary' | 'stray' | 'other' | 'folder';

export interface FolderFile {
  name: string;
  bytes: number;
  kind: FileKind;
  /** Generation of a snapshot or journal. */
  generation?: number;
}

export interface CollectionSummary {
  ns: string;
  documents: number;
  /** Index specs as stored (listIndexes order). */
  indexes: Document[];
  /** Collection-level TTL (clustered and time-series collections). */
  expireAfterSeconds?: unknown;
}

export interface Inspection {
  dir: string;
  files: FolderFile[];
  /** The lock file's holder, read without touching it. */
  lock?: LockHolder & { alive: boolean };
  /** The recovered engine (read-only, TTL monitor stopped); close with `closeInspection`. */
  opened: OpenedEngine;
  recovery: RecoveryReport;
  collections: CollectionSummary[];
  /** Problems other than a torn last record: what makes the folder damaged. */
  damage: string[];
  /** A torn last record (an append a crash interrupted: never acknowledged); not damage. */
  torn: string[];
}

/** The usage problem of a folder that cannot be inspected at all (exit 2). */
export class FolderUsageError extends Error {}

function kindOf(name: string): { kind: FileKind; generation?: number } {
  if (name === META_FILE) return { kind: 'meta' };
  if (name === MANIFEST_FILE) return { kind: 'manifest' };
  if (name === LOCK_FILE) return { kind: 'lock' };
  let m = SNAPSHOT.exec(name);
  if (m) return { kind: 'snapshot', generation: Number(m[1]) };
  m = JOURNAL.exec(name);
  if (m) return { kind: 'journal', generation: Number(m[1]) };
  if (KEPT.test(name)) return { kind: 'kept' };
  if (COMPACTION_TMP.test(name) || /^LOCK\..*\.tmp$/.test(name)) return { kind: 'temporary' };
  if (/^(snapshot|journal)-/.test(name)) return { kind: 'stray' };
  return { kind: 'other' };
}

/** The folder's entries with their sizes, by name. */
export function listFolderFiles(dir: string, io: StorageFs = nodeFs): FolderFile[] {
  return io
    .readdirSync(dir)
    .sort()
    .map((name) => {
      const st = io.statSync(path.join(dir, name));
      if (st.isDirectory()) return { name, bytes: 0, kind: 'folder' as const };
      return { name, bytes: st.size, ...kindOf(name) };
    });
}

/**
 * Check that `dir` is a data folder (exists, holds a store's files), list it and recover it
 * read-only. Throws FolderUsageError for a folder that is missing or holds no store; errors of
 * the open itself (a snapshot of a newer format, an unreadable file or folder meta) pass through.
 */
export function inspectFolder(dir: string, options: { fs?: StorageFs } = {}): Inspection {
  const io = options.fs ?? nodeFs;
  // Stryker disable next-line BooleanLiteral: statSync sets it or throws, and the throw is answered before it is read
  let isDir = false;
  try {
    isDir = io.statSync(dir).isDirectory();
  } catch {
    throw new FolderUsageError(
      `${dir} does not exist: give the data folder that \`ttl-workbench run --data\` or the extension wrote`,
    );
  }
  if (!isDir)
    throw new FolderUsageError(
      `${dir} is not a folder: give the data folder that \`ttl-workbench run --data\` or the extension wrote`,
    );
  const files = listFolderFiles(dir, io);
  if (
    !files.some(
      (f) =>
        f.kind === 'meta' ||
        f.kind === 'snapshot' ||
        f.kind === 'journal' ||
        f.kind === 'kept' ||
        f.kind === 'stray' ||
        f.kind === 'manifest',
    )
  ) {
    throw new FolderUsageError(
      `${dir} holds no TTL Workbench data (no ${META_FILE}, snapshot-<g>.ttls or journal-<g>.ttlj): is it the right folder?`,
    );
  }
  const lock = peekLock(dir, io);
  // A clock at 0: the restore moves it up to the stored time, which is what a salvage keeps.
  const opened = openStoredEngine(dir, {
    fs: io,
    readOnlyBecause: 'opened read-only to inspect it: nothing in it is changed',
    // Stryker disable next-line BooleanLiteral: a read-only store never commits, so nothing can start a compaction
    autoCompact: false,
    engine: { clock: new VirtualClock(0) },
  });
  // Nothing may change the recovered state before it is reported or copied: no TTL pass.
  opened.engine.ttl.stop();
  const problems = opened.recovery.problems;
  return {
    dir,
    files,
    ...(lock ? { lock } : {}),
    opened,
    recovery: opened.recovery,
    collections: summarize(opened.engine),
    damage: problems.filter((p) => p !== opened.recovery.tornTail),
    torn: opened.recovery.tornTail !== undefined ? [opened.recovery.tornTail] : [],
  };
}

export function closeInspection(inspection: Inspection): void {
  inspection.opened.engine.close();
  inspection.opened.store.close();
}

/** Every collection (views included) with its document count and index specs, by namespace. */
export function summarize(engine: Engine): CollectionSummary[] {
  const out: CollectionSummary[] = [];
  for (const db of engine.databases.values()) {
    for (const coll of db.collections.values()) {
      const options = coll.options as Document;
      out.push({
        ns: coll.ns,
        documents: coll.records.size,
        indexes: [...coll.indexes.values()].map((i) => i.spec),
        ...(options.expireAfterSeconds !== undefined ? { expireAfterSeconds: options.expireAfterSeconds } : {}),
      });
    }
  }
  return out.sort((a, b) => (a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0));
}

export interface SalvageResult {
  dir: string;
  documents: number;
  /** The snapshot written, with its size. */
  snapshot: string;
  bytes: number;
}

/**
 * Write `source`'s state (an inspected folder's recovered engine) into `to`, which must not exist
 * or be empty, as a fresh data folder of the same flavor and server version: its folder meta, and
 * one snapshot captured exactly as a compaction captures it (catalog entries and index specs as
 * stored — NaN and legacy TTL values, every collection kind —, documents with their BSON types
 * and Cosmos stamps, parameters, TTL metrics and the clock's time), plus its manifest and an
 * empty journal. Nothing goes through the engine's commands, so nothing is re-validated or
 * re-stamped.
 */
export function salvageInto(inspection: Inspection, to: string, options: { fs?: StorageFs } = {}): SalvageResult {
  const source = inspection.opened.engine;
  // A folder that held no record stored no time: the new one starts from now, as `run --data` would.
  if (inspection.opened.storedClockMs === undefined) (source.clock as VirtualClock).set(Date.now());
  const { flavor, serverVersion } = inspection.opened.meta;
  const target = openStoredEngine(to, {
    ...(options.fs ? { fs: options.fs } : {}),
    // Stryker disable next-line BooleanLiteral: this engine runs no command (the snapshot goes through the store), so it never commits
    autoCompact: false,
    holder: 'ttl-workbench salvage',
    engine: { clock: new VirtualClock(source.clock.now()), flavor, serverVersion },
  });
  try {
    if (target.store.readOnly) throw new Error(`${to} could not be written: ${target.notes.join(' ')}`);
    if (target.documents > 0 || target.recovery.snapshot !== undefined || target.recovery.journalRecords > 0)
      throw new Error(`${to} is not empty`);
    const generation = target.store.beginCompaction();
    const state = captureSnapshot(source);
    try {
      const bytes = target.store.writeSnapshot(generation, snapshotRecords(state));
      return { dir: to, documents: state.documentCount, snapshot: `snapshot-${generation}.ttls`, bytes };
    } finally {
      state.release();
    }
  } finally {
    // The new folder's own (empty) engine never wrote: no clock record after the snapshot.
    target.engine.close();
    target.store.close();
  }
}
