#!/usr/bin/env node
// `npm run mutate`: mutation testing of the core with StrykerJS (stryker.config.mjs), one group
// of modules at a time, never all at once (a shared 2-core machine).
//
//   npm run mutate                             every group (ttl, matcher, update, storage, checks, protocol)
//   npm run mutate -- storage ttl              these groups
//   npm run mutate -- --files src/storage/journal.ts,src/storage/frames.ts
//   npm run mutate -- --files src/storage/frames.ts:36-131   lines 36 to 131 only (several: repeat the file; a loaded machine:
//                                             each part's results land in the incremental file)
//   npm run mutate -- --since main             only core files changed since main (commits and work tree)
//   npm run mutate -- --files src/storage/frames.ts --tests frames,inspect
//                                             only the group's test files whose names start so (a lower bound)
//   npm run mutate -- --concurrency 1 --force  --force: retest every mutant, ignoring the incremental file
//   npm run mutate -- --list                   the groups and their files; runs nothing
//   npm run mutate -- --scores [group ...]     per-file scores of the results checked in; runs nothing
//
// Each group's result is kept in test/mutation/<group>.incremental.json (checked in), so a rerun
// tests only the mutants whose code or covering tests changed. Reports: reports/mutation/<group>/.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

function usage(message) {
  if (message) console.error(`mutate: ${message}`);
  console.error(
    'usage: npm run mutate -- [group ...] [--files a.ts,b.ts] [--tests stem,...] [--since <git ref>] [--concurrency N] [--force] [--list] [--scores]',
  );
  process.exit(2);
}

function parseArgs(argv) {
  const opts = {
    groups: [],
    files: [],
    tests: [],
    since: undefined,
    concurrency: undefined,
    force: false,
    list: false,
    scores: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) usage(`${arg} needs a value`);
      return v;
    };
    if (arg === '--files') opts.files.push(...value().split(','));
    else if (arg.startsWith('--files=')) opts.files.push(...arg.slice(8).split(','));
    else if (arg === '--tests') opts.tests.push(...value().split(','));
    else if (arg.startsWith('--tests=')) opts.tests.push(...arg.slice(8).split(','));
    else if (arg === '--since') opts.since = value();
    else if (arg.startsWith('--since=')) opts.since = arg.slice(8);
    else if (arg === '--concurrency') opts.concurrency = value();
    else if (arg.startsWith('--concurrency=')) opts.concurrency = arg.slice(14);
    else if (arg === '--force') opts.force = true;
    else if (arg === '--list') opts.list = true;
    else if (arg === '--scores') opts.scores = true;
    else if (arg === '--help' || arg === '-h') usage();
    else if (arg.startsWith('-')) usage(`unknown option ${arg}`);
    else opts.groups.push(arg);
  }
  return opts;
}

function git(args) {
  const r = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) {
    console.error(`mutate: git ${args.join(' ')} failed:\n${r.stderr}`);
    process.exit(2);
  }
  return r.stdout.split('\n').filter(Boolean);
}

/** The files a group mutates (its patterns are one folder deep: `dir/*.ts` or a file). */
function filesOf(group) {
  const out = [];
  for (const pattern of group.mutate) {
    if (!pattern.includes('*')) out.push(pattern);
    else {
      const dir = path.posix.dirname(pattern);
      const suffix = path.posix.basename(pattern).replace('*', '');
      for (const f of fs.readdirSync(path.join(root, dir)).sort()) if (f.endsWith(suffix)) out.push(`${dir}/${f}`);
    }
  }
  return out;
}

function run(cmd, args, env) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
}

