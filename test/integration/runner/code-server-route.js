// The offline route: the extension's tests run in the Node extension host of code-server
// (VS Code's own server build), whose workbench is opened in headless Chromium through
// playwright-core. The workbench's smoke-test driver takes the test payload from the URL and
// reports back through two functions the runner exposes to the page:
//   codeAutomationLog(type, args)  the extension host's console (and the workbench's log)
//   codeAutomationExit(code)       the exit code of the tests' run() (0 = passed)
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const util = require('node:util');
const { spawn } = require('node:child_process');
const { installHost } = require('./install-host');
const { createUiDriver } = require('./ui-driver');
const { globalEngineDir, holdDataFolder } = require('./storage-holder');
const { step, sleep, freePort, killGroup, killGroupNow, childGroups, reapGroup, tail } = require('./util');

// Exit codes of the runner besides the tests' own 0 (passed) and 1 (failed).
const EXIT_HARNESS = 2; // the host could not be installed or started, or the run timed out

// codeAutomationLog carries the workbench's own log as well as the extension host's console.
// These are the workbench's lines seen on every run that say nothing about the tests (start-up
// chatter, and look-ups of the extension gallery and GitHub sign-in that cannot reach the
// network, with their stacks). They still go to host.log; TTL_WORKBENCH_IT_VERBOSE=1 prints them.
const NOISE = [
  /^Resolv(ing|ed) connection token/,
  /^Creating a socket \(/,
  /^\[(reconnection-grace-time|Service Worker|AgentHost[^\]]*|ChatModelSelection|AccountPolicyGate)\]/,
  /^Updating additional builtin extensions cache/,
  /^Creation of workbench contribution '[^']*' took \d+ms/,
  /^Timed out waiting for authentication provider/,
  /open-vsx\.org/,
];
// The suite's closing line ("integration: N passed, N failed, N skipped") is relayed bare so
// that tools reading a run's last lines see it.
const SUMMARY = /^\w+: \d+ passed, \d+ failed(, \d+ skipped)?$/;
// `[screenshot:name.png]`, optionally followed by what to crop to: {"selector": CSS, "pad": px, "within": CSS}.
const SCREENSHOT = /\[screenshot:([\w.-]+\.png)\](?: (\{.*\}))?/;

let summary; // the last closing line the suite printed

/** The suite's closing line of the last run ("integration: N passed, N failed, N skipped"), if any. */
function lastSummary() {
  return summary;
}

/**
 * `untrusted`: Workspace Trust on, the run's folder opened in Restricted Mode with no start-up
 * prompt to answer (a test grants trust when it wants to, through the real trust editor).
 */
function userSettings(untrusted = false, storageHeld = false) {
  const trust = untrusted
    ? {
        'security.workspace.trust.enabled': true,
        'security.workspace.trust.startupPrompt': 'never',
        'security.workspace.trust.untrustedFiles': 'open',
        'security.workspace.trust.emptyWindow': false,
      }
    : { 'security.workspace.trust.enabled': false };
  return {
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'workbench.enableExperiments': false,
    ...trust,
    // The data folder another process holds in that pass (storage-holder.js).
    ...(storageHeld ? { 'ttlWorkbench.storage': 'global' } : {}),
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoUpdate': false,
    'extensions.autoCheckUpdates': false,
    'extensions.ignoreRecommendations': true,
    'git.enabled': false,
    'chat.disableAIFeatures': true,
    'window.restoreWindows': 'none',
  };
}

/**
 * Runs the tests and resolves with the exit code: 0 passed, 1 failed, 2 harness failure,
 * 130/143 interrupted. Never leaves code-server or Chromium running.
 *
 * options: extensionDevelopmentPath, extensionTestsPath (absolute), workspace (optional folder to
 * open; a fresh temp folder otherwise), screenshotDir (optional), timeoutS, keep (keep the run's
 * logs even when it passed), verbose, untrusted (open the folder in Restricted Mode), storageHeld
 * (another process holds the extension's data folder before the window opens), env (extra
 * variables for the extension host).
 */
