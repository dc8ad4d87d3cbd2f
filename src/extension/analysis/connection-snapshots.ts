/**
 * What each connected server knows, as the analysis's `EngineFacts`, for TTL011 in the files and
 * notebooks bound to a connection. The analysis runs on every pause in typing and is synchronous,
 * so it reads a cache: one catalog read per connection, kept until the user refreshes the tree, the
 * connection is replaced (reconnect), or a write made through this window changes the catalog.
 * A read that fails is not retried until one of those happens, so a slow or refused server never
 * costs a round trip per keystroke. No `vscode` import.
 */
import type { EngineFacts } from '../../analysis';
import { changesCatalog, type Backend } from '../backend/backend';
import { EngineSnapshot } from './engine-snapshot';

/** The live backends of saved connections (connections/manager.ts). */
export interface ConnectionSource {
  backendOf(name: string): Backend | undefined;
}

interface Entry {
  backend: Backend;
  snapshot: EngineSnapshot;
  /** A read for the current generation was started (done, failed or under way). */
  started: boolean;
  unsubscribe: () => void;
}

export class ConnectionSnapshots {
  private readonly entries = new Map<string, Entry>();
  private readonly builtListeners = new Set<(name: string) => void>();

  constructor(private readonly source: ConnectionSource) {}

  /**
   * The facts of the connection as last read; undefined while it is not connected or its first read
   * is under way (that read is started here once, and `onDidBuild` listeners hear when it lands).
   */
  factsOf(name: string): EngineFacts | undefined {
    const entry = this.entryOf(name);
    if (!entry) return undefined;
    if (!entry.started) void this.read(name, entry);
    return entry.snapshot.current;
  }

  /** Called when a connection's facts were (re)read: the caller re-analyses what is bound to it. */
  onDidBuild(listener: (name: string) => void): () => void {
    this.builtListeners.add(listener);
    return () => this.builtListeners.delete(listener);
  }

  /** The tree was refreshed: every connection read so far is read again (once each). */
  refreshAll(): Promise<void> {
    const reads: Array<Promise<void>> = [];
    for (const name of [...this.entries.keys()]) {
      const entry = this.entryOf(name);
      if (!entry) continue;
      entry.snapshot.invalidate();
      reads.push(this.read(name, entry));
    }
    return Promise.all(reads).then(() => undefined);
  }

  /** Drops the cache of connections that were disconnected or replaced. */
  prune(): void {
    for (const name of [...this.entries.keys()]) this.entryOf(name);
  }

  dispose(): void {
    for (const name of [...this.entries.keys()]) this.forget(name);
    this.builtListeners.clear();
  }

  private entryOf(name: string): Entry | undefined {
    const backend = this.source.backendOf(name);
    const entry = this.entries.get(name);
    if (entry && entry.backend === backend) return entry;
    if (entry) this.forget(name);
    if (!backend) return undefined;
    const fresh: Entry = {
      backend,
      snapshot: new EngineSnapshot({ backend }),
      started: false,
      unsubscribe: () => undefined,
    };
    fresh.unsubscribe = backend.onDidChange((events) => {
      // A createIndex or collMod run from the tree or a notebook through this window: read again.
      if (!events.some(changesCatalog) || this.entries.get(name) !== fresh) return;
      fresh.snapshot.invalidate();
      void this.read(name, fresh);
    });
    this.entries.set(name, fresh);
    return fresh;
  }

  private read(name: string, entry: Entry): Promise<void> {
    entry.started = true;
    return entry.snapshot.refresh().then(
      () => {
        if (this.entries.get(name) !== entry) return;
        for (const l of [...this.builtListeners]) l(name);
      },
      // Kept as "no facts" until the next refresh: TTL011 stays silent rather than guess.
      () => undefined,
    );
  }

  private forget(name: string): void {
    const entry = this.entries.get(name);
    if (!entry) return;
    entry.unsubscribe();
    entry.snapshot.invalidate();
    this.entries.delete(name);
  }
}
