/**
 * Loads the driver bundle (backend/driver-bundle.ts, built as dist/driver.js) on first use and
 * keeps it. It is required by path at run time, so esbuild leaves it out of the bundle that calls
 * this. No `vscode` import.
 */
import type * as DriverBundle from '../backend/driver-bundle';

export type DriverModule = typeof DriverBundle;

/** The parts of the bundle that read connection strings (the store and the commands use only these). */
export type ConnectionStrings = Pick<DriverModule, 'parseConnectionString' | 'withPassword' | 'redactText'>;

export class DriverBundleError extends Error {
  readonly code = 1;
  readonly codeName = 'InternalError';
}

/** A loader of the bundle at `file`: the first call requires it, later calls answer the same module. */
export function driverBundleLoader(file: string): () => DriverModule {
  let loaded: DriverModule | undefined;
  return () => {
    if (loaded) return loaded;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a bundle of its own, loaded on first need
      loaded = require(file) as DriverModule;
    } catch (err) {
      throw new DriverBundleError(
        `TTL Workbench could not load its MongoDB driver (${file}): ${(err as Error).message.split('\n')[0]}. ` +
          'Reinstall the extension; the embedded engine keeps working without it.',
      );
    }
    return loaded;
  };
}
