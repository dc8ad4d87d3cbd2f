/** The engine state fixtures marked "needs the engine" are analysed against, as `EngineFacts`. */
import { Engine, VirtualClock, type Document } from '../../../src/engine';
import { engineFactsFrom, type EngineCollectionFacts, type EngineFacts } from '../../../src/analysis';

/** Facts read from a real engine through listCollections / listIndexes. */
export function factsOf(engine: Engine): EngineFacts {
  const collections: EngineCollectionFacts[] = [];
  const dbs = (engine.runCommand('admin', { listDatabases: 1 }).databases as Document[]).map((d) => String(d.name));
  for (const db of dbs) {
    const list = (engine.runCommand(db, { listCollections: 1 }).cursor as Document).firstBatch as Document[];
    for (const c of list) {
      const name = String(c.name);
      const options = (c.options ?? {}) as Document;
      const indexes =
        c.type === 'timeseries'
          ? []
          : ((engine.runCommand(db, { listIndexes: name }).cursor as Document).firstBatch as Document[]);
      const ts = options.timeseries as Document | undefined;
      collections.push({
        db,
        name,
        capped: options.capped === true,
        clustered: options.clusteredIndex !== undefined,
        ...(ts
          ? {
              timeseries: {
                timeField: String(ts.timeField),
                ...(ts.metaField ? { metaField: String(ts.metaField) } : {}),
              },
            }
          : {}),
        ...(options.expireAfterSeconds !== undefined ? { expireAfterSeconds: Number(options.expireAfterSeconds) } : {}),
        indexes,
      });
    }
  }
  return engineFactsFrom(collections);
}

/**
 * The engine state that fixtures marked "needs the engine" are written against: app.sessions has
 * lastSeen_1 (expireAfterSeconds 3600), as TTL011's fixtures expect. Commands as [database, command].
 */
export const FIXTURE_ENGINE_STATE: ReadonlyArray<readonly [string, Document]> = [
  [
    'app',
    {
      createIndexes: 'sessions',
      indexes: [{ key: { lastSeen: 1 }, name: 'lastSeen_1', expireAfterSeconds: 3600 }],
    },
  ],
];

/** An engine holding `FIXTURE_ENGINE_STATE`. */
export function sessionsEngine(): Engine {
  const engine = new Engine({ clock: new VirtualClock(new Date('2026-01-01T00:00:00Z')) });
  for (const [db, command] of FIXTURE_ENGINE_STATE) engine.runCommand(db, structuredClone(command));
  return engine;
}
