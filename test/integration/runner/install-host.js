// Installs the offline VS Code host into a cache folder outside the clone, once:
//   - Debian packages: chromium (hosts the workbench page), fonts, and the toolchain that
//     code-server's native modules need (libkrb5-dev for `kerberos`);
//   - Node 24 from the npm package node-<platform>-<arch> (code-server's postinstall demands
//     Node 24; the package ships include/node, so node-gyp builds offline against it);
//   - code-server from npm (VS Code's own server build), installed under that Node 24.
// Every step checks first and does nothing when its result is already there, so a warm run
// costs a few dpkg look-ups. A half-finished step leaves no "installed" marker and is redone.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { step, run, capture, isAlive, isExecutable, sleep } = require('./util');

// Pinned together: code-server 4.139.1 is VS Code 1.139.1 and requires Node 24.
const NODE_VERSION = '24.21.0';
const CODE_SERVER_VERSION = '4.139.1';

const APT_PACKAGES = ['chromium', 'fonts-liberation', 'libkrb5-dev', 'build-essential', 'pkg-config', 'python3'];
const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

function cacheDir() {
  if (process.env.TTL_WORKBENCH_VSCODE_HOST_CACHE) return path.resolve(process.env.TTL_WORKBENCH_VSCODE_HOST_CACHE);
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'ttl-workbench-vscode-host', `node-${NODE_VERSION}_code-server-${CODE_SERVER_VERSION}`);
}

function findChromium() {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  return CHROMIUM_CANDIDATES.find(isExecutable);
}

/** Debian packages from APT_PACKAGES that are not installed (none when there is no dpkg). */
function missingAptPackages() {
  if (!capture('dpkg-query', ['--version'])) return [];
  return APT_PACKAGES.filter((p) => capture('dpkg-query', ['-W', '-f=${db:Status-Status}', p]) !== 'installed');
}

async function ensureAptPackages(logDir) {
  const missing = missingAptPackages();
  if (missing.length === 0) {
    if (!findChromium()) {
      throw new Error(`no Chromium found (looked at ${CHROMIUM_CANDIDATES.join(', ')}); set CHROMIUM_PATH`);
    }
    return;
  }
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const sudo = !asRoot && capture('sudo', ['-n', 'true']) !== undefined;
  if (!asRoot && !sudo) {
    throw new Error(
      `missing Debian packages: ${missing.join(' ')}.\n` +
        `Install them once as root: apt-get update && apt-get install -y ${missing.join(' ')}`,
    );
  }
  const prefix = asRoot ? [] : ['sudo', '-n', '--preserve-env=DEBIAN_FRONTEND'];
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const exec = (args, label) => {
    const [cmd, ...rest] = [...prefix, ...args];
    return run(cmd, rest, { env, logFile: path.join(logDir, 'apt.log'), timeoutMs: 15 * 60_000, label });
  };
  const t0 = Date.now();
  step(`apt-get update (once; needed for: ${missing.join(' ')})`);
  await exec(['apt-get', '-o', 'DPkg::Lock::Timeout=300', 'update', '-qq'], 'apt-get update');
  step(`apt-get install ${missing.join(' ')}`);
  await exec(
    ['apt-get', '-o', 'DPkg::Lock::Timeout=300', 'install', '-y', '-qq', ...missing],
    `apt-get install ${missing.join(' ')}`,
  );
  step(`Debian packages installed in ${Math.round((Date.now() - t0) / 1000)}s`);
  if (!findChromium()) throw new Error('chromium was installed but no browser binary was found; set CHROMIUM_PATH');
}

async function ensureNode(dir, logDir) {
  const nodeBin = path.join(dir, 'node', 'bin', 'node');
  const marker = path.join(dir, 'node', '.installed');
  if (fs.existsSync(marker) && isExecutable(nodeBin)) return nodeBin;
  const pkg = `node-${process.platform}-${process.arch}@${NODE_VERSION}`;
  step(`Node ${NODE_VERSION}: npm pack ${pkg}`);
  const t0 = Date.now();
  const partial = path.join(dir, 'node.partial');
  fs.rmSync(partial, { recursive: true, force: true });
  fs.rmSync(path.join(dir, 'node'), { recursive: true, force: true });
  fs.mkdirSync(partial, { recursive: true });
  const log = path.join(logDir, 'node-install.log');
  await run('npm', ['pack', '--silent', '--pack-destination', partial, pkg], { logFile: log, timeoutMs: 10 * 60_000 });
  const tarball = fs.readdirSync(partial).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack ${pkg} produced no tarball (see ${log})`);
  await run('tar', ['xzf', path.join(partial, tarball), '-C', partial], { logFile: log });
  fs.renameSync(path.join(partial, 'package'), path.join(dir, 'node'));
  fs.rmSync(partial, { recursive: true, force: true });
  const version = capture(nodeBin, ['-v']);
  if (version !== `v${NODE_VERSION}`) throw new Error(`${nodeBin} -v printed ${version}, expected v${NODE_VERSION}`);
  if (!fs.existsSync(path.join(dir, 'node', 'include', 'node', 'node.h'))) {
    throw new Error(`${pkg} has no include/node headers; code-server's native modules cannot build offline`);
  }
  fs.writeFileSync(marker, `${NODE_VERSION}\n`);
  step(`Node ${version} ready in ${Math.round((Date.now() - t0) / 1000)}s`);
  return nodeBin;
}

