/** Server-level commands: hello, ping, buildInfo, serverStatus, parameters, getLog, listCommands. */
import { Int32, Long, ObjectId } from 'bson';
import { fail } from '../errors';
import { PARAMETERS } from '../catalog/parameters';
import { bsonTypeOf, type Document } from '../values/types';
import { logProcessDetails } from './process-log';
import type { CommandContext, CommandHandler } from './context';
import { EMULATED_VERSIONS, STORAGE_ENGINE } from './server-identity';
import { LOG_PARAMETERS, isLogParameter, setLogParameter } from './log-verbosity';

const MAX_WIRE_VERSION: Record<string, number> = { '8.0': 25, '7.0': 21 };

/**
 * hello's topologyVersion.processId: an ObjectId made once per process, as mongod makes one at
 * start-up. Drivers compare it with ObjectId.equals (a string here broke their monitors); the
 * counter stays 0, for a standalone's topology never changes.
 */
export const PROCESS_ID = new ObjectId();

function hello({ engine }: CommandContext, cmd: Document): Document {
  const primary = engine.role === 'primary';
  const legacy = cmd.isMaster !== undefined || cmd.ismaster !== undefined;
  const descriptor = engine.parameters.get('automationServiceDescriptor');
  return {
    [legacy ? 'ismaster' : 'isWritablePrimary']: primary,
    ...(primary ? {} : { secondary: true }),
    topologyVersion: { processId: PROCESS_ID, counter: Long.fromNumber(0) },
    maxBsonObjectSize: 16 * 1024 * 1024,
    maxMessageSizeBytes: 48000000,
    maxWriteBatchSize: 100000,
    localTime: engine.now(),
    logicalSessionTimeoutMinutes: 30,
    connectionId: 1,
    minWireVersion: 0,
    maxWireVersion: MAX_WIRE_VERSION[engine.serverVersion],
    readOnly: false,
    // Echoed only while set: an empty descriptor means none.
    ...(descriptor ? { automationServiceDescriptor: descriptor } : {}),
    ok: 1,
  };
}

function buildInfo({ engine }: CommandContext): Document {
  const version = EMULATED_VERSIONS[engine.serverVersion];
  return {
    version,
    gitVersion: 'ttl-workbench-embedded',
    versionArray: [...version.split('.').map((n) => new Int32(Number(n))), new Int32(0)],
    bits: 64,
    debug: false,
    maxBsonObjectSize: 16 * 1024 * 1024,
    storageEngines: [STORAGE_ENGINE],
    modules: [],
    ...(engine.flavor === 'cosmos' ? { _t: 'BuildInfoResponse' } : {}),
    ok: 1,
  };
}

export function serverStatus({ engine }: CommandContext): Document {
  const now = engine.clock.now();
  const long = (n: number) => Long.fromNumber(n);
  return {
    host: 'localhost',
    version: EMULATED_VERSIONS[engine.serverVersion],
    process: 'ttl-workbench',
    pid: long(process.pid),
    uptime: (now - engine.startedAt) / 1000,
    uptimeMillis: long(now - engine.startedAt),
    uptimeEstimate: long(Math.floor((now - engine.startedAt) / 1000)),
    localTime: new Date(now),
    storageEngine: {
      name: STORAGE_ENGINE,
      supportsCommittedReads: false,
      persistent: engine.persistent === true,
      readOnly: engine.readOnly !== undefined,
    },
    opcounters: Object.fromEntries(Object.entries(engine.opcounters).map(([k, v]) => [k, long(v)])),
    batchedDeletes: Object.fromEntries(Object.entries(engine.batchedDeletes).map(([k, v]) => [k, long(v)])),
    metrics: {
      ttl: {
        deletedDocuments: long(engine.ttlMetrics.deletedDocuments),
        passes: long(engine.ttlMetrics.passes),
        subPasses: long(engine.ttlMetrics.subPasses),
      },
      document: Object.fromEntries(Object.entries(engine.documentMetrics).map(([k, v]) => [k, long(v)])),
      cursor: { open: { total: long(engine.cursors.count) } },
    },
    ok: 1,
  };
}

function requireAdmin(dbName: string, command: string): void {
  if (dbName !== 'admin')
    fail('Unauthorized', `${command} may only be run against the admin database: db.adminCommand({${command}: ...}).`);
}

