/**
 * Activation: one embedded engine per window (virtual clock by default), running in the engine
 * host's worker thread (engine-host/), the "Databases" view, commands, diagnostics and the status
 * bar. Deactivation closes the engine (data folder synced, lock released) and ends the worker.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TTLWorkbenchApi } from './api';
import type { Backend } from './backend/backend';
import { EngineHost, type RestartReason } from './engine-host/client';
import { registerCollectionCommands } from './commands/collections';
import type { Services } from './commands/context';
import { registerEngineCommands } from './commands/engine';
import { registerIndexCommands } from './commands/indexes';
import { registerProblemCommands } from './commands/problems';
import { registerStorageCommands } from './commands/storage';
import { registerEngineHostCommands } from './commands/engine-host';
import { registerSourceAnalysisCommands } from './commands/source-analysis';
import { registerSourceAnalysis } from './analysis/register';
import { TTLDiagnostics } from './diagnostics';
import { registerNotebooks } from './notebook';
import { readSettings, SECTION, type WorkbenchSettings } from './settings';
import { ClockStatusBar } from './status-bar';
import { DatabasesTreeProvider } from './tree/provider';
import { Notifier } from './ui/notifier';

export const VIEW_ID = 'ttlWorkbench.databases';

let activeHost: EngineHost | undefined;

export function activate(context: vscode.ExtensionContext): TTLWorkbenchApi {
  const started = performance.now();
  const output = vscode.window.createOutputChannel('TTL Workbench', { log: true });
  const settings = readSettings();
  const notifier = new Notifier(output);
  const host = startEngineHost(context, settings, output, notifier);
  activeHost = host;
  const backend = openBackend(context, host, settings, output);
  const tree = new DatabasesTreeProvider(backend);
  const treeView = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: tree, showCollapseAll: true });
  const diagnostics = new TTLDiagnostics(backend);
  diagnostics.onDidUpdate = (problems) => {
    tree.model.setProblems(problems);
    tree.refresh();
  };
  const isolatedBackend: Services['isolatedBackend'] = (engineSettings, options) =>
    host.open(
      { settings: engineSettings, ...(options.startMs !== undefined ? { startMs: options.startMs } : {}) },
      { scratch: true },
    );
  const services: Services = {
    backend,
    isolatedBackend,
    engineHost: host,
    tree,
    treeView,
    notifier,
    settings: readSettings,
    diagnostics,
    output,
  };
  const statusBar = new ClockStatusBar(backend);
  const sourceAnalysis = registerSourceAnalysis(backend);
  const notebooks = registerNotebooks(context, services);

  const setClockContext = () =>
    backend.clock().then(
      (c) => vscode.commands.executeCommand('setContext', 'ttlWorkbench.clockMode', c.mode),
      () => undefined,
    );
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
    ...registerEngineHostCommands(services),
    ...sourceAnalysis.disposables,
    ...registerSourceAnalysisCommands(services, sourceAnalysis.live),
    ...notebooks.disposables,
    {
      dispose: backend.onDidChange((events) => {
        if (events.some((e) => e.kind === 'clockChanged' || e.kind === 'reset')) void setClockContext();
      }),
    },
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration(SECTION)) return;
      const next = readSettings();
      if (e.affectsConfiguration(`${SECTION}.clock`)) void backend.setClockMode(next.clock);
      if (e.affectsConfiguration(`${SECTION}.flavor`) || e.affectsConfiguration(`${SECTION}.serverVersion`)) {
        notifier.showAndForget(
          'info',
          `Emulate ${next.flavor === 'cosmos' ? 'the Cosmos DB flavor' : 'MongoDB'} ${next.serverVersion}: a new engine is needed (the data go).`,
          ['Reset Engine'],
          (c) =>
            c === 'Reset Engine'
              ? vscode.commands.executeCommand('ttlWorkbench.resetEngine', {
                  flavor: next.flavor,
                  serverVersion: next.serverVersion,
                })
              : undefined,
        );
      }
    }),
    { dispose: () => backend.dispose() },
  );

  const activationMs = performance.now() - started;
  output.info(
    `TTL Workbench activated in ${activationMs.toFixed(1)} ms (${settings.flavor} ${settings.serverVersion}, ${settings.clock} clock).`,
  );
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

/** The worker thread every engine of the window runs in (ttlWorkbench.engineHost.maxHeapMb). */
function startEngineHost(
  context: vscode.ExtensionContext,
  settings: WorkbenchSettings,
  output: vscode.LogOutputChannel,
  notifier: Notifier,
): EngineHost {
  const host: EngineHost = new EngineHost({
    workerPath: path.join(context.extensionPath, 'dist', 'engine-host.js'),
    maxHeapMb: settings.engineHostMaxHeapMb,
    log: (text, severity) => (severity === 'error' ? output.error(text) : output.info(text)),
    onRestart: (reason: RestartReason, lostInMemory: boolean) => {
      if (reason.kind === 'requested') return; // the command reports it
      const what =
        reason.kind === 'outOfMemory'
          ? `The TTL Workbench engine ran out of memory (limit ${host.maxHeapMb ?? settings.engineHostMaxHeapMb} MB, ttlWorkbench.engineHost.maxHeapMb) and was restarted`
          : reason.kind === 'crashed'
            ? `The TTL Workbench engine host stopped (${reason.detail}) and was restarted`
            : 'The TTL Workbench engine host was restarted to end code that ignored the interrupt';
      const data = lostInMemory
        ? 'the in-memory engine starts empty.'
        : 'every acknowledged write was reopened from the data folder.';
      notifier.showAndForget('warning', `${what}: ${data}`, ['Show Log'], () => output.show());
    },
    confirmRestart: async (message) =>
      (await vscode.window.showWarningMessage(message, 'Restart Engine Host', 'Keep Waiting')) ===
      'Restart Engine Host',
  });
  return host;
}

