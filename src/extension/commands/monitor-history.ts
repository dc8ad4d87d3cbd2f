/**
 * Show TTL Monitor History: from the engine's or the TTL monitor's context menu and the palette
 * (every TTL rule), a collection's (its rules), a TTL index's or a collection TTL row's (that
 * rule), or code: `executeCommand('ttlWorkbench.showMonitorHistory', {db?, collection?, index?,
 * passes?})`. Resolves once the panel has drawn, with what it shows; `{current: true}` answers
 * what the open panel shows now (`showTable: true | false` presses its table toggle first).
 */
import type * as vscode from 'vscode';
import { HistoryPanel, type HistoryPanelState } from '../forecast/history-panel';
import { DEFAULT_HISTORY_SIZE, isHistorySize, type HistoryScope } from '../logic/history-chart';
import { registerCommand, type CommandResult, type Invocation, type Services } from './context';

function resultOf(state: HistoryPanelState): CommandResult {
  const { scope, size, model, rendered, error } = state;
  if (error) return { ok: false, scope, passes: size, message: error, rendered };
  return { ok: true, scope, passes: size, points: model?.points, rendered };
}

function scopeOf(inv: Invocation): HistoryScope {
  const n = inv.node;
  if (n) {
    switch (n.type) {
      case 'database':
        return { db: n.db };
      case 'collection':
        return { db: n.db, collection: n.info.name };
      case 'index':
        return { db: n.db, collection: n.collection, target: `index ${n.info.name}` };
      case 'collectionTTL':
        return { db: n.db, collection: n.collection, target: 'collection' };
      default:
        return {};
    }
  }
  const a = inv.args;
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const db = str(a.db);
  const collection = str(a.collection);
  const index = str(a.index);
  return {
    ...(db !== undefined ? { db } : {}),
    ...(collection !== undefined ? { collection } : {}),
    ...(index !== undefined ? { target: index === 'collection' ? 'collection' : `index ${index}` } : {}),
  };
}

async function showMonitorHistory(
  services: Services,
  extensionUri: vscode.Uri,
  inv: Invocation,
): Promise<CommandResult> {
  if (inv.args.current === true) {
    const open = HistoryPanel.open;
    if (!open) return { ok: false, message: 'No TTL Monitor History panel is open.' };
    if (typeof inv.args.showTable === 'boolean') await open.showTable(inv.args.showTable);
    return resultOf(await open.state());
  }
  const size = isHistorySize(inv.args.passes) ? inv.args.passes : DEFAULT_HISTORY_SIZE;
  const panel = await HistoryPanel.show(services.backend, extensionUri, scopeOf(inv), size);
  return resultOf(await panel.state());
}

export function registerMonitorHistoryCommands(services: Services, extensionUri: vscode.Uri): vscode.Disposable[] {
  return [
    registerCommand(services, {
      id: 'ttlWorkbench.showMonitorHistory',
      action: 'Show TTL Monitor History',
      run: (inv) => showMonitorHistory(services, extensionUri, inv),
    }),
    { dispose: () => HistoryPanel.open?.close() },
  ];
}
