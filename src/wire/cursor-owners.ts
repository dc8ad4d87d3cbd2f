/**
 * Who may continue a cursor opened over the wire, as mongod decides it: a cursor opened in a
 * session (the `lsid` every driver sends, implicit or explicit) is continued only in that session,
 * from any connection of the pool (drivers send a cursor's getMore on whichever connection is
 * free); a cursor opened without a session only without one. Session cursors end with their
 * session (endSessions, which drivers send when they close); cursors without a session end with
 * the connection that opened them.
 */
import { fail } from '../engine/errors';

interface Owner {
  session: string | undefined;
  connection: number;
}

export class CursorOwners {
  private readonly owners = new Map<string, Owner>();

  opened(cursor: string, session: string | undefined, connection: number): void {
    this.owners.set(cursor, { session, connection });
  }

  closed(cursor: string): void {
    this.owners.delete(cursor);
  }

  /** Refuses a getMore from another session, with mongod's codes (50736, 50737, 50738). */
  checkGetMore(cursor: string, session: string | undefined): void {
    const owner = this.owners.get(cursor);
    if (!owner || owner.session === session) return;
    if (owner.session === undefined)
      fail(50736, `Cannot run getMore on cursor ${cursor}, which was not created in a session, in session ${session}`);
    if (session === undefined)
      fail(
        50737,
        `Cannot run getMore on cursor ${cursor}, which was created in session ${owner.session}, without an lsid`,
      );
    fail(
      50738,
      `Cannot run getMore on cursor ${cursor}, which was created in session ${owner.session}, in session ${session}`,
    );
  }

  /** The cursors that end with this connection (those opened without a session), forgotten. */
  takeOfConnection(connection: number): string[] {
    return this.take((o) => o.session === undefined && o.connection === connection);
  }

  /** The cursors of these sessions, forgotten. */
  takeOfSessions(sessions: ReadonlySet<string>): string[] {
    return this.take((o) => o.session !== undefined && sessions.has(o.session));
  }

  private take(match: (o: Owner) => boolean): string[] {
    const out: string[] = [];
    for (const [cursor, owner] of this.owners)
      if (match(owner)) {
        out.push(cursor);
        this.owners.delete(cursor);
      }
    return out;
  }
}
