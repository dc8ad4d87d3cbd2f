/**
 * A command as it arrives over the wire, made into the engine's `runCommand` call, and the reply
 * made into what mongod sends. What drivers add to every command (`$db`, `lsid`,
 * `$readPreference`, `$clusterTime`, API version fields) is read here and taken off. Errors
 * become `{ok: 0, errmsg, code, codeName}`. Cursors belong to the session that opened them (or, opened
 * without a session, to the connection): see cursor-owners.ts.
 */
import { Long } from 'bson';
import {
  carriesClientMetadata,
  endLocalSessions,
  refuseClientMetadata,
  touchLocalSession,
  type Engine,
} from '../engine';
import { EngineError } from '../engine/errors';
import type { Document } from '../engine/values/types';
import { CONTROL_COMMAND, runControlCommand } from './control';
import { sessionKey, type CursorOwners } from './cursor-owners';
import { memberName, runServerCommand, SERVER_COMMANDS, type ConnectionAddresses } from './server-commands';

/** Fields drivers send along with any command, which the engine's handlers do not take. */
const GENERIC_FIELDS = [
  '$db',
  'lsid',
  '$clusterTime',
  '$readPreference',
  'apiVersion',
  'apiStrict',
  'apiDeprecationErrors',
  '$client',
];

/** Session commands: a standalone server keeps no session state the engine needs. */
const SESSION_COMMANDS = new Set(['endSessions', 'killSessions', 'killAllSessions', 'refreshSessions']);

/** What one connection holds between commands. */
export interface ConnectionState extends ConnectionAddresses {
  readonly id: number;
  /** Who may continue each cursor opened over the wire (shared by the server's connections). */
  readonly owners: CursorOwners;
  /** Set by the first hello that carried client metadata: a later one is refused. */
  clientMetadataSent?: boolean;
}

/** Runs one command for a connection; never throws (an error is the reply). */
export function runWireCommand(engine: Engine, connection: ConnectionState, command: Document): Document {
  const dbName = typeof command.$db === 'string' ? command.$db : 'admin';
  try {
    const cmd = withoutGenericFields(command);
    const name = Object.keys(cmd)[0];
    const reply = runCommandOf(engine, connection, dbName, name, command, cmd);
    // A replica-set member tells every reply the cluster time (drivers gossip it back).
    return engine.replication ? { ...reply, ...engine.replication.clusterTimeFields() } : reply;
  } catch (err) {
    const reply = errorReply(err);
    return engine.replication ? { ...reply, ...engine.replication.clusterTimeFields() } : reply;
  }
}

function runCommandOf(
  engine: Engine,
  connection: ConnectionState,
  dbName: string,
  name: string | undefined,
  command: Document,
  cmd: Document,
): Document {
  if (name !== undefined && SESSION_COMMANDS.has(name)) return endSessions(engine, connection, name, cmd);
  if (name === 'startSession') return engine.runCommand(dbName, cmd);
  // A session a driver made itself (an implicit one) is in the server's cache from its first use.
  if (command.lsid !== undefined) touchLocalSession(engine, command.lsid);
  if (carriesClientMetadata(cmd)) {
    if (connection.clientMetadataSent) refuseClientMetadata();
    connection.clientMetadataSent = true;
  }
  if (name === CONTROL_COMMAND) return runControlCommand(engine, dbName, cmd);
  const serverReply = name === undefined ? undefined : runServerCommand(engine, connection, dbName, name);
  if (serverReply) return serverReply;
  const session = sessionKey(command.lsid);
  if (name === 'getMore') {
    const key = cursorKey(cmd.getMore);
    if (key !== undefined) connection.owners.checkGetMore(key, session, connection.id);
  }
  if (name === 'getParameter' && cmd.featureCompatibilityVersion !== undefined && dbName === 'admin')
    return featureCompatibilityVersion(engine, cmd);
  let reply: Document;
  try {
    reply = inSession(command, name) ? runInSession(engine, dbName, cmd, command) : engine.runCommand(dbName, cmd);
  } catch (err) {
    // A cursor the engine no longer has (its collection was dropped) is forgotten here too.
    if (name === 'getMore' && err instanceof EngineError && err.code === 43)
      connection.owners.closed(cursorKey(cmd.getMore) ?? '');
    throw err;
  }
  trackCursors(connection, name, cmd, session, reply);
  if (name === 'hello' || name === 'isMaster' || name === 'ismaster') {
    const set = engine.replication?.helloFields(memberName(connection));
    if (set && (cmd.isMaster !== undefined || cmd.ismaster !== undefined)) {
      delete set.isWritablePrimary;
      set.ismaster = true;
    }
    return { ...reply, ...set, connectionId: connection.id };
  }
  if (name === 'listCommands') return withWireCommands(reply);
  return reply;
}

/** The fields of a transaction or a retryable write: such a command goes through the engine's sessions. */
function inSession(command: Document, name: string | undefined): boolean {
  return (
    command.txnNumber !== undefined ||
    command.autocommit !== undefined ||
    command.startTransaction !== undefined ||
    name === 'commitTransaction' ||
    name === 'abortTransaction'
  );
}

