#!/usr/bin/env node
// Compiles the project with tsc (type errors fail the run, like scripts/test-unit.js) into out/ and
// bundles dist/ with esbuild (minified, as packaged), then
// runs the benchmark (out/bench/main.js) with --expose-gc so it can measure retained heap per document.
// Arguments are passed through: node scripts/bench.js [--sizes 100000,1000000 | --quick] [--no-matcher]
// Extra node flags (e.g. --cpu-prof) can be given in BENCH_NODE_FLAGS.
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { compileOrExit } = require('./lib/compile');

const root = path.resolve(__dirname, '..');
compileOrExit('bench');
// The extension part times the shipped bundle: build it as `npm run package` does (minified).
const bundle = spawnSync(process.execPath, [path.join(root, 'esbuild.js'), '--production'], {
  stdio: ['ignore', 'ignore', 'inherit'],
  cwd: root,
});
if (bundle.status !== 0) {
  console.error('bench: esbuild failed (see errors above).');
  process.exit(bundle.status ?? 1);
}
const extraFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
const nodeArgs = [
  '--expose-gc',
  // The 1M-document runs keep the data set plus one contender's stores alive.
  '--max-old-space-size=8192',
  ...extraFlags,
  path.join(root, 'out/bench/main.js'),
  ...process.argv.slice(2),
];
const run = spawnSync(process.execPath, nodeArgs, { stdio: 'inherit', cwd: root });
if (run.error) {
  console.error(`bench: could not start node: ${run.error.message}`);
  process.exit(1);
}
process.exit(run.status ?? 1);
