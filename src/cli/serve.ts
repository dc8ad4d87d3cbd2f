/**
 * `ttl-workbench serve`: the engine over the MongoDB wire protocol until SIGINT or SIGTERM. The
 * first line printed is the connection string (a script can read it); then, on stderr, a line for
 * every connection closed for a bad frame and every failed authentication. With --auth the
 * connection string stays without credentials (the password is not printed); stderr says how to
 * pass them. Stopping closes the connections and the engine (a kept one synced to its folder and
 * unlocked). Exit codes: 0 stopped by a signal, 1 could not start.
 */
import { startServer } from '../wire/start-server';
import type { ServeOptions } from './args';

type Write = (text: string) => void;

export async function serveCommand(options: ServeOptions, out: Write, err: Write): Promise<number> {
  if (options.host !== '127.0.0.1' && options.host !== 'localhost' && options.host !== '::1')
    err(
      `ttl-workbench serve: listening on ${options.host}, not only on this machine: anyone who can reach it can read and change the engine${options.auth ? '' : ' (no --auth)'}.\n`,
    );
  let server;
  try {
    server = await startServer({
      port: options.port,
      host: options.host,
      clock: options.clock,
      ...(options.now ? { now: options.now } : {}),
      flavor: options.flavor,
      serverVersion: options.serverVersion,
      ...(options.data !== undefined ? { data: options.data } : {}),
      ...(options.readOnly ? { readOnly: true } : {}),
      ...(options.replSet !== undefined ? { replSet: options.replSet } : {}),
      ...(options.auth ? { auth: options.auth } : {}),
      log: (line) => err(`${line}\n`),
    });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'EADDRINUSE'
        ? `port ${options.port} is in use: pick another with --port, or --port 0 for a free one`
        : (e as Error).message;
    err(`ttl-workbench serve: cannot start: ${why}\n`);
    return 1;
  }
  out(`${server.uri}\n`);
  if (options.auth) {
    const at = server.uri.replace('mongodb://', `mongodb://${encodeURIComponent(options.auth.user)}:<password>@`);
    err(`authentication required (SCRAM-SHA-256, user ${options.auth.user} in admin): connect with ${at}\n`);
  }
  for (const note of server.notes) err(`${options.data}: ${note}\n`);
  const running = server;
  return new Promise<number>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void running.stop().then(
        () => resolve(0),
        (e: unknown) => {
          err(`ttl-workbench serve: stopping failed: ${(e as Error).message}\n`);
          resolve(1);
        },
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
