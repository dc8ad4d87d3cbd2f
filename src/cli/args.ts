/** Command-line parsing for `ttl-workbench`: pure, so usage errors are tested without a process. */
import { saslPrep } from '../wire/saslprep';

export interface RunOptions {
  files: string[];
  clock: 'virtual' | 'system';
  /** --clock was given (without it, a data folder runs on the clock mode stored with it). */
  clockGiven?: true;
  now?: Date;
  flavor?: 'mongodb' | 'cosmos';
  serverVersion?: '8.0' | '7.0';
  json: boolean;
  /**
   * Print every statement's value, as a notebook does, for .js files too (a .js file otherwise
   * prints only what it prints, as `mongosh file.js` does).
   */
  echo?: boolean;
  timeoutMs: number;
  data?: string;
  /** --replSet NAME: the engine is a one-member replica set (sessions, transactions, change streams). */
  replSet?: string;
  /** Read DIR without writing to it (it may be held by another process); writes fail with IllegalOperation. */
  readOnly?: true;
}

export interface CheckOptions {
  paths: string[];
  json: boolean;
  serverVersion: '8.0' | '7.0';
  disabledRules: string[];
}

export interface ServeOptions {
  port: number;
  host: string;
  clock: 'virtual' | 'system';
  now?: Date;
  flavor: 'mongodb' | 'cosmos';
  serverVersion: '8.0' | '7.0';
  data?: string;
  /** --replSet NAME: serve as the primary of a one-member replica set of this name. */
  replSet?: string;
  /** user:password for SCRAM-SHA-256 (absent: no authentication). */
  auth?: { user: string; password: string };
  /** Serve DIR without writing to it (it may be held by another process); writes fail with IllegalOperation. */
  readOnly?: true;
}

export interface VerifyOptions {
  data: string;
}

export interface SalvageOptions {
  data: string;
  to: string;
}

export interface McpOptions {
  clock: 'virtual' | 'system';
  now?: Date;
  flavor?: 'mongodb' | 'cosmos';
  serverVersion?: '8.0' | '7.0';
  data?: string;
  /** ttl_apply: above this many documents made eligible at once, the user must confirm. */
  confirmExpiryAbove: number;
  /** ttl_simulate's default time limit of one statement. */
  timeoutMs: number;
  /** Read DIR without writing to it (it may be held by another process); ttl_apply is refused with IllegalOperation. */
  readOnly?: true;
}

export type ParsedArgs =
  | { command: 'help' }
  | { command: 'version' }
  | { command: 'run'; options: RunOptions }
  | { command: 'check'; options: CheckOptions }
  | { command: 'serve'; options: ServeOptions }
  | { command: 'verify'; options: VerifyOptions }
  | { command: 'salvage'; options: SalvageOptions }
  | { command: 'mcp'; options: McpOptions };

export class UsageError extends Error {}

