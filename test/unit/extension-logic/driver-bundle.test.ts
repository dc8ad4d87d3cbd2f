/**
 * The driver is a bundle of its own (issue 21): dist/workbench.js, which every window that uses the
 * embedded engine loads, holds neither the `mongodb` driver nor its connection-string parser
 * (whatwg-url, tr46); dist/driver.js holds them, and the workbench reaches them only through the
 * loader, on the first saved connection. The bundles are built here in memory with esbuild's
 * metafile, the same options as esbuild.js, so a static import of the driver anywhere under the
 * workbench fails this test.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import * as esbuild from 'esbuild';
import { DriverBundleError, driverBundleLoader } from '../../../src/extension/connections/driver-loader';

const root = path.resolve(__dirname, '..', '..', '..', '..');

/** The packages (or source folders) whose code lands in the bundle of `entry`. */
async function packagesIn(entry: string): Promise<Set<string>> {
  const result = await esbuild.build({
    entryPoints: [path.join(root, entry)],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    write: false,
    metafile: true,
    outfile: path.join(os.tmpdir(), 'ttl-driver-bundle-test.js'),
    external: [
      'vscode',
      'kerberos',
      '@mongodb-js/zstd',
      'snappy',
      'mongodb-client-encryption',
      '@aws-sdk/credential-providers',
      'gcp-metadata',
      'socks',
      'aws4',
    ],
    define: { TTL_WORKBENCH_VERSION: '"test"' },
    logLevel: 'silent',
  });
  const names = new Set<string>();
  for (const input of Object.keys(result.metafile.inputs)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    names.add(m ? m[1] : input);
  }
  return names;
}

const DRIVER_PACKAGES = ['mongodb', 'mongodb-connection-string-url', 'whatwg-url', 'tr46'];

describe('the driver bundle (issue 21)', () => {
  test('dist/workbench.js holds no driver code: mongodb, its connection-string parser, whatwg-url, tr46', async () => {
    const inWorkbench = await packagesIn('src/extension/workbench.ts');
    assert.ok(inWorkbench.has('bson'), 'the engine client still bundles bson (the check reads real inputs)');
    assert.deepEqual(
      DRIVER_PACKAGES.filter((p) => inWorkbench.has(p)),
      [],
      'import the driver only through connections/driver-loader.ts (type-only imports are fine)',
    );
  });

  test('dist/extension.js (activation) holds no driver code either', async () => {
    const inExtension = await packagesIn('src/extension/main.ts');
    assert.deepEqual(
      DRIVER_PACKAGES.filter((p) => inExtension.has(p)),
      [],
    );
  });

  test('dist/driver.js holds the driver and the connection-string parser', async () => {
    const inDriver = await packagesIn('src/extension/backend/driver-bundle.ts');
    assert.deepEqual(
      DRIVER_PACKAGES.filter((p) => !inDriver.has(p)),
      [],
    );
  });
});

describe('driverBundleLoader', () => {
  test('requires the bundle once, on the first call, and answers the same module after', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-driver-loader-'));
    const file = path.join(dir, 'driver.js');
    fs.writeFileSync(
      file,
      'globalThis.__ttlDriverLoads = (globalThis.__ttlDriverLoads ?? 0) + 1; exports.marker = {};\n',
    );
    const g = globalThis as { __ttlDriverLoads?: number };
    delete g.__ttlDriverLoads;
    const load = driverBundleLoader(file);
    assert.equal(g.__ttlDriverLoads, undefined, 'nothing is loaded before the first call');
    const first = load() as unknown as { marker: object };
    const second = load() as unknown as { marker: object };
    assert.equal(g.__ttlDriverLoads, 1);
    assert.equal(first.marker, second.marker);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a missing bundle fails with InternalError (1), naming the file and what to do', () => {
    const file = path.join(os.tmpdir(), 'ttl-no-such-dir', 'driver.js');
    const load = driverBundleLoader(file);
    assert.throws(load, (err: unknown) => {
      assert.ok(err instanceof DriverBundleError);
      assert.equal(err.code, 1);
      assert.equal(err.codeName, 'InternalError');
      assert.match(err.message, /ttl-no-such-dir/);
      assert.match(err.message, /Reinstall the extension/);
      return true;
    });
  });
});
