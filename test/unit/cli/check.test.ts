/**
 * `ttl-workbench check` through the bundled CLI (dist/cli.js) on temporary folders: the eslint-like
 * text lines, the --json shape with 1-based positions, exit codes, .gitignore and node_modules.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { parseArgs, UsageError } from '../../../src/cli/args';

const root = path.resolve(__dirname, '../../../..');
const cli = path.join(root, 'dist', 'cli.js');

function run(args: string[], cwd: string): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, 'check', ...args], { encoding: 'utf8', cwd });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-check-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

const NEGATIVE = `db.s.createIndex({ lastSeen: 1 }, { expireAfterSeconds: -1 });\n`;
const MILLIS = `\n  db.s.createIndex({ t: 1 }, { expireAfterSeconds: 86400000 });\n`;
const CLEAN = `db.s.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 3600 });\n`;

interface Row {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  severity: string;
  code: string;
  message: string;
}

describe('ttl-workbench check', () => {
  test('prints file:line:col  severity  code  message and exits 1 on an error', () => {
    const dir = project({ 'a.js': NEGATIVE, 'b.ts': MILLIS, 'ok.mjs': CLEAN });
    const r = run([], dir);
    assert.equal(r.code, 1, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.match(
      lines[0],
      /^a\.js:1:57 {2}error {2}TTL003 {2}createIndex fails with CannotCreateIndex \(67\): .*cannot be less than 0/,
    );
    assert.match(lines[1], /^b\.ts:2:52 {2}warning {2}TTL014 {2}expireAfterSeconds: 86400000 is 1,000 days/);
    assert.equal(lines[2], '');
    assert.match(lines[3], /^2 problems \(1 error, 1 warning or hint\) in 3 files checked$/);
  });

  test('exits 0 with warnings only, and prints nothing for clean files', () => {
    assert.equal(run([], project({ 'b.cjs': MILLIS })).code, 0);
    const clean = run([], project({ 'ok.js': CLEAN, 'ok.tsx': `export const A = () => <div>{CLEAN}</div>;\n` }));
    assert.equal(clean.code, 0);
    assert.equal(clean.stdout, '');
  });

  test('--json prints an array of {file, line, column, endLine, endColumn, severity, code, message}, 1-based', () => {
    const dir = project({
      'src/a.js': NEGATIVE,
      'b.ttlbook': `// %%\ndb.x.createIndex({ t: 1 }, { expireAfterSeconds: 0.5 })\n`,
    });
    const r = run(['--json'], dir);
    assert.equal(r.code, 1);
    const rows = JSON.parse(r.stdout) as Row[];
    assert.deepEqual(
      rows.map((x) => Object.keys(x)),
      rows.map(() => ['file', 'line', 'column', 'endLine', 'endColumn', 'severity', 'code', 'message']),
    );
    assert.deepEqual(
      rows.map(({ message: _m, ...rest }) => rest),
      [
        { file: 'b.ttlbook', line: 2, column: 50, endLine: 2, endColumn: 53, severity: 'warning', code: 'TTL005' },
        {
          file: path.join('src', 'a.js'),
          line: 1,
          column: 57,
          endLine: 1,
          endColumn: 59,
          severity: 'error',
          code: 'TTL003',
        },
      ],
    );
  });

  test('files the parser cannot read to the end are counted in the summary, each with a TTL022 where reading stopped', () => {
    const dir = project({
      'flow.js': `${CLEAN}function ttl(days: number): number { return days; }\n${NEGATIVE}`,
      'banner.ts': `${CLEAN}const banner = <b>hi</b>;\n`,
      'ok.js': NEGATIVE,
    });
    const r = run([], dir);
    const lines = r.stdout.trim().split('\n');
    assert.deepEqual(
      lines.slice(0, -2).map((l) => l.split('  ').slice(0, 3).join('  ')),
      ['banner.ts:2:23  information  TTL022', 'flow.js:2:18  information  TTL022', 'ok.js:1:57  error  TTL003'],
    );
    assert.equal(
      lines[lines.length - 1],
      '3 problems (1 error, 2 warnings or hints) in 3 files checked; 2 files could not be fully read (see TTL022)',
    );
  });

  test('a constant imported from a workspace file is followed: check and the editor read it the same way (rule 1.4)', () => {
    const dir = project({
      'config/ttl.js': `const DAY_MS = 24 * 60 * 60 * 1000;\nmodule.exports = { SESSION_TTL: DAY_MS, LOG_TTL: 30 * 86400 };\n`,
      'src/session.ts': `import { SESSION_TTL, LOG_TTL } from '../config/ttl';\nawait db.collection('s').createIndex({ at: 1 }, { expireAfterSeconds: SESSION_TTL });\nawait db.collection('l').createIndex({ at: 1 }, { expireAfterSeconds: LOG_TTL });\n`,
    });
    const r = run(['--json'], dir);
    const rows = JSON.parse(r.stdout) as Row[];
    assert.deepEqual(
      rows.map((x) => [x.file, x.line, x.code]),
      [[path.join('src', 'session.ts'), 2, 'TTL014']],
    );
    assert.match(rows[0].message, /86400000 is 1,000 days/);
  });

  test('--json prints [] when there is nothing to say', () => {
    const r = run(['--json'], project({ 'ok.js': CLEAN }));
    assert.equal(r.code, 0);
    assert.deepEqual(JSON.parse(r.stdout), []);
  });

  test('respects .gitignore (root and nested, folders and patterns) and skips node_modules', () => {
    const dir = project({
      '.gitignore': 'build/\n*.generated.js\n',
      'build/a.js': NEGATIVE,
      'src/x.generated.js': NEGATIVE,
      'src/.gitignore': 'legacy.js\n',
      'src/legacy.js': NEGATIVE,
      'node_modules/pkg/index.js': NEGATIVE,
      'src/kept.js': NEGATIVE,
    });
    const r = run(['--json'], dir);
    assert.deepEqual(
      (JSON.parse(r.stdout) as Row[]).map((x) => x.file),
      [path.join('src', 'kept.js')],
    );
    // Checking a subfolder still honours the root .gitignore.
    const sub = run(['--json', 'src'], dir);
    assert.deepEqual(
      (JSON.parse(sub.stdout) as Row[]).map((x) => x.file),
      [path.join('src', 'kept.js')],
    );
    // A file named on the command line is checked even if ignored, as the user asked for it.
    const named = run(['--json', 'build/a.js'], dir);
    assert.deepEqual(
      (JSON.parse(named.stdout) as Row[]).map((x) => x.file),
      [path.join('build', 'a.js')],
    );
  });

  test('--disable turns rules off and --server-version 7.0 makes capped TTL an error', () => {
    const dir = project({
      'a.js': NEGATIVE,
      'capped.js': `db.createCollection('log', { capped: true, size: 4096 });\ndb.log.createIndex({ at: 1 }, { expireAfterSeconds: 60 });\n`,
    });
    assert.deepEqual(JSON.parse(run(['--json', '--disable', 'TTL003', 'a.js'], dir).stdout) as Row[], []);
    assert.equal(run(['capped.js'], dir).code, 0);
    const old = run(['--json', '--server-version', '7.0', 'capped.js'], dir);
    assert.equal(old.code, 1);
    assert.deepEqual(
      (JSON.parse(old.stdout) as Row[]).map((x) => [x.code, x.severity]),
      [['TTL008', 'error']],
    );
  });

  test('a missing path or a bad option exits 2', () => {
    const dir = project({});
    const missing = run(['nope'], dir);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no such file or folder: nope/);
    assert.equal(run(['--fix'], dir).code, 2);
  });

  test('parseArgs: check options', () => {
    assert.deepEqual(parseArgs(['check']), {
      command: 'check',
      options: { paths: [], json: false, serverVersion: '8.0', disabledRules: [] },
    });
    assert.deepEqual(parseArgs(['check', 'src', '--json', '--disable', 'ttl013,TTL014', 'x.ts']), {
      command: 'check',
      options: { paths: ['src', 'x.ts'], json: true, serverVersion: '8.0', disabledRules: ['TTL013', 'TTL014'] },
    });
    assert.throws(() => parseArgs(['check', '--disable', 'no-such']), UsageError);
    assert.throws(() => parseArgs(['check', '--server-version', '6.0']), UsageError);
  });
});
