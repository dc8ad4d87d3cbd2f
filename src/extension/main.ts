/**
 * Activation: one embedded engine per window (virtual clock by default), the "Databases" view,
 * commands, diagnostics and the status bar. Deactivation closes the engine: no timer is left.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TTLWorkbenchApi } from './api';
import { EmbeddedBackend } from './backend/embedded-backend';
import { registerCollectionCommands } from './commands/collections';
import type { Services } from './commands/context';
import { registerEngineCommands } from './commands/engine';
import { registerIndexCommands } from './commands/indexes';
import { registerProblemCommands } from './commands/problems';
import { registerStorageCommands } from './commands/storage';
import { registerSourceAnalysisCommands } from './commands/source-analysis';
import { registerSourceAnalysis } from './analysis/register';
import { TTLDiagnostics } from './diagnostics';
import { registerNotebooks } from './notebook';
import { readSettings, SECTION, type WorkbenchSettings } from './settings';
import { ClockStatusBar } from './status-bar';
import { DatabasesTreeProvider } from './tree/provider';
import { Notifier } from './ui/notifier';

export const VIEW_ID = 'ttlWorkbench.databases';

let activeBackend: EmbeddedBackend | undefined;

export function activate(context: vscode.ExtensionContext): TTLWorkbenchApi {
  const started = performance.now();
  const output = vscode.window.createOutputChannel('TTL Workbench', { log: true });
  const settings = readSettings();
  const backend = openBackend(context, settings, output);
  activeBackend = backend;
  const tree = new DatabasesTreeProvider(backend);
  const treeView = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: tree, showCollapseAll: true });
  const notifier = new Notifier(output);
  const diagnostics = new TTLDiagnostics(backend);
  diagnostics.onDidUpdate = (problems) => {
    tree.model.setProblems(problems);
    tree.refresh();
  };
  const services: Services = { backend, tree, treeView, notifier, settings: readSettings, diagnostics, output };
  const statusBar = new ClockStatusBar(backend);
  const sourceAnalysis = registerSourceAnalysis(backend);
  const notebooks = registerNotebooks(context, services);

  const setClockContext = () => backend.clock().then((c) => vscode.commands.executeCommand('setContext', 'ttlWorkbench.clockMode', c.mode), () => undefined);
  void setClockContext();

  context.subscriptions.push(
    output,
    treeView,
    tree,
    diagnostics,
    statusBar,
    ...registerCollectionCommands(services),
    ...registerIndexCommands(services),
    ...registerEngineCommands(services),
    ...registerProblemCommands(services),
    ...registerStorageCommands(services),
    ...sourceAnalysis.disposables,
    ...registerSourceAnalysisCommands(services, sourceAnalysis.live),
    ...notebooks.disposables,
    { dispose: backend.onDidChange((events) => { if (events.some((e) => e.kind === 'clockChanged' || e.kind === 'reset')) void setClockContext(); }) },
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration(SECTION)) return;
      const next = readSettings();
      if (e.affectsConfiguration(`${SECTION}.clock`)) void backend.setClockMode(next.clock);
      if (e.affectsConfiguration(`${SECTION}.flavor`) || e.affectsConfiguration(`${SECTION}.serverVersion`)) {
        notifier.showAndForget('info', `Emulate ${next.flavor === 'cosmos' ? 'the Cosmos DB flavor' : 'MongoDB'} ${next.serverVersion}: a new engine is needed (the data go).`, ['Reset Engine'], (c) =>
          c === 'Reset Engine' ? vscode.commands.executeCommand('ttlWorkbench.resetEngine', { flavor: next.flavor, serverVersion: next.serverVersion }) : undefined,
        );
      }
    }),
    { dispose: () => backend.dispose() },
  );

  const activationMs = performance.now() - started;
  output.info(`TTL Workbench activated in ${activationMs.toFixed(1)} ms (${settings.flavor} ${settings.serverVersion}, ${settings.clock} clock).`);
  return {
    backend,
    treeProvider: tree,
    treeView,
    diagnostics: diagnostics.collection,
    statusBarText: () => statusBar.text,
    messages: () => notifier.messages,
    whenIdle: async () => {
      await tree.whenIdle();
      await statusBar.whenIdle();
      await sourceAnalysis.live.whenIdle();
    },
    sourceDiagnostics: sourceAnalysis.live.collection,
    activationMs,
    notebooks: notebooks.api,
  };
}

/**
 * The engine, in its data folder (ttlWorkbench.storage): the workspace's storage folder, the
 * global one, or none. A folder that cannot be opened leaves the window with an in-memory engine
 * and says why, rather than failing activation.
 */
function openBackend(context: vscode.ExtensionContext, settings: WorkbenchSettings, output: vscode.LogOutputChannel): EmbeddedBackend {
  const base = settings.storage === 'global' ? context.globalStorageUri : settings.storage === 'workspace' ? (context.storageUri ?? context.globalStorageUri) : undefined;
  const dataDir = base ? path.join(base.fsPath, 'engine') : undefined;
  const onStorageEvent = (text: string, severity: 'info' | 'error') => (severity === 'error' ? output.error(text) : output.info(text));
  if (!dataDir) return new EmbeddedBackend(settings);
  try {
    const backend = new EmbeddedBackend(settings, { dataDir, durability: settings.durability, onStorageEvent });
    void backend.storageInfo().then((info) => {
      output.info(`Data folder ${dataDir} (${settings.durability}): ${info.restoredDocuments.toLocaleString('en-US')} documents restored.`);
      for (const note of info.notes) output.warn(note);
      if (info.readOnly || info.notes.length) {
        void vscode.window.showWarningMessage(`TTL Workbench data folder: ${info.notes.join(' ')}`, 'Show Log').then((c) => (c ? output.show() : undefined));
      }
    });
    return backend;
  } catch (err) {
    output.error(`Cannot open the data folder ${dataDir}: ${(err as Error).message}`);
    void vscode.window.showErrorMessage(`TTL Workbench could not open its data folder (${(err as Error).message}); this window's engine is in memory and its data will not be kept.`);
    return new EmbeddedBackend(settings);
  }
}

export function deactivate(): void {
  activeBackend?.dispose();
  activeBackend = undefined;
}
