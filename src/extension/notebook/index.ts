/**
 * Playground notebooks: the "TTL Engine" controller, the engines they run on, completion in cells,
 * the toolbar / status bar engine display and the commands. One call from the workbench registers
 * it all; the `.ttlbook` serializer registers at activation (main.ts), as opening a notebook needs
 * no engine.
 */
import * as vscode from 'vscode';
import type { Services } from '../commands/context';
import { registerNotebookCommands } from './commands';
import { registerPlaygroundCompletion } from './completion';
import { PlaygroundController, type CellRunSummary } from './controller';
import { NotebookEngines, type NotebookConnections, type NotebookEngine } from './engines';
import { NotebookEngineStatus } from './status';

/** What the extension's API exposes of notebooks (tests use it instead of the UI). */
export interface NotebookApi {
  /** The notebook's engine (shared or isolated), made if needed. */
  engineFor(notebook: vscode.NotebookDocument): NotebookEngine;
  /** Resolves when every run requested so far for the notebook has finished. */
  whenIdle(notebook: vscode.NotebookDocument): Promise<CellRunSummary | undefined>;
  /** The isolated-engine status bar item's text ('' when hidden). */
  engineStatusText(): Promise<string>;
}

/** ttlWorkbench.playgroundTimeLimitMs, read when a notebook's session starts. */
export function playgroundTimeLimitMs(): number {
  const v = vscode.workspace.getConfiguration('ttlWorkbench').get<number>('playgroundTimeLimitMs', 10_000);
  return Number.isInteger(v) && v >= 100 ? v : 10_000;
}

export function registerNotebooks(
  context: vscode.ExtensionContext,
  services: Services,
  /** Saved connections a notebook can run on (`"connection": "<name>"`), with their names. */
  connections?: NotebookConnections & { names(): string[] },
): { disposables: vscode.Disposable[]; api: NotebookApi } {
  const engines = new NotebookEngines(
    services.backend,
    services.isolatedBackend,
    () => ({
      ...services.settings(),
      playgroundTimeLimitMs: playgroundTimeLimitMs(),
    }),
    connections,
  );
  // Each part is kept as soon as it exists: if a later one throws, the earlier ones go (a
  // controller left registered would refuse its id to the next start).
  const disposables: vscode.Disposable[] = [engines];
  try {
    const controller = new PlaygroundController(engines, (text, notebook) =>
      // Running on an isolated engine deletes nothing: no question needed.
      services.notifier.showAndForget('warning', text, ['Run on an Isolated Engine'], (choice) =>
        choice
          ? vscode.commands.executeCommand('ttlWorkbench.runAllFresh', {
              notebook: notebook.uri.toString(),
              engine: 'isolated',
            })
          : undefined,
      ),
    );
    disposables.push(controller);
    const status = new NotebookEngineStatus(engines);
    disposables.push(status);
    disposables.push(registerPlaygroundCompletion(engines));
    disposables.push(
      ...registerNotebookCommands({
        services,
        engines,
        controller,
        extensionUri: context.extensionUri,
        ...(connections ? { connectionNames: () => connections.names() } : {}),
      }),
    );
    return { disposables, api: notebookApi(engines, controller, status) };
  } catch (err) {
    for (const d of disposables.reverse()) d.dispose();
    throw err;
  }
}

function notebookApi(
  engines: NotebookEngines,
  controller: PlaygroundController,
  status: NotebookEngineStatus,
): NotebookApi {
  return {
    engineFor: (nb) => engines.engineFor(nb),
    whenIdle: (nb) => controller.whenIdle(nb),
    engineStatusText: async () => {
      await status.whenIdle();
      return status.text;
    },
  };
}
