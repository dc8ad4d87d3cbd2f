/**
 * One cold activation, in a fresh process (run by extension-bench.ts and by the unit test
 * test/unit/bench/activation-probe.test.ts): loads the bundled extension (dist/extension.js) with
 * the `vscode` stand-in, calls activate(), then starts the engine as its first need would (reading
 * the API's `backend` loads dist/workbench.js and starts the engine host), calls deactivate(), and
 * prints the times and the process's memory at each step as JSON. `engine` instead of `extension`
 * loads dist/engine.js alone, the reference row of the table.
 *
 * The engine opens durable storage as in VS Code (the default ttlWorkbench.storage, "workspace"):
 * the context's storageUri and globalStorageUri are folders in a fresh temporary directory,
 * removed afterwards. The probe checks that the engine really lives in that folder, and reports
 * anything that went wrong (a throw, a MissingShimMemberError, an error the extension logged or
 * showed, an unhandled rejection) in `errors` and with exit code 1.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fakeExtensionContext, installVscodeShim, shimReport } from './vscode-shim';

export interface Memory {
  rssMb: number;
  heapUsedMb: number;
}

/**
 * How the probe starts the engine: reading the API's backend; running a command (its stand-in);
 * or `failing-start`: a command while dist/workbench.js is missing (the start fails, is reported,
 * and the command answers {ok: false}), then the same command once the bundle is back (it starts).
 */
export type StartBy = 'api' | 'command' | 'failing-start';
const START_BY: readonly StartBy[] = ['api', 'command', 'failing-start'];

export interface ProbeResult {
  /** What the extension says started its engine (its API's engineStartedBy()). */
  startedBy?: string;
  loadMs: number;
  activateMs: number;
  /** Reading the API's backend: requiring dist/workbench.js and starting the engine (extension only). */
  engineStartMs?: number;
  /** From that read until the engine answered storageInfo (the worker's start and the folder's open). */
  engineReadyMs?: number;
  /** The process after activation, and after the engine started (the worker's heap is in rss). */
  memoryActivated?: Memory;
  memoryEngine?: Memory;
  /** The activation time activate() itself reports (its API's activationMs). */
  reported?: number;
  /** The engine's storage after activation (extension only). */
  storage?: { mode: string; dir?: string; readOnly: boolean };
  warnings: string[];
  errors: string[];
  /** failing-start: what the failed start reported (the log's and the notification's errors). */
  reportedFailure?: string[];
}

interface CommandsApi {
  commands: { executeCommand(id: string, ...args: unknown[]): Promise<unknown> };
}

interface ActivatedApi {
  activationMs?: number;
  engineStartedBy?: () => string | undefined;
  backend?: { storageInfo(): Promise<{ mode: string; dir?: string; readOnly: boolean }> };
  whenIdle?: () => Promise<void>;
}

const memory = (): Memory => {
  const m = process.memoryUsage();
  return { rssMb: m.rss / 2 ** 20, heapUsedMb: m.heapUsed / 2 ** 20 };
};

