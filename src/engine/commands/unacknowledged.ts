/**
 * Unacknowledged writes (`writeConcern: {w: 0}` without `j`): mongod still performs the insert,
 * update or delete, but its reply says nothing about it, neither counts nor errors: the client
 * asked not to wait for the outcome. The reply is `{ok: 1}` whatever happened.
 */
import { EngineError } from '../errors';
import { isInterruption } from '../interrupt';
import { toDouble } from '../values/numbers';
import { isNumeric, isPlainObject, type Document } from '../values/types';
import type { CommandHandler } from './context';

export function isUnacknowledged(cmd: Document): boolean {
  const wc = cmd.writeConcern;
  if (!isPlainObject(wc)) return false;
  return isNumeric(wc.w) && toDouble(wc.w) === 0 && wc.j !== true && wc.fsync !== true;
}

/** The handler, answering `{ok: 1}` for an unacknowledged write whether it succeeded or failed. */
export function unacknowledgedAware(handler: CommandHandler): CommandHandler {
  return (ctx, cmd) => {
    if (!isUnacknowledged(cmd)) return handler(ctx, cmd);
    try {
      handler(ctx, cmd);
    } catch (err) {
      // An interruption (maxTimeMS, killOp) stops the command itself, not one of its writes.
      if (!(err instanceof EngineError) || isInterruption(err)) throw err;
    }
    return { ok: 1 };
  };
}
