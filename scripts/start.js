#!/usr/bin/env node
// `npm start`: build the extension and open VS Code with it loaded (an Extension Development Host).
// Uses the `code` command when VS Code is installed, otherwise the VS Code that
// @vscode/test-electron downloads (this needs access to the VS Code download servers).
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const build = spawnSync(process.execPath, [path.join(root, 'esbuild.js')], { stdio: 'inherit', cwd: root });
if (build.status !== 0) process.exit(build.status ?? 1);

const args = [`--extensionDevelopmentPath=${root}`, ...process.argv.slice(2)];
const which = spawnSync(process.platform === 'win32' ? 'where' : 'which', ['code'], { encoding: 'utf8' });
if (which.status === 0 && which.stdout.trim()) {
  console.log('Opening VS Code with TTL Workbench loaded…');
  spawn(which.stdout.trim().split('\n')[0], args, { stdio: 'inherit', detached: true }).unref();
  process.exit(0);
}

(async () => {
  const { downloadAndUnzipVSCode } = require('@vscode/test-electron');
  let executable;
  try {
    console.log('`code` is not on PATH: downloading VS Code with @vscode/test-electron…');
    executable = await downloadAndUnzipVSCode('stable');
  } catch (err) {
    console.error(`Could not download VS Code (${err.message}).`);
    console.error(
      'Install VS Code and put `code` on PATH, or install the packaged extension: npm run package, then "Extensions: Install from VSIX…".',
    );
    process.exit(1);
  }
  spawn(executable, args, { stdio: 'inherit', detached: true }).unref();
})();