function runInSession(engine: Engine, dbName: string, cmd: Document, command: Document): Document {
  const fields = {
    lsid: command.lsid,
    txnNumber: cmd.txnNumber,
    autocommit: cmd.autocommit,
    startTransaction: cmd.startTransaction,
  };
  return engine.runInSession(dbName, cmd, fields);
}

function withoutGenericFields(command: Document): Document {
  const out: Document = {};
  for (const key of Object.keys(command)) if (!GENERIC_FIELDS.includes(key)) out[key] = command[key];
  return out;
}

/** A cursor id as the client sent it: a Long, or a smaller number (Int32, double) a driver promoted. */
function cursorKey(id: unknown): string | undefined {
  if (id instanceof Long) return id.toString();
  if (typeof id === 'number' || typeof id === 'bigint') return String(id);
  const wrapped = (id as { _bsontype?: string; value?: unknown } | null)?.value;
  if (typeof wrapped === 'number') return String(wrapped);
  return undefined;
}

/** endSessions, killSessions and killAllSessions end their sessions' cursors; refreshSessions does nothing. */
function endSessions(engine: Engine, connection: ConnectionState, name: string, cmd: Document): Document {
  const sessions = engine.replication?.sessions;
  if (name === 'killAllSessions' || (name === 'killSessions' && Array.isArray(cmd[name]) && cmd[name].length === 0)) {
    sessions?.end(undefined);
    endLocalSessions(engine, undefined);
  } else if (name === 'endSessions' || name === 'killSessions') {
    const list = Array.isArray(cmd[name]) ? (cmd[name] as unknown[]) : [];
    sessions?.end(list);
    endLocalSessions(engine, list);
  }
  if (name === 'killAllSessions') connection.owners.sessionsEnded(undefined);
  else if (name === 'endSessions' || name === 'killSessions') {
    const list = Array.isArray(cmd[name]) ? (cmd[name] as unknown[]) : [];
    // killSessions: [] kills every session (of the user; there are no users here).
    if (name === 'killSessions' && list.length === 0) connection.owners.sessionsEnded(undefined);
    else
      connection.owners.sessionsEnded(list.map((lsid) => sessionKey(lsid)).filter((k): k is string => k !== undefined));
  }
  return { ok: 1 };
}

/** Remember the cursors a reply opened, and in which session; forget the ones exhausted or killed. */
function trackCursors(
  connection: ConnectionState,
  name: string | undefined,
  cmd: Document,
  session: string | undefined,
  reply: Document,
): void {
  const cursor = reply.cursor as Document | undefined;
  const id = cursorKey(cursor?.id);
  if (name === 'getMore') {
    if (id === '0') connection.owners.closed(cursorKey(cmd.getMore) ?? '');
  } else if (name === 'killCursors') {
    for (const c of Array.isArray(cmd.cursors) ? (cmd.cursors as unknown[]) : [])
      connection.owners.closed(cursorKey(c) ?? '');
  } else if (id !== undefined && id !== '0') {
    connection.owners.opened(id, session, connection.id, cmd.noCursorTimeout === true);
  }
}

/** listCommands names the commands the endpoint answers itself, beside the engine's. */
function withWireCommands(reply: Document): Document {
  const commands = { ...(reply.commands as Document) };
  for (const name of [CONTROL_COMMAND, 'startSession', ...SERVER_COMMANDS])
    commands[name] ??= {
      help: '',
      requiresAuth: false,
      secondaryOk: true,
      adminOnly: name === CONTROL_COMMAND || name === 'getCmdLineOpts' || name.startsWith('replSet'),
    };
  const sorted: Document = {};
  for (const name of Object.keys(commands).sort()) sorted[name] = commands[name];
  return { ...reply, commands: sorted };
}

function featureCompatibilityVersion(engine: Engine, cmd: Document): Document {
  const others = Object.keys(cmd).filter((k) => k !== 'getParameter' && k !== 'featureCompatibilityVersion');
  const rest = others.length
    ? engine.runCommand('admin', { getParameter: 1, ...Object.fromEntries(others.map((k) => [k, cmd[k]])) })
    : { ok: 1 };
  return { featureCompatibilityVersion: { version: engine.serverVersion }, ...rest };
}

/** mongod's error reply; write errors stay in the command's own reply (ok: 1, writeErrors). */
export function errorReply(err: unknown): Document {
  // An engine error's extra fields (a DuplicateKey's keyPattern and keyValue) are top-level, as on mongod.
  if (err instanceof EngineError) return err.toReply();
  if (err instanceof Error && typeof (err as { code?: unknown }).code === 'number') {
    const e = err as Error & { code: number; codeName?: string; errorLabels?: string[] };
    const extra: Document = {};
    for (const key of Object.keys(e))
      if (!['code', 'codeName', 'errorLabels', 'message', 'stack', 'name'].includes(key))
        extra[key] = (e as unknown as Document)[key];
    return {
      ok: 0,
      errmsg: e.message,
      code: e.code,
      codeName: e.codeName ?? 'UnknownError',
      ...(e.errorLabels ? { errorLabels: e.errorLabels } : {}),
      ...extra,
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { ok: 0, errmsg: `internal error: ${message}`, code: 1, codeName: 'InternalError' };
}
