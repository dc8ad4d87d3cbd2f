/**
 * The "TTL Engine" notebook controller: runs code cells in order against the notebook's engine
 * (notebook/engines.ts), one statement at a time, with execution order numbers, start and end
 * times, and outputs shaped by logic/playground-outputs.ts from the same structured outputs the
 * CLI prints (src/shell/cell-outputs.ts). A run stops at the first failing cell, as the CLI stops
 * at the first uncaught error. Interrupting takes effect between statements; a statement that
 * runs long ends at the shell's time limit (ttlWorkbench.playgroundTimeLimitMs).
 */
import * as vscode from 'vscode';
import { interruptedSpec, outputSpecOf, type OutputSpec } from '../logic/playground-outputs';
import { CELL_LANGUAGE } from '../logic/playground-notebook';
import type { NotebookEngines } from './engines';
import { NOTEBOOK_TYPE } from './serializer';

export const CONTROLLER_ID = 'ttl-workbench-engine';

export function toNotebookOutput(spec: OutputSpec): vscode.NotebookCellOutput {
  switch (spec.kind) {
    case 'stdout':
      return new vscode.NotebookCellOutput([vscode.NotebookCellOutputItem.stdout(spec.text)]);
    case 'items':
      return new vscode.NotebookCellOutput(
        spec.items.map((i) =>
          'json' in i
            ? vscode.NotebookCellOutputItem.json(i.json, i.mime)
            : vscode.NotebookCellOutputItem.text(i.text, i.mime),
        ),
      );
    case 'error': {
      const err = new Error(spec.message);
      err.name = spec.name;
      err.stack = spec.stack;
      return new vscode.NotebookCellOutput([vscode.NotebookCellOutputItem.error(err)]);
    }
  }
}

/** A failure outside the shell (bad engine metadata, a reset mid-cell) as an error output. */
function failureSpec(err: unknown): OutputSpec {
  const e = err as { name?: unknown; message?: unknown; code?: unknown; codeName?: unknown };
  const code = typeof e.code === 'number' ? e.code : undefined;
  const codeName = typeof e.codeName === 'string' ? e.codeName : undefined;
  return outputSpecOf({
    kind: 'error',
    name: typeof e.name === 'string' && e.name !== 'Error' ? e.name : 'TTLWorkbenchError',
    message: typeof e.message === 'string' ? e.message : String(err),
    ...(code !== undefined ? { code } : {}),
    ...(codeName !== undefined ? { codeName } : {}),
    text: String(e.message ?? err),
  });
}

export interface CellRunSummary {
  cells: number;
  failed: number;
  interrupted: boolean;
}