export const HELP = `ttl-workbench — run mongosh playgrounds against TTL Workbench's embedded TTL engine

Usage:
  ttl-workbench run [options] FILE...     run .js mongosh scripts and .ttlbook notebooks
  ttl-workbench check [options] [PATH...] find TTL mistakes in index definitions (no engine needed)
  ttl-workbench serve [options]           serve the engine to MongoDB clients (driver, mongosh, Mongoose)
  ttl-workbench verify --data DIR         check a data folder offline, changing nothing in it
  ttl-workbench salvage --data DIR --to NEW
                                          copy everything recoverable from DIR into a new folder
  ttl-workbench mcp [options]             the agent tools as an MCP server on stdin/stdout
  ttl-workbench --help | --version

Each file runs against a fresh engine. By default the engine's clock is virtual: sleep(ms) and
clock.advance("2h") move time forward at once and run every TTL pass that falls due, so results
are reproducible.

Options:
  --clock virtual|system     the engine clock (default: virtual; with --data, the one the folder
                             last ran on)
  --now ISO-DATE             start of the virtual clock (default: the notebook's "engine.now"
                             metadata, else the current time)
  --flavor mongodb|cosmos    engine flavor (default: the notebook's "engine.flavor", else mongodb)
  --server-version 8.0|7.0   which mongod's rules to follow where they differ (default: 8.0)
  --echo                     also print each statement's value for .js files (a .js file prints
                             only what it prints, as mongosh FILE.js does; a .ttlbook
                             notebook always shows each statement's value, as its cells do)
  --json                     one JSON line per statement:
                               {"ok":true,"file":…,"line":…,"result":…,"output":[…]}
                               {"ok":false,"file":…,"line":…,"error":{"code":…,"codeName":…,"message":…}}
  --timeout MS               time limit of one statement (default: 10000)
  --data DIR                 keep the engine in DIR: every file runs against what earlier runs
                             left there (data, indexes, TTL settings, the clock and its mode), and
                             every acknowledged write is on disk (fsync) before the next statement.
                             With --clock system the engine runs on wall time; a folder whose
                             virtual clock is ahead of it refuses the switch (time never runs
                             backwards)
  --read-only                with --data: read DIR without writing anything to it, even while
                             another process writes to it; writes fail with IllegalOperation (20)
                             and TTL passes do not delete
  --replSet NAME             the engine is the primary of a one-member replica set NAME, as
                             mongod --replSet: transactions, retryable writes, change streams

Exit codes: 0 every statement ran; 1 a statement threw (its file and line are printed);
2 bad usage.

check reads .js .mjs .cjs .jsx .ts .mts .cts .tsx and .ttlbook files (default PATH: the current
folder), honours .gitignore files and always skips node_modules. It prints
file:line:col  severity  code  message for each problem.
  --json                     a JSON array of {file, line, column, endLine, endColumn, severity,
                             code, message}; lines and columns are 1-based
  --server-version 8.0|7.0   whose rules apply where they differ (default: 8.0)
  --disable CODE[,CODE]      turn rules off, e.g. --disable TTL013,TTL014
Exit codes: 0 no error (warnings and hints allowed); 1 at least one error; 2 bad usage.

verify reads DIR without changing anything in it (not the lock, not the manifest, not a torn
last record) and prints its files with their sizes, what recovery finds (documents and indexes
per collection, records read), every problem with its file and byte offset, and a verdict. It
works while another process writes to DIR, and says so.
Exit codes: 0 clean (a torn last record alone is reported but is not damage: it is an append a
crash interrupted, never acknowledged, which the next open cuts off); 1 damage found; 2 bad
usage (no --data, DIR missing or not a data folder).

serve starts an engine and serves it over the MongoDB wire protocol until SIGINT or SIGTERM. Its
first line of output is the connection string, mongodb://127.0.0.1:PORT/.
  --port N                   the port (default 27017; 0 picks a free one)
  --bind ADDRESS             the address to listen on (default 127.0.0.1: this machine only)
  --clock, --now, --flavor, --server-version, --data, --replSet   as for run (with --replSet
                             the connection string ends in ?replicaSet=NAME)
  --read-only                with --data: serve DIR without writing anything to it, even while
                             another process writes to it (a window, a run, another serve);
                             writes answer IllegalOperation (20) and TTL passes do not delete
  --auth USER:PASSWORD       require authentication (SCRAM-SHA-256) as USER, a user of the admin
                             database; the first ':' ends USER. Connect with
                             mongodb://USER:PASSWORD@127.0.0.1:PORT/ (authSource admin, the
                             default; percent-encode @ : / in the URI). Until it authenticates,
                             a connection may run only hello, ping, buildInfo, listCommands,
                             connectionStatus and the SASL commands; the rest answer 13
                             (Unauthorized). The password is SASLprepped (RFC 4013) and must pass
                             it. Other local users can see a command line (ps)
Over the wire, {ttlWorkbench: "advanceClock", by: "2h"} (an admin command) moves the virtual
clock and runs the TTL passes that fall due; "setClock" (to: DATE), "runTTLPass" and "status"
too, "invalidTTLIndexes" (NaN and other invalid stored values, which listIndexes cannot show) and
"loadLegacyIndex" (db, collection, spec: an index as an older server left it). A real mongod
answers it with CommandNotFound (59).
Exit codes: 0 stopped by SIGINT or SIGTERM; 1 could not start (port in use, data folder locked);
2 bad usage.

mcp serves TTL Workbench's agent tools (ttl_check_definitions, ttl_explain_index, ttl_simulate,
ttl_engine_state, ttl_apply) to an MCP client over stdin/stdout (Model Context Protocol); log
lines go to stderr. ttl_engine_state and ttl_apply work on the server's own engine (virtual clock,
in memory unless --data); ttl_explain_index and ttl_simulate use a new engine for every call.
  --data DIR                 keep the server's engine in DIR (as for run)
  --read-only                with --data: read DIR without writing to it, even while another
                             process holds it (no lock, no TTL deletes); ttl_apply is refused
                             (IllegalOperation, 20); ttl_engine_state shows DIR as it was when
                             the server started; the other tools work as usual
  --now, --flavor, --server-version   the server's engine, as for run
  --confirm-expiry-above N   ttl_apply refuses a change that makes more than N existing documents
                             eligible for deletion at once unless the user confirms it through
                             the client (MCP elicitation) (default: 1000)
  --timeout MS               ttl_simulate's default time limit of one statement (default: 10000)
Exit codes: 0 the client closed the connection; 1 could not start; 2 bad usage.

salvage reads DIR like verify (changing nothing in it) and writes the state it recovers into NEW
(which must not exist or be empty) as a fresh data folder of the same flavor and server version:
documents, collection options, index and TTL specs exactly as stored, parameters, TTL metrics and
the virtual clock's time. It prints what was salvaged and what was lost.
Exit codes: 0 DIR was clean and everything was copied; 1 DIR had damage (what could be recovered
was copied) or NEW could not be written; 2 bad usage (NEW not empty, inside DIR, ...).
`;

