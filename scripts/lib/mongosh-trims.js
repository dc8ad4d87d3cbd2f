'use strict';
const fs = require('node:fs');
const path = require('node:path');

// What a notebook on a connection does not support, replaced in dist/mongosh.js by modules that
// refuse with NotImplemented (238) and say what to do (src/extension/backend/mongosh-trims/):
// OIDC's browser login (its redirect server brings express, body-parser and two copies of
// iconv-lite's tables) and PAC proxy files (pac-proxy-agent and its QuickJS interpreter). Measured
// 6,206 KB -> 3,453 KB minified (see the .vsix budget in test/unit/extension-logic/manifest.test.ts).
const trims = path.join(__dirname, '..', '..', 'src', 'extension', 'backend', 'mongosh-trims');
const PAC_HACK_CALL = 'installPacHttpsHack();';
const mongoshTrims = {
  name: 'mongosh-trims',
  setup(build) {
    build.onResolve({ filter: /^\.\/rfc-8252-http-server$/ }, (args) =>
      args.importer.includes(`${path.sep}@mongodb-js${path.sep}oidc-plugin${path.sep}`)
        ? { path: path.join(trims, 'oidc-redirect-server.ts') }
        : undefined,
    );
    build.onResolve({ filter: /^pac-proxy-agent$/ }, () => ({ path: path.join(trims, 'pac-proxy-agent.ts') }));
    // The proxy support looks pac-proxy-agent up on disk (require.resolve) before using it, which
    // fails in the .vsix with "Cannot find module": the refusal has to come first.
    build.onLoad({ filter: /devtools-proxy-support[\\/]dist[\\/]proxy-agent\.js$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, 'utf8');
      if (!text.includes(PAC_HACK_CALL))
        throw new Error(
          `mongosh-trims: ${args.path} no longer calls ${PAC_HACK_CALL}: look at how it loads PAC support now`,
        );
      return { contents: text.replace(PAC_HACK_CALL, "require('pac-proxy-agent').refusePac();"), loader: 'js' };
    });
  },
};

module.exports = { mongoshTrims, PAC_HACK_CALL };