async function runInCodeServer(options) {
  let host;
  try {
    host = await installHost();
  } catch (e) {
    console.error(`[integration] could not install the offline VS Code host: ${e.message}`);
    return EXIT_HARNESS;
  }
  let chromium;
  try {
    ({ chromium } = require('playwright-core'));
  } catch {
    console.error('[integration] playwright-core is missing: run `npm ci` (it is a devDependency).');
    return EXIT_HARNESS;
  }

  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-workbench-it-'));
  const workspace = path.resolve(options.workspace || path.join(runDir, 'workspace'));
  fs.mkdirSync(workspace, { recursive: true });
  const userData = path.join(runDir, 'user-data');
  fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
  fs.writeFileSync(
    path.join(userData, 'User', 'settings.json'),
    JSON.stringify(userSettings(options.untrusted, options.storageHeld), null, 2),
  );
  const screenshotDir = options.screenshotDir ? path.resolve(options.screenshotDir) : undefined;
  // Replies to the tests' UI requests (ui-driver.js).
  const uiDir = path.join(runDir, 'ui');
  fs.mkdirSync(uiDir, { recursive: true });
  if (screenshotDir) fs.mkdirSync(screenshotDir, { recursive: true });
  const hostLog = fs.createWriteStream(path.join(runDir, 'host.log'));
  const pageLog = fs.createWriteStream(path.join(runDir, 'page-console.log'));
  const csLogFile = path.join(runDir, 'code-server.log');

  let codeServer;
  let holder; // the process holding the data folder (storageHeld)
  let browser;
  let browserGroups = []; // Chromium's process group(s), to make sure none of it outlives the run
  let settle; // resolves the run's outcome: { code, why }
  const outcome = new Promise((resolve) => (settle = resolve));
  let settled = false;
  const finish = (code, why) => {
    if (!settled) {
      settled = true;
      settle({ code, why });
    }
  };
  const onSignal = (sig) => finish(sig === 'SIGINT' ? 130 : 143, sig);
  const onExit = () => killGroupNow(codeServer);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  process.on('exit', onExit);
  const timeoutS = options.timeoutS || 600;
  const timer = setTimeout(() => finish(EXIT_HARNESS, `timed out after ${timeoutS}s`), timeoutS * 1000);

  try {
    if (options.storageHeld) {
      holder = await holdDataFolder(
        globalEngineDir(userData, options.extensionDevelopmentPath),
        options.extensionDevelopmentPath,
      );
      step(`process ${holder.pid} (ttl-workbench serve) holds ${holder.dir}`);
    }
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    step(`starting code-server ${host.codeServerVersion} on ${base} (logs in ${runDir})`);
    const csLog = fs.openSync(csLogFile, 'a');
    codeServer = spawn(
      host.nodeBin,
      [
        host.codeServerEntry,
        '--auth',
        'none',
        '--bind-addr',
        `127.0.0.1:${port}`,
        '--disable-telemetry',
        '--disable-update-check',
        ...(options.untrusted ? [] : ['--disable-workspace-trust']),
        '--disable-getting-started-override',
        '--user-data-dir',
        userData,
        '--extensions-dir',
        path.join(runDir, 'extensions'),
        '--config',
        path.join(runDir, 'code-server.yaml'),
        // Without it the built workbench ignores the payload in the URL.
        '--vscode-option',
        'enable-smoke-test-driver',
        '--log',
        'info',
        workspace,
      ],
      {
        detached: true, // its own process group: ends with everything it started
        stdio: ['ignore', csLog, csLog],
        env: {
          ...process.env,
          ...options.env,
          ...(screenshotDir ? { TTL_WORKBENCH_IT_SCREENSHOT_DIR: screenshotDir } : {}),
          TTL_WORKBENCH_IT_UI_DIR: uiDir,
          ...(options.untrusted ? { TTL_WORKBENCH_IT_UNTRUSTED: '1' } : {}),
          ...(holder ? { TTL_WORKBENCH_IT_HELD_DIR: holder.dir, TTL_WORKBENCH_IT_HOLDER_PID: String(holder.pid) } : {}),
        },
      },
    );
    fs.closeSync(csLog);
    codeServer.on('exit', (code, sig) => finish(EXIT_HARNESS, `code-server exited early (${code ?? sig})`));

    const readyBy = Date.now() + 90_000;
    for (let ready = false; !ready;) {
      if (settled) break;
      if (Date.now() > readyBy) finish(EXIT_HARNESS, 'code-server did not answer /healthz within 90s');
      try {
        ready = (await fetch(`${base}/healthz`)).ok;
      } catch {
        await sleep(200);
      }
    }
    if (settled) return await report(outcome);

    step(`opening the workbench in headless Chromium (${host.chromiumPath})`);
    browser = await chromium.launch({
      executablePath: host.chromiumPath,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-dev-shm-usage',
      ],
    });
    browserGroups = childGroups().filter((pgid) => pgid !== codeServer.pid);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
    page.on('pageerror', (e) => pageLog.write(`[pageerror] ${e.stack || e.message}\n`));
    page.on('console', (m) => pageLog.write(`[${m.type()}] ${m.text()}\n`));
    page.on('crash', () => finish(EXIT_HARNESS, 'the workbench page crashed'));

    let shots = Promise.resolve();
    const driveUi = createUiDriver(page, uiDir, (line) => console.log(line));
    let warnedNoShotDir = false;
    await page.exposeFunction('codeAutomationLog', (type, args) => {
      const text = formatArgs(Array.isArray(args) ? args : [args]);
      hostLog.write(`[${type}] ${text}\n`);
      if (driveUi(text)) return;
      const shot = SCREENSHOT.exec(text);
      if (!options.verbose && !shot && NOISE.some((re) => re.test(text))) return;
      if (SUMMARY.test(text.trim())) {
        summary = text.trim();
        console.log(summary);
      } else console.log(prefixLines(type === 'error' ? '[host:error] ' : '[host] ', text));
      if (!shot) return;
      if (!screenshotDir) {
        if (!warnedNoShotDir) console.log('[integration] screenshot requested but no screenshot directory was given');
        warnedNoShotDir = true;
        return;
      }
      const crop = shot[2] ? JSON.parse(shot[2]) : undefined;
      shots = shots.then(() => takeScreenshot(page, path.join(screenshotDir, shot[1]), crop));
    });
    await page.exposeFunction('codeAutomationExit', async (code) => {
      await shots;
      // An extension host that dies mid-run also ends with code 0 (the workbench reports the
      // process's exit): only the suite's own closing line, with no failure, counts as a pass.
      const passed = code === 0 && summary !== undefined && / 0 failed/.test(summary);
      if (code === 0 && !passed) {
        finish(
          1,
          summary
            ? `the tests' run() reported 0, but the suite said "${summary}"`
            : 'the extension host ended before the suite reported (did it crash? see host.log)',
        );
        return;
      }
      finish(code === 0 ? 0 : 1, `the tests' run() reported ${code}`);
    });

    const remote = (p) => `vscode-remote://127.0.0.1:${port}${p}`;
    const payload = JSON.stringify([
      ['extensionDevelopmentPath', remote(path.resolve(options.extensionDevelopmentPath))],
      ['extensionTestsPath', remote(path.resolve(options.extensionTestsPath))],
      ['skipWelcome', 'true'],
    ]);
    step('running the tests in the extension host');
    await page.goto(`${base}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(payload)}`, {
      waitUntil: 'domcontentloaded',
      timeout: 120_000,
    });
    return await report(outcome);
  } catch (e) {
    if (!settled) console.error(`[integration] ${e.stack || e.message}`);
    finish(EXIT_HARNESS, e.message.split('\n')[0]);
    return await report(outcome);
  } finally {
    clearTimeout(timer);
    try {
      await browser?.close();
    } catch {
      /* already closed */
    }
    codeServer?.removeAllListeners('exit');
    await killGroup(codeServer);
    await holder?.stop();
    // Chromium's helpers are reparented and reaped by init after the browser exits; wait for
    // that, so that nothing of this run is in the process table when the runner returns.
    const left = (
      await Promise.all([...browserGroups, codeServer?.pid].filter(Boolean).map((g) => reapGroup(g)))
    ).reduce((a, b) => a + b, 0);
    if (left) console.log(`[integration] ${left} exited browser/code-server process(es) not yet reaped by init`);
    hostLog.end();
    pageLog.end();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    process.off('exit', onExit);
    const { code } = await outcome;
    step('code-server and Chromium stopped');
    if (code === 0 && !options.keep) {
      fs.rmSync(runDir, { recursive: true, force: true });
    } else {
      if (code === EXIT_HARNESS) {
        console.log(`[integration] last lines of code-server's log:\n${tail(csLogFile, 25)}`);
      }
      console.log(`[integration] logs kept in ${runDir} (host.log, page-console.log, code-server.log)`);
    }
  }
}

