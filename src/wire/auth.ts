/**
 * Authentication for the wire endpoint (`startServer({auth})`, `ttl-workbench serve --auth`): one
 * user, in the admin database, authenticating with SCRAM-SHA-256 as on mongod. It runs as the
 * connection's intercept hook, before the engine sees a command:
 *
 *   saslStart / saslContinue       the SCRAM conversation (conversationId 1, as mongod answers);
 *                                  with options.skipEmptyExchange the server-final step is done,
 *                                  without it a last empty saslContinue is answered done: true
 *   hello / isMaster               saslSupportedMechs: "admin.<user>" answered ["SCRAM-SHA-256"];
 *                                  speculativeAuthenticate (a saslStart inside the hello) answered
 *                                  in the reply's speculativeAuthenticate, or left out if it fails
 *   connectionStatus, logout       the authenticated user (role root), and forgetting it
 *
 * Until a connection has authenticated, only the commands mongod 7.0/8.0 runs without
 * authentication pass (hello, isMaster, saslStart, saslContinue, authenticate, logout, ping,
 * buildInfo, connectionStatus, listCommands); any other known command answers
 * `Command <name> requires authentication` (13, Unauthorized) and an unknown one CommandNotFound
 * (59), as mongod looks a command up before checking authentication. A failed SCRAM step answers
 * only "Authentication failed." (18); why it failed goes to the server's log.
 */
import { Binary } from 'bson';
import type { Engine } from '../engine';
import { isEngineCommand } from '../engine/commands/dispatcher';
import { EngineError, type ErrorCodeName } from '../engine/errors';
import type { Document } from '../engine/values/types';
import { runWireCommand } from './commands';
import { CONTROL_COMMAND } from './control';
import type { WireConnection } from './connection';
import { SaslPrepError } from './saslprep';
import { deriveCredentials, SCRAM_SHA_256, ScramConversation, ScramError, type ScramCredentials } from './scram';

/** The one user a server with authentication accepts (authSource admin). */
export interface AuthOptions {
  user: string;
  password: string;
}

/** The database the user lives in: clients connect with authSource=admin (their default). */
export const AUTH_DATABASE = 'admin';

/** Commands mongod runs for a connection that has not authenticated (requiresAuth false). */
const BEFORE_AUTH = new Set([
  'hello',
  'isMaster',
  'ismaster',
  'saslStart',
  'saslContinue',
  'authenticate',
  'logout',
  'ping',
  'buildInfo',
  'buildinfo',
  'connectionStatus',
  'listCommands',
]);

/** Commands the wire layer answers itself (commands.ts), which the engine's table does not list. */
const WIRE_COMMANDS = new Set([
  'startSession',
  'endSessions',
  'killSessions',
  'killAllSessions',
  'refreshSessions',
  CONTROL_COMMAND,
]);

interface ConnectionAuth {
  /** The conversation under way, if any (one per connection, as on mongod). */
  conversation?: ScramConversation;
  db?: string;
  skipEmptyExchange?: boolean;
  /** Whether server-final has been sent and only the empty exchange is left. */
  awaitingEmpty?: boolean;
}

export interface AuthGate {
  intercept: (connection: WireConnection, command: Document) => Document | undefined;
}

/** Checks the options and derives the stored keys (the password is SASLprepped and not kept). */
export function authCredentials(options: AuthOptions): ScramCredentials {
  if (typeof options.user !== 'string' || options.user === '')
    throw new TypeError('auth.user must be a non-empty string');
  if (typeof options.password !== 'string' || options.password === '')
    throw new TypeError('auth.password must be a non-empty string');
  try {
    return deriveCredentials(options.user, options.password);
  } catch (err) {
    if (err instanceof SaslPrepError)
      throw new RangeError(
        `auth.password cannot be used with SCRAM-SHA-256: SASLprep (RFC 4013) refuses it, ${err.message}`,
      );
    throw err;
  }
}

