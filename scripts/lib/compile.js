// The tsc step every script that runs compiled code starts with: type errors stop the script, the
// way they stop `npm run test:unit`, so nothing ever runs on a stale out/.
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');

/** Compiles `project` (a folder with a tsconfig.json; the repository by default) or exits with tsc's status. */
function compileOrExit(label, project = root) {
  const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', project], { stdio: 'inherit' });
  if (tsc.status !== 0) {
    const what =
      project === root ? 'TypeScript compilation' : `TypeScript compilation of ${path.relative(root, project)}`;
    console.error(`${label}: ${what} failed (see errors above).`);
    process.exit(tsc.status ?? 1);
  }
}

module.exports = { compileOrExit, root };
