/**
 * The engine a process runs (`ttl-workbench run`, `serve`, a test suite's `startServer`): fresh in
 * memory, or kept in a data folder. A kept engine has a virtual clock stored with its data: it
 * continues from its stored time; `now` may move it forward, never back. A new folder starts at
 * `now`, else at the current time.
 */
import { Engine, SystemClock, VirtualClock } from '../engine';
import { closeStoredEngine, openStoredEngine } from './engine-store';

export interface ProcessEngineOptions {
  clock: 'virtual' | 'system';
  /** Start of a virtual clock (default: the current time). */
  now?: Date;
  flavor: 'mongodb' | 'cosmos';
  serverVersion?: '8.0' | '7.0';
  /** Replica-set mode: the primary of a one-member replica set of this name (transactions, change streams). */
  replSetName?: string;
  /** Keep the engine in this folder (virtual clock only). */
  data?: string;
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
    if (options.clock === 'system')
      throw new Error(
        'a kept engine has a virtual clock stored with its data (time never runs backwards across runs); it cannot run on the system clock',
      );
    const asked = options.now;
    const clock = new VirtualClock(asked ?? 0);
    const opened = openStoredEngine(options.data, {
      engine: { clock, flavor, serverVersion, ...replSet },
      holder: options.holder,
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
