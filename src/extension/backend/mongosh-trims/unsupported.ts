/**
 * What mongosh's connection helper can do on a desktop but a notebook on a connection cannot: the
 * bundle (dist/mongosh.js) replaces those modules at build time with these refusals (esbuild.js,
 * `mongoshTrims`), which keeps about 2.5 MB of local web server and PAC interpreter out of the
 * extension. The refusal carries MongoDB's NotImplemented (238) and says what to do instead.
 */
export class NotSupportedInNotebooks extends Error {
  readonly code = 238;
  readonly codeName = 'NotImplemented';
  constructor(what: string, instead: string) {
    super(`${what} is not supported in TTL Workbench notebooks on a connection: ${instead}`);
    this.name = 'MongoshUnsupportedError';
  }
}

export const OIDC_BROWSER_LOGIN = [
  "OIDC's browser login (the authorization-code flow with a local redirect server)",
  'use the device flow (authMechanismProperties ENVIRONMENT or the device-code prompt), or run the notebook in mongosh itself.',
] as const;

export const PAC_PROXY = [
  'A proxy given by a PAC file (pac+http://…)',
  'name the proxy directly (http://, https:// or socks5:// in the proxy options), or connect without it.',
] as const;
