/**
 * Stands in for @mongodb-js/oidc-plugin's rfc-8252-http-server (express, body-parser and their
 * iconv tables) in dist/mongosh.js: starting the browser login's redirect server refuses.
 */
import { NotSupportedInNotebooks, OIDC_BROWSER_LOGIN } from './unsupported';

export class RFC8252HTTPServer {
  constructor() {
    throw new NotSupportedInNotebooks(...OIDC_BROWSER_LOGIN);
  }
}

export function getAllInterfaces(): Promise<never> {
  return Promise.reject(new NotSupportedInNotebooks(...OIDC_BROWSER_LOGIN));
}
