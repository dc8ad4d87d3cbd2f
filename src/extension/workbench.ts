/**
 * The engine side of the extension, started on first need (main.ts): the engine host's worker
 * thread and the window's engine in it, the Databases tree's data, the commands that work on data,
 * the NaN audit, playground notebooks and the clock in the status bar. Bundled on its own
 * (dist/workbench.js), so a window that only shows diagnostics in source files never loads it.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { prepareApply, runTool } from '../agent-tools';
import type { Backend } from './backend/backend';
import { EngineHost, type RestartReason, type WorkerBackend } from './engine-host/client';
import type { BackendSpec } from './engine-host/protocol';
import { registerCollectionCommands } from './commands/collections';
import { registerDocumentCommands } from './commands/documents';
import { registerMongoToolsCommands } from './commands/mongo-tools';
import { registerPlainIndexCommands } from './commands/plain-index';
import type { Services } from './commands/context';
import { registerEngineCommands } from './commands/engine';
import { registerIndexCommands } from './commands/indexes';
import { registerProblemCommands } from './commands/problems';
import { registerStorageCommands } from './commands/storage';
import { registerEngineHostCommands } from './commands/engine-host';
import { registerLocalEndpointCommands } from './commands/local-endpoint';
import { registerApplyDefinition } from './commands/apply-definition';
import { registerForecastCommands } from './commands/forecast';
import { registerMonitorHistoryCommands } from './commands/monitor-history';
import type { LiveDiagnostics } from './analysis/live-diagnostics';
import { TTLDiagnostics } from './diagnostics';
import { registerNotebooks, type NotebookApi } from './notebook';
import { LocalEndpoint } from './local-endpoint';
import { readSettings, SECTION, type WorkbenchSettings } from './settings';
import { ClockStatusBar } from './status-bar';
import type { TreeNode } from './tree/nodes';
import { DatabasesTreeProvider } from './tree/provider';
import { ViewDescription } from './tree/view-description';
import { routedBackend } from './backend/backend-scope';
import { registerConnectionCommands } from './commands/connections';
import { ConnectionStore } from './connections/connection-store';
import { ConnectionManager, secretAccess, settingsAccess } from './connections/manager';
import { driverBundleLoader, mongoshBundleLoader } from './connections/driver-loader';
import type { Notifier } from './ui/notifier';
import { HOW_TO_TRUST, TRUST_COMMAND } from './ui/workspace-trust';
import { allCollections } from './commands/context';
import { contentsOf, mismatchQuestion } from './logic/fresh-engine';
import { trustedStorageOpened, trustedStorageQuestion } from './logic/trust-storage';

/** What the light part made at activation and hands over. */
export interface WorkbenchDeps {
  context: vscode.ExtensionContext;
  output: vscode.LogOutputChannel;
  notifier: Notifier;
  treeView: vscode.TreeView<TreeNode>;
  live: LiveDiagnostics;
  /** Filters typed in mongosh syntax (logic/filter-text.ts, on the light part's parser). */
  parseFilter: Services['parseFilter'];
}

export interface Workbench {
  backend: Backend;
  tree: DatabasesTreeProvider;
  diagnostics: TTLDiagnostics;
  statusBar: ClockStatusBar;
  /** The shared engine over the wire protocol (off until Start Local Endpoint). */
  localEndpoint: LocalEndpoint;
  notebooks: NotebookApi;
  /** A new engine of its own in the engine host (isolated notebooks, the agent tools' scratch engines). */
  scratchBackend: Services['isolatedBackend'];
  /** The agent tools' core (src/agent-tools): the language model tools run it from here. */
  agentTools: { runTool: typeof runTool; prepareApply: typeof prepareApply };
  /** Resolves when the tree and the status bar have caught up with every event so far. */
  whenIdle(): Promise<void>;
  /** Closes the engine (data folder synced, lock released) and ends the worker. */
  dispose(): Promise<void>;
}

/**
 * Starts the engine host and the window's engine, then everything that works on them. If a step
 * throws, what the earlier steps made is undone (the worker ended, commands unregistered), so
 * the caller can put its stand-ins back and try again at the next need.
 */
export function startWorkbench(deps: WorkbenchDeps): Workbench {
  const settings = readSettings();
  const host = startEngineHost(deps.context, settings, deps.output, deps.notifier);
  const disposables: vscode.Disposable[] = [];
  // Every command registered on the way, also those of a family whose registration threw part-way.
  const commands: vscode.Disposable[] = [];
  let backend: WorkerBackend | undefined;
  try {
    backend = openBackend(deps.context, host, settings, deps.output, deps.notifier, (d) => disposables.push(d));
    return assemble(deps, settings, host, backend, disposables, (d) => commands.push(d));
  } catch (err) {
    for (const d of [...disposables.reverse(), ...commands]) d.dispose();
    backend?.dispose();
    void host.dispose();
    throw err;
  }
}

