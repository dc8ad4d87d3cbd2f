/**
 * Which collation a command's strings compare under: its own `collation` option, else the default of
 * the collection (or view) it reads, else binary. A view's collation cannot be overridden.
 */
import { withCollator } from '../collation/active';
import { collatorFor, type Collator } from '../collation/collator';
import { parseCollation, sameCollation } from '../collation/spec';
import type { EngineContext } from '../engine-context';
import { fail } from '../errors';
import { isPlainObject, type Document } from '../values/types';

/** Commands whose whole work (query, sort, grouping) runs under the one collation they name. */
const READ_COMMANDS = new Set(['find', 'count', 'distinct', 'aggregate', 'findAndModify', 'findandmodify']);

/** The collator for an operation on `dbName.collName` that gave `given` (undefined: none given). */
export function operationCollator(
  engine: EngineContext,
  dbName: string,
  collName: unknown,
  given: unknown,
): Collator | null {
  const coll = typeof collName === 'string' ? engine.getCollection(dbName, collName) : undefined;
  const own = given === undefined ? undefined : parseCollation(given);
  const stored = coll?.options.collation === undefined ? null : parseCollation(coll.options.collation);
  if (coll?.isView && own !== undefined && !sameCollation(own, stored))
    fail(
      'OptionNotSupportedOnView',
      `Cannot override a view's default collation: ${dbName}.${coll.name} compares strings by its own collation. Leave the collation option out, or give the view's.`,
    );
  return collatorFor(own !== undefined ? own : stored);
}

/** Runs a command's handler under the collation it asks for (read commands and explain of one). */
export function withCommandCollation<T>(engine: EngineContext, dbName: string, command: Document, run: () => T): T {
  let cmd = command;
  let name = Object.keys(cmd)[0];
  if (name === 'explain' && isPlainObject(cmd.explain)) {
    cmd = cmd.explain;
    name = Object.keys(cmd)[0];
  }
  if (name === undefined || !READ_COMMANDS.has(name)) return run();
  return withCollator(operationCollator(engine, dbName, cmd[name], cmd.collation), run);
}
