/**
 * features: the ObjectId machine id the server puts in the ids it makes, and with oidReset: true a
 * new one (the old one in oidMachineOld). mongod adds a `js` field only when it has a JavaScript
 * engine, which this one has not (server-side JavaScript is refused).
 */
import type { Document } from '../values/types';
import { objectIdMachine, regenerateObjectIdMachine } from '../values/object-id-source';
import { optionalBool, type CommandHandler } from './context';

function features(_ctx: unknown, cmd: Document): Document {
  const reply: Document = {};
  if (optionalBool(cmd, 'oidReset') === true) {
    reply.oidMachineOld = objectIdMachine();
    regenerateObjectIdMachine();
  }
  reply.oidMachine = objectIdMachine();
  return { ...reply, ok: 1 };
}

export const featuresCommands: Record<string, CommandHandler> = { features };
