/**
 * Who may continue a cursor opened over the wire. As on mongod, a cursor opened in a session (the
 * `lsid` drivers send with every command, implicit sessions included) belongs to that session, on
 * whichever connection: a driver sends a cursor's getMore on any connection of its pool. A getMore
 * from another session, or without one, is refused with mongod's codes (50736, 50737, 50738).
 * Session cursors die when exhausted or killed, when their session ends (endSessions, as a driver
 * sends on close, and killSessions: at once, where mongod waits for its next session reap), and
 * after 10 minutes without a getMore (mongod's cursorTimeoutMillis) unless opened with
 * noCursorTimeout. A cursor opened without a session belongs to its connection and dies with it:
 * nothing else would ever end it.
 */
import type { Engine } from '../engine';
import { fail } from '../engine/errors';

/** mongod's default cursorTimeoutMillis. */
export const CURSOR_IDLE_MS = 10 * 60_000;

interface Owner {
  /** The session's id (hex), or undefined for a cursor opened without a session. */
  session: string | undefined;
  connection: number;
  lastUsed: number;
  noTimeout: boolean;
  /** The engine the cursor lives in: one that was replaced (Reset Engine) took its cursors with it. */
  engine: Engine;
}

export interface CursorOwnersOptions {
  /** Idle time after which a session cursor is killed (default 10 minutes). */
  idleMs?: number;
  /** Wall-clock time in ms (tests replace it). */
  now?: () => number;
}

export class CursorOwners {
  private readonly owners = new Map<string, Owner>();
  private readonly idleMs: number;
  private readonly now: () => number;

  /** `engine` answers the engine served now (a host may replace it). */
  constructor(
    private readonly engine: () => Engine,
    options: CursorOwnersOptions = {},
  ) {
    this.idleMs = options.idleMs ?? CURSOR_IDLE_MS;
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.owners.size;
  }

  opened(id: string, session: string | undefined, connection: number, noTimeout = false): void {
    // A cursor of a replaced engine with the same id is gone with that engine.
    this.owners.set(id, { session, connection, lastUsed: this.now(), noTimeout, engine: this.engine() });
  }

  /** Refuses a getMore that the cursor's session (or connection) does not allow. */
  checkGetMore(id: string, session: string | undefined, connection: number): void {
    const owner = this.owners.get(id);
    if (owner && owner.engine !== this.engine()) this.owners.delete(id);
    if (!owner || owner.engine !== this.engine()) return; // the engine knows it or says CursorNotFound
    if (owner.session === undefined) {
      if (session !== undefined)
        fail(50736, `Cannot run getMore on cursor ${id}, which was not created in a session, in session ${session}`);
      if (owner.connection !== connection)
        fail(
          'CursorNotFound',
          `cursor id ${id} not found: a cursor opened without a session belongs to the connection that opened it.`,
        );
    } else if (session === undefined) {
      fail(50737, `Cannot run getMore on cursor ${id}, which was created in session ${owner.session}, without an lsid`);
    } else if (session !== owner.session) {
      fail(
        50738,
        `Cannot run getMore on cursor ${id}, which was created in session ${owner.session}, in session ${session}`,
      );
    }
    owner.lastUsed = this.now();
  }

  /** The cursor is exhausted or killed. */
  closed(id: string): void {
    this.owners.delete(id);
  }

  /** Kills the cursors the connection opened without a session. */
  connectionClosed(connection: number): void {
    this.kill((o) => o.session === undefined && o.connection === connection);
  }

  /** Kills the cursors of these sessions (all sessions' when `sessions` is undefined). */
  sessionsEnded(sessions: string[] | undefined): void {
    const ended = sessions && new Set(sessions);
    this.kill((o) => o.session !== undefined && (!ended || ended.has(o.session)));
  }

  /** Kills the session cursors idle for longer than the timeout; returns how many. */
  reapIdle(): number {
    const limit = this.now() - this.idleMs;
    return this.kill((o) => o.session !== undefined && !o.noTimeout && o.lastUsed < limit);
  }

  private kill(which: (owner: Owner) => boolean): number {
    const current = this.engine();
    const ids: string[] = [];
    for (const [id, owner] of this.owners)
      if (which(owner)) {
        this.owners.delete(id);
        if (owner.engine === current) ids.push(id);
      }
    if (!ids.length) return 0;
    try {
      current.cursors.kill(ids.map((id) => BigInt(id)));
    } catch {
      // The engine is closing: its cursors go with it.
    }
    return ids.length;
  }
}

/** A session id as a key: the hex of `lsid.id` (a UUID), or undefined without a usable lsid. */
export function sessionKey(lsid: unknown): string | undefined {
  const id = (lsid as { id?: unknown } | null | undefined)?.id as
    { _bsontype?: string; buffer?: unknown; position?: unknown } | undefined;
  if (id?._bsontype !== 'Binary' || !(id.buffer instanceof Uint8Array)) return undefined;
  const bytes = id.buffer.subarray(0, typeof id.position === 'number' ? id.position : id.buffer.length);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex');
}
