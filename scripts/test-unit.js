#!/usr/bin/env node
// Compiles the project with tsc (type errors fail the run), bundles with esbuild, and runs every
// unit test with node:test.
// Node 20 cannot run TypeScript, and `node --test <dir>` finds *.test.js files recursively.
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { compileOrExit } = require('./lib/compile');

const root = path.resolve(__dirname, '..');
compileOrExit('test:unit');
// The notebook renderer is a browser bundle with DOM types: its own tsconfig.
compileOrExit('test:unit', path.join(root, 'src', 'extension', 'notebook', 'renderer'));
// CLI tests spawn the bundled dist/cli.js, so bundle first.
const bundle = spawnSync(process.execPath, [path.join(root, 'esbuild.js')], { stdio: 'inherit', cwd: root });
if (bundle.status !== 0) {
  console.error('test:unit: esbuild bundling failed (see errors above).');
  process.exit(bundle.status ?? 1);
}
// scripts/jstests holds the jstests harness's own tests (plain JavaScript, beside the harness).
const dirs = process.argv.slice(2).length ? process.argv.slice(2) : ['out/test/unit', 'scripts/jstests'];
const run = spawnSync(process.execPath, ['--test', ...dirs.map((d) => path.resolve(root, d))], {
  stdio: 'inherit',
  cwd: root,
});
process.exit(run.status ?? 1);
