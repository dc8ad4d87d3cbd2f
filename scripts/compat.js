#!/usr/bin/env node
// Compiles with tsc into out/, then writes docs/compatibility.md from what the engine answers
// (out/src/compatibility/main.js). `npm run compat -- --check` only checks that the file is current.
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { compileOrExit } = require('./lib/compile');

const root = path.resolve(__dirname, '..');
compileOrExit('compat');
const run = spawnSync(process.execPath, [path.join(root, 'out/src/compatibility/main.js'), ...process.argv.slice(2)], {
  stdio: 'inherit',
  cwd: root,
});
process.exit(run.status ?? 1);