function getParameter({ engine, dbName }: CommandContext, cmd: Document): Document {
  requireAdmin(dbName, 'getParameter');
  const all =
    cmd.getParameter === '*' ||
    (typeof cmd.getParameter === 'object' &&
      cmd.getParameter !== null &&
      (cmd.getParameter as Document).allParameters === true);
  const reply: Document = {};
  const names = all
    ? [...engine.parameters.names(), ...Object.keys(LOG_PARAMETERS)]
    : Object.keys(cmd).filter((k) => k !== 'getParameter' && !k.startsWith('$') && k !== 'comment');
  if (names.length === 0)
    fail(
      'InvalidOptions',
      'no option found to get: name a parameter, e.g. {getParameter: 1, ttlMonitorSleepSecs: 1}, or use {getParameter: "*"}.',
    );
  for (const name of names)
    reply[name] = isLogParameter(name)
      ? LOG_PARAMETERS[name].get(engine)
      : asReplyValue(name, engine.parameters.get(name));
  return { ...reply, ok: 1 };
}

function setParameter({ engine, dbName }: CommandContext, cmd: Document): Document {
  requireAdmin(dbName, 'setParameter');
  const names = Object.keys(cmd).filter((k) => k !== 'setParameter' && !k.startsWith('$') && k !== 'comment');
  if (names.length === 0)
    fail('InvalidOptions', 'no option found to set: use e.g. {setParameter: 1, ttlMonitorSleepSecs: 5}.');
  // Check every value first so a bad one sets nothing; the reply's `was` is the first parameter's
  // value before the change, in getParameter's form.
  for (const name of names) {
    if (isLogParameter(name)) LOG_PARAMETERS[name].parse(cmd[name]);
    else engine.parameters.validate(name, cmd[name]);
  }
  const first = names[0];
  const was = isLogParameter(first)
    ? LOG_PARAMETERS[first].get(engine)
    : asReplyValue(first, engine.parameters.get(first));
  for (const name of names) {
    if (isLogParameter(name)) setLogParameter(engine, name, cmd[name]);
    else engine.parameters.set(name, cmd[name]);
  }
  return { was, ok: 1 };
}

function asReplyValue(name: string, value: boolean | number | string): unknown {
  return PARAMETERS[name]?.kind === 'int' ? new Int32(value as number) : value;
}

/**
 * The engine's log lines ("global", and "startupWarnings", which mongosh shows when it connects);
 * "*" names the logs there are, as mongod answers it.
 */
function getLog({ engine, dbName }: CommandContext, cmd: Document): Document {
  requireAdmin(dbName, 'getLog');
  const name = cmd.getLog;
  if (typeof name !== 'string')
    fail(
      'TypeMismatch',
      `BSON field 'getLog.getLog' is the wrong type '${bsonTypeOf(name)}', expected type 'string': name a log, e.g. {getLog: "global"}, or "*" for their names.`,
    );
  if (name === '*') return { names: ['global', 'startupWarnings'], ok: 1 };
  if (name !== 'global' && name !== 'startupWarnings')
    fail('OperationFailed', `No log named '${name}': the logs are "global" and "startupWarnings" ({getLog: "*"}).`);
  // The information lines are the global log's only: startupWarnings holds the warnings.
  const lines = name === 'global' ? engine.logLines : engine.logLines.filter((l) => (l.s ?? 'W') !== 'I');
  return {
    totalLinesWritten: name === 'global' ? engine.logLinesWritten : lines.length,
    log: lines.map((l) =>
      JSON.stringify({
        t: { $date: l.t.toISOString() },
        s: l.s ?? 'W',
        c: l.c ?? 'INDEX',
        id: l.id,
        ctx: l.ctx ?? 'conn1',
        msg: l.msg,
        attr: l.attr ?? {},
      }),
    ),
    ok: 1,
  };
}

/** The engine writes no log file to reopen: like mongod after a rotation, it logs its process details again. */
function logRotate({ engine, dbName }: CommandContext): Document {
  requireAdmin(dbName, 'logRotate');
  engine.log(23166, 'Log rotation initiated', {}, { s: 'I', c: 'CONTROL', ctx: 'conn1' });
  logProcessDetails(engine, 'conn1');
  return { ok: 1 };
}

export const adminCommands: Record<string, CommandHandler> = {
  hello,
  isMaster: hello,
  ping: () => ({ ok: 1 }),
  buildInfo,
  serverStatus,
  getParameter,
  setParameter,
  connectionStatus: () => ({ authInfo: { authenticatedUsers: [], authenticatedUserRoles: [] }, ok: 1 }),
  getLog,
  logRotate,
};
