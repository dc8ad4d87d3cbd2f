/**
 * dist/mongosh.js without OIDC's browser-login server and PAC proxy support (issue 21): the bundle is
 * built here as esbuild.js builds it (scripts/lib/mongosh-trims.js), then loaded and run against the
 * wire endpoint, so a trim that cut something a notebook needs fails here; the two refusals carry
 * NotImplemented (238) and say what to do instead.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as esbuild from 'esbuild';
import type { PlaygroundSession } from '../../../src/extension/backend/backend';
import { RFC8252HTTPServer } from '../../../src/extension/backend/mongosh-trims/oidc-redirect-server';
import { PacProxyAgent, refusePac } from '../../../src/extension/backend/mongosh-trims/pac-proxy-agent';
import { startServer, type RunningServer } from '../../../src/wire';

const root = path.resolve(__dirname, '..', '..', '..', '..');
const { mongoshTrims } = require(path.join(root, 'scripts', 'lib', 'mongosh-trims.js')) as {
  mongoshTrims: esbuild.Plugin;
};

describe('the trimmed mongosh bundle', () => {
  let dir: string;
  let packages: Set<string>;
  let output: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-mongosh-trims-'));
    const result = await esbuild.build({
      entryPoints: [path.join(root, 'src', 'extension', 'backend', 'mongosh-bundle.ts')],
      outfile: path.join(dir, 'mongosh.js'),
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      metafile: true,
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
        'electron',
        'os-dns-native',
        'ssh2',
        'cpu-features',
        '*.node',
      ],
      plugins: [mongoshTrims],
      logLevel: 'silent',
    });
    packages = new Set<string>();
    for (const input of Object.keys(result.metafile.inputs)) {
      const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
      if (m) packages.add(m[1]);
    }
    output = path.join(dir, 'mongosh.js');
  });

  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test("OIDC's redirect server (express, body-parser, iconv tables) and PAC support (QuickJS) are left out", () => {
    for (const gone of [
      'express',
      'body-parser',
      'raw-body',
      'iconv-lite',
      'pac-proxy-agent',
      '@tootallnate/quickjs-emscripten',
    ])
      assert.ok(!packages.has(gone), `${gone} is still in the bundle`);
    assert.ok(packages.has('@mongodb-js/oidc-plugin'), 'OIDC itself (its device flow) stays');
    assert.ok(packages.has('@mongodb-js/devtools-proxy-support'), 'named http/https/socks proxies stay');
    assert.match(
      fs.readFileSync(output, 'utf8'),
      /refusePac\(\)/,
      'the PAC workaround call is replaced by the refusal',
    );
  });

  describe('the bundle still runs a notebook cell on a connection', () => {
    let server: RunningServer;
    let session: PlaygroundSession;

    before(async () => {
      server = await startServer({});
      const bundle = require(output) as { openMongoshSession: (o: { uri: string }) => Promise<PlaygroundSession> };
      session = await bundle.openMongoshSession({ uri: server.uri });
    });

    after(async () => {
      session.dispose();
      await server.stop();
    });

    test("a cell's insert and count come back through mongosh's runtime", async () => {
      const events = [];
      for await (const e of session.run('db.t.insertOne({a: 1}); db.t.countDocuments()')) events.push(e);
      const last = events.filter((e) => e.kind === 'statement').at(-1);
      assert.ok(last && last.kind === 'statement' && last.ok, JSON.stringify(events));
      assert.match(JSON.stringify(last.outputs), /"text":"1"/);
      assert.equal(server.engine.requireCollection('test', 't').count, 1, 'the document reached the server');
    });
  });

  test('the refusals say what is not supported and what to do, with NotImplemented (238)', () => {
    for (const refuse of [() => new RFC8252HTTPServer(), () => new PacProxyAgent(), () => refusePac()])
      assert.throws(refuse, (err: Error & { code?: number; codeName?: string }) => {
        assert.equal(err.code, 238);
        assert.equal(err.codeName, 'NotImplemented');
        assert.match(
          err.message,
          /is not supported in TTL Workbench notebooks on a connection: .+ (instead|directly|device flow)/,
        );
        return true;
      });
  });
});
