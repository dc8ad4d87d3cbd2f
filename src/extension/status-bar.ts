/**
 * The status bar item: the engine's clock (virtual time, or "system") and the documents the TTL
 * monitor of this engine deleted (the same figure as the tree's TTL Monitor row: one source, so a
 * reset starts both at 0). Clicking it advances the virtual clock (on the system clock it
 * offers the switch). Updated from backend events, debounced.
 */
import * as vscode from 'vscode';
import type { Backend, ClockInfo, MonitorInfo } from './backend/backend';
import { formatClockTime, formatCount, formatMillis, plural } from './logic/durations';
import { engineFacts } from './tree/presentation';

export function statusText(clock: ClockInfo, monitor: MonitorInfo): string {
  const time =
    clock.mode === 'virtual'
      ? `$(history) ${formatClockTime(clock.now)}`
      : `$(watch) system${clock.aheadMs ? ` +${formatMillis(clock.aheadMs)}` : ''}`;
  return `${time} · TTL deleted ${formatCount(monitor.deletedDocuments)}`;
}

export class ClockStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('ttlWorkbench.clock', vscode.StatusBarAlignment.Left, 50);
  private readonly unsubscribe: () => void;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private updating: Promise<void> = Promise.resolve();
  private disposed = false;

  constructor(
    private readonly backend: Backend,
    private readonly debounceMs = 100,
  ) {
    this.item.name = 'TTL Workbench Clock';
    this.item.text = '$(history) TTL Workbench';
    this.item.command = 'ttlWorkbench.advanceClock';
    this.item.show();
    this.unsubscribe = backend.onDidChange(() => {
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        void this.update();
      }, this.debounceMs);
    });
    void this.update();
  }

  get text(): string {
    return this.item.text;
  }

  /** Resolves once pending events have reached the item. */
  async whenIdle(): Promise<void> {
    while (this.timer) await new Promise((r) => setTimeout(r, this.debounceMs / 2));
    await this.updating;
  }

  update(): Promise<void> {
    this.updating = (async () => {
      try {
        const [clock, monitor, info, storage] = await Promise.all([
          this.backend.clock(),
          this.backend.monitorStatus(),
          this.backend.info(),
          this.backend.storageInfo(),
        ]);
        if (this.disposed) return;
        this.item.text = statusText(clock, monitor);
        this.item.command = clock.mode === 'virtual' ? 'ttlWorkbench.advanceClock' : 'ttlWorkbench.switchClock';
        this.item.tooltip = [
          clock.mode === 'virtual'
            ? `TTL Workbench virtual clock: ${formatClockTime(clock.now)}. Click to advance it (due TTL passes run on the way).`
            : `TTL Workbench runs on the system clock (${formatClockTime(clock.now)}). Click to switch clocks.`,
          // An empty engine has no row in the Databases view: its facts are here and in the view's title.
          `Engine: ${engineFacts(info, clock, storage)}.`,
          `The TTL monitor of this engine deleted ${plural(monitor.deletedDocuments, 'document')}${monitor.deletedSinceActivation !== monitor.deletedDocuments ? ` (${formatCount(monitor.deletedSinceActivation)} since the extension started, engines reset on the way included)` : ''}.`,
        ].join('\n');
      } catch {
        // The backend is shutting down.
      }
    })();
    return this.updating;
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.unsubscribe();
    this.item.dispose();
  }
}
