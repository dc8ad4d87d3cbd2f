#!/usr/bin/env node
// Runs MongoDB's own jstests (an upstream checkout outside this repository) against the engine:
//
//   npx tsc -p . && node scripts/jstests/run.js --root /work/jstests-upstream [--grep X] [--jobs N]
//     [--timeout SECONDS] [--dirs jstests/core,jstests/aggregation] [--report FILE.md] [--json FILE]
//
// Each selected file runs in a worker process (worker.js) against a fresh in-memory engine, through
// the playground shell with the legacy shell helpers of legacy-shell.js. Files that need more than a
// standalone mongod are left out (select.js) and counted by reason; failures are grouped by cause
// (causes.js). Not part of `npm test`: CI has no upstream files.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { fork, execFileSync } = require('node:child_process');
const { exclusionReason, needsReplicaSet } = require('./select');
const { areaOf, causeOf } = require('./causes');

const DEFAULT_DIRS = ['jstests/core', 'jstests/aggregation'];
/** Folders of helpers and data, not tests. */
const NOT_TESTS = [/\/extras\//, /\/data\//, /\/libs\//];

function parseArgs(argv) {
  const opts = {
    root: undefined,
    grep: undefined,
    jobs: 1,
    timeout: 20,
    dirs: DEFAULT_DIRS,
    report: undefined,
    json: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--root') opts.root = path.resolve(value());
    else if (a === '--grep') opts.grep = value();
    else if (a === '--jobs') opts.jobs = Math.max(1, Number(value()));
    else if (a === '--timeout') opts.timeout = Number(value());
    else if (a === '--dirs') opts.dirs = value().split(',');
    else if (a === '--report') opts.report = path.resolve(value());
    else if (a === '--json') opts.json = path.resolve(value());
    else throw new Error(`unknown argument ${a}`);
  }
  if (!opts.root) throw new Error('--root DIR is required: a folder holding the upstream jstests/ (see README.md)');
  if (!(opts.timeout > 0)) throw new Error('--timeout needs a positive number of seconds');
  return opts;
}

function listTests(root, dirs) {
  const out = [];
  const walk = (rel) => {
    const full = path.join(root, rel);
    for (const entry of fs.readdirSync(full, { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith('.js') && !NOT_TESTS.some((re) => re.test(`${child}`))) out.push(child);
    }
  };
  for (const d of dirs) {
    if (!fs.existsSync(path.join(root, d))) throw new Error(`${d} is not under ${root}`);
    walk(d);
  }
  return out.sort();
}

function upstreamCommit(root) {
  const file = path.join(root, 'UPSTREAM_COMMIT');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  try {
    return execFileSync('git', ['-C', root, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** Runs the files on `jobs` workers; a file past its time limit costs its worker, which is replaced. */
function runAll(root, files, jobs, timeoutS, onResult, replicaSetFiles = new Set()) {
  return new Promise((resolve) => {
    const queue = files.slice();
    let running = 0;
    const start = () => {
      const child = fork(path.join(__dirname, 'worker.js'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      running++;
      let current = null;
      let timer = null;
      const next = () => {
        current = queue.shift();
        if (current === undefined) {
          child.kill();
          return;
        }
        timer = setTimeout(
          () => {
            onResult({ file: current, ok: false, timedOut: true, ms: timeoutS * 1000 });
            current = null;
            child.kill('SIGKILL');
          },
          (timeoutS + 5) * 1000,
        );
        child.send({
          type: 'run',
          root,
          file: current,
          timeoutMs: timeoutS * 1000,
          replSet: replicaSetFiles.has(current),
        });
      };
      child.on('message', (msg) => {
        if (msg.type === 'ready') next();
        else if (msg.type === 'result') {
          clearTimeout(timer);
          onResult(msg);
          next();
        }
      });
      child.on('exit', () => {
        clearTimeout(timer);
        if (current)
          onResult({
            file: current,
            ok: false,
            phase: 'harness',
            error: { name: 'Crash', message: 'the worker exited while running the test' },
          });
        running--;
        if (queue.length) start();
        else if (running === 0) resolve();
      });
    };
    for (let i = 0; i < Math.min(jobs, files.length); i++) start();
    if (files.length === 0) resolve();
  });
}

function markdown({ commit, root, dirs, all, excluded, results }) {
  const passed = results.filter((r) => r.ok);
  const failed = results.filter((r) => !r.ok);
  const causes = new Map();
  for (const r of failed) {
    const key = causeOf(r);
    if (!causes.has(key)) causes.set(key, []);
    causes.get(key).push(r);
  }
  const sorted = [...causes.entries()].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1));
  const pct = results.length ? ((100 * passed.length) / results.length).toFixed(1) : '0';
  const lines = [];
  lines.push('# MongoDB jstests against the TTL Workbench engine', '');
  lines.push(`Upstream commit: \`${commit}\` (from ${root}); folders: ${dirs.map((d) => `\`${d}\``).join(', ')}.`, '');
  lines.push('| | tests |', '| --- | --- |');
  lines.push(`| found | ${all} |`, `| left out (need more than a standalone) | ${all - results.length} |`);
  lines.push(`| run | ${results.length} |`, `| passed | ${passed.length} (${pct}%) |`, `| failed | ${failed.length} |`);
  const onReplicaSet = results.filter((r) => r.replSet);
  if (onReplicaSet.length)
    lines.push(
      `| of those run, on a replica-set engine (transactions, snapshot reads) | ${onReplicaSet.length}, passed ${onReplicaSet.filter((r) => r.ok).length} |`,
    );
  lines.push('');
  lines.push('## Left out, by reason', '', '| reason | tests |', '| --- | --- |');
  const reasons = new Map();
  for (const { reason } of excluded) reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  for (const [reason, n] of [...reasons.entries()].sort((a, b) => b[1] - a[1])) lines.push(`| ${reason} | ${n} |`);
  lines.push('', '## Failures by area (most tests first)', '', '| area | tests |', '| --- | --- |');
  const areas = new Map();
  for (const r of failed) {
    const area = areaOf(r);
    if (!areas.has(area)) areas.set(area, []);
    areas.get(area).push(r);
  }
  for (const [area, rs] of [...areas.entries()].sort((a, b) => b[1].length - a[1].length))
    lines.push(`| ${area} | ${rs.length} |`);
  lines.push('', '## Failures by cause (most tests first)', '');
  for (const [cause, rs] of sorted) {
    const first = rs[0];
    const where = first.error?.line ? ` (line ${first.error.line})` : '';
    lines.push(`### ${rs.length} × ${cause.replace(/\|/g, '\\|')}`, '');
    if (first.error?.message)
      lines.push(
        `First error${where}, in \`${first.file}\`:`,
        '',
        '```',
        String(first.error.message).slice(0, 600),
        '```',
        '',
      );
    if (rs.length > 1 && rs.some((r) => r.source)) {
      // Wide groups (a wrong result, a bare assert) are told apart by the line that failed.
      for (const r of rs)
        lines.push(
          `- \`${r.file.replace(/^jstests\//, '')}\`:${r.error?.line ?? '?'} \`${(r.source ?? '').replace(/`/g, "'")}\``,
        );
      lines.push('');
    } else lines.push(`Tests: ${rs.map((r) => `\`${r.file.replace(/^jstests\//, '')}\``).join(', ')}`, '');
  }
  return lines.join('\n');
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(path.join(__dirname, '../../out/src/shell/session.js')))
    throw new Error('out/ is missing: build first with `npx tsc -p .`');
  let files = listTests(opts.root, opts.dirs);
  if (opts.grep) files = files.filter((f) => f.includes(opts.grep));
  const selected = [];
  const excluded = [];
  const replicaSet = new Set();
  for (const f of files) {
    const text = fs.readFileSync(path.join(opts.root, f), 'utf8');
    const reason = exclusionReason(text, f);
    if (reason) excluded.push({ file: f, reason });
    else {
      selected.push(f);
      if (needsReplicaSet(text)) replicaSet.add(f);
    }
  }
  const reasons = new Map();
  for (const { reason } of excluded) reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  console.log(`${files.length} test files, ${selected.length} selected, ${excluded.length} left out:`);
  for (const [reason, n] of [...reasons.entries()].sort((a, b) => b[1] - a[1]))
    console.log(`  ${String(n).padStart(4)}  ${reason}`);

  const results = [];
  const started = Date.now();
  await runAll(
    opts.root,
    selected,
    opts.jobs,
    opts.timeout,
    (r) => {
      if (replicaSet.has(r.file)) r.replSet = true;
      results.push(r);
      const status = r.ok ? 'pass' : r.timedOut ? 'TIMEOUT' : 'FAIL';
      const detail = r.ok ? '' : `  ${causeOf(r)}${r.error?.line ? ` (line ${r.error.line})` : ''}`;
      console.log(`[${results.length}/${selected.length}] ${status} ${r.file} ${r.ms ?? ''}ms${detail}`);
    },
    replicaSet,
  );
  results.sort((a, b) => (a.file < b.file ? -1 : 1));
  const passed = results.filter((r) => r.ok).length;
  console.log(
    `\nran ${results.length}, passed ${passed}, failed ${results.length - passed} in ${Math.round((Date.now() - started) / 1000)} s`,
  );
  const commit = upstreamCommit(opts.root);
  if (opts.report)
    fs.writeFileSync(
      opts.report,
      markdown({ commit, root: opts.root, dirs: opts.dirs, all: files.length, excluded, results }),
    );
  if (opts.json) fs.writeFileSync(opts.json, JSON.stringify({ commit, excluded, results }, null, 1));
}

module.exports = { markdown };

if (require.main === module) {
  main().catch((e) => {
    console.error(`jstests: ${e.message}`);
    process.exit(2);
  });
}
