/**
 * One cold activation, in a fresh process (run by extension-bench.ts): loads the bundled
 * extension (dist/extension.js) with the `vscode` stand-in, calls activate() and deactivate(), and
 * prints the times as JSON. `engine` instead of `extension` loads dist/engine.js alone, the
 * reference row of the table.
 */
import * as path from 'node:path';
import { fakeExtensionContext, installVscodeShim } from './vscode-shim';

function main(): void {
  const [root, what = 'extension'] = process.argv.slice(2);
  installVscodeShim();
  const t0 = performance.now();
  const mod = require(path.join(root, 'dist', `${what}.js`)) as { activate?: (ctx: unknown) => unknown; deactivate?: () => void };
  const loaded = performance.now();
  let activateMs = 0;
  let reported: number | undefined;
  if (what === 'extension') {
    const context = fakeExtensionContext(root);
    const a0 = performance.now();
    const api = mod.activate!(context) as { activationMs?: number } | undefined;
    activateMs = performance.now() - a0;
    reported = api?.activationMs;
    for (const d of context.subscriptions.splice(0)) d.dispose();
    mod.deactivate?.();
  }
  process.stdout.write(`${JSON.stringify({ loadMs: loaded - t0, activateMs, reported })}\n`);
}

main();
