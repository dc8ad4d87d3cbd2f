// The usual route where VS Code can be downloaded: @vscode/test-electron downloads desktop
// VS Code into <extensionDevelopmentPath>/.vscode-test and runs the same run() entry in it.
// On Linux without a display it starts its own Xvfb (like xvfb-run) for the VS Code window.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { step, sleep, onPath, killGroup } = require('./util');

const EXIT_HARNESS = 2;

function needsXvfb() {
  return process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
}

/** Whether this machine can show the VS Code window at all (a display, or Xvfb to make one). */
function canShowWindow() {
  return !needsXvfb() || onPath('Xvfb');
}

async function startXvfb() {
  for (let attempt = 0; attempt < 5; attempt++) {
    const display = `:${100 + Math.floor(Math.random() * 400)}`;
    const xvfb = spawn('Xvfb', [display, '-screen', '0', '1280x800x24', '-nolisten', 'tcp'], {
      detached: true,
      stdio: 'ignore',
    });
    await sleep(1000);
    if (xvfb.exitCode === null && xvfb.signalCode === null) return { xvfb, display };
  }
  throw new Error('Xvfb did not start');
}

/** Same contract as runInCodeServer: resolves with the exit code (0 passed, 1 failed, 2 harness). */
async function runInElectron(options) {
  let testElectron;
  try {
    testElectron = require('@vscode/test-electron');
  } catch {
    console.error('[integration] @vscode/test-electron is missing: run `npm ci` (it is a devDependency).');
    return EXIT_HARNESS;
  }
  const version = process.env.TTL_WORKBENCH_VSCODE_VERSION || 'stable';
  const cachePath = path.join(path.resolve(options.extensionDevelopmentPath), '.vscode-test');
  let vscodeExecutablePath;
  try {
    step(`@vscode/test-electron: VS Code ${version} (cache ${cachePath})`);
    vscodeExecutablePath = await testElectron.downloadAndUnzipVSCode({ version, cachePath });
  } catch (e) {
    console.error(`[integration] could not download VS Code: ${e.message}`);
    console.error('[integration] offline? TTL_WORKBENCH_VSCODE_ROUTE=code-server uses the offline route.');
    return EXIT_HARNESS;
  }

  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-workbench-it-'));
  const workspace = path.resolve(options.workspace || path.join(runDir, 'workspace'));
  fs.mkdirSync(workspace, { recursive: true });
  const env = { ...options.env };
  let xvfb;
  try {
    if (needsXvfb()) {
      if (!onPath('Xvfb'))
        throw new Error('no DISPLAY and no Xvfb: install xvfb, or use TTL_WORKBENCH_VSCODE_ROUTE=code-server');
      let display;
      ({ xvfb, display } = await startXvfb());
      env.DISPLAY = display;
      step(`started Xvfb on display ${display}`);
    }
    if (options.screenshotDir) {
      console.log('[integration] screenshots are taken on the code-server route only; this route ignores them');
    }
    step('running the tests in the extension host');
    const timer = setTimeout(
      () => {
        console.error(`[integration] timed out after ${options.timeoutS}s`);
        process.kill(process.pid, 'SIGINT'); // test-electron closes VS Code on SIGINT
      },
      (options.timeoutS || 600) * 1000,
    );
    try {
      await testElectron.runTests({
        vscodeExecutablePath,
        extensionDevelopmentPath: path.resolve(options.extensionDevelopmentPath),
        extensionTestsPath: path.resolve(options.extensionTestsPath),
        extensionTestsEnv: env,
        launchArgs: [workspace, '--disable-extensions'],
      });
      step('finished: exit code 0');
      return 0;
    } catch (e) {
      step(`finished: exit code 1 (${e.message})`);
      return 1;
    } finally {
      clearTimeout(timer);
    }
  } catch (e) {
    console.error(`[integration] ${e.message}`);
    return EXIT_HARNESS;
  } finally {
    await killGroup(xvfb);
    if (!options.keep) fs.rmSync(runDir, { recursive: true, force: true });
  }
}

module.exports = { runInElectron, canShowWindow };