async function report(outcome) {
  const { code, why } = await outcome;
  step(`finished: exit code ${code} (${why})`);
  return code;
}

/**
 * The page's box around every shown element `selector` finds, widened by `pad` pixels and kept
 * inside the box of `within` (a selector; default the viewport); undefined when none is shown.
 */
function cropBox(selector, pad, within) {
  const boxes = [...document.querySelectorAll(selector)]
    .filter((e) => e.offsetParent !== null || getComputedStyle(e).position === 'fixed')
    .map((e) => e.getBoundingClientRect())
    .filter((r) => r.width > 0 && r.height > 0);
  if (boxes.length === 0) return undefined;
  // Rows of a list drawn over the editor (a notebook's) reach across the window: keep them inside `within`.
  const limit = (within && document.querySelector(within)?.getBoundingClientRect()) || {
    left: 0,
    top: 0,
    right: window.innerWidth,
    bottom: window.innerHeight,
  };
  const x = Math.max(limit.left, Math.min(...boxes.map((r) => r.left)) - pad);
  const y = Math.max(limit.top, Math.min(...boxes.map((r) => r.top)) - pad);
  const right = Math.min(limit.right, Math.max(...boxes.map((r) => r.right)) + pad);
  const bottom = Math.min(limit.bottom, Math.max(...boxes.map((r) => r.bottom)) + pad);
  return { x: Math.floor(x), y: Math.floor(y), width: Math.ceil(right - x), height: Math.ceil(bottom - y) };
}