/** Everything that works on the engine; each part goes into `disposables` as soon as it exists. */
function assemble(
  { context, output, notifier, treeView, live, parseFilter }: WorkbenchDeps,
  settings: WorkbenchSettings,
  host: EngineHost,
  backend: WorkerBackend,
  disposables: vscode.Disposable[],
  track: (registration: vscode.Disposable) => void,
): Workbench {
  const tree = new DatabasesTreeProvider(backend);
  disposables.push(tree);
  const diagnostics = new TTLDiagnostics(backend);
  disposables.push(diagnostics);
  diagnostics.onDidUpdate = (problems) => {
    tree.model.setProblems(problems);
    tree.refresh();
  };
  const isolatedBackend: Services['isolatedBackend'] = (engineSettings, options) =>
    host.open(
      { settings: engineSettings, ...(options.startMs !== undefined ? { startMs: options.startMs } : {}) },
      { scratch: true },
    );
  const localEndpoint = new LocalEndpoint(host, backend, notifier, output);
  disposables.push(localEndpoint);
  // Saved connections: a node each next to the embedded engine; a command on one of their nodes
  // (or with `connection: "<name>"`) runs on that server through `services.backend`.
  // The driver is a bundle of its own (dist/driver.js, beside this one), required on first use.
  const driver = driverBundleLoader(path.join(context.extensionPath, 'dist', 'driver.js'));
  const connections = new ConnectionManager(
    new ConnectionStore(settingsAccess(), secretAccess(context.secrets), driver),
    notifier,
    output,
    () => vscode.workspace.getConfiguration(SECTION).get<number>('remoteCountMaxTimeMS') ?? 2000,
    driver,
    mongoshBundleLoader(path.join(context.extensionPath, 'dist', 'mongosh.js')),
  );
  disposables.push(connections);
  tree.showConnections(connections);
  // TTL011 in files and notebooks bound to a connection reads that server's indexes from a cache.
  const connectionFacts = live.useConnections(connections);
  disposables.push(
    { dispose: () => connectionFacts.dispose() },
    { dispose: connections.onDidChange(() => connectionFacts.prune()) },
  );
  const services: Services = {
    backend: routedBackend(backend),
    chooseBackend: (inv) => {
      const name =
        inv.node?.type === 'connection'
          ? undefined
          : (inv.node?.connection ?? (typeof inv.args.connection === 'string' ? inv.args.connection : undefined));
      return connections.choose(name, { confirmed: inv.args.confirmProduction === true, interactive: inv.interactive });
    },
    isolatedBackend,
    engineHost: host,
    localEndpoint,
    tree,
    treeView,
    notifier,
    settings: readSettings,
    diagnostics,
    output,
    track,
    parseFilter,
    refreshConnectionFacts: () => connectionFacts.refresh(),
  };
  const statusBar = new ClockStatusBar(backend);
  disposables.push(statusBar);
  const viewDescription = new ViewDescription(treeView, backend);
  disposables.push(viewDescription);
  const notebooks = registerNotebooks(context, services, {
    names: () => connections.store.list().map((e) => e.name),
    ensureConnected: (name) => connections.ensureConnected(name),
    backendOf: (name) => connections.backendOf(name),
    isProduction: (name) => connections.isProduction(name),
    confirmFirstRun: async (name, notebook) =>
      (await notifier.confirm(
        `Run this notebook's cells on ${name} (production)?`,
        `${name} is marked as production: the cells of ${path.basename(notebook.uri.path)} run on the real server and may change its data. TTL Workbench asks once per notebook while it is open.`,
        'Run on Production',
      )) === 'Run on Production',
  });
  disposables.push(...notebooks.disposables);

  const setClockContext = () =>
    backend.clock().then(
      (c) => vscode.commands.executeCommand('setContext', 'ttlWorkbench.clockMode', c.mode),
      () => undefined,
    );
  void setClockContext();

  disposables.push(
    ...registerCollectionCommands(services),
    ...registerIndexCommands(services),
    ...registerPlainIndexCommands(services),
    ...registerDocumentCommands(services),
    ...registerEngineCommands(services),
    ...registerProblemCommands(services),
    ...registerStorageCommands(services),
    ...registerMongoToolsCommands(services),
    ...registerEngineHostCommands(services),
    ...registerLocalEndpointCommands(services),
    ...registerConnectionCommands(services, connections),
    registerApplyDefinition(services, live),
    ...registerForecastCommands(services, context.extensionUri),
    ...registerMonitorHistoryCommands(services, context.extensionUri),
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
        void askAboutStoredFlavor(backend, next, notifier);
      }
    }),
  );
  output.info(
    `Engine: ${settings.flavor} ${settings.serverVersion}, ${settings.clock} clock, storage ${settings.storage}.`,
  );
  return {
    backend,
    tree,
    diagnostics,
    statusBar,
    localEndpoint,
    notebooks: notebooks.api,
    scratchBackend: isolatedBackend,
    agentTools: { runTool, prepareApply },
    whenIdle: async () => {
      await tree.whenIdle();
      await statusBar.whenIdle();
      await viewDescription.whenIdle();
    },
    dispose: async () => {
      try {
        await host.dispose();
      } finally {
        for (const d of disposables) d.dispose();
        backend.dispose();
      }
    },
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
  notifier: Notifier,
  /** Keeps what must end with the workbench (the trust listener). */
  track: (d: vscode.Disposable) => void,
): WorkerBackend {
  // Restricted Mode: the engine does not live in an untrusted workspace's storage folder; it runs in
  // memory, and the window says why and how to keep its data.
  const untrustedWorkspace = settings.storage === 'workspace' && !vscode.workspace.isTrusted;
  const base =
    settings.storage === 'global'
      ? context.globalStorageUri
      : settings.storage === 'workspace'
        ? (context.storageUri ?? context.globalStorageUri)
        : undefined;
  const dataDir = base ? path.join(base.fsPath, 'engine') : undefined;
  const engineSettings = { clock: settings.clock, flavor: settings.flavor, serverVersion: settings.serverVersion };
  if (untrustedWorkspace) {
    const text = `TTL Workbench keeps this window's engine in memory: storing it in the workspace's folder is off in Restricted Mode. To keep its data, ${HOW_TO_TRUST}; the engine then moves to the folder.`;
    output.warn(text);
    notifier.showAndForget('info', text, ['Manage Workspace Trust'], (choice) => {
      if (choice) void vscode.commands.executeCommand(TRUST_COMMAND);
    });
  }
  if (!dataDir || untrustedWorkspace) {
    const backend = host.open({ settings: engineSettings });
    if (dataDir) {
      const spec = { settings: engineSettings, dataDir, durability: settings.durability };
      const listening = vscode.workspace.onDidGrantWorkspaceTrust(() => {
        listening.dispose();
        void openFolderOnTrust(backend, spec, output, notifier);
      });
      track(listening);
    }
    return backend;
  }
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
      setStorageReadOnly(info.readOnly);
      output.info(
        `Data folder ${dataDir} (${settings.durability}): ${info.restoredDocuments.toLocaleString('en-US')} documents restored.`,
      );
      for (const note of info.notes) output.warn(note);
      // The storage's "holds a cosmos engine … use another folder" note becomes a question below.
      const notes = info.notes.filter((n) => !n.includes('Use another folder for another flavor or version'));
      if (notes.length) {
        void vscode.window
          .showWarningMessage(`TTL Workbench data folder: ${notes.join(' ')}`, 'Show Log')
          .then((c) => (c ? output.show() : undefined));
      }
      void askAboutStoredFlavor(backend, settings, notifier);
    },
    () => undefined,
  );
  return backend;
}

