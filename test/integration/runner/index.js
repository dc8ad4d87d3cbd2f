#!/usr/bin/env node
// Runs the extension's integration tests inside a real VS Code extension host and exits with
// their result. Two routes, one test entry (a module exporting run(), as @vscode/test-electron
// expects):
//   electron     @vscode/test-electron downloads desktop VS Code (needs its download servers);
//   code-server  offline: code-server from npm in headless Chromium (needs only npm and apt).
// The route is TTL_WORKBENCH_VSCODE_ROUTE / --route (auto, electron or code-server); auto takes
// electron when VS Code's download server answers within a few seconds and a window can be
// shown, and code-server otherwise.
//
// Usage:
//   node test/integration/runner --extension-development-path DIR --extension-tests-path FILE
//        [--route auto|electron|code-server] [--workspace DIR] [--screenshot-dir DIR]
//        [--timeout SECONDS] [--keep] [--verbose] [--untrusted] [--storage-held]
// Exit code: 0 passed, 1 a test failed, 2 the host could not be set up or the run timed out.
'use strict';
const https = require('node:https');
const { step } = require('./util');

const DOWNLOAD_PROBE = 'https://update.code.visualstudio.com/api/releases/stable';
const ROUTES = ['auto', 'electron', 'code-server'];

function optionsFromArgs(argv, env = process.env) {
  const options = {
    route: env.TTL_WORKBENCH_VSCODE_ROUTE || 'auto',
    workspace: env.TTL_WORKBENCH_IT_WORKSPACE || undefined,
    screenshotDir: env.TTL_WORKBENCH_SCREENSHOT_DIR || undefined,
    timeoutS: Number(env.TTL_WORKBENCH_IT_TIMEOUT) || 600,
    keep: env.TTL_WORKBENCH_IT_KEEP === '1',
    verbose: env.TTL_WORKBENCH_IT_VERBOSE === '1',
    untrusted: env.TTL_WORKBENCH_IT_UNTRUSTED === '1',
    storageHeld: env.TTL_WORKBENCH_IT_STORAGE_HELD === '1',
  };
  const names = {
    '--extension-development-path': 'extensionDevelopmentPath',
    '--extension-tests-path': 'extensionTestsPath',
    '--route': 'route',
    '--workspace': 'workspace',
    '--screenshot-dir': 'screenshotDir',
    '--timeout': 'timeoutS',
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s);
    if (flag === '--keep') options.keep = true;
    else if (flag === '--verbose') options.verbose = true;
    else if (flag === '--untrusted') options.untrusted = true;
    else if (flag === '--storage-held') options.storageHeld = true;
    else if (names[flag]) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new Error(`${flag} needs a value`);
      options[names[flag]] = flag === '--timeout' ? Number(value) : value;
    } else throw new Error(`unknown argument ${argv[i]}`);
  }
  return options;
}

/** Resolves true when url answers (any HTTP status) within timeoutMs. */
function reachable(url, timeoutMs) {
  return new Promise((resolve) => {
    const req = https.request(url, { method: 'HEAD', timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(true);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(false));
    req.end();
  });
}

async function pickRoute(requested) {
  if (!ROUTES.includes(requested)) throw new Error(`unknown route "${requested}" (use ${ROUTES.join(', ')})`);
  if (requested !== 'auto') return { route: requested, why: 'as asked' };
  const { canShowWindow } = require('./electron-route');
  if (!canShowWindow()) return { route: 'code-server', why: 'no display and no Xvfb for desktop VS Code' };
  const t0 = Date.now();
  const ok = await reachable(DOWNLOAD_PROBE, 3000);
  const ms = Date.now() - t0;
  return ok
    ? { route: 'electron', why: `VS Code's download server answered in ${ms} ms` }
    : { route: 'code-server', why: `VS Code's download server is out of reach (${ms} ms)` };
}

/**
 * Runs the tests; resolves with the exit code. options: extensionDevelopmentPath,
 * extensionTestsPath, and optionally route, workspace, screenshotDir, timeoutS, keep, verbose,
 * env (extra environment variables for the extension host).
 */
async function runIntegrationTests(options) {
  for (const key of ['extensionDevelopmentPath', 'extensionTestsPath']) {
    if (!options[key]) throw new Error(`${key} is required`);
  }
  const { route, why } = await pickRoute(options.route || 'auto');
  step(`route: ${route} (${why}; TTL_WORKBENCH_VSCODE_ROUTE=electron|code-server chooses)`);
  if (route === 'electron') {
    if (options.untrusted) {
      // @vscode/test-electron always starts VS Code with --disable-workspace-trust.
      console.error('[integration] --untrusted needs the code-server route: TTL_WORKBENCH_VSCODE_ROUTE=code-server');
      return 2;
    }
    if (options.storageHeld) {
      // The folder is held before the window opens, in a user-data folder the runner makes.
      console.error('[integration] --storage-held needs the code-server route: TTL_WORKBENCH_VSCODE_ROUTE=code-server');
      return 2;
    }
    return require('./electron-route').runInElectron(options);
  }
  return require('./code-server-route').runInCodeServer(options);
}

/** The suite's closing line ("integration: N passed, N failed, N skipped") when the route relays it. */
function lastSummary() {
  return require('./code-server-route').lastSummary();
}

module.exports = { runIntegrationTests, optionsFromArgs, pickRoute, lastSummary };

if (require.main === module) {
  let options;
  try {
    options = optionsFromArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`[integration] ${e.message}`);
    process.exit(2);
  }
  runIntegrationTests(options).then(
    (code) => {
      if (lastSummary()) console.log(lastSummary()); // last, for tools that read a run's closing line
      process.exit(code);
    },
    (e) => {
      console.error(`[integration] ${e.stack || e.message}`);
      process.exit(2);
    },
  );
}
