/**
 * startSession: a logical session that this server keeps in its session cache
 * (catalog/local-sessions.ts), which $listLocalSessions lists. The front ends (shell, wire) end
 * sessions themselves, since they also own what a session holds there (cursors, transactions).
 */
import type { Document } from '../values/types';
import { startLocalSession } from '../catalog/local-sessions';
import type { CommandContext, CommandHandler } from './context';

/** mongod's logical session timeout, which startSession reports and hello's logicalSessionTimeoutMinutes is. */
const TIMEOUT_MINUTES = 30;

function startSession({ engine }: CommandContext): Document {
  return { id: { id: startLocalSession(engine) }, timeoutMinutes: TIMEOUT_MINUTES, ok: 1 };
}

export const sessionCommands: Record<string, CommandHandler> = { startSession };