/**
 * The engine, in its data folder (ttlWorkbench.storage): the workspace's storage folder, the
 * global one, or none. A folder that cannot be opened leaves the window with an in-memory engine
 * and says why, rather than failing activation.
 */
function openBackend(
  context: vscode.ExtensionContext,
  host: EngineHost,
  settings: WorkbenchSettings,
  output: vscode.LogOutputChannel,
): Backend {
  const base =
    settings.storage === 'global'
      ? context.globalStorageUri
      : settings.storage === 'workspace'
        ? (context.storageUri ?? context.globalStorageUri)
        : undefined;
  const dataDir = base ? path.join(base.fsPath, 'engine') : undefined;
  const engineSettings = { clock: settings.clock, flavor: settings.flavor, serverVersion: settings.serverVersion };
  if (!dataDir) return host.open({ settings: engineSettings });
  let failed = false;
  const backend = host.open(
    { settings: engineSettings, dataDir, durability: settings.durability },
    {
      onOpenFailed: (err) => {
        failed = true;
        output.error(`Cannot open the data folder ${dataDir}: ${err.message}`);
        void vscode.window.showErrorMessage(
          `TTL Workbench could not open its data folder (${err.message}); this window's engine is in memory and its data will not be kept.`,
        );
      },
    },
  );
  void backend.storageInfo().then(
    (info) => {
      if (failed) return;
      output.info(
        `Data folder ${dataDir} (${settings.durability}): ${info.restoredDocuments.toLocaleString('en-US')} documents restored.`,
      );
      for (const note of info.notes) output.warn(note);
      if (info.readOnly || info.notes.length) {
        void vscode.window
          .showWarningMessage(`TTL Workbench data folder: ${info.notes.join(' ')}`, 'Show Log')
          .then((c) => (c ? output.show() : undefined));
      }
    },
    () => undefined,
  );
  return backend;
}

export function deactivate(): Promise<void> | undefined {
  const host = activeHost;
  activeHost = undefined;
  return host?.dispose();
}