export class PlaygroundController implements vscode.Disposable {
  private readonly controller: vscode.NotebookController;
  private readonly order = new Map<string, number>();
  /**
   * Runs of one notebook happen one after another: a later request waits for the earlier. The
   * last run stays here (until the notebook closes) so `whenIdle` can answer after it finished.
   */
  private readonly queues = new Map<string, Promise<CellRunSummary>>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly engines: NotebookEngines,
    /** Said once per notebook, on its first run: the shared engine is not what its metadata asks for. */
    private readonly warn: (text: string, notebook: vscode.NotebookDocument) => void = () => undefined,
  ) {
    this.controller = vscode.notebooks.createNotebookController(CONTROLLER_ID, NOTEBOOK_TYPE, 'TTL Engine');
    this.controller.supportedLanguages = [CELL_LANGUAGE, 'javascript'];
    this.controller.supportsExecutionOrder = true;
    this.controller.description = 'TTL Workbench embedded engine';
    this.controller.detail =
      'mongosh cells against the embedded MongoDB-compatible TTL engine (shared with the Databases view unless the notebook asks for an isolated engine)';
    this.subscriptions.push(
      vscode.workspace.onDidCloseNotebookDocument((nb) => {
        this.queues.delete(nb.uri.toString());
        this.order.delete(nb.uri.toString());
      }),
    );
    this.controller.executeHandler = async (cells, notebook) => {
      await this.execute(cells, notebook);
    };
  }

  /** Make this the notebook's controller (there is no other for the type, but say so explicitly). */
  prefer(notebook: vscode.NotebookDocument): void {
    this.controller.updateNotebookAffinity(notebook, vscode.NotebookControllerAffinity.Preferred);
  }

  /** Resolves when every run requested so far for the notebook has finished, with the last one's summary. */
  whenIdle(notebook: vscode.NotebookDocument): Promise<CellRunSummary | undefined> {
    return this.queues.get(notebook.uri.toString()) ?? Promise.resolve(undefined);
  }

  /** A fresh start: execution order numbers count from 1 again. */
  resetOrder(notebook: vscode.NotebookDocument): void {
    this.order.delete(notebook.uri.toString());
  }

  execute(cells: readonly vscode.NotebookCell[], notebook: vscode.NotebookDocument): Promise<CellRunSummary> {
    const id = notebook.uri.toString();
    const code = cells.filter((c) => c.kind === vscode.NotebookCellKind.Code);
    // Executions are created now so queued cells show as pending at once.
    const executions = code.map((cell) => this.controller.createNotebookCellExecution(cell));
    const previous = this.queues.get(id) ?? Promise.resolve(undefined);
    const run = previous.then(
      () => this.runQueued(notebook, executions),
      () => this.runQueued(notebook, executions),
    );
    this.queues.set(id, run);
    return run;
  }

  private async runQueued(
    notebook: vscode.NotebookDocument,
    executions: vscode.NotebookCellExecution[],
  ): Promise<CellRunSummary> {
    const summary: CellRunSummary = { cells: 0, failed: 0, interrupted: false };
    if (!this.order.has(notebook.uri.toString())) await this.checkSharedEngine(notebook);
    let stop = false;
    for (const execution of executions) {
      if (stop || execution.token.isCancellationRequested) {
        execution.end(undefined);
        continue;
      }
      summary.cells++;
      const outcome = await this.runCell(notebook, execution);
      if (outcome === 'failed') summary.failed++;
      if (outcome === 'interrupted') summary.interrupted = true;
      stop = outcome !== 'ok';
    }
    return summary;
  }

  /**
   * A notebook on the shared engine whose metadata names a clock start or flavor runs on the shared
   * engine as it is (that is what "shared" means), so its results can differ from the CLI's; say so
   * before its first run rather than let dates silently differ.
   */
  private async checkSharedEngine(notebook: vscode.NotebookDocument): Promise<void> {
    try {
      const engine = this.engines.engineFor(notebook);
      if (engine.isolated) return;
      // Another flavor or version never shares (NotebookEngines): only the clock start remains.
      const { now } = engine.request;
      if (!now) return;
      const clock = await engine.backend.clock();
      if (clock.now.getTime() !== now.getTime())
        this.warn(
          `This notebook asks for a clock starting at ${now.toISOString()}, but runs on the shared engine as it is (its clock is at ${clock.now.toISOString()}): dates in the results may differ from the CLI's. Run it on an isolated engine to start at ${now.toISOString()}; nothing on the shared engine changes.`,
          notebook,
        );
    } catch {
      // Bad metadata: the cell reports it.
    }
  }

  private async runCell(
    notebook: vscode.NotebookDocument,
    execution: vscode.NotebookCellExecution,
  ): Promise<'ok' | 'failed' | 'interrupted'> {
    const id = notebook.uri.toString();
    const n = (this.order.get(id) ?? 0) + 1;
    this.order.set(id, n);
    execution.executionOrder = n;
    execution.start(Date.now());
    await execution.clearOutput();
    let last: { spec: OutputSpec; output: vscode.NotebookCellOutput } | undefined;
    const append = async (spec: OutputSpec) => {
      // Printed lines of consecutive statements read as one block, as in a terminal.
      if (spec.kind === 'stdout' && last?.spec.kind === 'stdout') {
        await execution.appendOutputItems([vscode.NotebookCellOutputItem.stdout(spec.text)], last.output);
        return;
      }
      const output = toNotebookOutput(spec);
      await execution.appendOutput(output);
      last = { spec, output };
    };
    let statements = 0;
    let outcome: 'ok' | 'failed' | 'interrupted' = 'ok';
    try {
      if (!vscode.workspace.isTrusted) {
        throw Object.assign(
          new Error(
            'Playground code runs only in a trusted workspace: trust this folder (Workspaces: Manage Workspace Trust) to run its cells.',
          ),
          { name: 'MongoshUnauthorizedError', code: 13, codeName: 'Unauthorized' },
        );
      }
      const session = await this.engines.session(notebook);
      const stop = new AbortController();
      const cancelled = execution.token.onCancellationRequested(() => stop.abort());
      try {
        const run = session.run(execution.cell.document.getText(), {
          filename: `cell ${execution.cell.index + 1}`,
          signal: stop.signal,
        });
        for (;;) {
          const step = await run.next();
          if (step.done) {
            if (!step.value.complete) {
              outcome = 'interrupted';
              await append(interruptedSpec(statements));
            }
            break;
          }
          const event = step.value;
          if (event.kind === 'print') {
            await append(outputSpecOf(event));
            continue;
          }
          statements++;
          for (const o of event.outputs) await append(outputSpecOf(o));
          if (!event.ok) outcome = 'failed';
        }
      } finally {
        cancelled.dispose();
      }
    } catch (err) {
      outcome = 'failed';
      await append(failureSpec(err));
    }
    if (outcome === 'ok' && execution.token.isCancellationRequested) outcome = 'interrupted';
    execution.end(outcome === 'ok', Date.now());
    return outcome;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.controller.dispose();
  }
}
