/**
 * Stands in for pac-proxy-agent (its QuickJS interpreter for PAC files) in dist/mongosh.js: a
 * `pac+` proxy refuses before anything tries to load a PAC file.
 */
import { NotSupportedInNotebooks, PAC_PROXY } from './unsupported';

export class PacProxyAgent {
  constructor() {
    throw new NotSupportedInNotebooks(...PAC_PROXY);
  }
}

/** Called where the proxy support would install its PAC workaround (esbuild.js patches the call). */
export function refusePac(): never {
  throw new NotSupportedInNotebooks(...PAC_PROXY);
}
