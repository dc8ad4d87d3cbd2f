/**
 * The logical-session commands mongod answers and the engine leaves to its front end (the wire
 * endpoint answers them for its connections): startSession, endSessions, killSessions,
 * killAllSessions, refreshSessions. The shell is a front end too, so a script's
 * `db.adminCommand({killSessions: [lsid]})` ends that session's transaction here as over the wire.
 */
import { endLocalSessions, type Document, type Engine } from '../engine';

const SESSION_COMMANDS = new Set(['startSession', 'endSessions', 'killSessions', 'killAllSessions', 'refreshSessions']);

export function isSessionCommand(name: string | undefined): boolean {
  return name !== undefined && SESSION_COMMANDS.has(name);
}

export function runSessionCommand(engine: Engine, name: string, command: Document): Document {
  // The engine keeps the session cache that $listLocalSessions reads.
  if (name === 'startSession') return engine.runCommand('admin', { startSession: 1 });
  const sessions = engine.replication?.sessions;
  const list = Array.isArray(command[name]) ? (command[name] as unknown[]) : [];
  // killSessions: [] and killAllSessions kill every session (of every user; there are none here).
  if (name === 'killAllSessions' || (name === 'killSessions' && list.length === 0)) {
    sessions?.end(undefined);
    endLocalSessions(engine, undefined);
  } else if (name === 'endSessions' || name === 'killSessions') {
    sessions?.end(list);
    endLocalSessions(engine, list);
  }
  return { ok: 1 };
}
