/**
 * Restart Engine Host: a new worker for the window's engines, with the heap limit the settings
 * say now (ttlWorkbench.engineHost.maxHeapMb applies without reloading the window). Engines in a
 * data folder come back exactly as of their last acknowledged write; an in-memory one starts
 * empty, so that is asked first.
 */
import * as vscode from 'vscode';
import { registerCommand, reportSuccess, type CommandResult, type Invocation, type Services } from './context';

async function restartEngineHost(services: Services, inv: Invocation): Promise<CommandResult> {
  const heap = services.settings().engineHostMaxHeapMb;
  if (inv.interactive && services.engineHost.holdsMemoryData) {
    const choice = await services.notifier.confirm(
      'Restart the engine host?',
      'The engine is in memory (ttlWorkbench.storage is "memory"): its databases are lost in a restart. Notebook variables go too.',
      'Restart Engine Host',
    );
    if (choice !== 'Restart Engine Host') return { ok: false, cancelled: true };
  }
  const r = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Restarting the TTL Workbench engine host…' },
    () => services.engineHost.restartNow(heap),
  );
  // The local endpoint listens again on its port (or the endpoint's own warning says why not).
  const endpoint = services.localEndpoint.current;
  reportSuccess(
    services,
    inv,
    `The engine host was restarted (heap limit ${r.heapLimitMb.toLocaleString('en-US')} MB); notebook variables are gone.${endpoint ? ` The local endpoint listens again on ${endpoint.uri}.` : ''}`,
  );
  return { ok: true, heapLimitMb: r.heapLimitMb, ...(endpoint ? { localEndpoint: endpoint.uri } : {}) };
}

export function registerEngineHostCommands(services: Services): vscode.Disposable[] {
  return [
    registerCommand(services, {
      id: 'ttlWorkbench.restartEngineHost',
      action: 'Restart Engine Host',
      run: (inv) => restartEngineHost(services, inv),
    }),
  ];
}
