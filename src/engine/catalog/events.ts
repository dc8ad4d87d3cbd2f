/**
 * Change events for the UI. Writes record what changed while a command runs; the engine flushes
 * once per command (or TTL batch), coalescing document counts, so a bulk insert of a million
 * documents is one event, never a million.
 */
export type ChangeCause = 'command' | 'ttl' | 'capped';

export type EngineEvent =
  | { kind: 'databaseCreated' | 'databaseDropped'; db: string }
  | { kind: 'collectionCreated' | 'collectionDropped'; db: string; collection: string }
  | { kind: 'collectionRenamed'; db: string; collection: string; toDb: string; toCollection: string }
  | { kind: 'collectionChanged'; db: string; collection: string }
  | { kind: 'indexesCreated' | 'indexesDropped' | 'indexChanged'; db: string; collection: string; names: string[] }
  | {
      kind: 'documentsInserted' | 'documentsUpdated' | 'documentsDeleted';
      db: string;
      collection: string;
      count: number;
      cause: ChangeCause;
    };

export type EngineListener = (events: readonly EngineEvent[]) => void;

export class EventBuffer {
  private pending: EngineEvent[] = [];
  private readonly listeners = new Set<EngineListener>();

  subscribe(listener: EngineListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  record(event: EngineEvent): void {
    if (this.listeners.size === 0) return;
    if ('count' in event) {
      if (event.count === 0) return;
      const same = this.pending.find(
        (e) =>
          e.kind === event.kind &&
          'count' in e &&
          e.db === event.db &&
          e.collection === event.collection &&
          e.cause === event.cause,
      );
      if (same && 'count' in same) {
        same.count += event.count;
        return;
      }
      this.pending.push({ ...event });
      return;
    }
    if ('names' in event) {
      const same = this.pending.find(
        (e) => e.kind === event.kind && 'names' in e && e.db === event.db && e.collection === event.collection,
      );
      if (same && 'names' in same) {
        same.names.push(...event.names);
        return;
      }
      this.pending.push({ ...event, names: [...event.names] });
      return;
    }
    this.pending.push(event);
  }

  /** Deliver what accumulated as one batch; a throwing listener does not affect the others. */
  flush(): void {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    for (const listener of this.listeners) {
      try {
        listener(batch);
      } catch (err) {
        console.error('TTL Workbench engine: a change listener threw', err);
      }
    }
  }
}