function serverVersionOf(v: string): '8.0' | '7.0' {
  if (v !== '8.0' && v !== '7.0') throw new UsageError(`--server-version must be '8.0' or '7.0', got '${v}'`);
  return v;
}

function valueOf(argv: string[], i: number, flag: string): string {
  const v = argv[i + 1];
  if (v === undefined || v.startsWith('--')) throw new UsageError(`${flag} needs a value (see --help)`);
  return v;
}

export function parseArgs(argv: string[]): ParsedArgs {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h') || argv[0] === 'help')
    return { command: 'help' };
  if (argv.includes('--version')) return { command: 'version' };
  const [command, ...rest] = argv;
  if (command === 'check') return { command: 'check', options: parseCheckArgs(rest) };
  if (command === 'verify') {
    const { data } = parseFolderArgs('verify', rest, ['--data']);
    if (data === undefined)
      throw new UsageError('verify needs the data folder to check: ttl-workbench verify --data DIR');
    return { command: 'verify', options: { data } };
  }
  if (command === 'salvage') {
    const { data, to } = parseFolderArgs('salvage', rest, ['--data', '--to']);
    if (data === undefined || to === undefined) {
      throw new UsageError(
        `salvage needs ${data === undefined ? 'the damaged data folder (--data DIR)' : ''}${data === undefined && to === undefined ? ' and ' : ''}${to === undefined ? 'a new folder to write into (--to NEW, which must not exist or be empty)' : ''}: ttl-workbench salvage --data DIR --to NEW`,
      );
    }
    return { command: 'salvage', options: { data, to } };
  }
  if (command === 'serve') return { command: 'serve', options: parseServeArgs(rest) };
  if (command === 'mcp') return { command: 'mcp', options: parseMcpArgs(rest) };
  if (command !== 'run')
    throw new UsageError(
      `unknown command '${command}': use 'ttl-workbench run FILE...', 'check [PATH...]', 'serve', 'mcp', 'verify --data DIR' or 'salvage --data DIR --to NEW' (see --help)`,
    );
  const options: RunOptions = { files: [], clock: 'virtual', json: false, echo: false, timeoutMs: 10_000 };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    switch (arg) {
      case '--json':
        options.json = true;
        break;
      case '--echo':
        options.echo = true;
        break;
      case '--read-only':
        options.readOnly = true;
        break;
      case '--timeout': {
        const v = Number(valueOf(rest, i++, arg));
        if (!Number.isInteger(v) || v <= 0) throw new UsageError(`--timeout needs a positive number of milliseconds`);
        options.timeoutMs = v;
        break;
      }
      default: {
        const used = engineArg(rest, i, options);
        if (used) {
          i += used - 1;
          break;
        }
        if (arg.startsWith('--')) throw new UsageError(`unknown option '${arg}' (see --help)`);
        options.files.push(arg);
      }
    }
  }
  if (options.files.length === 0) throw new UsageError('run needs at least one FILE (.js or .ttlbook)');
  if (options.readOnly && options.data === undefined)
    throw new UsageError('--read-only reads a data folder without writing to it: give the folder with --data DIR');
  checkEngineArgs(options);
  return { command: 'run', options };
}

