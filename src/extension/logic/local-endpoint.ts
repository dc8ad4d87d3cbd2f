/**
 * The local endpoint's pure parts: the port setting, what the status bar item says, and what a
 * failed listen means in words, with what to do. No `vscode`.
 */

/** The endpoint binds to loopback only: no setting widens it from the extension (`ttl-workbench serve --bind` can). */
export const LOOPBACK = '127.0.0.1';

/**
 * 27018, one above mongod's 27017: it reads as MongoDB, yet does not fight a local mongod (or a
 * container publishing 27017) for its port, and an app left on the default 27017 never reaches the
 * workbench by mistake: pointing an app here is a choice. mongod itself uses 27018 only with
 * --shardsvr, which a development machine seldom runs. A fixed default, unlike 0, keeps the
 * connection string in an app's .env valid from one session to the next.
 */
export const DEFAULT_LOCAL_ENDPOINT_PORT = 27018;

export const PORT_SETTING = 'ttlWorkbench.localEndpoint.port';

/** A port from the setting or a command's arguments: an integer from 0 (any free port) to 65535; else undefined. */
export function endpointPortOf(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 65535 ? n : undefined;
}

export interface EndpointAddressLike {
  host: string;
  port: number;
  uri: string;
}

/** The status bar item: `$(plug) mongodb://127.0.0.1:27018`. */
export function endpointStatusText(address: EndpointAddressLike): string {
  return `$(plug) ${address.uri.replace(/\/$/, '')}`;
}

export function endpointTooltip(address: EndpointAddressLike, inMemory: boolean): string {
  return [
    `TTL Workbench local endpoint: this window's engine over the MongoDB wire protocol, on ${address.host} (this machine only).`,
    `Connection string: ${address.uri}`,
    inMemory
      ? 'The engine is in memory (ttlWorkbench.storage is "memory"): what apps write goes with the window.'
      : "What apps write is kept in the engine's data folder.",
    'Click to copy the connection string.',
  ].join('\n');
}

/**
 * Why the endpoint could not listen, and what to do. `listenCode` is Node's code (EADDRINUSE,
 * EACCES, EADDRNOTAVAIL) as the engine host's EndpointListenError carries it.
 */
export function listenFailureText(listenCode: string | undefined, port: number, detail: string): string {
  const where = `${LOOPBACK}:${port}`;
  const fix = `Set ${PORT_SETTING} to a free port, or to 0 for any free port, and start it again.`;
  switch (listenCode) {
    case 'EADDRINUSE':
      return `The local endpoint cannot listen on ${where}: the port is in use (a local mongod, another program, or another VS Code window's endpoint). ${fix}`;
    case 'EACCES':
      return `The local endpoint cannot listen on ${where}: this user may not open port ${port} (ports below 1024 need privileges). ${fix}`;
    default:
      return `The local endpoint cannot listen on ${where}: ${detail}. ${fix}`;
  }
}

/** What the user reads when a restart of the engine host took the endpoint down for good. */
export function endpointLostText(
  address: EndpointAddressLike,
  error: { message: string; listenCode?: unknown },
): string {
  const cause =
    error.listenCode === 'EADDRINUSE' ? `port ${address.port} was taken by another program meanwhile` : error.message;
  return `The local endpoint on ${address.uri} stopped: after the engine host restarted it could not listen again (${cause}). Apps connected to it get "connection refused"; Start Local Endpoint starts it again.`;
}
