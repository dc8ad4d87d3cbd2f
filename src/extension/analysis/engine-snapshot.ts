/**
 * What the embedded engine (or a connection's server) knows, as the analysis layer's `EngineFacts`: collections and their
 * indexes from the Backend's catalog snapshot (asynchronous), kept until the engine changes. The analysis is
 * synchronous, so it reads the last snapshot; a change rebuilds it and re-runs the diagnostics.
 * Before the engine has started there are no facts (undefined), not an empty engine: the analysis
 * then skips the checks that compare code with the engine.
 */
import { engineFactsFrom, type EngineCollectionFacts, type EngineFacts } from '../../analysis';
import type { Backend } from '../backend/backend';

/** Where the snapshot reads from: the embedded engine's link, or a saved connection's backend. */
export interface BackendSource {
  readonly backend: Backend | undefined;
}

export class EngineSnapshot {
  private facts: EngineFacts | undefined;
  private building: Promise<EngineFacts | undefined> | undefined;
  private generation = 0;

  constructor(private readonly engine: BackendSource) {}

  /** The last snapshot (undefined until the first one is built). */
  get current(): EngineFacts | undefined {
    return this.facts;
  }

  invalidate(): void {
    this.generation++;
    this.building = undefined;
  }

  async refresh(): Promise<EngineFacts | undefined> {
    if (this.building) return this.building;
    const generation = this.generation;
    const building = this.read().then((facts) => {
      if (generation === this.generation) this.facts = facts;
      return facts;
    });
    this.building = building;
    return building;
  }

  private async read(): Promise<EngineFacts | undefined> {
    const backend = this.engine.backend;
    if (!backend) return undefined;
    // One catalog snapshot: a backend on the engine host's thread answers it without waiting on the engine.
    const catalog = await backend.catalog();
    const collections: EngineCollectionFacts[] = catalog.collections.map((c) => {
      const ts = c.options.timeseries as { timeField?: unknown; metaField?: unknown } | undefined;
      return {
        db: c.db,
        name: c.name,
        capped: c.options.capped === true,
        clustered: c.options.clusteredIndex !== undefined,
        ...(ts && typeof ts.timeField === 'string'
          ? {
              timeseries: {
                timeField: ts.timeField,
                ...(typeof ts.metaField === 'string' ? { metaField: ts.metaField } : {}),
              },
            }
          : {}),
        ...(c.options.expireAfterSeconds !== undefined
          ? { expireAfterSeconds: Number(c.options.expireAfterSeconds) }
          : {}),
        indexes: c.type === 'timeseries' ? [] : c.indexes,
      };
    });
    return engineFactsFrom(collections);
  }
}