/** The gate for one server: `credentials` from authCredentials (derived once, at start). */
export function createAuthGate(
  engine: Engine,
  credentials: ScramCredentials,
  log: (line: string) => void = () => undefined,
): AuthGate {
  const lookup = (user: string) => (user === credentials.user ? credentials : undefined);
  const states = new WeakMap<WireConnection, ConnectionAuth>();
  const stateOf = (c: WireConnection) => {
    let s = states.get(c);
    if (!s) states.set(c, (s = {}));
    return s;
  };
  const who = (c: WireConnection) => `connection ${c.id} (${c.remote})`;

  function saslStart(c: WireConnection, cmd: Document, db: string, speculative: boolean): Document {
    const state = stateOf(c);
    // A new saslStart abandons any conversation under way.
    reset(state);
    const mechanism = cmd.mechanism;
    if (typeof mechanism !== 'string') return error('BadValue', 'saslStart needs mechanism: "SCRAM-SHA-256"');
    if (mechanism !== SCRAM_SHA_256)
      return error('MechanismUnavailable', `Received authentication for mechanism ${mechanism} which is not enabled`);
    const payload = payloadOf(cmd);
    if (payload === undefined)
      return error('BadValue', 'saslStart needs payload: BinData (the SCRAM client-first message)');
    const conversation = new ScramConversation((user) => (db === AUTH_DATABASE ? lookup(user) : undefined));
    let serverFirst: string;
    try {
      serverFirst = conversation.start(payload.text);
    } catch (err) {
      return failed(c, err, conversation.user, db, speculative);
    }
    state.conversation = conversation;
    state.db = db;
    state.skipEmptyExchange = (cmd.options as Document | undefined)?.skipEmptyExchange === true;
    return { conversationId: 1, done: false, payload: payload.reply(serverFirst), ok: 1 };
  }

  function saslContinue(c: WireConnection, cmd: Document, db: string): Document {
    const state = stateOf(c);
    const conversation = state.conversation;
    if (!conversation) return error('ProtocolError', 'No SASL session state found');
    if (db !== state.db) {
      reset(state);
      return error('ProtocolError', 'Attempt to switch database target during SASL authentication.');
    }
    if (Number(cmd.conversationId) !== 1) {
      reset(state);
      return error(
        'ProtocolError',
        `Mismatched conversation id: this connection's conversation is 1, got ${String(cmd.conversationId)}`,
      );
    }
    const payload = payloadOf(cmd);
    if (payload === undefined) return error('BadValue', 'saslContinue needs payload: BinData');
    if (state.awaitingEmpty) {
      reset(state);
      if (payload.text !== '')
        return failed(
          c,
          new ScramError('the last step of the conversation must be empty'),
          conversation.user,
          db,
          false,
        );
      return authenticated(c, { conversationId: 1, done: true, payload: payload.reply(''), ok: 1 });
    }
    let serverFinal: string;
    try {
      serverFinal = conversation.finish(payload.text);
    } catch (err) {
      reset(state);
      return failed(c, err, conversation.user, db, false);
    }
    const reply = {
      conversationId: 1,
      done: state.skipEmptyExchange === true,
      payload: payload.reply(serverFinal),
      ok: 1,
    };
    if (!state.skipEmptyExchange) {
      state.awaitingEmpty = true;
      return reply;
    }
    reset(state);
    return authenticated(c, reply);
  }

  function authenticated(c: WireConnection, reply: Document): Document {
    c.authenticated = true;
    return reply;
  }

  function failed(
    c: WireConnection,
    err: unknown,
    user: string | undefined,
    db: string,
    speculative: boolean,
  ): Document {
    if (!(err instanceof ScramError)) throw err;
    if (!speculative)
      log(`${who(c)}: authentication failed (${SCRAM_SHA_256}, user ${user ?? '?'}@${db}): ${err.message}`);
    return error('AuthenticationFailed', 'Authentication failed.');
  }

  function hello(c: WireConnection, command: Document): Document {
    const { speculativeAuthenticate: spec, saslSupportedMechs: mechsFor, ...rest } = command;
    const reply = runWireCommand(engine, c, rest);
    if (reply.ok !== 1) return reply;
    const extra: Document = {};
    if (typeof mechsFor === 'string' && mechsFor === `${AUTH_DATABASE}.${credentials.user}`)
      extra.saslSupportedMechs = [SCRAM_SHA_256];
    if (spec !== null && typeof spec === 'object' && (spec as Document).saslStart !== undefined) {
      const s = spec as Document;
      const db = typeof s.db === 'string' ? s.db : typeof command.$db === 'string' ? command.$db : AUTH_DATABASE;
      const started = saslStart(c, s, db, true);
      if (started.ok === 1) {
        const { ok: _ok, ...answer } = started;
        extra.speculativeAuthenticate = answer;
      }
    }
    return { ...withoutOk(reply), ...extra, ok: reply.ok };
  }

  function connectionStatus(c: WireConnection, cmd: Document): Document {
    const authInfo: Document = c.authenticated
      ? {
          authenticatedUsers: [{ user: credentials.user, db: AUTH_DATABASE }],
          authenticatedUserRoles: [{ role: 'root', db: AUTH_DATABASE }],
        }
      : { authenticatedUsers: [], authenticatedUserRoles: [] };
    if (cmd.showPrivileges) authInfo.authenticatedUserPrivileges = [];
    return { authInfo, ok: 1 };
  }

  return {
    intercept(c, command) {
      const name = Object.keys(command)[0];
      const db = typeof command.$db === 'string' ? command.$db : AUTH_DATABASE;
      switch (name) {
        case 'saslStart':
          return saslStart(c, command, db, false);
        case 'saslContinue':
          return saslContinue(c, command, db);
        case 'hello':
        case 'isMaster':
        case 'ismaster':
          return hello(c, command);
        case 'connectionStatus':
          return connectionStatus(c, command);
        case 'logout':
          c.authenticated = false;
          reset(stateOf(c));
          return { ok: 1 };
        case 'authenticate': {
          const mechanism = typeof command.mechanism === 'string' ? command.mechanism : 'MONGODB-X509';
          return error(
            'MechanismUnavailable',
            `Received authentication for mechanism ${mechanism} which is not enabled`,
          );
        }
      }
      if (c.authenticated || name === undefined || BEFORE_AUTH.has(name)) return undefined;
      if (!isEngineCommand(name) && !WIRE_COMMANDS.has(name))
        return error(
          'CommandNotFound',
          `no such command: '${name}'. Run {listCommands: 1} to see what the TTL Workbench engine supports.`,
        );
      return error('Unauthorized', `Command ${name} requires authentication`);
    },
  };
}

function reset(state: ConnectionAuth): void {
  delete state.conversation;
  delete state.awaitingEmpty;
  delete state.db;
}

function error(code: ErrorCodeName, message: string): Document {
  return new EngineError(code, message).toReply();
}

function withoutOk(reply: Document): Document {
  const { ok: _ok, ...rest } = reply;
  return rest;
}

/**
 * A SASL payload: BinData, as drivers send it, or a base64 string (an older form mongod still
 * takes); the answer comes back in the same form.
 */
function payloadOf(cmd: Document): { text: string; reply: (text: string) => unknown } | undefined {
  const p = cmd.payload;
  if ((p as { _bsontype?: unknown } | null)?._bsontype === 'Binary')
    return {
      text: Buffer.from((p as Binary).value()).toString('utf8'),
      reply: (t) => new Binary(Buffer.from(t, 'utf8')),
    };
  if (p instanceof Uint8Array)
    return { text: Buffer.from(p).toString('utf8'), reply: (t) => new Binary(Buffer.from(t, 'utf8')) };
  if (typeof p === 'string')
    return { text: Buffer.from(p, 'base64').toString('utf8'), reply: (t) => Buffer.from(t, 'utf8').toString('base64') };
  return undefined;
}
