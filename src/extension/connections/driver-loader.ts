/**
 * Loads the bundles only saved connections need, on first use, and keeps them: the driver
 * (backend/driver-bundle.ts, dist/driver.js) when a connection is added, edited or connected, and
 * mongosh's runtime (backend/mongosh-bundle.ts, dist/mongosh.js) when a notebook cell first runs
 * on a connection. They are required by path at run time, so esbuild leaves them out of the
 * bundle that calls this. No `vscode` import.
 */
import type * as DriverBundle from '../backend/driver-bundle';
import type * as MongoshBundle from '../backend/mongosh-bundle';

export type DriverModule = typeof DriverBundle;
export type MongoshModule = typeof MongoshBundle;

/** The parts of the driver bundle that read connection strings (the store and the commands use only these). */
export type ConnectionStrings = Pick<DriverModule, 'parseConnectionString' | 'withPassword' | 'redactText'>;

export class DriverBundleError extends Error {
  readonly code = 1;
  readonly codeName = 'InternalError';
}

/** A loader of the bundle at `file`: the first call requires it, later calls answer the same module. */
export function bundleLoader<T>(file: string, what: string): () => T {
  let loaded: T | undefined;
  return () => {
    if (loaded) return loaded;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a bundle of its own, loaded on first need
      loaded = require(file) as T;
    } catch (err) {
      throw new DriverBundleError(
        `TTL Workbench could not load ${what} (${file}): ${(err as Error).message.split('\n')[0]}. ` +
          'Reinstall the extension; the embedded engine keeps working without it.',
      );
    }
    return loaded;
  };
}

export function driverBundleLoader(file: string): () => DriverModule {
  return bundleLoader<DriverModule>(file, 'its MongoDB driver');
}

export function mongoshBundleLoader(file: string): () => MongoshModule {
  return bundleLoader<MongoshModule>(file, "mongosh's runtime");
}
