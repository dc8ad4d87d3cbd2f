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
  const code = await runIntegrationTests(options);
  console.log(`[integration] ${code === 0 ? 'passed' : 'FAILED'} (exit code ${code}); total time ${seconds()}`);
  if (lastSummary()) console.log(lastSummary()); // last, for tools that read a run's closing line
  process.exit(code);
}

main().catch((e) => {
  console.error(`[integration] ${e.stack || e.message}`);
  console.log(`[integration] total time ${seconds()}`);
  process.exit(2);
});