function parseCheckArgs(rest: string[]): CheckOptions {
  const options: CheckOptions = { paths: [], json: false, serverVersion: '8.0', disabledRules: [] };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    switch (arg) {
      case '--json':
        options.json = true;
        break;
      case '--server-version':
        options.serverVersion = serverVersionOf(valueOf(rest, i++, arg));
        break;
      case '--disable': {
        const codes = valueOf(rest, i++, arg)
          .split(',')
          .map((c) => c.trim().toUpperCase())
          .filter(Boolean);
        const bad = codes.filter((c) => !/^TTL\d{3}$/.test(c));
        if (bad.length) throw new UsageError(`--disable takes rule codes such as TTL013, got '${bad.join(',')}'`);
        options.disabledRules.push(...codes);
        break;
      }
      default:
        if (arg.startsWith('--')) throw new UsageError(`unknown option '${arg}' for check (see --help)`);
        options.paths.push(arg);
    }
  }
  return options;
}

/** `--data DIR` (and `--to NEW`): folder options, each once, nothing else. */
function parseFolderArgs(command: string, rest: string[], flags: string[]): { data?: string; to?: string } {
  const out: { data?: string; to?: string } = {};
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (!flags.includes(arg)) {
      throw new UsageError(
        arg.startsWith('--')
          ? `unknown option '${arg}' for ${command} (see --help)`
          : `${command} takes no FILE or PATH, got '${arg}': use ${flags.map((f) => `${f} ${f === '--to' ? 'NEW' : 'DIR'}`).join(' ')}`,
      );
    }
    const key = arg === '--data' ? 'data' : 'to';
    if (out[key] !== undefined) throw new UsageError(`${arg} is given twice`);
    out[key] = valueOf(rest, i++, arg);
  }
  return out;
}

function parseServeArgs(rest: string[]): ServeOptions {
  const options: ServeOptions = {
    port: 27017,
    host: '127.0.0.1',
    clock: 'virtual',
    flavor: 'mongodb',
    serverVersion: '8.0',
  };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    switch (arg) {
      case '--port': {
        const v = Number(valueOf(rest, i++, arg));
        if (!Number.isInteger(v) || v < 0 || v > 65535)
          throw new UsageError('--port needs a port number from 0 to 65535 (0 picks a free one)');
        options.port = v;
        break;
      }
      case '--bind':
        options.host = valueOf(rest, i++, arg);
        break;
      case '--auth': {
        const v = valueOf(rest, i++, arg);
        const colon = v.indexOf(':');
        if (colon <= 0 || colon === v.length - 1)
          throw new UsageError('--auth needs USER:PASSWORD, e.g. --auth app:secret');
        const password = v.slice(colon + 1);
        try {
          saslPrep(password);
        } catch (e) {
          throw new UsageError(
            `--auth: SCRAM-SHA-256 cannot use this password: SASLprep (RFC 4013) refuses it, ${(e as Error).message}`,
          );
        }
        options.auth = { user: v.slice(0, colon), password };
        break;
      }
      case '--read-only':
        options.readOnly = true;
        break;
      default: {
        const used = engineArg(rest, i, options);
        if (!used) throw new UsageError(`unknown option '${arg}' for serve (see --help)`);
        i += used - 1;
      }
    }
  }
  if (options.readOnly && options.data === undefined)
    throw new UsageError('--read-only serves a data folder without writing to it: give the folder with --data DIR');
  checkEngineArgs(options);
  return options;
}

