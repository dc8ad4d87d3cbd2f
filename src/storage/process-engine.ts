/**
 * The engine a process runs (`ttl-workbench run`, `serve`, a test suite's `startServer`): fresh in
 * memory, or kept in a data folder. A kept engine's clock mode is stored with its data. On the
 * virtual clock it continues from its stored time; `now` may move it forward, never back; a new
 * folder starts at `now`, else at the current time. On the system clock it runs on wall time,
 * unless the folder's virtual clock went ahead of it (the store refuses that switch).
 */
import { Engine, SystemClock, VirtualClock } from '../engine';
import { closeStoredEngine, openStoredEngine, storedClockKind } from './engine-store';

export interface ProcessEngineOptions {
  /** Default: a data folder's stored mode, else virtual. */
  clock?: 'virtual' | 'system';
  /** Start of a virtual clock (default: the current time). */
  now?: Date;
  flavor: 'mongodb' | 'cosmos';
  serverVersion?: '8.0' | '7.0';
  /** Replica-set mode: the primary of a one-member replica set of this name (transactions, change streams). */
  replSetName?: string;
  /** Keep the engine in this folder. */
  data?: string;
  /**
   * Read the folder without writing anything to it (no lock taken, no recovery write), even while
   * another process writes to it; the engine refuses writes (IllegalOperation) and TTL deletes.
   */
  readOnly?: boolean;
  /** Who holds the folder's lock, for the message another process gets (e.g. "ttl-workbench serve"). */
  holder: string;
}

export interface ProcessEngine {
  engine: Engine;
  /** What the user should know about the data folder (damage repaired, a read-only open, the clock). */
  notes: string[];
  /** Closes the engine: a kept one is synced and its folder unlocked. */
  close(): void;
}

export function openProcessEngine(options: ProcessEngineOptions): ProcessEngine {
  const { flavor, serverVersion } = options;
  const replSet = options.replSetName !== undefined ? { replSetName: options.replSetName } : {};
  if (options.data !== undefined) {
    const readOnly = options.readOnly
      ? {
          readOnlyBecause: `opened with --read-only: nothing is written to ${options.data}`,
        }
      : {};
    const engineReadOnly = options.readOnly ? { readOnly: `${options.data} was opened with --read-only` } : {};
    if ((options.clock ?? storedClockKind(options.data)) === 'system') {
      const opened = openStoredEngine(options.data, {
        engine: { clock: new SystemClock(), flavor, serverVersion, ...replSet, ...engineReadOnly },
        holder: options.holder,
        ...readOnly,
      });
      return { engine: opened.engine, notes: [...opened.notes], close: () => closeStoredEngine(opened) };
    }
    const asked = options.now;
    const clock = new VirtualClock(asked ?? 0);
    const opened = openStoredEngine(options.data, {
      engine: { clock, flavor, serverVersion, ...replSet, ...engineReadOnly },
      holder: options.holder,
      ...readOnly,
    });
    const notes = [...opened.notes];
    if (opened.storedClockMs === undefined && asked === undefined) {
      // From 0 to now without running the passes of every minute in between.
      opened.engine.ttl.suspendSleep();
      clock.set(Date.now());
      opened.engine.ttl.restartSleep();
    }
    if (asked !== undefined && opened.storedClockMs !== undefined && asked.getTime() < opened.storedClockMs) {
      notes.push(
        `its clock is at ${new Date(opened.storedClockMs).toISOString()}, later than the ${asked.toISOString()} asked for: time never runs backwards, so the engine continues from the stored time.`,
      );
    }
    return { engine: opened.engine, notes, close: () => closeStoredEngine(opened) };
  }
  const engine =
    options.clock === 'system'
      ? new Engine({ clock: new SystemClock(), flavor, serverVersion, ...replSet })
      : new Engine({ clock: new VirtualClock(options.now ?? new Date()), flavor, serverVersion, ...replSet });
  return { engine, notes: [], close: () => engine.close() };
}
