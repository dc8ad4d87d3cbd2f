#!/usr/bin/env node
// Builds the extension (esbuild) and the tests (tsc), then runs the integration suite
// (out/test/integration/suite/index.js) inside a real VS Code extension host through
// test/integration/runner. Exit code: 0 passed, 1 a test failed, 2 the host could not be set up.
// Arguments go to the runner (see test/integration/runner/index.js), for example
//   node scripts/test-integration.js --route code-server --screenshot-dir docs --keep
// Screenshots a test asks for land in out/integration-screenshots unless
// TTL_WORKBENCH_SCREENSHOT_DIR or --screenshot-dir says otherwise.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const t0 = Date.now();
const seconds = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;

function build(label, args) {
  console.log(`[integration] ${label}`);
  const r = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: root });
  if (r.status !== 0) {
    console.error(`[integration] ${label} failed (see above).`);
    console.log(`[integration] total time ${seconds()}`);
    process.exit(r.status ?? 2);
  }
}

async function main() {
  build('bundling the extension (esbuild)', [path.join(root, 'esbuild.js')]);
  build('compiling the tests (tsc)', [require.resolve('typescript/bin/tsc'), '-p', root]);
  const extensionTestsPath = path.join(root, 'out', 'test', 'integration', 'suite', 'index.js');
  if (!fs.existsSync(extensionTestsPath)) {
    console.error(`[integration] ${extensionTestsPath} was not built.`);
    process.exit(2);
  }
  const { runIntegrationTests, optionsFromArgs, lastSummary } = require(
    path.join(root, 'test', 'integration', 'runner'),
  );
  let options;
  try {
    options = optionsFromArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`[integration] ${e.message}`);
    process.exit(2);
  }
  options.extensionDevelopmentPath ??= root;
  options.extensionTestsPath ??= extensionTestsPath;
  options.screenshotDir ??= path.join(root, 'out', 'integration-screenshots');
  let code = await runIntegrationTests(options);
  let summary = lastSummary();
  // Restricted Mode needs a window opened untrusted, so its suite has a second pass of its own
  // (code-server only: @vscode/test-electron always disables Workspace Trust). A selected run
  // (TTL_WORKBENCH_IT_GREP) or an explicit --untrusted run is left as asked.
  const firstPassOnly = options.untrusted || options.storageHeld || process.env.TTL_WORKBENCH_IT_GREP;
  if (code === 0 && !firstPassOnly) {
    console.log('[integration] second pass: the Restricted Mode suite in an untrusted window (code-server)');
    process.env.TTL_WORKBENCH_IT_GREP = 'Restricted Mode';
    code = await runIntegrationTests({ ...options, untrusted: true, route: 'code-server' });
    delete process.env.TTL_WORKBENCH_IT_GREP;
    summary = combineSummaries(summary, lastSummary());
  }
  // The read-only welcome needs the data folder held by another process before the window opens:
  // a third pass, of that suite alone.
  if (code === 0 && !firstPassOnly) {
    console.log(
      '[integration] third pass: the read-only storage suite, its data folder held by another process (code-server)',
    );
    process.env.TTL_WORKBENCH_IT_GREP = 'Read-only storage';
    code = await runIntegrationTests({ ...options, storageHeld: true, route: 'code-server' });
    delete process.env.TTL_WORKBENCH_IT_GREP;
    summary = combineSummaries(summary, lastSummary());
  }
  console.log(`[integration] ${code === 0 ? 'passed' : 'FAILED'} (exit code ${code}); total time ${seconds()}`);
  if (summary) console.log(summary); // last, for tools that read a run's closing line
  process.exit(code);
}

/** One closing line for the passes: "integration: N passed, M failed, K skipped" added up. */
function combineSummaries(a, b) {
  const counts = (line) => {
    const m = /(\d+) passed, (\d+) failed, (\d+) skipped/.exec(line ?? '');
    return m ? m.slice(1).map(Number) : undefined;
  };
  const x = counts(a);
  const y = counts(b);
  if (!x || !y) return b ?? a;
  return `integration: ${x[0] + y[0]} passed, ${x[1] + y[1]} failed, ${x[2] + y[2]} skipped (all passes)`;
}

main().catch((e) => {
  console.error(`[integration] ${e.stack || e.message}`);
  console.log(`[integration] total time ${seconds()}`);
  process.exit(2);
});
