/**
 * The embedded engine as the parts that activate before it see it. Diagnostics, hovers and code
 * actions start with the first JavaScript or TypeScript file; the engine (and its worker thread)
 * starts only when something needs data (see main.ts). Until then `backend` is undefined and the
 * source analysis runs without engine facts; when the engine starts, `onDidStart` listeners hear
 * it, and from then on `onDidChange` listeners hear its events.
 */
import type { Backend, BackendListener } from './backend/backend';

export class EngineLink {
  private current: Backend | undefined;
  private readonly changeListeners = new Set<BackendListener>();
  private readonly startListeners = new Set<() => void>();
  private unsubscribe: (() => void) | undefined;

  /** The engine, once it has started. */
  get backend(): Backend | undefined {
    return this.current;
  }

  /** Called once, by the code that started the engine. */
  attach(backend: Backend): void {
    if (this.current) throw new Error('the engine link is already attached');
    this.current = backend;
    this.unsubscribe = backend.onDidChange((events) => {
      for (const listener of [...this.changeListeners]) listener(events);
    });
    for (const listener of [...this.startListeners]) listener();
  }

  onDidStart(listener: () => void): () => void {
    this.startListeners.add(listener);
    return () => this.startListeners.delete(listener);
  }

  onDidChange(listener: BackendListener): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  dispose(): void {
    this.unsubscribe?.();
    this.changeListeners.clear();
    this.startListeners.clear();
  }
}