/** The files Stryker's own instrumenter finds no mutant in: it stores no result for them. */
async function filesWithoutMutants(files, sourceOf) {
  if (!files.length) return new Set();
  const { Instrumenter } = await import('@stryker-mutator/instrumenter');
  const quiet = () => false;
  const none = () => undefined;
  const logger = {
    isTraceEnabled: quiet,
    isDebugEnabled: quiet,
    isInfoEnabled: quiet,
    isWarnEnabled: quiet,
    isErrorEnabled: quiet,
    isFatalEnabled: quiet,
    trace: none,
    debug: none,
    info: none,
    warn: none,
    error: none,
    fatal: none,
  };
  const empty = new Set();
  for (const name of files) {
    const { mutants } = await new Instrumenter(logger).instrument([{ name, content: sourceOf(name), mutate: true }], {
      plugins: null,
      excludedMutations: [],
      ignorers: [],
      noHeader: true,
    });
    if (mutants.length === 0) empty.add(name);
  }
  return empty;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const { groups, tscArgs, testFilesOf, SLOW_TESTS } = await import(path.join(root, 'stryker.config.mjs'));
  for (const g of opts.groups) if (!groups[g]) usage(`no group "${g}" (one of ${Object.keys(groups).join(', ')})`);

  if (opts.scores) {
    const { scoreRows, formatRows } = require('./lib/mutation-scores.js');
    const sourceOf = (file) => {
      try {
        return fs.readFileSync(path.join(root, file), 'utf8');
      } catch {
        return undefined;
      }
    };
    for (const [name, group] of Object.entries(groups)) {
      if (opts.groups.length && !opts.groups.includes(name)) continue;
      const stored = path.join(root, 'test', 'mutation', `${name}.incremental.json`);
      const incremental = fs.existsSync(stored) ? JSON.parse(fs.readFileSync(stored, 'utf8')) : undefined;
      const unmeasured = filesOf(group).filter((f) => !incremental?.files?.[f] && sourceOf(f) !== undefined);
      const empty = await filesWithoutMutants(unmeasured, sourceOf);
      console.log(formatRows(name, scoreRows(incremental, filesOf(group), sourceOf, group.target ?? 85, empty)));
    }
    return 0;
  }

  // Which files of which group: all of the named groups (or every group), narrowed by --files and --since.
  // A file may carry a line range (`frames.ts:36-131`): matched by its path, handed on whole.
  const ranges = new Map();
  let wanted;
  if (opts.files.length)
    wanted = new Set(
      opts.files.map((f) => {
        const [, file, range] = /^(.*?)(:\d+(?::\d+)?-\d+(?::\d+)?)?$/.exec(f);
        const rel = path.relative(root, path.resolve(root, file));
        if (range) ranges.set(rel, [...(ranges.get(rel) ?? []), range]);
        return rel;
      }),
    );
  if (opts.since) {
    const changed = new Set([
      ...git(['diff', '--name-only', `${opts.since}...HEAD`]),
      ...git(['diff', '--name-only', 'HEAD']),
      ...git(['ls-files', '--others', '--exclude-standard']),
    ]);
    wanted = wanted ? new Set([...wanted].filter((f) => changed.has(f))) : changed;
  }
  const plan = [];
  for (const [name, group] of Object.entries(groups)) {
    if (opts.groups.length && !opts.groups.includes(name)) continue;
    const files = filesOf(group)
      .filter((f) => !wanted || wanted.has(f))
      .flatMap((f) => (ranges.get(f) ?? ['']).map((range) => f + range));
    if (files.length) plan.push({ name, files });
  }
  if (opts.list) {
    for (const [name, group] of Object.entries(groups)) {
      const skipped = [...SLOW_TESTS, ...(group.skip ?? [])].filter((f) =>
        group.tests.some((t) => f.startsWith(`${t}/`)),
      );
      console.log(
        `${name}: ${filesOf(group).join(' ')}\n  tests (${testFilesOf(group).length} files): ${group.tests.map((t) => `test/unit/${t}`).join(' ')}` +
          (skipped.length ? `\n  left out: ${skipped.join(' ')}` : ''),
      );
    }
    return 0;
  }
  const unmatched = [...(wanted ?? [])].filter(
    (f) => opts.files.length && !plan.some((p) => p.files.some((g) => g.replace(/:[\d:-]+$/, '') === f)),
  );
  if (unmatched.length && !opts.since) usage(`not in any group: ${unmatched.join(', ')} (npm run mutate -- --list)`);
  if (!plan.length) {
    console.log(`mutate: no core file to mutate${opts.since ? ` changed since ${opts.since}` : ''}; nothing to do.`);
    return 0;
  }
  // Compile once here: Stryker's sandbox starts from this out/ and recompiles only what it mutates,
  // and its incremental mode compares the compiled test files with those of the last run.
  console.log('mutate: compiling (tsc, incremental)…');
  if (run(process.execPath, [require.resolve('typescript/bin/tsc'), ...tscArgs]) !== 0) {
    console.error('mutate: TypeScript compilation failed (see errors above).');
    return 1;
  }

  let status = 0;
  for (const { name, files } of plan) {
    const started = Date.now();
    console.log(`\nmutate: group ${name}: ${files.join(', ')}`);
    const args = [
      path.join(path.dirname(require.resolve('@stryker-mutator/core/package.json')), 'bin', 'stryker.js'),
      'run',
      'stryker.config.mjs',
    ];
    if (opts.force) args.push('--force');
    const code = run(process.execPath, args, {
      TTL_MUTATE_GROUP: name,
      TTL_MUTATE_FILES: files.join(','),
      ...(opts.tests.length ? { TTL_MUTATE_TESTS: opts.tests.join(',') } : {}),
      ...(opts.concurrency ? { TTL_MUTATE_CONCURRENCY: opts.concurrency } : {}),
    });
    console.log(
      `mutate: group ${name} ${code === 0 ? 'done' : `failed (exit ${code})`} in ${Math.round((Date.now() - started) / 1000)} s; report: reports/mutation/${name}/index.html`,
    );
    if (code !== 0) status = code;
  }
  return status;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