/** The Databases view's empty state tells a read-only folder apart (package.json viewsWelcome). */
function setStorageReadOnly(readOnly: boolean): void {
  void vscode.commands.executeCommand('setContext', 'ttlWorkbench.storageReadOnly', readOnly);
}

/**
 * Trust granted to a workspace whose engine ran in memory: the engine moves to the workspace's
 * data folder without a restart. An engine holding data asks first (logic/trust-storage.ts).
 */
async function openFolderOnTrust(
  backend: WorkerBackend,
  spec: BackendSpec,
  output: vscode.LogOutputChannel,
  notifier: Notifier,
): Promise<void> {
  try {
    const question = trustedStorageQuestion(contentsOf(await allCollections(backend)));
    const move = async () => {
      await backend.reopenOn(spec);
      const info = await backend.storageInfo();
      setStorageReadOnly(info.readOnly);
      const text = trustedStorageOpened(info.restoredDocuments, info.readOnly);
      output.info(`${text} Data folder ${spec.dataDir ?? ''}.`);
      notifier.showAndForget('info', text, []);
    };
    if (!question) return await move();
    output.info(question.text);
    notifier.showAndForget('warning', question.text, [question.open, question.keep], async (choice) => {
      if (choice === question.open) await move();
      else output.info('The engine stays in memory until the window reloads.');
    });
  } catch (err) {
    output.error(`The data folder could not be opened after trust was granted: ${(err as Error).message}`);
  }
}

/**
 * A data folder keeps the flavor and version it was made with. When the settings ask for another,
 * the user chooses: reset to the settings' (the button names what goes) or keep the stored engine
 * and change the settings to match it (workspace settings when a folder is open).
 */
export async function askAboutStoredFlavor(
  backend: Backend,
  settings: Pick<WorkbenchSettings, 'flavor' | 'serverVersion'>,
  notifier: Notifier,
): Promise<void> {
  try {
    const info = await backend.info();
    const q = mismatchQuestion(info, settings, contentsOf(await allCollections(backend)));
    if (!q) return;
    notifier.showAndForget('warning', q.text, [q.reset, q.keep], async (choice) => {
      if (choice === q.reset)
        await vscode.commands.executeCommand('ttlWorkbench.resetEngine', {
          flavor: settings.flavor,
          serverVersion: settings.serverVersion,
        });
      if (choice === q.keep) {
        const target = vscode.workspace.workspaceFolders?.length
          ? vscode.ConfigurationTarget.Workspace
          : vscode.ConfigurationTarget.Global;
        const c = vscode.workspace.getConfiguration(SECTION);
        await c.update('flavor', info.flavor, target);
        await c.update('serverVersion', info.serverVersion, target);
      }
    });
  } catch {
    // The engine is shutting down.
  }
}
