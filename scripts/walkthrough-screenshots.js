#!/usr/bin/env node
// Retakes the walkthrough's step images (media/walkthrough/*.png) and the first-run screenshots
// (docs/firstrun/) in the real host: the "Issue 19: first run" integration suite does each step's
// real action and asks for a screenshot cropped to what the step shows (walkthrough-<step>.png);
// this script runs that suite alone, then keeps the images, each through pngquant when it is on
// PATH (Debian package pngquant: a palette of 64 colours keeps a UI screenshot sharp at about a
// third of its size), and says which is over ~40 KB (the .vsix carries them).
//   node scripts/walkthrough-screenshots.js            (about 3 minutes on two cores)
// --suite connections retakes docs/screenshot-tree-connection.png instead (the "Connections
// (issue 21)" suite: a served engine added as a connection, its rows revealed in the side bar).
// Other arguments go to the integration runner (scripts/test-integration.js), e.g. --keep.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const MAX_BYTES = 40 * 1024;

/**
 * The suites that take the images, by the name --suite gives: their title, the text
 * TTL_WORKBENCH_IT_GREP picks them by (plain text the full title contains), and where each image
 * they take goes.
 */
const SUITES = {
  firstrun: {
    title: 'Issue 19: first run',
    grep: 'Issue 19: first run',
    destination(name) {
      if (name.startsWith('walkthrough-') && name !== 'walkthrough-done.png')
        return path.join(root, 'media', 'walkthrough', name.slice('walkthrough-'.length));
      if (name === 'screenshot-empty-state.png' || name === 'screenshot-walkthrough.png')
        return path.join(root, 'docs', 'firstrun', name);
      return undefined;
    },
  },
  connections: {
    title: 'Connections (issue 21)',
    grep: 'Connections (issue 21)',
    destination: (name) => (name === 'screenshot-tree-connection.png' ? path.join(root, 'docs', name) : undefined),
  },
};

const args = process.argv.slice(2);
const at = args.indexOf('--suite');
const suiteName = at >= 0 ? args.splice(at, 2)[1] : 'firstrun';
const suite = SUITES[suiteName];
if (!suite) {
  console.error(`[screenshots] --suite ${suiteName}: unknown; one of ${Object.keys(SUITES).join(', ')}`);
  process.exit(2);
}
const shots = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-walkthrough-shots-'));

const run = spawnSync(
  process.execPath,
  [path.join(root, 'scripts', 'test-integration.js'), '--screenshot-dir', shots, ...args],
  {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, TTL_WORKBENCH_IT_GREP: suite.grep, TTL_WORKBENCH_VSCODE_ROUTE: 'code-server' },
  },
);
if (run.status !== 0) {
  console.error(
    `[screenshots] the "${suite.title}" suite failed (exit ${run.status}); nothing was replaced. Shots so far: ${shots}`,
  );
  process.exit(run.status ?? 2);
}

const pngquant = spawnSync('pngquant', ['--version'], { encoding: 'utf8' }).status === 0;
if (!pngquant) console.log('[screenshots] pngquant is not on PATH: the images are kept as Chromium wrote them');

/** Writes `from` to `to`, through pngquant when it is there. */
function keep(from, to) {
  if (pngquant) {
    const r = spawnSync('pngquant', ['--force', '--skip-if-larger', '--strip', '--output', to, '64', from]);
    // 98: the result would not be smaller; 99: below the quality floor (none is set here).
    if (r.status === 0) return;
  }
  fs.copyFileSync(from, to);
}

let over = 0;
const report = (file) => {
  const bytes = fs.statSync(file).size;
  const big = bytes > MAX_BYTES;
  if (big) over++;
  console.log(
    `[screenshots] ${path.relative(root, file)}: ${(bytes / 1024).toFixed(1)} KB${big ? ' (over 40 KB)' : ''}`,
  );
};
for (const name of fs.readdirSync(shots).sort()) {
  const to = suite.destination(name);
  if (!to) continue;
  keep(path.join(shots, name), to);
  report(to);
}
fs.rmSync(shots, { recursive: true, force: true });
process.exit(over ? 1 : 0);
