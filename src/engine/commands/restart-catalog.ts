/**
 * restartCatalog: mongod's test command that closes and reopens the catalog. The engine's catalog
 * lives in memory, so what a reopening changes is what it rebuilds: every database's views are
 * read again from its system.views (entries that do not parse are skipped, as when mongod opens
 * a catalog), and every open cursor dies with its plan, so its next getMore is QueryPlanKilled.
 */
import { fail } from '../errors';
import type { Document } from '../values/types';
import type { CommandContext, CommandHandler } from './context';
import { reloadViews } from './system-views';

function restartCatalog({ engine, dbName }: CommandContext): Document {
  if (dbName !== 'admin')
    fail(
      'Unauthorized',
      'restartCatalog may only be run against the admin database: db.adminCommand({restartCatalog: 1}).',
    );
  for (const name of [...engine.databases.keys()]) {
    engine.cursors.killNamespace(name, 'the catalog was restarted');
    reloadViews(engine, name);
  }
  return { ok: 1 };
}

export const restartCatalogCommands: Record<string, CommandHandler> = { restartCatalog };
