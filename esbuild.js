#!/usr/bin/env node
// Bundles the shippable entry points with esbuild. Today: the engine as a CommonJS library
// (dist/engine.js); the extension (src/extension/main.ts -> dist/extension.js, `vscode` external)
// and the CLI (src/cli/main.ts -> dist/cli.js) join as their issues land.
'use strict';
const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');

const production = process.argv.includes('--production');
const entries = [
  { in: 'src/engine/index.ts', out: 'engine' },
  // The extension in two steps: what activation loads (source analysis, stand-ins), and what the
  // first need for data loads (src/extension/workbench.ts: the engine host's client, tree, commands).
  { in: 'src/extension/main.ts', out: 'extension' },
  { in: 'src/extension/workbench.ts', out: 'workbench' },
  // The official driver and its connection-string parser: required by the workbench only when a
  // saved connection is first used, so embedded-only windows never load them.
  { in: 'src/extension/backend/driver-bundle.ts', out: 'driver' },
  // The engine host: the worker thread the extension starts (src/extension/engine-host/client.ts).
  { in: 'src/extension/engine-host/worker-main.ts', out: 'engine-host' },
  { in: 'src/cli/main.ts', out: 'cli' },
  // The wire endpoint for test suites: startServer() (src/wire/index.ts), with its declarations.
  { in: 'src/wire/index.ts', out: 'server' },
].filter((e) => fs.existsSync(path.join(__dirname, e.in)));

const version = require('./package.json').version;

// The driver's optional add-ons (Kerberos, compression, client-side encryption, cloud
// credentials) are required inside try/catch: left out, the driver reports them as not installed.
const driverExternal = [
  'kerberos',
  '@mongodb-js/zstd',
  'snappy',
  'mongodb-client-encryption',
  '@aws-sdk/credential-providers',
  'gcp-metadata',
  'socks',
  'aws4',
];

// mongosh's runtime for notebook cells on a connection (src/extension/backend/mongosh-bundle.ts):
// its own bundle, loaded on the first such cell. Its connection helper's optional native and
// desktop pieces (Electron for OIDC's browser, native DNS, SSH tunnels) are required where used
// and are not shipped: a connection that needs them reports them missing.
const mongoshEntry = { in: 'src/extension/backend/mongosh-bundle.ts', out: 'mongosh' };
const mongoshExternal = ['electron', 'os-dns-native', 'ssh2', 'cpu-features', '*.node'];

// What a notebook on a connection does not support is cut from dist/mongosh.js (scripts/lib/mongosh-trims.js).
const { mongoshTrims } = require('./scripts/lib/mongosh-trims');

// The notebook renderer runs in the notebook's webview: a browser ES module, no Node, no vscode.
const renderer = {
  entryPoints: { renderer: 'src/extension/notebook/renderer/index.ts' },
  outdir: path.join(__dirname, 'dist'),
  bundle: true,
  platform: 'browser',
  target: 'es2022',
  format: 'esm',
  sourcemap: true,
  minify: production,
  logLevel: 'info',
};

esbuild
  .build({
    entryPoints: entries,
    outdir: path.join(__dirname, 'dist'),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: ['vscode', ...driverExternal],
    sourcemap: true,
    minify: production,
    define: { TTL_WORKBENCH_VERSION: JSON.stringify(version) },
    // The CLI is run directly (`bin`); the shebang is harmless in the other bundles.
    banner: { js: '#!/usr/bin/env node' },
    logLevel: 'info',
  })
  .then(() =>
    fs.existsSync(path.join(__dirname, mongoshEntry.in))
      ? esbuild.build({
          entryPoints: [mongoshEntry],
          outdir: path.join(__dirname, 'dist'),
          bundle: true,
          platform: 'node',
          target: 'node20',
          format: 'cjs',
          external: ['vscode', ...driverExternal, ...mongoshExternal],
          plugins: [mongoshTrims],
          sourcemap: true,
          minify: production,
          logLevel: 'info',
        })
      : undefined,
  )
  .then(() =>
    fs.existsSync(path.join(__dirname, renderer.entryPoints.renderer)) ? esbuild.build(renderer) : undefined,
  )
  // The `ttl.forecast(…)` chart in notebooks: its own renderer, so the documents table stays light;
  // uPlot's stylesheet goes in as text (an output has no <link>).
  .then(() =>
    esbuild.build({
      ...renderer,
      entryPoints: { 'forecast-renderer': 'src/extension/notebook/renderer/forecast.ts' },
      loader: { '.css': 'text' },
    }),
  )
  // The Expiry Forecast panel's page (src/extension/forecast/webview): uPlot bundled in, never fetched,
  // and kept out of dist/extension.js and dist/workbench.js (dist/forecast-view.js and .css).
  .then(() =>
    esbuild.build({
      ...renderer,
      entryPoints: { 'forecast-view': 'src/extension/forecast/webview/main.ts' },
      format: 'iife',
    }),
  )
  .then(() => {
    // dist/server.d.ts re-exports the declarations tsc writes under dist/types.
    const tsc = require.resolve('typescript/bin/tsc');
    const r = require('node:child_process').spawnSync(process.execPath, [tsc, '-p', 'tsconfig.server.json'], {
      cwd: __dirname,
      stdio: 'inherit',
    });
    if (r.status !== 0) throw new Error('declarations of dist/server.js failed');
    fs.writeFileSync(path.join(__dirname, 'dist', 'server.d.ts'), "export * from './types/wire/index';\n");
    // The mongosh prelude (clock, ttl, a sleep that moves the virtual clock) ships beside
    // dist/server.js, as it is: mongosh loads it with --file.
    fs.copyFileSync(
      path.join(__dirname, 'src', 'wire', 'mongosh-prelude.js'),
      path.join(__dirname, 'dist', 'mongosh-prelude.js'),
    );
  })
  .catch(() => process.exit(1));
