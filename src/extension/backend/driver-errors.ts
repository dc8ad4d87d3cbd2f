/**
 * What went wrong between the driver and a server, as MongoDB names it (code, codeName) with a
 * message that says what to do. The driver reports a refused connection, a DNS failure and a
 * timeout all as a MongoServerSelectionError; the cause sits in its topology description's server
 * errors and in `cause` chains, so this module reads those apart. Every message goes through the
 * connection's redaction: a server or driver may quote the string, password included. Pure: no
 * `vscode`, no driver import (errors are read by shape).
 */

/** An error with MongoDB's code and codeName (HostUnreachable 6, HostNotFound 7, …). */
export class RemoteError extends Error {
  constructor(
    readonly code: number,
    readonly codeName: string,
    message: string,
  ) {
    super(message);
    this.name = 'MongoServerError';
  }
}

export type ConnectionFailure = 'refused' | 'dns' | 'auth' | 'timeout' | 'tls' | 'other';

interface ErrorShape {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  codeName?: unknown;
  cause?: unknown;
  reason?: { servers?: Map<string, { error?: unknown }> };
  errorResponse?: { code?: unknown; codeName?: unknown; errmsg?: unknown };
}

/** The error and every error it names as its cause or as a server's error, outermost first. */
function chain(err: unknown): ErrorShape[] {
  const out: ErrorShape[] = [];
  const seen = new Set<unknown>();
  const visit = (e: unknown) => {
    if (!e || typeof e !== 'object' || seen.has(e) || out.length > 20) return;
    seen.add(e);
    const shape = e as ErrorShape;
    out.push(shape);
    visit(shape.cause);
    const servers = shape.reason?.servers;
    if (servers instanceof Map) for (const s of servers.values()) visit(s.error);
  };
  visit(err);
  return out;
}

const text = (v: unknown) => (typeof v === 'string' ? v : '');

export function classifyConnectionError(err: unknown): ConnectionFailure {
  const all = chain(err);
  const has = (test: (e: ErrorShape) => boolean) => all.some(test);
  if (
    has(
      (e) =>
        e.code === 18 || text(e.codeName) === 'AuthenticationFailed' || text(e.name) === 'MongoMissingCredentialsError',
    )
  )
    return 'auth';
  if (
    has(
      (e) =>
        e.code === 'ENOTFOUND' ||
        e.code === 'EAI_AGAIN' ||
        /\b(ENOTFOUND|EAI_AGAIN|querySrv|querySrv ENOTFOUND|ENODATA)\b/.test(text(e.message)),
    )
  )
    return 'dns';
  if (has((e) => e.code === 'ECONNREFUSED' || /\bECONNREFUSED\b/.test(text(e.message)))) return 'refused';
  if (
    has(
      (e) => /certificate|self[- ]signed|SSL|TLS|EPROTO/i.test(text(e.message)) && !/timed out/i.test(text(e.message)),
    )
  )
    return 'tls';
  if (
    has(
      (e) =>
        e.code === 'ETIMEDOUT' ||
        text(e.name) === 'MongoServerSelectionError' ||
        text(e.name) === 'MongoNetworkTimeoutError' ||
        /timed out|timeout/i.test(text(e.message)),
    )
  )
    return 'timeout';
  return 'other';
}

/** What to tell the user when connecting failed; `where` names the connection (no password). */
export function connectionErrorOf(err: unknown, where: string, redact: (s: string) => string): RemoteError {
  const detail = redact(firstMessage(err));
  switch (classifyConnectionError(err)) {
    case 'refused':
      return new RemoteError(
        6,
        'HostUnreachable',
        `${where}: the connection was refused (${detail}). Check that the server runs and listens on that host and port, and that a firewall lets you through.`,
      );
    case 'dns':
      return new RemoteError(
        7,
        'HostNotFound',
        `${where}: the host name could not be resolved (${detail}). Check the host in the connection string (for mongodb+srv://, the cluster's DNS name) and your network or VPN.`,
      );
    case 'auth':
      return new RemoteError(
        18,
        'AuthenticationFailed',
        `${where}: authentication failed. Check the user name and password (Edit Connection), and authSource in the string: the user must exist in that database.`,
      );
    case 'tls':
      return new RemoteError(
        6,
        'HostUnreachable',
        `${where}: the TLS handshake failed (${detail}). Check the TLS options: the CA file for a private certificate authority, or tls=false for a server without TLS.`,
      );
    case 'timeout':
      return new RemoteError(
        89,
        'NetworkTimeout',
        `${where}: no server answered in time (${detail}). Check that the host and port are right and reachable from this machine (an Atlas cluster needs your IP in its access list), or raise the timeout in the connection's options.`,
      );
    default: {
      const code = codeOf(err);
      return new RemoteError(code?.code ?? 6, code?.codeName ?? 'HostUnreachable', `${where}: ${detail}`);
    }
  }
}

function firstMessage(err: unknown): string {
  const all = chain(err);
  // The innermost network cause names the reason best (connect ECONNREFUSED 127.0.0.1:1).
  for (let i = all.length - 1; i >= 0; i--) {
    const m = text(all[i].message);
    if (m) return m;
  }
  return String(err);
}

function codeOf(err: unknown): { code: number; codeName: string } | undefined {
  for (const e of chain(err)) {
    const code =
      typeof e.code === 'number'
        ? e.code
        : typeof e.errorResponse?.code === 'number'
          ? e.errorResponse.code
          : undefined;
    if (code !== undefined) {
      const name = text(e.codeName) || text(e.errorResponse?.codeName);
      return { code, codeName: name };
    }
  }
  return undefined;
}

/**
 * A command's failure as the tree and commands expect it (code, codeName, message), with the
 * password removed from the message. Server errors keep their own code and text (the commands'
 * remedies read them); network errors after connecting become connection errors.
 */
export function commandErrorOf(err: unknown, where: string, redact: (s: string) => string): RemoteError {
  const code = codeOf(err);
  if (code && code.codeName) return new RemoteError(code.code, code.codeName, redact(firstMessage(err)));
  const name = text((err as ErrorShape)?.name);
  if (/^MongoNetwork|^MongoServerSelection|^MongoTopologyClosed/.test(name))
    return connectionErrorOf(err, where, redact);
  return new RemoteError(code?.code ?? 1, code?.codeName || 'InternalError', redact(firstMessage(err)));
}