const describe = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}` : String(err));

async function probeExtension(
  mod: { activate?: (ctx: unknown) => unknown; deactivate?: () => Promise<void> | undefined },
  root: string,
  result: ProbeResult,
  startBy: StartBy,
): Promise<void> {
  const storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-bench-probe-'));
  const context = fakeExtensionContext(root, storageDir);
  try {
    const a0 = performance.now();
    const api = mod.activate!(context) as ActivatedApi | undefined;
    result.activateMs = performance.now() - a0;
    result.reported = api?.activationMs;
    // Not timed: let activation's follow-up work run, so that what it logs or throws is seen here.
    await api?.whenIdle?.();
    result.memoryActivated = memory();
    if (api?.engineStartedBy?.() !== undefined) result.errors.push(`activation started the engine`);
    const s0 = performance.now();
    const vscode = require('vscode') as CommandsApi;
    if (startBy === 'failing-start') {
      const reply = (await vscode.commands.executeCommand('ttlWorkbench.runTTLPass', {})) as { ok?: boolean };
      if (reply?.ok !== false)
        result.errors.push(`with no workbench bundle, Run TTL Pass answered ${JSON.stringify(reply)}`);
      if (api?.engineStartedBy?.() !== undefined) result.errors.push('a failed start counts as started');
      // The failure is reported: keep those errors apart from unexpected ones.
      const report = shimReport();
      result.reportedFailure = report.errors.filter((e) => /could not start/.test(e));
      report.errors.splice(0, report.errors.length, ...report.errors.filter((e) => !/could not start/.test(e)));
      fs.copyFileSync(workbenchBundleOf(process.argv[2]), path.join(root, 'dist', 'workbench.js'));
    }
    if (startBy === 'command' || startBy === 'failing-start') {
      // A data command run before anything started the engine: its stand-in starts it, then runs it.
      const reply = (await vscode.commands.executeCommand('ttlWorkbench.runTTLPass', {})) as { ok?: boolean };
      if (reply?.ok !== true) result.errors.push(`Run TTL Pass through its stand-in answered ${JSON.stringify(reply)}`);
    }
    const backend = api?.backend;
    result.engineStartMs = performance.now() - s0;
    result.startedBy = api?.engineStartedBy?.();
    const info = await backend?.storageInfo();
    result.engineReadyMs = performance.now() - s0;
    await api?.whenIdle?.();
    await new Promise((resolve) => setTimeout(resolve, 10));
    result.memoryEngine = memory();
    result.storage = info && { mode: info.mode, dir: info.dir, readOnly: info.readOnly };
    const expected = path.join(storageDir, 'workspace', 'engine');
    if (!info || info.mode !== 'folder' || info.readOnly || path.resolve(info.dir ?? '') !== expected) {
      result.errors.push(
        `the engine did not open its data folder ${expected} for writing: ${JSON.stringify(result.storage)}`,
      );
    }
  } finally {
    try {
      // VS Code's order: deactivate() (awaited), then the subscriptions.
      await mod.deactivate?.();
      for (const d of context.subscriptions.splice(0)) d.dispose();
      const lock = path.join(storageDir, 'workspace', 'engine', 'LOCK');
      if (fs.existsSync(lock)) result.errors.push(`deactivate() left the data folder locked (${lock})`);
    } finally {
      fs.rmSync(storageDir, { recursive: true, force: true });
    }
  }
}

const workbenchBundleOf = (root: string) => path.join(root, 'dist', 'workbench.js');

/** A copy of the installed extension without dist/workbench.js (failing-start). */
function extensionWithoutWorkbench(root: string): string {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-bench-broken-'));
  fs.mkdirSync(path.join(copy, 'dist'));
  fs.copyFileSync(path.join(root, 'package.json'), path.join(copy, 'package.json'));
  for (const f of ['extension.js', 'engine-host.js'])
    fs.copyFileSync(path.join(root, 'dist', f), path.join(copy, 'dist', f));
  return copy;
}

async function main(): Promise<void> {
  const [root, what = 'extension', startBy = 'api'] = process.argv.slice(2);
  if (!root || !START_BY.includes(startBy as StartBy))
    throw new Error(
      `usage: node out/bench/activation-probe.js <repository root> [extension|engine] [${START_BY.join('|')}]`,
    );
  const result: ProbeResult = { loadMs: 0, activateMs: 0, warnings: [], errors: [] };
  process.on('unhandledRejection', (reason) => result.errors.push(`unhandled rejection: ${describe(reason)}`));
  installVscodeShim();
  try {
    const installed = startBy === 'failing-start' ? extensionWithoutWorkbench(root) : root;
    const t0 = performance.now();
    const mod = require(path.join(installed, 'dist', `${what}.js`)) as {
      activate?: (ctx: unknown) => unknown;
      deactivate?: () => Promise<void> | undefined;
    };
    result.loadMs = performance.now() - t0;
    try {
      if (what === 'extension') await probeExtension(mod, installed, result, startBy as StartBy);
    } finally {
      if (installed !== root) fs.rmSync(installed, { recursive: true, force: true });
    }
  } catch (err) {
    result.errors.push(`threw ${err instanceof Error ? (err.stack ?? describe(err)) : String(err)}`);
  }
  const { errors, warnings } = shimReport();
  result.errors.push(...errors);
  result.warnings.push(...warnings);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exitCode = result.errors.length ? 1 : 0;
}

if (require.main === module) void main();
