/**
 * getDiagnosticData: what mongod's full-time diagnostic data capture (FTDC) collected last, as one
 * document: {start, serverStatus: {start, ..., end}, end}. The engine keeps no periodic samples, so
 * the sample is taken when asked: the same serverStatus the command of that name answers, timed on
 * the engine's clock.
 */
import { fail } from '../errors';
import type { Document } from '../values/types';
import { serverStatus } from './admin';
import type { CommandContext, CommandHandler } from './context';

function getDiagnosticData(ctx: CommandContext): Document {
  if (ctx.dbName !== 'admin')
    fail(
      'Unauthorized',
      'getDiagnosticData may only be run against the admin database: db.adminCommand({getDiagnosticData: 1}).',
    );
  const start = ctx.engine.now();
  const { ok: _ok, ...status } = serverStatus(ctx);
  return { data: { start, serverStatus: { start, ...status, end: ctx.engine.now() }, end: ctx.engine.now() }, ok: 1 };
}

export const diagnosticDataCommands: Record<string, CommandHandler> = { getDiagnosticData };
