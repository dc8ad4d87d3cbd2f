/**
 * The Databases view's description (next to its title): the embedded engine's flavor, clock mode
 * and storage. An empty engine has no row in the view (its welcome content shows instead), so
 * these facts live where they stay visible in both states; updated when the clock mode, the
 * engine or its storage changes, never by polling.
 */
import type * as vscode from 'vscode';
import type { Backend } from '../backend/backend';
import { engineFacts } from './presentation';

export class ViewDescription implements vscode.Disposable {
  private readonly unsubscribe: () => void;
  private updating: Promise<void> = Promise.resolve();
  private disposed = false;

  constructor(
    private readonly view: Pick<vscode.TreeView<unknown>, 'description'>,
    private readonly backend: Backend,
  ) {
    this.unsubscribe = backend.onDidChange((events) => {
      if (events.some((e) => e.kind === 'clockChanged' || e.kind === 'reset' || e.kind === 'storageChanged'))
        void this.update();
    });
    void this.update();
  }

  update(): Promise<void> {
    this.updating = (async () => {
      try {
        const [info, clock, storage] = await Promise.all([
          this.backend.info(),
          this.backend.clock(),
          this.backend.storageInfo(),
        ]);
        if (!this.disposed) this.view.description = engineFacts(info, clock, storage);
      } catch {
        // The backend is shutting down.
      }
    })();
    return this.updating;
  }

  /** Resolves once the last update has reached the view. */
  whenIdle(): Promise<void> {
    return this.updating;
  }

  dispose(): void {
    this.disposed = true;
    this.unsubscribe();
  }
}
