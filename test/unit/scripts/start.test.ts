/**
 * `npm start -- --no-open` on the offline route: code-server from the integration runner's cache
 * serves the workbench with the extension loaded; the URL it prints answers with the workbench
 * page, and the folder and the extension's path are in it. The host is installed into the
 * runner's cache when missing (minutes, once); then the test takes about 20 s.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';

const root = path.resolve(__dirname, '../../../..');

test('npm start -- --no-open --code-server prints a URL that answers with the VS Code workbench, and stops on SIGTERM', async () => {
  const child = spawn(process.execPath, [path.join(root, 'scripts', 'start.js'), '--no-open', '--code-server'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL within 10 minutes:\n${out}`)), 600_000);
      child.stdout.on('data', () => {
        const m = /^(http:\/\/127\.0\.0\.1:\d+\/\?folder=\S+)$/m.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      child.once('exit', () => reject(new Error(`npm start exited before printing a URL:\n${out}`)));
    });
    const parsed = new URL(url);
    assert.equal(parsed.searchParams.get('folder'), path.join(root, 'examples'));
    const payload = JSON.parse(parsed.searchParams.get('payload') ?? '[]') as string[][];
    assert.deepEqual(payload, [['extensionDevelopmentPath', `vscode-remote://${parsed.host}${root}`]]);
    const page = await fetch(url);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /<!DOCTYPE html>/);
    assert.match(html, /workbench/i, 'the VS Code workbench page');
    assert.doesNotMatch(out, /Could not start/);
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0);
});
