/**
 * "Run All Cells Against a Fresh Engine" and every other action that drops the shared engine's
 * data: what would be lost, in words, and which engines a notebook may get. The shared engine is
 * the window's (settings-backed flavor and version): a notebook never changes its flavor, so a
 * notebook asking for another flavor or version runs on an isolated engine. No `vscode` import.
 */
import { plural } from './durations';

/** A database of the shared engine and how many documents it holds (metadata counts). */
export interface DatabaseContents {
  name: string;
  documents: number;
}

/** What an engine-metadata request of a notebook asks for (formats/ttlbook's EngineRequest). */
export interface FreshRequest {
  isolated: boolean;
  now?: Date;
  flavor?: 'mongodb' | 'cosmos';
  serverVersion?: '8.0' | '7.0';
  clock?: 'virtual' | 'system';
  replSet?: string;
}

/** The window's engine as its settings describe it. */
export interface WindowEngine {
  flavor: 'mongodb' | 'cosmos';
  serverVersion: '8.0' | '7.0';
}

/** Documents per database, from collections listed with their counts. */
export function contentsOf(collections: ReadonlyArray<{ db: string; count: number }>): DatabaseContents[] {
  const byDb = new Map<string, number>();
  for (const c of collections) byDb.set(c.db, (byDb.get(c.db) ?? 0) + c.count);
  return [...byDb].map(([name, documents]) => ({ name, documents })).sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * What a reset deletes, in words: `2 databases (app: 12 documents, app2: 1 document)`, or
 * `nothing (the engine is empty)`. Databases are named up to `max`, the rest counted.
 */
export function describeLoss(dbs: readonly DatabaseContents[], max = 4): string {
  if (dbs.length === 0) return 'nothing (the engine is empty)';
  const named = dbs.slice(0, max).map((d) => `${d.name}: ${plural(d.documents, 'document')}`);
  if (dbs.length > max) named.push(`${plural(dbs.length - max, 'other')}`);
  return `${plural(dbs.length, 'database')} (${named.join(', ')})`;
}

/** A notebook asks for an engine the window's is not (flavor or version): it cannot share it. */
export function differsFromWindow(request: FreshRequest, window: WindowEngine): string | undefined {
  const parts: string[] = [];
  if (request.flavor && request.flavor !== window.flavor)
    parts.push(`the ${request.flavor} flavor (the window's engine is ${window.flavor}, ttlWorkbench.flavor)`);
  if (request.serverVersion && request.serverVersion !== window.serverVersion)
    parts.push(
      `server version ${request.serverVersion} (the window's engine is ${window.serverVersion}, ttlWorkbench.serverVersion)`,
    );
  // The window's engine is a standalone: a replica set is always an engine of the notebook's own.
  if (request.replSet !== undefined)
    parts.push(`a replica set (${request.replSet}; the window's engine is a standalone)`);
  return parts.length ? parts.join(' and ') : undefined;
}

export type FreshTarget = 'isolated' | 'shared';

export interface FreshChoice {
  target: FreshTarget;
  label: string;
  detail: string;
}

/**
 * The choices of "Run All Cells Against a Fresh Engine" for a notebook on the shared engine, the
 * default first. The isolated engine is the default unless the shared engine is empty and the
 * notebook names no clock (`now`, `clock`); the reset of the shared engine is offered only when
 * the notebook can run there (same flavor and version), and it says what goes.
 */
export function freshChoices(
  request: FreshRequest,
  window: WindowEngine,
  shared: readonly DatabaseContents[],
): FreshChoice[] {
  const isolated: FreshChoice = {
    target: 'isolated',
    label: '$(beaker) Run on an isolated engine',
    detail: `Nothing is deleted: a new engine of this notebook's own${request.now ? ` at ${request.now.toISOString()}` : ''}${request.flavor ? ` (${request.flavor})` : ''}; the Databases view keeps showing the shared one.`,
  };
  if (differsFromWindow(request, window)) return [isolated];
  const reset: FreshChoice = {
    target: 'shared',
    label: `$(trash) Reset the shared engine (deletes ${describeLoss(shared).replace(/ \(the engine is empty\)$/, '')})`,
    detail: `Deletes ${describeLoss(shared)} and starts a new ${window.flavor} ${window.serverVersion} engine${request.now ? ` at ${request.now.toISOString()}` : ''}; the Databases view follows the cells.`,
  };
  // The reset comes first only when it loses nothing and the notebook names no clock of its own.
  const resetFirst = shared.length === 0 && request.now === undefined && request.clock === undefined;
  return resetFirst ? [reset, isolated] : [isolated, reset];
}

/** The question when the stored engine's flavor or version is not the settings'. */
export interface MismatchQuestion {
  text: string;
  reset: string;
  keep: string;
}

/**
 * A data folder keeps its engine's flavor and version; when the settings ask for another, the
 * user chooses: reset to what the settings say (naming what goes) or keep the stored engine and
 * change the settings to match. Undefined when they agree.
 */
export function mismatchQuestion(
  stored: WindowEngine,
  wanted: WindowEngine,
  lost: readonly DatabaseContents[],
): MismatchQuestion | undefined {
  if (stored.flavor === wanted.flavor && stored.serverVersion === wanted.serverVersion) return undefined;
  const name = (e: WindowEngine) =>
    e.flavor === wanted.flavor && e.flavor === stored.flavor ? e.serverVersion : `${e.flavor} ${e.serverVersion}`;
  return {
    text: `This window's stored engine is ${stored.flavor} ${stored.serverVersion}, but the settings ask for ${wanted.flavor} ${wanted.serverVersion} (ttlWorkbench.flavor, ttlWorkbench.serverVersion). It runs as ${stored.flavor} ${stored.serverVersion} until you choose.`,
    reset: `Reset to ${name(wanted)} (deletes ${describeLoss(lost).replace(/ \(.*\)$/, '')})`,
    keep: `Keep ${name(stored)} and change the setting`,
  };
}
