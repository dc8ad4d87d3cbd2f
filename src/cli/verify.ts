/**
 * `ttl-workbench verify --data DIR` and `ttl-workbench salvage --data DIR --to NEW`: a data folder
 * checked offline without changing it, and what it still holds copied into a new folder (the role
 * of `mongod --repair`, which the source folder is spared). Exit codes: 0 clean, 1 damage (or a
 * salvage that could not write), 2 usage.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SalvageOptions, VerifyOptions } from './args';
import {
  closeInspection,
  FolderUsageError,
  inspectFolder,
  salvageInto,
  summarize,
  type FolderFile,
  type Inspection,
} from '../storage/inspect';
import type { Document } from '../engine';

type Write = (text: string) => void;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function describeFile(f: FolderFile, inspection: Inspection): string {
  const base = inspection.recovery.snapshot;
  switch (f.kind) {
    case 'meta':
      return `folder description (${inspection.opened.meta.flavor} ${inspection.opened.meta.serverVersion})`;
    case 'manifest':
      return 'manifest (the base snapshot and last durable sequence number)';
    case 'lock': {
      const l = inspection.lock;
      if (!l) return 'lock file';
      if (l.pid === 0) return 'lock file naming no process (being written, or left half written)';
      return `lock of process ${l.pid}${l.by ? ` (${l.by})` : ''} since ${l.since}: ${l.alive ? 'running' : 'gone (stale: the next writer takes it over)'}`;
    }
    case 'snapshot':
      if (f.generation === base) return `snapshot, generation ${f.generation}: loaded`;
      return `snapshot, generation ${f.generation}${base !== undefined && f.generation! < base ? ': older than the one loaded, not read' : ': not loaded'}`;
    case 'journal':
      return `journal, generation ${f.generation}${base !== undefined && f.generation! < base ? ': older than the snapshot loaded, not read' : ''}`;
    case 'kept':
      return 'kept aside by an earlier recovery (damaged or not applied): not read';
    case 'temporary':
      return 'temporary file of an interrupted write: not read';
    case 'stray':
      return 'named like a store file but not one the store writes: never read';
    case 'folder':
      return 'a folder: not read';
    default:
      return 'not a file of the store: not read';
  }
}

function ttlOf(value: unknown): string {
  return typeof value === 'number' && Number.isNaN(value) ? 'NaN' : String(value);
}

function describeIndexes(specs: Document[]): string {
  return specs
    .map(
      (s) => `${String(s.name)}${s.expireAfterSeconds !== undefined ? ` (TTL ${ttlOf(s.expireAfterSeconds)} s)` : ''}`,
    )
    .join(', ');
}

function writeCollections(inspection: Inspection, out: Write): void {
  if (inspection.collections.length === 0) {
    out('  (no collections)\n');
    return;
  }
  const width = Math.max(...inspection.collections.map((c) => c.ns.length));
  for (const c of inspection.collections) {
    out(
      `  ${c.ns.padEnd(width)}  ${plural(c.documents, 'document')}; indexes: ${describeIndexes(c.indexes) || 'none'}${c.expireAfterSeconds !== undefined ? `; collection TTL ${ttlOf(c.expireAfterSeconds)} s` : ''}\n`,
    );
  }
}

/** The report verify prints (salvage prints it too, for its source). */
function writeReport(inspection: Inspection, out: Write): void {
  const { recovery, files } = inspection;
  out(`files in ${inspection.dir}:\n`);
  const width = Math.max(...files.map((f) => f.name.length));
  const bytesWidth = Math.max(...files.map((f) => String(f.bytes).length));
  for (const f of files)
    out(`  ${f.name.padEnd(width)}  ${String(f.bytes).padStart(bytesWidth)} bytes  ${describeFile(f, inspection)}\n`);
  const lock = inspection.lock;
  if (lock?.alive)
    out(
      `note: process ${lock.pid}${lock.by ? ` (${lock.by})` : ''} holds the folder's lock and may be writing: this is the folder as it was read just now (nothing was changed, the lock was not touched)\n`,
    );
  const kept = files.filter((f) => f.kind === 'kept').length;
  if (kept)
    out(
      `note: ${plural(kept, 'file')} kept aside by an earlier recovery (not read; the damage they hold was reported when it was found)\n`,
    );
  out('recovery (read-only):\n');
  out(
    `  ${recovery.snapshot !== undefined ? `snapshot-${recovery.snapshot}.ttls: ${plural(recovery.snapshotRecords, 'record')} read` : 'no snapshot loaded'}\n`,
  );
  out(`  journals: ${plural(recovery.journalRecords, 'record')} replayed\n`);
  if (recovery.stoppedAt)
    out(
      `  stopped at ${path.basename(recovery.stoppedAt.file)}, byte offset ${recovery.stoppedAt.offset}: nothing after it was applied\n`,
    );
  if (inspection.opened.storedClockMs !== undefined)
    out(`  stored clock: ${new Date(inspection.opened.storedClockMs).toISOString()}\n`);
  const documents = inspection.collections.reduce((n, c) => n + c.documents, 0);
  out(`  ${plural(documents, 'document')} in ${plural(inspection.collections.length, 'collection')}:\n`);
  writeCollections(inspection, out);
  const problems = recovery.problems;
  if (problems.length) {
    out('problems:\n');
    for (const p of problems) out(`  ${p}\n`);
  }
}

