/**
 * What the engine says it is, in buildInfo, serverStatus, explain's serverInfo and its start-up log:
 * its own module, so the commands that print it need not import one another.
 */

/** Full version strings of the mongod releases the engine emulates, by serverVersion setting. */
export const EMULATED_VERSIONS: Record<string, string> = { '8.0': '8.0.4', '7.0': '7.0.16' };
/** The engine's one storage engine, as buildInfo and serverStatus name it. */
export const STORAGE_ENGINE = 'ttl-workbench-memory';
