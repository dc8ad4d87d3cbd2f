// Mutation testing of the core (StrykerJS). Run it through `npm run mutate` (scripts/mutate.js),
// which picks a group below, compiles, and starts Stryker once per group; see CONTRIBUTING.md.
//
// How a mutant is tested: Stryker copies the project into .stryker-tmp/, writes every mutant of
// the group's files into their TypeScript (switched on by an environment variable), and
// recompiles with tsc (incrementally, from the build info `npm run mutate` leaves in out/). The
// tap runner then runs each compiled node:test file as its own process; a first run records which
// test files reach which mutant, and each mutant runs only those files, stopping at the first
// failure. A test file is the narrowest unit this runner knows.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Test files left out of every mutation run although they stay in `npm test`: each takes over a
 * minute on this machine (faults: 95 s of injected storage failures; session: > 1 min of analysis
 * sessions over whole workspaces), and a mutant they cover runs them in full, so a group's run took
 * hours and was stopped. What they check is mostly reached by faster files too, but not all of it:
 * a score measured without them is a lower bound (see CONTRIBUTING.md).
 */
export const SLOW_TESTS = ['storage/faults.test.js', 'analysis/session.test.js'];

/**
 * The groups: what is mutated, and the unit test folders (under out/test/unit/) that may kill it.
 * `skip` lists test files left out of mutation runs because they are slow and add nothing a
 * faster file does not (crash tests kill child processes; the fuzzers have their own npm scripts);
 * SLOW_TESTS are left out of every group. `target` is the score each file of the group is held to
 * (85% unless it says otherwise), which `npm run mutate -- --scores` compares with.
 */
export const groups = {
  ttl: { mutate: ['src/engine/ttl/*.ts'], tests: ['engine/ttl', 'engine/catalog', 'analysis'] },
  matcher: { mutate: ['src/engine/query/matcher.ts'], tests: ['engine/query'] },
  update: { mutate: ['src/engine/query/update/*.ts'], tests: ['engine/query', 'engine/commands'] },
  storage: {
    mutate: ['src/storage/*.ts'],
    tests: ['storage'],
    // Losing acknowledged data outranks everything: storage is held to 90%, the rest to 85%.
    target: 90,
    // Process-kill tests (minutes each, through the bundled CLI) and the fuzzer.
    skip: [
      'storage/crash.test.js',
      'storage/fuzz.test.js',
      'storage/interrupted-runs.test.js',
      'storage/recovery-reopen.test.js',
    ],
  },
  checks: { mutate: ['src/analysis/checks/*.ts'], tests: ['analysis'] },
  protocol: { mutate: ['src/wire/protocol.ts'], tests: ['wire'], skip: ['wire/fuzz.test.js'] },
};

/** Where compiled tests live, and the tsc build info that lets the sandbox recompile only mutated files. */
export const BUILD_INFO = 'out/.mutate-buildinfo';
export const tscArgs = ['-p', 'tsconfig.json', '--incremental', '--tsBuildInfoFile', BUILD_INFO];
// Stryker runs it with the project's node_modules/.bin on PATH (the sandbox's own link comes later).
const buildCommand = `tsc ${tscArgs.join(' ')}`;

/** `src/storage/frames.ts` of `src/storage/frames.ts:36-131` (Stryker's form of a line range). */
function withoutRange(file) {
  return file.replace(/:[\d:-]+$/, '');
}

/** The compiled test files of a group: every *.test.ts under its folders but the skipped ones. */
export function testFilesOf(group) {
  const skipped = [...SLOW_TESTS, ...(group.skip ?? [])];
  const found = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(here, 'test/unit', dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (rel.endsWith('.test.ts') && !skipped.includes(rel.replace(/\.ts$/, '.js')))
        found.push(`out/test/unit/${rel.replace(/\.ts$/, '.js')}`);
    }
  };
  group.tests.forEach(walk);
  // `--tests frames,inspect`: only the files whose name starts with one of these stems, for a run
  // that has to fit in a session on a loaded machine (a surviving mutant runs every covering file).
  // A mutant only a left-out file kills counts as surviving: the score stays a lower bound.
  const only = (process.env.TTL_MUTATE_TESTS ?? '').split(',').filter(Boolean);
  if (only.length) {
    const kept = found.filter((f) => only.some((stem) => path.basename(f).startsWith(stem)));
    found.splice(0, found.length, ...kept);
  }
  // Each mutant runs its covering files in this order and stops at the first failure: the files
  // named after a mutated module (journal-durability for journal.ts) go first, as they fail fastest.
  const stems = (process.env.TTL_MUTATE_FILES ?? '')
    .split(',')
    .filter(Boolean)
    .map((f) => path.basename(withoutRange(f), '.ts'));
  const focused = (f) => stems.some((stem) => path.basename(f).startsWith(stem));
  return found.sort((a, b) => Number(focused(b)) - Number(focused(a)) || a.localeCompare(b));
}

const name = process.env.TTL_MUTATE_GROUP ?? 'ttl';
const group = groups[name];
if (!group) throw new Error(`stryker.config.mjs: no group "${name}" (one of ${Object.keys(groups).join(', ')})`);
const files = process.env.TTL_MUTATE_FILES ? process.env.TTL_MUTATE_FILES.split(',') : group.mutate;
const whole = [...new Set(files.map(withoutRange))];

/**
 * The TypeScript checker only has to tell whether a mutant still type-checks in its own file. Given
 * the whole project (src, test, bench) it re-checked every file that depends on the mutated one,
 * for every group of mutants: a run's checker took a full core and the test runner sat waiting for
 * it. A program of the mutated files (and what they import) keeps the check to those files (a
 * group's patterns, like `src/storage/*.ts`, are globs: hence `include`, not `files`). A
 * mutant that breaks only a dependent's types is then tested instead of set aside as a compile
 * error, which can only lower a score, never raise it.
 */
const CHECKER_TSCONFIG = 'out/stryker-checker.tsconfig.json';
fs.mkdirSync(path.join(here, 'out'), { recursive: true });
fs.writeFileSync(
  path.join(here, CHECKER_TSCONFIG),
  `${JSON.stringify({ extends: '../tsconfig.json', include: whole.map((f) => `../${f}`) }, null, 2)}\n`,
);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'tap',
  tap: {
    testFiles: testFilesOf(group),
    nodeArgs: ['--test-reporter=tap', '-r', '{{hookFile}}', '{{testFile}}'],
    forceBail: true,
  },
  ignorePatterns: ['dist', '.vscode-test', 'bench-results', '*.vsix'],
  mutate: files,
  buildCommand,
  // Only the mutated files get `// @ts-nocheck` (their mutants need not type-check): every other
  // file keeps its text, so the sandbox's incremental tsc recompiles only them.
  disableTypeChecks: whole.length === 1 ? whole[0] : `{${whole.join(',')}}`,
  checkers: ['typescript'],
  tsconfigFile: CHECKER_TSCONFIG,
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: 'perTest',
  // Rerun only what changed since the result checked in for the group (see CONTRIBUTING.md).
  incremental: true,
  incrementalFile: `test/mutation/${name}.incremental.json`,
  concurrency: Number(process.env.TTL_MUTATE_CONCURRENCY ?? 2),
  timeoutMS: 10000,
  timeoutFactor: 2,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${name}/index.html` },
  jsonReporter: { fileName: `reports/mutation/${name}/mutation.json` },
  clearTextReporter: { allowColor: false, reportMutants: true, reportScoreTable: true, logTests: false },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  thresholds: { high: 90, low: 85, break: null },
};
