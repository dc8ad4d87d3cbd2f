/**
 * `db.getMongo()`: mongosh's connection object. The shell's connection is the engine it runs on,
 * so this one reaches that engine's databases (getDB, getDBNames), starts sessions on it, and prints
 * as the engine.
 */
import type { Document } from '../engine';
import { ShellClientSession } from './client-session';
import { shellDisplay } from './render';
import type { DatabaseLike, ShellRuntime } from './runtime';

/** The runtime under a symbol: scripts see the methods only. */
const RUNTIME = Symbol('mongoRuntime');

export class ShellMongo {
  declare private readonly [RUNTIME]: ShellRuntime;

  constructor(rt: ShellRuntime) {
    Object.defineProperty(this, RUNTIME, { value: rt });
  }

  getDB(name: unknown): DatabaseLike {
    if (typeof name !== 'string') throw this[RUNTIME].errors.typeError('getDB() needs a database name.');
    return this[RUNTIME].database(name);
  }

  getDBNames(): string[] {
    const reply = this[RUNTIME].run('admin', { listDatabases: 1, nameOnly: true });
    return (reply.databases as Document[]).map((d) => String(d.name));
  }

  /**
   * mongosh's `startSession(options)`: a logical session whose databases carry its lsid, with
   * transactions (which need a replica-set engine, as on mongod).
   */
  startSession(options?: unknown): ShellClientSession {
    const rt = this[RUNTIME];
    if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options)))
      throw rt.errors.typeError('startSession() takes an options object such as {causalConsistency: true}.');
    return new ShellClientSession(rt, (options ?? {}) as Document);
  }

  [shellDisplay](): string {
    return 'TTL Workbench embedded engine';
  }
}
