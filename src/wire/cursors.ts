/**
 * Who may continue a cursor, as on mongod: the logical session (lsid) that opened it, whatever
 * connection a getMore arrives on. A driver's pool sends a cursor's getMore over any of its
 * connections, so tying cursors to connections broke iteration under load.
 *
 * A cursor ends when it is exhausted or killed, when its session ends (endSessions, killSessions,
 * killAllSessions: a driver ends its sessions when the client closes), after ten minutes without a
 * getMore (mongod's cursorTimeoutMillis, unless the cursor was opened with noCursorTimeout), or,
 * for a cursor opened outside any session, when its connection closes.
 */
import { Binary } from 'bson';
import type { Engine } from '../engine';
import { fail } from '../engine/errors';

/** mongod's default cursorTimeoutMillis. */
export const CURSOR_TIMEOUT_MS = 10 * 60 * 1000;

interface Owner {
  /** The session that opened it (its lsid's id, as hex), or undefined outside a session. */
  session: string | undefined;
  connection: number;
  lastUsed: number;
  noTimeout: boolean;
}

export class CursorOwners {
  private readonly owners = new Map<string, Owner>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly engine: Engine,
    private readonly timeoutMs = CURSOR_TIMEOUT_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Reaps idle cursors once a minute until stop() (the timer never keeps the process alive). */
  start(): void {
    this.timer ??= setInterval(() => this.reap(), Math.min(60_000, this.timeoutMs)).unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  get size(): number {
    return this.owners.size;
  }

  opened(cursor: string, session: string | undefined, connection: number, noTimeout: boolean): void {
    this.owners.set(cursor, { session, connection, lastUsed: this.now(), noTimeout });
  }

  /** mongod's checks before a getMore (codes 50736-50738); an unknown cursor is the engine's to refuse. */
  checkGetMore(cursor: string, session: string | undefined): void {
    const owner = this.owners.get(cursor);
    if (!owner) return;
    if (session !== undefined && owner.session === undefined)
      fail(50736, `Cannot run getMore on cursor ${cursor}, which was not created in a session, in session ${session}`);
    if (session === undefined && owner.session !== undefined)
      fail(
        50737,
        `Cannot run getMore on cursor ${cursor}, which was created in session ${owner.session}, without an lsid`,
      );
    if (session !== owner.session)
      fail(
        50738,
        `Cannot run getMore on cursor ${cursor}, which was created in session ${owner.session}, in session ${session}`,
      );
    owner.lastUsed = this.now();
  }

  /** The cursor is exhausted, killed or gone from the engine. */
  forget(cursor: string): void {
    this.owners.delete(cursor);
  }

  /** The sessions ended: their cursors are killed. `undefined` ends every session (killAllSessions). */
  endSessions(sessions: string[] | undefined): void {
    const ending = sessions && new Set(sessions);
    this.killWhere((o) => o.session !== undefined && (!ending || ending.has(o.session)));
  }

  /** A connection closed: the cursors it opened outside any session die with it. */
  connectionClosed(connection: number): void {
    this.killWhere((o) => o.session === undefined && o.connection === connection);
  }

  /** Kills the cursors idle longer than the timeout. */
  reap(): void {
    const limit = this.now() - this.timeoutMs;
    this.killWhere((o) => !o.noTimeout && o.lastUsed <= limit);
  }

  private killWhere(test: (owner: Owner) => boolean): void {
    const ids: bigint[] = [];
    for (const [cursor, owner] of this.owners)
      if (test(owner)) {
        ids.push(BigInt(cursor));
        this.owners.delete(cursor);
      }
    if (!ids.length) return;
    try {
      this.engine.cursors.kill(ids);
    } catch {
      // The engine is closing: its cursors go with it.
    }
  }
}

/** The key of a session: its lsid's id (a UUID), as hex; undefined for a command outside any session. */
export function sessionKey(lsid: unknown): string | undefined {
  const id = (lsid as { id?: unknown } | null | undefined)?.id;
  if (id instanceof Binary) return id.toString('hex');
  return undefined;
}
