/**
 * `EngineFacts` over a snapshot of the engine's collections (the extension fills it from its
 * Backend; tests from an Engine). A namespace without a database matches only when exactly one
 * database has that collection: otherwise the analysis cannot know which one the code means.
 */
import type { EngineCollectionFacts, EngineFacts, Namespace } from './types';

export function engineFactsFrom(collections: readonly EngineCollectionFacts[]): EngineFacts {
  return {
    collection(ns: Namespace): EngineCollectionFacts | undefined {
      const matches = collections.filter((c) => c.name === ns.collection && (ns.db === undefined || c.db === ns.db));
      return matches.length === 1 ? matches[0] : undefined;
    },
  };
}