function verdictOf(inspection: Inspection): { code: 0 | 1; line: string } {
  const { damage, torn } = inspection;
  if (damage.length) {
    return {
      code: 1,
      line: `verdict: DAMAGED (${plural(damage.length, 'problem')}${torn.length ? ', and a torn last record' : ''}). Nothing was changed. The next writable open keeps the damaged files aside and saves what is listed above as the folder's new base; \`ttl-workbench salvage --data ${inspection.dir} --to NEW\` copies it to a new folder instead.`,
    };
  }
  if (torn.length) {
    return {
      code: 0,
      line: 'verdict: clean, apart from a torn last record: an append a crash interrupted, never acknowledged (no write was lost); the next writable open cuts it off. Nothing was changed.',
    };
  }
  return { code: 0, line: 'verdict: clean. Nothing was changed.' };
}

/** Open errors that are not usage: the folder cannot be read as it is (exit 1). */
function openFailed(dir: string, err: Error, writeErr: Write, command: string): number {
  writeErr(`ttl-workbench ${command}: ${dir} could not be recovered: ${err.message}\n`);
  writeErr(`verdict: UNREADABLE. Nothing was changed.\n`);
  return 1;
}

export function verifyCommand(options: VerifyOptions, out: Write, writeErr: Write): number {
  let inspection: Inspection;
  try {
    inspection = inspectFolder(options.data);
  } catch (err) {
    if (err instanceof FolderUsageError) {
      writeErr(`ttl-workbench verify: ${err.message}\n`);
      return 2;
    }
    return openFailed(options.data, err as Error, writeErr, 'verify');
  }
  try {
    writeReport(inspection, out);
    const verdict = verdictOf(inspection);
    out(`${verdict.line}\n`);
    return verdict.code;
  } finally {
    closeInspection(inspection);
  }
}

/** Why `to` cannot take a salvage (a usage error), or undefined. */
function refuseTarget(data: string, to: string): string | undefined {
  const from = path.resolve(data);
  const target = path.resolve(to);
  const rel = path.relative(from, target);
  if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel)))
    return `--to ${to} is ${rel === '' ? 'the folder being salvaged' : 'inside the folder being salvaged'}: give a new folder outside it (the damaged folder is never changed)`;
  let entries: string[];
  try {
    if (!fs.statSync(target).isDirectory())
      return `--to ${to} is a file: give a new folder (one that does not exist, or an empty one)`;
    entries = fs.readdirSync(target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return `--to ${to} cannot be read (${(err as Error).message})`;
  }
  if (entries.length)
    return `--to ${to} is not empty (${plural(entries.length, 'entry', 'entries')}): salvage writes only into a new or empty folder, so nothing there is overwritten. Give another folder.`;
  return undefined;
}

export function salvageCommand(options: SalvageOptions, out: Write, writeErr: Write): number {
  const refusal = refuseTarget(options.data, options.to);
  if (refusal) {
    writeErr(`ttl-workbench salvage: ${refusal}\n`);
    return 2;
  }
  let inspection: Inspection;
  try {
    inspection = inspectFolder(options.data);
  } catch (err) {
    if (err instanceof FolderUsageError) {
      writeErr(`ttl-workbench salvage: ${err.message}\n`);
      return 2;
    }
    openFailed(options.data, err as Error, writeErr, 'salvage');
    writeErr(`nothing was written to ${options.to}\n`);
    return 1;
  }
  try {
    writeReport(inspection, out);
    let result;
    try {
      result = salvageInto(inspection, options.to);
    } catch (err) {
      writeErr(`ttl-workbench salvage: writing ${options.to} failed: ${(err as Error).message}\n`);
      writeErr(
        `${options.to} is incomplete: delete it, fix the cause (disk space, permissions) and run salvage again. ${options.data} was not changed.\n`,
      );
      return 1;
    }
    out(
      `salvaged into ${result.dir} (${result.snapshot}, ${result.bytes} bytes): ${plural(result.documents, 'document')} in ${plural(summarize(inspection.opened.engine).length, 'collection')} (as listed above), with their options, index and TTL specs, parameters, TTL metrics and clock\n`,
    );
    const { damage, torn } = inspection;
    if (damage.length) {
      out('lost (not in the new folder):\n');
      for (const p of damage) out(`  ${p}\n`);
      out(
        `verdict: DAMAGED source: salvaged what could be recovered (listed above). ${options.data} was not changed; its damaged files are still there for inspection.\n`,
      );
      return 1;
    }
    if (torn.length) out(`note: the torn last record (never acknowledged) was not copied\n`);
    out(`verdict: clean source: everything was copied. ${options.data} was not changed.\n`);
    return 0;
  } finally {
    closeInspection(inspection);
  }
}
