// Small helpers shared by the integration-test runner: progress lines, child processes that can
// be killed as a whole group, free ports, and waiting.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const started = Date.now();

/** Prints one progress line, prefixed with the time since the runner started. */
function step(message) {
  const s = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`[integration +${s}s] ${message}`);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** True when a program of that name is on PATH. */
function onPath(program) {
  return (process.env.PATH || '').split(path.delimiter).some((dir) => dir && isExecutable(path.join(dir, program)));
}

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/**
 * Ends a process group started with `detached: true`: SIGTERM, then SIGKILL after `graceMs`.
 * Resolves once the group leader is gone.
 */
async function killGroup(child, graceMs = 3000) {
  if (!child || !child.pid) return;
  const gone = () => child.exitCode !== null || child.signalCode !== null || !isAlive(child.pid);
  const signal = (sig) => {
    try {
      process.kill(-child.pid, sig);
    } catch {
      /* already gone */
    }
  };
  if (gone()) {
    signal('SIGKILL'); // the leader is gone; stray members of its group may not be
    return;
  }
  signal('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (!gone() && Date.now() < deadline) await sleep(100);
  signal('SIGKILL');
  const hardDeadline = Date.now() + 2000;
  while (!gone() && Date.now() < hardDeadline) await sleep(50);
}

/** Processes (pid, ppid, pgid, state) from /proc; empty where there is no /proc. */
function processes() {
  let names = [];
  try {
    names = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  const list = [];
  for (const d of names) {
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const [state, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      list.push({ pid: Number(d), ppid: Number(ppid), pgid: Number(pgid), state });
    } catch {
      /* gone meanwhile */
    }
  }
  return list;
}

/** Process groups led by direct children of this process (for example a browser Playwright launched). */
function childGroups() {
  return processes()
    .filter((p) => p.ppid === process.pid && p.pgid === p.pid)
    .map((p) => p.pid);
}

/**
 * Waits until no process of group `pgid` is left, not even a zombie waiting to be reaped,
 * killing live members (SIGKILL) after `graceMs`. Gives up quietly after `maxMs`.
 */
async function reapGroup(pgid, { graceMs = 1500, maxMs = 6000 } = {}) {
  const t0 = Date.now();
  for (;;) {
    const members = processes().filter((p) => p.pgid === pgid);
    if (members.length === 0 || Date.now() - t0 > maxMs) return members.length;
    if (Date.now() - t0 > graceMs && members.some((p) => p.state !== 'Z')) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        /* gone meanwhile */
      }
    }
    await sleep(100);
  }
}

/** Synchronous last-resort version of killGroup, usable from a process 'exit' handler. */
function killGroupNow(child) {
  if (!child || !child.pid) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

/**
 * Runs a command to completion in its own process group, with its output going to `logFile`
 * (appended) or inherited. Rejects with the log's tail on a non-zero exit or after `timeoutMs`.
 * Prints a heartbeat line every `heartbeatMs` so long installs do not look stuck.
 */
function run(command, args, { cwd, env, logFile, timeoutMs = 20 * 60_000, heartbeatMs = 30_000, label } = {}) {
  return new Promise((resolve, reject) => {
    const name = label || [command, ...args].join(' ');
    let out = 'inherit';
    let fd;
    if (logFile) {
      fs.mkdirSync(path.dirname(logFile), { recursive: true });
      fd = fs.openSync(logFile, 'a');
      fs.writeSync(fd, `\n$ ${[command, ...args].join(' ')}\n`);
      out = fd;
    }
    const t0 = Date.now();
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', out, out], detached: true });
    const heartbeat = setInterval(
      () => step(`  still running: ${name} (${Math.round((Date.now() - t0) / 1000)}s)`),
      heartbeatMs,
    );
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutMs);
    // The child has its own process group, so Ctrl+C does not reach it: take it down with us.
    const onSignal = (sig) => {
      killGroupNow(child);
      process.exit(sig === 'SIGINT' ? 130 : 143);
    };
    const onExit = () => killGroupNow(child);
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    for (const sig of signals) process.on(sig, onSignal);
    process.on('exit', onExit);
    const done = (err) => {
      for (const sig of signals) process.off(sig, onSignal);
      process.off('exit', onExit);
      clearInterval(heartbeat);
      clearTimeout(timer);
      if (fd !== undefined) fs.closeSync(fd);
      if (!err) return resolve();
      if (logFile) err.message += `\n--- last lines of ${logFile} ---\n${tail(logFile, 40)}`;
      reject(err);
    };
    child.on('error', (e) => done(new Error(`${name}: ${e.message}`)));
    child.on('exit', (code, sig) => {
      if (code === 0) return done();
      const why = timedOut ? `timed out after ${Math.round(timeoutMs / 1000)}s` : `exited with ${code ?? sig}`;
      done(new Error(`${name} ${why}`));
    });
  });
}

/** The last `lines` lines of a text file ('' when it cannot be read). */
function tail(file, lines) {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Output of a quick command, or undefined when it fails. */
function capture(command, args, options = {}) {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: 30_000, ...options });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

module.exports = {
  step,
  sleep,
  onPath,
  isExecutable,
  isAlive,
  freePort,
  killGroup,
  killGroupNow,
  childGroups,
  reapGroup,
  run,
  tail,
  capture,
};
