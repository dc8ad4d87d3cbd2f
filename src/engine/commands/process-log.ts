/**
 * The lines mongod writes about its own process: at start-up, and again after each logRotate so a
 * rotated log file still says what is running with which options. getLog reads them like any line.
 */
import type { EngineContext } from '../engine-context';
import { EMULATED_VERSIONS, STORAGE_ENGINE } from './server-identity';

/** The options the engine runs with, in the shape of mongod's parsed command line. */
export function engineOptions(engine: EngineContext & { replication?: { name: string } }): Record<string, unknown> {
  return {
    storage: { engine: STORAGE_ENGINE, ...(engine.persistent ? {} : { inMemory: true }) },
    ...(engine.replication ? { replication: { replSet: engine.replication.name } } : {}),
    ...(engine.readOnly !== undefined ? { readOnly: true } : {}),
  };
}

/** Logs what is running and with which options; `ctx` is the thread, as mongod names it. */
export function logProcessDetails(engine: EngineContext, ctx: string): void {
  const where = { s: 'I', c: 'CONTROL', ctx } as const;
  engine.log(
    23403,
    'Build Info',
    { buildInfo: { version: EMULATED_VERSIONS[engine.serverVersion], gitVersion: 'ttl-workbench-embedded' } },
    where,
  );
  engine.log(21951, 'Options set by command line', { options: engineOptions(engine) }, where);
}

/** The first lines of the log: the engine starting, then its process details. */
export function logStartup(engine: EngineContext): void {
  engine.log(
    4615611,
    'MongoDB starting',
    { pid: process.pid, architecture: '64-bit', host: 'localhost' },
    { s: 'I', c: 'CONTROL', ctx: 'initandlisten' },
  );
  logProcessDetails(engine, 'initandlisten');
}
