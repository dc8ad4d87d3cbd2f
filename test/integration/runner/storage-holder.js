'use strict';
// For the read-only storage pass (--storage-held): before the window opens, another process takes
// the data folder the extension is about to open, as a second window or a `ttl-workbench serve`
// left running would. The extension keeps its engine in its global storage folder in that pass
// (ttlWorkbench.storage "global"): unlike a workspace's storage folder, whose name the workbench
// derives from the folder's URI, its path is known before the window opens.
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');

const READY_TIMEOUT_MS = 30_000;

/** `<user data>/User/globalStorage/<publisher.name>/engine`: where the extension's engine lives with storage "global". */
function globalEngineDir(userData, extensionDevelopmentPath) {
  const manifest = JSON.parse(fs.readFileSync(path.join(extensionDevelopmentPath, 'package.json'), 'utf8'));
  const id = `${manifest.publisher}.${manifest.name}`.toLowerCase();
  return path.join(userData, 'User', 'globalStorage', id, 'engine');
}

/**
 * Starts `ttl-workbench serve --data <dir>` from the extension's own bundle (dist/cli.js) and
 * resolves once it holds the folder (its first line, the connection string, comes after the lock).
 * Resolves with { dir, pid, uri, stop() }; stop() ends it (SIGTERM, then SIGKILL) and resolves
 * when it has exited.
 */
async function holdDataFolder(dir, extensionDevelopmentPath) {
  const cli = path.join(extensionDevelopmentPath, 'dist', 'cli.js');
  if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: build first (npm run build)`);
  fs.mkdirSync(dir, { recursive: true });
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => (err += d.toString()));
  const exited = new Promise((resolve) => child.once('exit', (code, sig) => resolve(code ?? sig)));
  const uri = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`serve did not hold ${dir} within ${READY_TIMEOUT_MS} ms`)),
      READY_TIMEOUT_MS,
    );
    child.stdout.on('data', (d) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(out.slice(0, nl));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}) before holding ${dir}: ${err.trim()}`));
    });
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(killer);
  };
  return { dir, pid: child.pid, uri, stop };
}

module.exports = { globalEngineDir, holdDataFolder };
