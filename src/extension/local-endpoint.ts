/**
 * The local endpoint in the window: the window's shared engine served over the MongoDB wire
 * protocol on 127.0.0.1, from the engine host's worker (engine-host/endpoint.ts), off until Start
 * Local Endpoint. Its status bar item shows the connection string while it runs (click: Copy
 * Connection String).
 *
 * Restarts: Reset Engine keeps the endpoint (apps see the new, empty engine on the same
 * connection). A restart of the engine host (Restart Engine Host, out of memory, a crash) starts it
 * again on the same port, so the app's connection string stays valid and its driver reconnects;
 * if the port cannot be had again, the endpoint is stopped and a warning says so.
 */
import * as vscode from 'vscode';
import type { EndpointChange, EngineHost, WorkerBackend } from './engine-host/client';
import type { EndpointAddress } from './engine-host/endpoint';
import { LOOPBACK, endpointLostText, endpointStatusText, endpointTooltip } from './logic/local-endpoint';
import type { Notifier } from './ui/notifier';

export class LocalEndpoint implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(
    'ttlWorkbench.localEndpoint',
    vscode.StatusBarAlignment.Left,
    49,
  );
  private readonly unsubscribe: () => void;

  constructor(
    private readonly host: EngineHost,
    private readonly backend: WorkerBackend,
    private readonly notifier: Notifier,
    private readonly output: vscode.LogOutputChannel,
  ) {
    this.item.name = 'TTL Workbench Local Endpoint';
    this.item.command = 'ttlWorkbench.copyConnectionString';
    this.unsubscribe = host.onEndpointChange((change) => this.changed(change));
    this.show(host.endpoint);
  }

  /** Where the endpoint listens, while it runs. */
  get current(): EndpointAddress | undefined {
    return this.host.endpoint;
  }

  /** The status bar item's text while the endpoint runs. */
  get statusText(): string | undefined {
    return this.current ? this.item.text : undefined;
  }

  /** Listens on 127.0.0.1:`port` (0: any free port), replacing an endpoint that runs. */
  start(port: number): Promise<EndpointAddress> {
    return this.host.startEndpoint(this.backend, { port, host: LOOPBACK });
  }

  /** Stops it, closing every connection; false when it did not run. */
  stop(): Promise<boolean> {
    return this.host.stopEndpoint();
  }

  private changed(change: EndpointChange): void {
    switch (change.kind) {
      case 'started':
        this.output.info(`Local endpoint: listening on ${change.address.uri}`);
        break;
      case 'stopped':
        this.output.info('Local endpoint: stopped.');
        break;
      case 'resumed':
        this.output.info(`Local endpoint: listening again on ${change.address.uri} after the engine host restarted.`);
        break;
      case 'lost': {
        const text = endpointLostText(change.address, change.error);
        this.output.warn(`Local endpoint: ${text}`);
        this.notifier.showAndForget('warning', text, ['Start Local Endpoint'], (choice) =>
          choice === 'Start Local Endpoint'
            ? vscode.commands.executeCommand('ttlWorkbench.startLocalEndpoint', { interactive: true })
            : undefined,
        );
        break;
      }
    }
    this.show(this.host.endpoint);
  }

  private show(address: EndpointAddress | undefined): void {
    // Stop Local Endpoint and Copy Connection String are in the palette while it runs.
    void vscode.commands.executeCommand('setContext', 'ttlWorkbench.localEndpointRunning', address !== undefined);
    if (!address) {
      this.item.hide();
      return;
    }
    this.item.text = endpointStatusText(address);
    this.item.tooltip = endpointTooltip(address, this.backend.inMemory);
    this.item.show();
  }

  dispose(): void {
    this.unsubscribe();
    this.item.dispose();
  }
}
