#!/usr/bin/env node
// `npm start [-- [--no-open] [--code-server] [FOLDER]]`: build the extension and open VS Code with it
// loaded (an Extension Development Host), on FOLDER (default: examples/).
// Routes, in order: the `code` command when VS Code is installed; the VS Code that
// @vscode/test-electron downloads (needs the VS Code download servers); else, offline, the same
// code-server host the integration tests use (installed once into their cache), serving the
// workbench on http://127.0.0.1:PORT/ with the extension loaded. That route prints the URL and
// opens it in a browser where one is available (--no-open: only print it), and runs until Ctrl+C.
// --code-server takes the offline route directly.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const argv = process.argv.slice(2);
const noOpen = argv.includes('--no-open');
const forceCodeServer = argv.includes('--code-server');
const passThrough = argv.filter((a) => a !== '--no-open' && a !== '--code-server');
const folderArg = passThrough.find((a) => !a.startsWith('-'));
const workspace = path.resolve(folderArg ?? path.join(root, 'examples'));

const build = spawnSync(process.execPath, [path.join(root, 'esbuild.js')], { stdio: 'inherit', cwd: root });
if (build.status !== 0) process.exit(build.status ?? 1);

const args = [`--extensionDevelopmentPath=${root}`, ...passThrough];

/** The first program of that name on PATH, or undefined. */
function onPath(program) {
  const which = spawnSync(process.platform === 'win32' ? 'where' : 'which', [program], { encoding: 'utf8' });
  return which.status === 0 && which.stdout.trim() ? which.stdout.trim().split('\n')[0] : undefined;
}

/** The workbench URL that opens `folder` with the extension loaded from this clone. */
function workbenchUrl(port, folder) {
  const remote = (p) => `vscode-remote://127.0.0.1:${port}${p}`;
  const payload = JSON.stringify([['extensionDevelopmentPath', remote(root)]]);
  return `http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(payload)}`;
}

async function startCodeServer() {
  const { installHost } = require('../test/integration/runner/install-host');
  const { freePort } = require('../test/integration/runner/util');
  const host = await installHost();
  // Kept across starts (settings, the walkthrough's "shown" flag). A short path: code-server's IPC
  // socket lives in the user-data folder, and a socket path has a length limit (108 bytes).
  const state = path.join(os.homedir(), '.cache', 'ttl-workbench-start');
  fs.mkdirSync(path.join(state, 'user-data'), { recursive: true });
  fs.mkdirSync(path.join(state, 'extensions'), { recursive: true });
  const port = await freePort();
  const server = spawn(
    host.nodeBin,
    [
      host.codeServerEntry,
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      '--user-data-dir',
      path.join(state, 'user-data'),
      '--extensions-dir',
      path.join(state, 'extensions'),
      '--config',
      path.join(state, 'code-server.yaml'),
      // Without it the workbench ignores the payload that loads the extension.
      '--vscode-option',
      'enable-smoke-test-driver',
      workspace,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const stop = () => server.kill('SIGTERM');
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  server.on('exit', (code, signal) => process.exit(signal ? 0 : (code ?? 0)));
  const readyBy = Date.now() + 90_000;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > readyBy) {
      console.error('code-server did not answer within 90 s; stopping it.');
      stop();
      return;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const url = workbenchUrl(port, workspace);
  console.log(`TTL Workbench is served by code-server ${host.codeServerVersion}. Open it in a browser:`);
  console.log(url);
  console.log('Stop with Ctrl+C.');
  if (noOpen) return;
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'start' : 'xdg-open';
  if (onPath(opener)) spawn(opener, [url], { stdio: 'ignore', detached: true }).unref();
}

(async () => {
  if (!forceCodeServer) {
    const code = onPath('code');
    if (code) {
      console.log('Opening VS Code with TTL Workbench loaded…');
      spawn(code, [...args, ...(folderArg ? [] : [workspace])], { stdio: 'inherit', detached: true }).unref();
      process.exit(0);
    }
    try {
      const { downloadAndUnzipVSCode } = require('@vscode/test-electron');
      console.log('`code` is not on PATH: downloading VS Code with @vscode/test-electron…');
      const executable = await downloadAndUnzipVSCode('stable');
      spawn(executable, [...args, ...(folderArg ? [] : [workspace])], { stdio: 'inherit', detached: true }).unref();
      return;
    } catch (err) {
      console.log(`Could not download VS Code (${err.message}): using the offline code-server host instead.`);
    }
  }
  try {
    await startCodeServer();
  } catch (err) {
    console.error(`Could not start the offline code-server host: ${err.message}`);
    console.error(
      'Install VS Code and put `code` on PATH, or install the packaged extension: npm run package, then "Extensions: Install from VSIX…".',
    );
    process.exit(1);
  }
})();
