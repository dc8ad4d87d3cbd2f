/**
 * Activation in steps. What a JavaScript or TypeScript file needs starts at once and is light: the
 * source analysis (diagnostics, hovers, quick fixes, CodeLens), the notebook format, the Databases
 * view's frame and a stand-in for every command. The engine, its worker thread and everything that
 * works on data (workbench.ts, bundled apart as dist/workbench.js) start on first need: the
 * Databases view shown, a command run, a playground notebook opened, or the API asked for data.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { contributedCommands, registerCommandStubs } from './activation/command-stubs';
import { DeferredTreeProvider } from './activation/deferred-tree';
import { registerSourceAnalysis } from './analysis/register';
import type { TTLWorkbenchApi } from './api';
import { EngineLink } from './engine-link';
import { NOTEBOOK_TYPE, TtlbookSerializer } from './notebook/serializer';
import type { TreeNode } from './tree/nodes';
import { Notifier } from './ui/notifier';
import type * as WorkbenchModule from './workbench';
import type { Workbench, WorkbenchDeps } from './workbench';

export const VIEW_ID = 'ttlWorkbench.databases';

let running: Workbench | undefined;

export function activate(context: vscode.ExtensionContext): TTLWorkbenchApi {
  const started = performance.now();
  const output = vscode.window.createOutputChannel('TTL Workbench', { log: true });
  const lifecycle: string[] = [];
  const note = (text: string) => {
    lifecycle.push(text);
    output.info(text);
  };
  const notifier = new Notifier(output);
  const engine = new EngineLink();
  const sourceAnalysis = registerSourceAnalysis(engine, { notifier });

  let startedBy: string | undefined;
  let stubs: vscode.Disposable | undefined;
  const tree = new DeferredTreeProvider<TreeNode>(() => start('the Databases view'));
  const treeView = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: tree, showCollapseAll: true });

  /** Starts the engine side once; `reason` names the need, for the log. */
  const start = (reason: string): Workbench => {
    if (running) return running;
    const t0 = performance.now();
    stubs?.dispose();
    stubs = undefined;
    const deps: WorkbenchDeps = { context, output, notifier, treeView, live: sourceAnalysis.live };
    let workbench: Workbench;
    try {
      // A separate bundle, required only now: its code is not even parsed until the engine is needed.
      const bundle = path.join(context.extensionPath, 'dist', 'workbench.js');
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a bundle of its own, loaded at run time
      const { startWorkbench } = require(bundle) as typeof WorkbenchModule;
      workbench = startWorkbench(deps);
    } catch (err) {
      stubs = standIns(); // the next need tries again
      const message = err instanceof Error ? err.message : String(err);
      output.error(`The engine could not start (${reason}): ${err instanceof Error ? err.stack : message}`);
      notifier.showAndForget(
        'error',
        `TTL Workbench could not start its engine: ${message}. The next command tries again; the log has the details.`,
        ['Show Log'],
        () => output.show(),
      );
      throw err;
    }
    running = workbench;
    startedBy = reason;
    engine.attach(workbench.backend);
    tree.connect(workbench.tree);
    note(`Engine started (${reason}) in ${(performance.now() - t0).toFixed(1)} ms.`);
    return workbench;
  };
  const workbench = () => running ?? start('the extension API');

  // The source analysis registered its own commands, which never need the engine.
  const needEngine = contributedCommands(context).filter((id) => !sourceAnalysis.commandIds.includes(id));
  const standIns = () => registerCommandStubs(needEngine, (reason) => start(reason));
  stubs = standIns();
  const onNotebook = (nb: vscode.NotebookDocument) => {
    if (nb.notebookType === NOTEBOOK_TYPE && !running) start('a playground notebook');
  };
  context.subscriptions.push(
    output,
    treeView,
    tree,
    engine,
    ...sourceAnalysis.disposables,
    vscode.workspace.registerNotebookSerializer(NOTEBOOK_TYPE, new TtlbookSerializer(), { transientOutputs: true }),
    vscode.workspace.onDidOpenNotebookDocument(onNotebook),
    { dispose: () => stubs?.dispose() },
  );
  for (const nb of vscode.workspace.notebookDocuments) onNotebook(nb);

  const activationMs = performance.now() - started;
  note(`TTL Workbench activated in ${activationMs.toFixed(1)} ms; the engine starts when it is first needed.`);
  return {
    get backend() {
      return workbench().backend;
    },
    get treeProvider() {
      return workbench().tree;
    },
    treeView,
    get diagnostics() {
      return workbench().diagnostics.collection;
    },
    statusBarText: () => workbench().statusBar.text,
    localEndpoint: () => {
      const endpoint = running?.localEndpoint;
      const address = endpoint?.current;
      return address && { uri: address.uri, port: address.port, statusBarText: endpoint.statusText ?? '' };
    },
    messages: () => notifier.messages,
    whenIdle: async () => {
      await running?.whenIdle();
      await sourceAnalysis.live.whenIdle();
    },
    sourceDiagnostics: sourceAnalysis.live.collection,
    activationMs,
    get notebooks() {
      return workbench().notebooks;
    },
    engineStartedBy: () => startedBy,
    lifecycleLog: () => [...lifecycle],
  };
}

export function deactivate(): Promise<void> | undefined {
  const workbench = running;
  running = undefined;
  return workbench?.dispose();
}
