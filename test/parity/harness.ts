/**
 * The differential harness: the same scripts run by the real mongosh (the devDependency) against
 * the wire endpoint, and by `ttl-workbench run` (the project's shell, through `runFile`), each
 * script on a fresh engine whose virtual clock starts at the same instant. What each prints on
 * stdout and the error it stops with (name, code, codeName) are compared, and the differences are
 * listed by script and output line.
 *
 * mongosh starts in one to two seconds, so one mongosh process runs a whole group of scripts:
 * a driver script asks the endpoint for a fresh engine (an admin command only this harness's
 * server answers), loads the TTL Workbench prelude (clock, ttl, the clock-moving sleep), marks
 * where the script's output starts, and `load()`s the script inside a try, so an uncaught error
 * ends that script and not the group.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runFile } from '../../src/cli/run-file';
import { Engine } from '../../src/engine';
import { VirtualClock } from '../../src/engine/clock';
import { WireServer } from '../../src/wire';

export const root = path.resolve(__dirname, '../../..');
const PRELUDE = path.join(root, 'src', 'wire', 'mongosh-prelude.js');
const MONGOSH = require.resolve('mongosh/bin/mongosh.js');

/** Where every engine's virtual clock starts, on both sides. */
export const T0 = '2026-01-01T00:00:00.000Z';

/** The admin command that swaps the endpoint's engine for a fresh one. */
const RESET = 'ttlWorkbenchParityReset';

/** A statement may take this long on the project's side (the 120,000-document insertMany). */
const STATEMENT_LIMIT_MS = 120_000;

/** How long one mongosh process (a group of scripts) may run. */
const GROUP_LIMIT_MS = 600_000;

export interface ParityScript {
  /** Unique, file-name safe: `generated/cursor-limit-3`. */
  name: string;
  source: string;
  /** The engine's flavor (a notebook's `engine.flavor`); default mongodb. */
  flavor?: 'mongodb' | 'cosmos';
}

export interface ScriptError {
  name: string;
  code?: number;
  codeName?: string;
  message: string;
}

export interface SideResult {
  /** Lines written on stdout (without the trailing empty one). */
  lines: string[];
  error?: ScriptError;
}

export interface Difference {
  script: string;
  /** 1-based output line where the texts first differ (absent for an error-only difference). */
  line?: number;
  mongosh: string;
  ours: string;
}

function scratchDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-parity-'));
}

function fileOf(dir: string, script: ParityScript): string {
  const file = path.join(dir, `${script.name.replace(/[^A-Za-z0-9._-]/g, '_')}.js`);
  fs.writeFileSync(file, script.source);
  return file;
}

const MARK = '\u0001parity ';

function driverScript(files: Array<{ name: string; file: string; flavor: string }>): string {
  return `const __parityScripts = ${JSON.stringify(files)};
for (const __s of __parityScripts) {
  db.getSiblingDB('admin').runCommand({ ${RESET}: 1, flavor: __s.flavor });
  db = db.getSiblingDB('test');
  load(${JSON.stringify(PRELUDE)});
  print(${JSON.stringify(MARK)} + 'script ' + __s.name);
  try {
    load(__s.file);
  } catch (e) {
    print(${JSON.stringify(MARK)} + 'error ' + JSON.stringify({ name: e && e.name, code: e && e.code, codeName: e && e.codeName, message: String(e && e.message) }));
  }
}
print(${JSON.stringify(MARK)} + 'end');
`;
}

/** Reads the driver's output back: per script, its lines and its error. */
function readGroup(stdout: string): Map<string, SideResult> {
  const results = new Map<string, SideResult>();
  let current: SideResult | undefined;
  for (const line of stdout.split('\n')) {
    if (line.startsWith(MARK)) {
      const rest = line.slice(MARK.length);
      if (rest.startsWith('script ')) {
        current = { lines: [] };
        results.set(rest.slice('script '.length), current);
      } else if (rest.startsWith('error ') && current) {
        const e = JSON.parse(rest.slice('error '.length)) as ScriptError;
        current.error = {
          name: e.name,
          message: e.message,
          ...(typeof e.code === 'number' ? { code: e.code } : {}),
          ...(typeof e.codeName === 'string' ? { codeName: e.codeName } : {}),
        };
      } else current = undefined;
    } else if (current) current.lines.push(line);
  }
  return results;
}

