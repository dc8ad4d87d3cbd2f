#!/usr/bin/env node
// Compiles the project with tsc (type errors fail the run), bundles with esbuild, and runs every
// unit test with node:test.
// Node 20 cannot run TypeScript, and `node --test <dir>` finds *.test.js files recursively.
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', root], { stdio: 'inherit' });
if (tsc.status !== 0) {
  console.error('test:unit: TypeScript compilation failed (see errors above).');
  process.exit(tsc.status ?? 1);
}
// The notebook renderer is a browser bundle with DOM types: its own tsconfig.
const rendererTsc = spawnSync(
  process.execPath,
  [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'src', 'extension', 'notebook', 'renderer')],
  { stdio: 'inherit' },
);
if (rendererTsc.status !== 0) {
  console.error('test:unit: TypeScript compilation of the notebook renderer failed (see errors above).');
  process.exit(rendererTsc.status ?? 1);
}
// CLI tests spawn the bundled dist/cli.js, so bundle first.
const bundle = spawnSync(process.execPath, [path.join(root, 'esbuild.js')], { stdio: 'inherit', cwd: root });
if (bundle.status !== 0) {
  console.error('test:unit: esbuild bundling failed (see errors above).');
  process.exit(bundle.status ?? 1);
}
const dirs = process.argv.slice(2).length ? process.argv.slice(2) : ['out/test/unit'];
const run = spawnSync(process.execPath, ['--test', ...dirs.map((d) => path.resolve(root, d))], {
  stdio: 'inherit',
  cwd: root,
});
process.exit(run.status ?? 1);
