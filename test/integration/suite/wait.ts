// Waiting in the integration suites: VS Code answers through events and debounced work, so a test
// polls for the state it expects, with a deadline that names what it waited for.

export const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `probe` (every `everyMs`) until it returns something other than undefined. */
export async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 15_000,
  everyMs = 100,
): Promise<T> {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    const value = await probe();
    if (value !== undefined) return value;
    await delay(everyMs);
  }
  throw new Error(`timed out waiting for ${what}`);
}
