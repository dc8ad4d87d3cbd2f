/**
 * Activation in steps. What a JavaScript or TypeScript file needs starts at once and is light: the
 * source analysis (diagnostics, hovers, quick fixes, CodeLens), the notebook format, the Databases
 * view's frame and a stand-in for every command. The engine, its worker thread and everything that
 * works on data (workbench.ts, bundled apart as dist/workbench.js) start on first need: the
 * Databases view shown, a command run, a playground notebook opened, or the API asked for data.
 */
import * as vscode from 'vscode';
import { contributedCommands } from './activation/command-stubs';
import { DeferredTreeProvider } from './activation/deferred-tree';
import { registerLanguageModelTools } from './agent-tools/lm-tools';
import { EngineStarter } from './activation/engine-starter';
import { registerSourceAnalysis } from './analysis/register';
import type { TTLWorkbenchApi } from './api';
import { EngineLink } from './engine-link';
import { NOTEBOOK_TYPE, TtlbookSerializer } from './notebook/serializer';
import type { TreeNode } from './tree/nodes';
import { Notifier } from './ui/notifier';
import { OPEN_WALKTHROUGH_COMMAND, registerWalkthrough } from './commands/walkthrough';

export const VIEW_ID = 'ttlWorkbench.databases';

let starter: EngineStarter | undefined;

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
  const tree: DeferredTreeProvider<TreeNode> = new DeferredTreeProvider<TreeNode>(
    (): boolean => engines.tryStart('the Databases view') !== undefined,
  );
  const treeView = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: tree, showCollapseAll: true });
  const engines: EngineStarter = new EngineStarter({
    context,
    output,
    notifier,
    treeView,
    tree,
    live: sourceAnalysis.live,
    engine,
    // The source analysis registered its own commands, which never need the engine.
    commandIds: contributedCommands(context).filter(
      (id) => !sourceAnalysis.commandIds.includes(id) && id !== OPEN_WALKTHROUGH_COMMAND,
    ),
    note,
  });
  starter = engines;
  const workbench = () => engines.workbench ?? engines.start('the extension API');
  const onNotebook = (nb: vscode.NotebookDocument) => {
    if (nb.notebookType === NOTEBOOK_TYPE && !engines.workbench) engines.tryStart('a playground notebook');
  };
  context.subscriptions.push(
    output,
    treeView,
    tree,
    engine,
    engines,
    ...sourceAnalysis.disposables,
    vscode.workspace.registerNotebookSerializer(NOTEBOOK_TYPE, new TtlbookSerializer(), { transientOutputs: true }),
    vscode.workspace.onDidOpenNotebookDocument(onNotebook),
    ...registerWalkthrough(context, note),
  );
  for (const nb of vscode.workspace.notebookDocuments) onNotebook(nb);
  // The agent tools: registered now, the engine started only when a tool that needs it runs.
  const agentTools = registerLanguageModelTools({
    engines: (reason) => engines.workbench ?? engines.start(reason),
    settings: () => {
      const c = vscode.workspace.getConfiguration('ttlWorkbench');
      return {
        confirmExpiryAbove: c.get<number>('confirmExpiryAbove', 1000),
        timeLimitMs: c.get<number>('playgroundTimeLimitMs', 10_000),
      };
    },
  });
  context.subscriptions.push(...agentTools.disposables);

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
      const endpoint = engines.workbench?.localEndpoint;
      const address = endpoint?.current;
      return address && { uri: address.uri, port: address.port, statusBarText: endpoint.statusText ?? '' };
    },
    messages: () => notifier.messages,
    whenIdle: async () => {
      await engines.workbench?.whenIdle();
      await sourceAnalysis.live.whenIdle();
    },
    sourceDiagnostics: sourceAnalysis.live.collection,
    activationMs,
    get notebooks() {
      return workbench().notebooks;
    },
    engineStartedBy: () => engines.startedBy,
    agentTools: agentTools.api,
    lifecycleLog: () => [...lifecycle],
  };
}

export function deactivate(): Promise<void> | undefined {
  const current = starter;
  starter = undefined;
  return current?.deactivate();
}