function runMongosh(args: string[], home: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [MONGOSH, ...args], {
    cwd: home,
    env: {
      ...process.env,
      HOME: home,
      USERPROFILE: home,
      APPDATA: home,
      LOCALAPPDATA: home,
      // Loopback only: no telemetry, no update check.
      MONGOSH_FORCE_DISABLE_TELEMETRY_FOR_TESTING: '1',
      CI: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(
        new Error(`mongosh did not finish a group in ${GROUP_LIMIT_MS / 1000} s:\n${stdout.slice(-2000)}\n${stderr}`),
      );
    }, GROUP_LIMIT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Runs the scripts under mongosh, `groupSize` scripts per mongosh process, against an in-process
 * endpoint that starts every script on a fresh engine at T0.
 */
export async function runUnderMongosh(scripts: ParityScript[], groupSize = 60): Promise<Map<string, SideResult>> {
  const t0 = Date.parse(T0);
  let engine = new Engine({ clock: new VirtualClock(t0) });
  const server = new WireServer({
    engine: () => engine,
    intercept: (_connection, command) => {
      if (command[RESET] === undefined) return undefined;
      engine = new Engine({ clock: new VirtualClock(t0), flavor: command.flavor === 'cosmos' ? 'cosmos' : 'mongodb' });
      return { ok: 1 };
    },
  });
  const { uri } = await server.start();
  const dir = scratchDir();
  const results = new Map<string, SideResult>();
  try {
    for (let i = 0; i < scripts.length; i += groupSize) {
      const group = scripts.slice(i, i + groupSize).map((s) => ({
        name: s.name,
        file: fileOf(dir, s),
        flavor: s.flavor ?? 'mongodb',
      }));
      const driver = path.join(dir, `driver-${i}.js`);
      fs.writeFileSync(driver, driverScript(group));
      // On a busy machine an engine command can hold the endpoint's thread for seconds: polling
      // monitoring with generous timeouts, and one more try for a group whose mongosh gave up.
      const options = [
        'directConnection=true',
        'serverMonitoringMode=poll',
        'heartbeatFrequencyMS=300000',
        'connectTimeoutMS=120000',
        'serverSelectionTimeoutMS=120000',
      ];
      const args = [`${uri}?${options.join('&')}`, '--quiet', '--norc', driver];
      let run = await runMongosh(args, dir);
      if (!run.stdout.includes(`${MARK}end`)) run = await runMongosh(args, dir);
      const seen = readGroup(run.stdout);
      if (!run.stdout.includes(`${MARK}end`))
        throw new Error(
          `mongosh stopped inside a group (exit ${run.code}):\n${run.stderr}\n${run.stdout.slice(-2000)}`,
        );
      for (const s of group) results.set(s.name, seen.get(s.name) ?? { lines: [], error: missing(s.name) });
    }
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

function missing(name: string): ScriptError {
  return { name: 'HarnessError', message: `mongosh gave no output for ${name}` };
}

/** `file:3:1: MongoServerError: E11000 … (code 11000, DuplicateKey)` → its parts. */
export function parseErrorLine(text: string, file: string): ScriptError {
  let rest = text.trim();
  if (rest.startsWith(file)) rest = rest.slice(file.length).replace(/^(:\d+)*: /, '');
  const coded = /^(.*) \(code (\d+)(?:, (\w+))?\)$/s.exec(rest);
  const body = coded ? coded[1] : rest;
  const named = /^(\w+): (.*)$/s.exec(body);
  return {
    name: named ? named[1] : 'Error',
    message: named ? named[2] : body,
    ...(coded ? { code: Number(coded[2]) } : {}),
    ...(coded?.[3] ? { codeName: coded[3] } : {}),
  };
}

/** Runs each script with `ttl-workbench run` (in process, as the CLI does) on a fresh engine at T0. */
export function runWithOurShell(scripts: ParityScript[]): Map<string, SideResult> {
  const dir = scratchDir();
  const results = new Map<string, SideResult>();
  try {
    for (const script of scripts) {
      const file = fileOf(dir, script);
      let stdout = '';
      let stderr = '';
      runFile(
        file,
        {
          files: [file],
          clock: 'virtual',
          now: new Date(T0),
          flavor: script.flavor ?? 'mongodb',
          json: false,
          timeoutMs: STATEMENT_LIMIT_MS,
        },
        (t) => (stdout += t),
        (t) => (stderr += t),
      );
      const lines = stdout.split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      const shown = path.relative(process.cwd(), file) || file;
      results.set(script.name, { lines, ...(stderr ? { error: parseErrorLine(stderr, shown) } : {}) });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

function errorText(e: ScriptError | undefined): string {
  if (!e) return 'no error';
  return e.code !== undefined ? `${e.name} (code ${e.code}, ${e.codeName ?? '?'})` : e.name;
}

/** Errors are the same when their code and codeName are (or, without a code, their name). */
function sameError(a: ScriptError | undefined, b: ScriptError | undefined): boolean {
  if (!a || !b) return a === b;
  if (a.code !== undefined || b.code !== undefined) return a.code === b.code && a.codeName === b.codeName;
  return a.name === b.name;
}

/**
 * Ids the shells generate differ by nature (mongosh makes them from the wall clock and a random
 * value, the project's shell from the virtual clock): their hex digits are not compared.
 */
function withoutGeneratedIds(line: string | undefined): string | undefined {
  return line?.replace(/ObjectId\('[0-9a-f]{24}'\)/g, "ObjectId('<id>')");
}

/** The first difference of each script (its output line, or its error), in corpus order. */
export function compare(
  scripts: ParityScript[],
  mongosh: Map<string, SideResult>,
  ours: Map<string, SideResult>,
): Difference[] {
  const out: Difference[] = [];
  for (const { name } of scripts) {
    const a = mongosh.get(name) ?? { lines: [], error: missing(name) };
    const b = ours.get(name) ?? { lines: [], error: missing(name) };
    const n = Math.max(a.lines.length, b.lines.length);
    let differs = false;
    for (let i = 0; i < n; i++) {
      if (withoutGeneratedIds(a.lines[i]) !== withoutGeneratedIds(b.lines[i])) {
        out.push({ script: name, line: i + 1, mongosh: a.lines[i] ?? '<no line>', ours: b.lines[i] ?? '<no line>' });
        differs = true;
        break;
      }
    }
    if (!differs && !sameError(a.error, b.error))
      out.push({
        script: name,
        mongosh: `${errorText(a.error)}${a.error ? `: ${a.error.message}` : ''}`,
        ours: `${errorText(b.error)}${b.error ? `: ${b.error.message}` : ''}`,
      });
  }
  return out;
}

/** The differences as text, one block per script. */
export function report(differences: Difference[]): string {
  return differences
    .map(
      (d) =>
        `${d.script}${d.line !== undefined ? `, output line ${d.line}` : ', error'}:\n  mongosh: ${d.mongosh}\n  ours:    ${d.ours}`,
    )
    .join('\n');
}
