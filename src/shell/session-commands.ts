/**
 * The logical-session commands mongod answers and the engine leaves to its front end (the wire
 * endpoint answers them for its connections): startSession, endSessions, killSessions,
 * killAllSessions, refreshSessions. The shell is a front end too, so a script's
 * `db.adminCommand({killSessions: [lsid]})` ends that session's transaction here as over the wire.
 */
import { UUID } from 'bson';
import type { Document, Engine } from '../engine';

const SESSION_COMMANDS = new Set(['startSession', 'endSessions', 'killSessions', 'killAllSessions', 'refreshSessions']);

export function isSessionCommand(name: string | undefined): boolean {
  return name !== undefined && SESSION_COMMANDS.has(name);
}

/** mongod's session server timeout, which startSession reports. */
const TIMEOUT_MINUTES = 30;

export function runSessionCommand(engine: Engine, name: string, command: Document): Document {
  if (name === 'startSession') return { id: { id: new UUID() }, timeoutMinutes: TIMEOUT_MINUTES, ok: 1 };
  const sessions = engine.replication?.sessions;
  const list = Array.isArray(command[name]) ? (command[name] as unknown[]) : [];
  // killSessions: [] and killAllSessions kill every session (of every user; there are none here).
  if (name === 'killAllSessions' || (name === 'killSessions' && list.length === 0)) sessions?.end(undefined);
  else if (name === 'endSessions' || name === 'killSessions') sessions?.end(list);
  return { ok: 1 };
}
