/** Command-line parsing for `ttl-workbench`: pure, so usage errors are tested without a process. */

export interface RunOptions {
  files: string[];
  clock: 'virtual' | 'system';
  now?: Date;
  flavor?: 'mongodb' | 'cosmos';
  serverVersion?: '8.0' | '7.0';
  json: boolean;
  timeoutMs: number;
  data?: string;
}

export interface CheckOptions {
  paths: string[];
  json: boolean;
  serverVersion: '8.0' | '7.0';
  disabledRules: string[];
}

export type ParsedArgs = { command: 'help' } | { command: 'version' } | { command: 'run'; options: RunOptions } | { command: 'check'; options: CheckOptions };

export class UsageError extends Error {}

export const HELP = `ttl-workbench — run mongosh playgrounds against TTL Workbench's embedded TTL engine

Usage:
  ttl-workbench run [options] FILE...     run .js mongosh scripts and .ttlbook notebooks
  ttl-workbench check [options] [PATH...] find TTL mistakes in index definitions (no engine needed)
  ttl-workbench --help | --version

Each file runs against a fresh engine. By default the engine's clock is virtual: sleep(ms) and
clock.advance("2h") move time forward at once and run every TTL pass that falls due, so results
are reproducible.

Options:
  --clock virtual|system     the engine clock (default: virtual)
  --now ISO-DATE             start of the virtual clock (default: the notebook's "engine.now"
                             metadata, else the current time)
  --flavor mongodb|cosmos    engine flavor (default: the notebook's "engine.flavor", else mongodb)
  --server-version 8.0|7.0   which mongod's rules to follow where they differ (default: 8.0)
  --json                     one JSON line per statement:
                               {"ok":true,"file":…,"line":…,"result":…,"output":[…]}
                               {"ok":false,"file":…,"line":…,"error":{"code":…,"codeName":…,"message":…}}
  --timeout MS               time limit of one statement (default: 10000)
  --data DIR                 keep the engine in DIR: every file runs against what earlier runs
                             left there (data, indexes, TTL settings, the virtual clock), and
                             every acknowledged write is on disk (fsync) before the next statement

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
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h') || argv[0] === 'help') return { command: 'help' };
  if (argv.includes('--version')) return { command: 'version' };
  const [command, ...rest] = argv;
  if (command === 'check') return { command: 'check', options: parseCheckArgs(rest) };
  if (command !== 'run') throw new UsageError(`unknown command '${command}': use 'ttl-workbench run FILE...' or 'ttl-workbench check [PATH...]' (see --help)`);
  const options: RunOptions = { files: [], clock: 'virtual', json: false, timeoutMs: 10_000 };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    switch (arg) {
      case '--clock': {
        const v = valueOf(rest, i++, arg);
        if (v !== 'virtual' && v !== 'system') throw new UsageError(`--clock must be 'virtual' or 'system', got '${v}'`);
        options.clock = v;
        break;
      }
      case '--now': {
        const v = valueOf(rest, i++, arg);
        const d = new Date(v);
        if (Number.isNaN(d.getTime())) throw new UsageError(`--now needs an ISO date such as 2026-01-01T00:00:00Z, got '${v}'`);
        options.now = d;
        break;
      }
      case '--flavor': {
        const v = valueOf(rest, i++, arg);
        if (v !== 'mongodb' && v !== 'cosmos') throw new UsageError(`--flavor must be 'mongodb' or 'cosmos', got '${v}'`);
        options.flavor = v;
        break;
      }
      case '--server-version':
        options.serverVersion = serverVersionOf(valueOf(rest, i++, arg));
        break;
      case '--json':
        options.json = true;
        break;
      case '--timeout': {
        const v = Number(valueOf(rest, i++, arg));
        if (!Number.isInteger(v) || v <= 0) throw new UsageError(`--timeout needs a positive number of milliseconds`);
        options.timeoutMs = v;
        break;
      }
      case '--data':
        options.data = valueOf(rest, i++, arg);
        break;
      default:
        if (arg.startsWith('--')) throw new UsageError(`unknown option '${arg}' (see --help)`);
        options.files.push(arg);
    }
  }
  if (options.files.length === 0) throw new UsageError('run needs at least one FILE (.js or .ttlbook)');
  if (options.now && options.clock === 'system') throw new UsageError('--now sets the virtual clock; it cannot be combined with --clock system');
  if (options.data !== undefined && options.clock === 'system') {
    throw new UsageError('--data keeps a virtual clock with the data (time never runs backwards across runs); it cannot be combined with --clock system');
  }
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
        const codes = valueOf(rest, i++, arg).split(',').map((c) => c.trim().toUpperCase()).filter(Boolean);
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