function parseMcpArgs(rest: string[]): McpOptions {
  const options: McpOptions = { clock: 'virtual', confirmExpiryAbove: 1000, timeoutMs: 10_000 };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    switch (arg) {
      case '--confirm-expiry-above': {
        const v = Number(valueOf(rest, i++, arg));
        if (!Number.isInteger(v) || v < 0)
          throw new UsageError('--confirm-expiry-above needs a whole number of documents (0 or more)');
        options.confirmExpiryAbove = v;
        break;
      }
      case '--timeout': {
        const v = Number(valueOf(rest, i++, arg));
        if (!Number.isInteger(v) || v < 100 || v > 60_000)
          throw new UsageError('--timeout needs a number of milliseconds from 100 to 60000');
        options.timeoutMs = v;
        break;
      }
      case '--clock':
        throw new UsageError("mcp's engine always has a virtual clock (ttl_simulate moves it); leave --clock out");
      case '--read-only':
        options.readOnly = true;
        break;
      default: {
        const used = engineArg(rest, i, options);
        if (!used) throw new UsageError(`unknown option '${arg}' for mcp (see --help)`);
        i += used - 1;
      }
    }
  }
  if (options.readOnly && options.data === undefined)
    throw new UsageError('--read-only reads a data folder without writing to it: give the folder with --data DIR');
  return options;
}

/** The engine options run and serve share. */
interface EngineArgs {
  clock: 'virtual' | 'system';
  clockGiven?: true;
  now?: Date;
  flavor?: 'mongodb' | 'cosmos';
  serverVersion?: '8.0' | '7.0';
  data?: string;
  replSet?: string;
}

/** Reads one engine option at rest[i] into `options`; returns how many arguments it took (0: not one). */
function engineArg(rest: string[], i: number, options: EngineArgs): number {
  const arg = rest[i];
  switch (arg) {
    case '--clock': {
      const v = valueOf(rest, i, arg);
      if (v !== 'virtual' && v !== 'system') throw new UsageError(`--clock must be 'virtual' or 'system', got '${v}'`);
      options.clock = v;
      options.clockGiven = true;
      return 2;
    }
    case '--now': {
      const v = valueOf(rest, i, arg);
      const d = new Date(v);
      if (Number.isNaN(d.getTime()))
        throw new UsageError(`--now needs an ISO date such as 2026-01-01T00:00:00Z, got '${v}'`);
      options.now = d;
      return 2;
    }
    case '--flavor': {
      const v = valueOf(rest, i, arg);
      if (v !== 'mongodb' && v !== 'cosmos') throw new UsageError(`--flavor must be 'mongodb' or 'cosmos', got '${v}'`);
      options.flavor = v;
      return 2;
    }
    case '--server-version':
      options.serverVersion = serverVersionOf(valueOf(rest, i, arg));
      return 2;
    case '--data':
      options.data = valueOf(rest, i, arg);
      return 2;
    case '--replSet': {
      const v = valueOf(rest, i, arg);
      if (!/^[^/\s,]+$/.test(v))
        throw new UsageError(`--replSet needs a set name without spaces, '/' or ',', got '${v}'`);
      options.replSet = v;
      return 2;
    }
    default:
      return 0;
  }
}

function checkEngineArgs(options: EngineArgs): void {
  if (options.now && options.clock === 'system')
    throw new UsageError('--now sets the virtual clock; it cannot be combined with --clock system');
}
