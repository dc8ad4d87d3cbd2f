/**
 * Running the real mongosh (the devDependency, 2.x) against the wire endpoint from a test: one
 * process per call, with its home in a temporary folder and no telemetry or update checks (no
 * network beyond loopback), and a notebook turned into a script that marks each top-level
 * statement and prints each expression's value as relaxed EJSON, so its results can be compared
 * with the embedded shell's (`ttl-workbench run --json`).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse } from 'acorn';
import { codeCells, parseTtlbook } from '../../../src/formats/ttlbook';

export const root = path.resolve(__dirname, '../../../..');
/** The prelude as shipped in src (the bundle copies it to dist/mongosh-prelude.js). */
export const PRELUDE = path.join(root, 'src', 'wire', 'mongosh-prelude.js');
const MONGOSH = require.resolve('mongosh/bin/mongosh.js');

export interface MongoshRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

let home: string | undefined;

/** A folder for the scripts a test writes (and mongosh's home); removed by cleanUp(). */
export function scratch(): string {
  home ??= fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-mongosh-'));
  return home;
}

export function cleanUp(): void {
  if (home) fs.rmSync(home, { recursive: true, force: true });
  home = undefined;
}

/** Writes a script into the scratch folder and returns its path. */
export function script(name: string, text: string): string {
  const file = path.join(scratch(), name);
  fs.writeFileSync(file, text);
  return file;
}

/** Runs mongosh with `args` (the connection string among them); `input` goes to its stdin. */
export function mongosh(args: string[], input = ''): Promise<MongoshRun> {
  const started = performance.now();
  const dir = scratch();
  const child = spawn(process.execPath, [MONGOSH, ...args], {
    cwd: root,
    env: {
      ...process.env,
      HOME: dir,
      USERPROFILE: dir,
      APPDATA: dir,
      LOCALAPPDATA: dir,
      // No telemetry, no update check: a test talks to loopback only.
      MONGOSH_FORCE_DISABLE_TELEMETRY_FOR_TESTING: '1',
      CI: '1',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`mongosh ${args.join(' ')} did not finish in 60 s:\n${stdout}\n${stderr}`));
    }, 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    });
  });
}

/** What mongosh printed, as lines without the trailing empty one. */
export function lines(text: string): string[] {
  const all = text.split('\n');
  if (all[all.length - 1] === '') all.pop();
  return all;
}

/** Defines the markers the notebook scripts print (load once, before them). */
export const MARKERS = `globalThis.__ttlStatement = (line) => print('@@statement ' + line);
globalThis.__ttlValue = (line, value) => print('@@value ' + line + ' ' + (value === undefined ? 'null' : EJSON.stringify(value, { relaxed: true })));
`;

export interface NotebookStatement {
  /** 1-based line in the .ttlbook file, as `ttl-workbench run --json` reports it. */
  line: number;
  /** An expression statement: its value is printed. */
  expression: boolean;
}

/** A notebook's code cells as one mongosh script: every statement marked, every expression's value printed. */
export function notebookScript(file: string): { script: string; statements: NotebookStatement[] } {
  const book = parseTtlbook(fs.readFileSync(file, 'utf8'));
  const out: string[] = [];
  const statements: NotebookStatement[] = [];
  for (const cell of codeCells(book)) {
    const program = parse(cell.source, { ecmaVersion: 'latest', sourceType: 'script', locations: true });
    for (const node of program.body) {
      const line = cell.line + node.loc!.start.line - 1;
      statements.push({ line, expression: node.type === 'ExpressionStatement' });
      out.push(`__ttlStatement(${line});`);
      if (node.type === 'ExpressionStatement') {
        const e = node.expression;
        out.push(`__ttlValue(${line}, (${cell.source.slice(e.start, e.end)}));`);
      } else {
        out.push(cell.source.slice(node.start, node.end));
      }
    }
  }
  return { script: `${out.join('\n')}\n`, statements };
}

export interface StatementSeen {
  output: string[];
  value?: unknown;
}

/** Reads back what the marked script printed: per statement line, its printed lines and value. */
export function readMarked(stdout: string): Map<number, StatementSeen> {
  const seen = new Map<number, StatementSeen>();
  let current: StatementSeen | undefined;
  for (const text of lines(stdout)) {
    const statement = /^@@statement (\d+)$/.exec(text);
    const value = /^@@value (\d+) (.*)$/.exec(text);
    if (statement) {
      current = { output: [] };
      seen.set(Number(statement[1]), current);
    } else if (value) {
      seen.get(Number(value[1]))!.value = JSON.parse(value[2]);
    } else if (current) {
      current.output.push(text);
    }
  }
  return seen;
}

/** ObjectIds differ between runs (and between who makes them): compare them as a placeholder. */
export function withoutObjectIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutObjectIds);
  if (value && typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === '$oid') return '<ObjectId>';
    return Object.fromEntries(keys.map((k) => [k, withoutObjectIds((value as Record<string, unknown>)[k])]));
  }
  return value;
}
