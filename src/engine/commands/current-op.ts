/**
 * The currentOp command: mongod answers it by running the aggregation it stands for,
 * `[{$currentOp: {...}}, {$match: <the command's other fields>}]`, and returning the operations as
 * one `inprog` array. The engine runs the same pipeline, so the command and the stage never differ.
 */
import { fail } from '../errors';
import { runPipeline } from '../query/aggregate';
import type { Document } from '../values/types';
import type { CommandContext, CommandHandler } from './context';
import { isGenericArgument } from './known-fields';
import { engineCatalog } from './pipeline-catalog';
import { engineIntrospection } from './pipeline-introspection';

/** The command's own options; every other field (past the first) is a filter on the operations. */
const OPTIONS = new Set(['$all', '$ownOps', '$truncateOps']);

function truthy(v: unknown): boolean {
  return v !== undefined && v !== null && v !== false && v !== 0;
}

function currentOp({ engine, dbName }: CommandContext, cmd: Document): Document {
  if (dbName !== 'admin')
    fail('Unauthorized', 'currentOp may only be run against the admin database: db.adminCommand({currentOp: 1}).');
  const filter: Document = {};
  Object.keys(cmd).forEach((key, i) => {
    if (i === 0 || OPTIONS.has(key) || isGenericArgument(key)) return;
    Object.defineProperty(filter, key, { value: cmd[key], enumerable: true, writable: true, configurable: true });
  });
  const stage = { idleConnections: truthy(cmd.$all), allUsers: !truthy(cmd.$ownOps), truncateOps: true };
  const inprog = runPipeline([], [{ $currentOp: stage }, { $match: filter }], {
    now: engine.now(),
    catalog: engineCatalog(engine, 'admin'),
    introspection: engineIntrospection(engine, undefined),
  });
  return { inprog, ok: 1 };
}

export const currentOpCommands: Record<string, CommandHandler> = { currentOp };