const OUTER_NPM_VARS =
  /^npm_(package_|lifecycle_|command$|execpath$|node_execpath$|config_(user_agent|local_prefix|global_prefix|prefix|npm_version|node_gyp|nodedir|init_module)$)/i;

/** The environment npm runs code-server's install in: Node 24 first, its headers for node-gyp. */
function nodeEnv(nodeDir) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    // Left by an outer `npm run` about the outer project, its npm and its Node. Above all
    // npm_config_user_agent ("npm/11 node/v20 ..."): the inner npm would pass it on, and
    // code-server's postinstall reads the Node version from it.
    if (OUTER_NPM_VARS.test(k)) continue;
    if (k === 'INIT_CWD' || k === 'NODE' || k === 'NODE_OPTIONS') continue;
    env[k] = v;
  }
  env.PATH = `${path.join(nodeDir, 'bin')}${path.delimiter}${process.env.PATH || ''}`;
  env.npm_config_nodedir = nodeDir; // overrides a user .npmrc `nodedir` pointing at Node 20's headers
  env.npm_config_update_notifier = 'false';
  return env;
}

async function ensureCodeServer(dir, nodeBin, logDir) {
  const csDir = path.join(dir, 'code-server');
  const entry = path.join(csDir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  const marker = path.join(csDir, '.installed');
  if (fs.existsSync(marker) && fs.existsSync(entry)) return entry;
  step(`code-server ${CODE_SERVER_VERSION}: npm install under Node ${NODE_VERSION} (native builds; 2 to 5 minutes)`);
  const t0 = Date.now();
  fs.rmSync(csDir, { recursive: true, force: true });
  fs.mkdirSync(csDir, { recursive: true });
  fs.writeFileSync(
    path.join(csDir, 'package.json'),
    JSON.stringify({ name: 'ttl-workbench-vscode-host', private: true, description: 'cache, safe to delete' }, null, 2),
  );
  const log = path.join(logDir, 'code-server-install.log');
  step(`  log: ${log}`);
  await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `code-server@${CODE_SERVER_VERSION}`], {
    cwd: csDir,
    env: nodeEnv(path.dirname(path.dirname(nodeBin))),
    logFile: log,
    timeoutMs: 30 * 60_000,
    label: 'npm install code-server',
  });
  if (!fs.existsSync(entry)) throw new Error(`code-server installed but ${entry} is missing (see ${log})`);
  fs.writeFileSync(marker, `${CODE_SERVER_VERSION}\n`);
  step(`code-server ready in ${Math.round((Date.now() - t0) / 1000)}s`);
  return entry;
}

/** Serialises installs between concurrent runs sharing the cache; a dead holder's lock is taken over. */
async function withLock(dir, fn) {
  const lock = path.join(dir, '.install-lock');
  const ownerFile = path.join(lock, 'pid');
  let waitedFor;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(ownerFile, String(process.pid));
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      const owner = Number(
        (() => {
          try {
            return fs.readFileSync(ownerFile, 'utf8');
          } catch {
            return '';
          }
        })(),
      );
      if (!owner || !isAlive(owner)) {
        // Written just now by a live run, or left by a dead one: only remove it if it is old.
        const age = Date.now() - fs.statSync(lock).mtimeMs;
        if (owner || age > 10_000) fs.rmSync(lock, { recursive: true, force: true });
        else await sleep(500);
        continue;
      }
      if (waitedFor !== owner) step(`waiting for another run (pid ${owner}) that is installing into ${dir}`);
      waitedFor = owner;
      await sleep(2000);
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Makes sure the offline host is installed and returns where its parts are:
 * { nodeBin, codeServerEntry, chromiumPath, cacheDir, codeServerVersion }.
 */
async function installHost() {
  if (process.platform !== 'linux') {
    throw new Error('the offline code-server route is set up for Linux only; use TTL_WORKBENCH_VSCODE_ROUTE=electron');
  }
  const dir = cacheDir();
  const logDir = path.join(dir, 'logs');
  fs.mkdirSync(logDir, { recursive: true });
  step(`offline VS Code host: code-server ${CODE_SERVER_VERSION} on Node ${NODE_VERSION}, cache ${dir}`);
  return withLock(dir, async () => {
    await ensureAptPackages(logDir);
    const nodeBin = await ensureNode(dir, logDir);
    const codeServerEntry = await ensureCodeServer(dir, nodeBin, logDir);
    return {
      nodeBin,
      codeServerEntry,
      chromiumPath: findChromium(),
      cacheDir: dir,
      codeServerVersion: CODE_SERVER_VERSION,
    };
  });
}

module.exports = { installHost, cacheDir, NODE_VERSION, CODE_SERVER_VERSION };
