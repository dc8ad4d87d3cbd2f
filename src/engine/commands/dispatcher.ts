/**
 * One table from command name to handler. Every caller (typed API, shell, tree, future wire
 * endpoint) comes through here, so replies and errors are the same everywhere.
 */
import type { EngineContext } from '../engine-context';
import { fail } from '../errors';
import { OperationDeadline, parseMaxTimeMS, withInterrupts } from '../interrupt';
import { validateDatabaseName } from '../catalog/namespaces';
import { checkCommandDepth } from '../values/depth';
import type { Document } from '../values/types';
import { adminCommands } from './admin';
import { bulkWriteCommands } from './bulk-write';
import { cappedConvertCommands } from './capped-convert';
import { catalogCommands } from './catalog';
import { collModCommands } from './collmod';
import { crudCommands } from './crud';
import { currentOpCommands } from './current-op';
import { dataSizeCommands } from './data-size';
import { dbHashCommands } from './db-hash';
import { fileMd5Commands } from './file-md5';
import { hostInfoCommands } from './host-info';
import { diagnosticDataCommands } from './diagnostic-data';
import { featuresCommands } from './features';
import { hashElementCommands } from './hash-element';
import { sessionCommands } from './sessions';
import { restartCatalogCommands } from './restart-catalog';
import { splitVectorCommands } from './split-vector';
import { explainCommands } from './explain';
import { indexCommands } from './indexes';
import { validateCommands } from './validate';
import { planCacheFilterCommands } from './plan-cache-filters';
import { optionalBool, type CommandContext, type CommandHandler } from './context';
import { withDocumentValidation } from '../validation/validator';
import { withCommandCollation } from './collation-scope';
import { reloadViews, systemViewsWrittenBy } from './system-views';
import { recordUsage, topTotals } from './usage-stats';
import { withTableScanPolicy } from '../query/table-scan-policy';

const HANDLERS: Record<string, CommandHandler> = {
  ...adminCommands,
  ...currentOpCommands,
  ...hostInfoCommands,
  ...diagnosticDataCommands,
  ...featuresCommands,
  ...hashElementCommands,
  ...sessionCommands,
  ...restartCatalogCommands,
  ...splitVectorCommands,
  ...dbHashCommands,
  ...dataSizeCommands,
  ...fileMd5Commands,
  listCommands,
  top,
  ...catalogCommands,
  ...cappedConvertCommands,
  ...collModCommands,
  ...indexCommands,
  ...crudCommands,
  ...bulkWriteCommands,
  ...explainCommands,
  ...validateCommands,
  ...planCacheFilterCommands,
};

/** Lower-cased aliases mongod accepts (`ismaster`, `buildinfo`). */
const ALIASES: Record<string, string> = {
  ismaster: 'isMaster',
  buildinfo: 'buildInfo',
  deleteIndexes: 'dropIndexes',
  dbstats: 'dbStats',
  dbhash: 'dbHash',
  datasize: 'dataSize',
};

function commandNames(): string[] {
  return Object.keys(HANDLERS).sort();
}

// listCommands lives beside the table it lists: in admin.ts it would import this module, which
// imports admin.ts.
function listCommands(): Document {
  const commands: Document = {};
  for (const name of commandNames())
    commands[name] = { help: '', requiresAuth: false, secondaryOk: true, adminOnly: false };
  return { commands, ok: 1 };
}

/** top: the time and count of the commands run on each namespace, as mongod's admin command reports them. */
function top({ engine, dbName }: CommandContext): Document {
  if (dbName !== 'admin')
    fail('Unauthorized', 'top may only be run against the admin database: use db.adminCommand("top").');
  return { totals: topTotals(engine), ok: 1 };
}

/** Whether the engine has a command of this name (an alias counts): what it would not answer with CommandNotFound. */
export function isEngineCommand(name: string): boolean {
  return Object.hasOwn(HANDLERS, name) || (Object.hasOwn(ALIASES, name) && Object.hasOwn(HANDLERS, ALIASES[name]));
}

export function dispatchCommand(engine: EngineContext, dbName: string, command: Document): Document {
  validateDatabaseName(dbName);
  // Measured before anything walks it (mongod validates every BSON message the same way). An
  // insert's documents are measured as they are copied for storage (180 levels at most), which
  // stops before any deeper level, so they need no walk of their own here.
  checkCommandDepth(command, Object.keys(command)[0] === 'insert' ? 'documents' : undefined);
  const name = Object.keys(command)[0];
  if (name === undefined)
    fail('CommandNotFound', 'no such command: the command document is empty. Pass e.g. {ping: 1}.');
  // Own properties only: {constructor: 1} or {toString: 1} must not reach Object.prototype.
  const handler = isEngineCommand(name) ? (HANDLERS[name] ?? HANDLERS[ALIASES[name]]) : undefined;
  if (!handler)
    fail(
      'CommandNotFound',
      `no such command: '${name}'. Run {listCommands: 1} to see what the TTL Workbench engine supports.`,
    );
  // maxTimeMS is a generic argument: every command takes it (validated as mongod does); the
  // command's safe points then fail with MaxTimeMSExpired once its real time is up.
  const maxTimeMS = parseMaxTimeMS(command.maxTimeMS);
  // bypassDocumentValidation is generic too: insert, update, findAndModify, bulkWrite and the
  // writing stages of aggregate skip the collection's validator for this command only.
  const bypass = optionalBool(command, 'bypassDocumentValidation') ?? false;
  const reloads = systemViewsWrittenBy(dbName, command);
  const noTableScan = engine.parameters.getBool('notablescan');
  const run = () =>
    withTableScanPolicy(noTableScan, () =>
      withDocumentValidation(bypass, () =>
        withCommandCollation(engine, dbName, command, () => {
          if (reloads.length === 0) return handler({ engine, dbName }, command);
          // A write to system.views itself: the views become what it holds, whatever part was written.
          try {
            return handler({ engine, dbName }, command);
          } finally {
            for (const db of reloads) reloadViews(engine, db);
          }
        }),
      ),
    );
  // In progress until it returns or throws: what $currentOp lists.
  const opid = engine.operations.begin({ desc: 'conn', op: 'command', ns: `${dbName}.$cmd`, command });
  const started = process.hrtime.bigint();
  try {
    if (maxTimeMS === undefined) return run();
    const deadline = new OperationDeadline(maxTimeMS, { time: engine.elapsedTime });
    return withInterrupts(deadline, run);
  } finally {
    engine.operations.end(opid);
    // A failed command counts too (mongod's top and latencyStats count the attempt).
    recordUsage(engine, dbName, command, Number(process.hrtime.bigint() - started) / 1000);
  }
}
