/**
 * The endpoint for a test suite: `startServer()` starts an engine and serves it on a free port in
 * milliseconds, in the test's own process, with a virtual clock the test moves. Connect the driver
 * or Mongoose to `uri`; `clock.advance("30m")` runs every TTL pass that falls due on the way.
 *
 *   const server = await startServer();
 *   await mongoose.connect(server.uri);
 *   ...
 *   await server.clock.advance('31m');   // the sessions are gone
 *   await server.stop();
 */
import type { Engine, MonitorStatus } from '../engine';
import type { Document } from '../engine/values/types';
import { openProcessEngine } from '../storage/process-engine';
import { authCredentials, createAuthGate, type AuthOptions } from './auth';
import { runControlCommand } from './control';
import { WireServer } from './server';

export interface StartServerOptions {
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Address to bind (default 127.0.0.1, loopback only). */
  host?: string;
  /** The engine's clock (default "virtual": time moves only when the test moves it). */
  clock?: 'virtual' | 'system';
  /** Start of the virtual clock (default: the current time). */
  now?: Date | string | number;
  flavor?: 'mongodb' | 'cosmos';
  /** Which mongod is emulated where their rules differ (default 8.0). */
  serverVersion?: '8.0' | '7.0';
  /** Keep the engine in this folder across runs (virtual clock only). */
  data?: string;
  /** With `data`: read the folder without writing to it, even while another process holds it; writes answer 20. */
  readOnly?: boolean;
  /**
   * Serve as the primary of a one-member replica set of this name (as `mongod --replSet NAME`):
   * sessions with transactions, retryable writes and change streams. `uri` then names the set
   * (`?replicaSet=NAME`), which the driver and Mongoose need for transactions.
   */
  replSet?: string;
  /** Where the server's log lines go (default: nowhere). */
  log?: (line: string) => void;
  /**
   * Require authentication: SCRAM-SHA-256 as this user, who lives in the admin database
   * (mongodb://USER:PASSWORD@127.0.0.1:PORT/?authSource=admin; admin is also the driver's default
   * authSource). Until a connection authenticates, only hello, ping, buildInfo, listCommands,
   * connectionStatus and the authentication commands run; the rest answer 13 (Unauthorized).
   * Without it (the default) no authentication is asked for. The password must pass SASLprep.
   */
  auth?: AuthOptions;
}

/** What a clock move did: where time is now, and what the TTL monitor did on the way. */
export interface ClockMove {
  now: Date;
  ttlPasses: number;
  deletedDocuments: number;
}

export interface RunningServer {
  /** The connection string: mongodb://127.0.0.1:PORT/ (with ?replicaSet=NAME in replica-set mode) */
  uri: string;
  host: string;
  port: number;
  /** The engine itself, for what the wire does not reach. */
  engine: Engine;
  clock: {
    now(): Date;
    /** Forward by a duration ("90s", "30m", "2h", "1d") or milliseconds, running due TTL passes. */
    advance(duration: string | number): ClockMove;
    /** Forward to a date. */
    set(date: Date | string | number): ClockMove;
  };
  ttl: {
    /** One TTL pass now; resolves with how many documents it deleted. */
    runPass(): { deleted: number; subPasses: number };
    status(): MonitorStatus;
  };
  /** How many client connections are open now (a driver holds its pool's plus one or two for monitoring). */
  readonly connections: number;
  /** What the user should know about a kept data folder. */
  notes: string[];
  /** Closes every connection and the engine (a kept one is synced and unlocked). */
  stop(): Promise<void>;
}

export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const now = options.now === undefined ? undefined : new Date(options.now);
  if (now && Number.isNaN(now.getTime()))
    throw new RangeError(`startServer: now must be a date, got ${String(options.now)}`);
  // The stored keys, derived (and the password checked) before the engine opens a kept folder.
  const credentials = options.auth !== undefined ? authCredentials(options.auth) : undefined;
  const opened = openProcessEngine({
    clock: options.clock ?? 'virtual',
    ...(now ? { now } : {}),
    flavor: options.flavor ?? 'mongodb',
    ...(options.serverVersion ? { serverVersion: options.serverVersion } : {}),
    ...(options.data !== undefined ? { data: options.data } : {}),
    ...(options.replSet !== undefined ? { replSetName: options.replSet } : {}),
    ...(options.readOnly ? { readOnly: true } : {}),
    holder: 'startServer',
  });
  const { engine } = opened;
  const gate = credentials ? createAuthGate(engine, credentials, options.log) : undefined;
  const server = new WireServer({
    engine,
    ...(gate ? { intercept: gate.intercept } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  let address;
  try {
    address = await server.start();
  } catch (err) {
    opened.close();
    throw err;
  }
  const control = (cmd: Document) => runControlCommand(engine, 'admin', cmd);
  const move = (reply: Document): ClockMove => ({
    now: reply.now as Date,
    ttlPasses: reply.ttlPasses as number,
    deletedDocuments: reply.deletedDocuments as number,
  });
  let stopped = false;
  return {
    ...address,
    ...(options.replSet !== undefined
      ? { uri: `${address.uri}?replicaSet=${encodeURIComponent(options.replSet)}` }
      : {}),
    engine,
    get connections() {
      return server.connectionCount;
    },
    notes: opened.notes,
    clock: {
      now: () => new Date(engine.clock.now()),
      advance: (duration) => move(control({ ttlWorkbench: 'advanceClock', by: duration })),
      set: (date) => move(control({ ttlWorkbench: 'setClock', to: new Date(date) })),
    },
    ttl: {
      runPass: () => {
        const r = control({ ttlWorkbench: 'runTTLPass' });
        return { deleted: r.deleted as number, subPasses: r.subPasses as number };
      },
      status: () => engine.ttl.status(),
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await server.stop();
      opened.close();
    },
  };
}