async function takeScreenshot(page, file, crop) {
  try {
    await sleep(300); // let the last UI change paint
    let clip;
    if (crop?.selector) {
      clip = await page.evaluate(
        `(${cropBox.toString()})(${JSON.stringify(crop.selector)}, ${Number(crop.pad) || 0}, ${JSON.stringify(crop.within ?? '')})`,
      );
      if (!clip) throw new Error(`nothing shown matches ${crop.selector}`);
    }
    const png = await page.screenshot({ type: 'png', ...(clip ? { clip } : {}) });
    const tmp = `${file}.partial`;
    fs.writeFileSync(tmp, png);
    fs.renameSync(tmp, file); // the test waits for this file; it must appear whole
    console.log(`[integration] screenshot saved: ${file}`);
  } catch (e) {
    console.log(`[integration] screenshot ${file} failed: ${e.message}`);
  }
}

function prefixLines(prefix, text) {
  return text
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');
}

// The host's console arguments, formatted the way console.log would (mocha's reporters pass
// printf-style format strings such as '%s%s').
function formatArgs(args) {
  return util.format(...args.map((a) => (a === null || typeof a !== 'object' ? a : safeJson(a))));
}

function safeJson(value) {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

module.exports = { runInCodeServer, lastSummary, EXIT_HARNESS };
