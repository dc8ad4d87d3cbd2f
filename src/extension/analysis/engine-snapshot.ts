/**
 * What the embedded engine knows, as the analysis layer's `EngineFacts`: collections and their
 * indexes read through the Backend (asynchronous), kept until the engine changes. The analysis is
 * synchronous, so it reads the last snapshot; a change rebuilds it and re-runs the diagnostics.
 */
import { engineFactsFrom, type EngineCollectionFacts, type EngineFacts } from '../../analysis';
import type { Backend } from '../backend/backend';

export class EngineSnapshot {
  private facts: EngineFacts | undefined;
  private building: Promise<EngineFacts> | undefined;
  private generation = 0;

  constructor(private readonly backend: Backend) {}

  /** The last snapshot (undefined until the first one is built). */
  get current(): EngineFacts | undefined {
    return this.facts;
  }

  invalidate(): void {
    this.generation++;
    this.building = undefined;
  }

  async refresh(): Promise<EngineFacts> {
    if (this.building) return this.building;
    const generation = this.generation;
    const building = this.read().then((facts) => {
      if (generation === this.generation) this.facts = facts;
      return facts;
    });
    this.building = building;
    return building;
  }

  private async read(): Promise<EngineFacts> {
    const collections: EngineCollectionFacts[] = [];
    for (const db of await this.backend.listDatabases()) {
      for (const c of await this.backend.listCollections(db.name)) {
        const ts = c.options.timeseries as { timeField?: unknown; metaField?: unknown } | undefined;
        const indexes = c.kind === 'timeseries' ? [] : await this.backend.listIndexes(db.name, c.name).catch(() => []);
        collections.push({
          db: db.name,
          name: c.name,
          capped: c.options.capped === true,
          clustered: c.options.clusteredIndex !== undefined,
          ...(ts && typeof ts.timeField === 'string' ? { timeseries: { timeField: ts.timeField, ...(typeof ts.metaField === 'string' ? { metaField: ts.metaField } : {}) } } : {}),
          ...(c.options.expireAfterSeconds !== undefined ? { expireAfterSeconds: Number(c.options.expireAfterSeconds) } : {}),
          indexes: indexes.map((i) => i.spec),
        });
      }
    }
    return engineFactsFrom(collections);
  }
}
