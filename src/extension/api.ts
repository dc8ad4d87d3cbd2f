/**
 * What `activate()` returns: the seams integration tests (and other extensions) use instead of
 * the UI. Everything data-related goes through `backend` (asynchronous). Reading `backend`,
 * `treeProvider`, `diagnostics`, `notebooks` or the status bar starts the engine if it has not
 * started (`engineStartedBy()` then says "the extension API").
 */
import type * as vscode from 'vscode';
import type { AgentToolsApi } from './agent-tools/lm-tools';
import type { Backend } from './backend/backend';
import type { NotebookApi } from './notebook';
import type { TreeNode } from './tree/nodes';
import type { DatabasesTreeProvider } from './tree/provider';
import type { ShownMessage } from './ui/notifier';

export interface TTLWorkbenchApi {
  backend: Backend;
  treeProvider: DatabasesTreeProvider;
  treeView: vscode.TreeView<TreeNode>;
  diagnostics: vscode.DiagnosticCollection;
  /**
   * The local endpoint while it runs (Start Local Endpoint), with its status bar text
   * (`$(plug) mongodb://127.0.0.1:27018`); undefined while it does not, or the engine has not started
   * (asking does not start it).
   */
  localEndpoint(): { uri: string; port: number; statusBarText: string } | undefined;
  /** The status bar item's text, e.g. `$(history) 2025-01-01 12:00:00 UTC · TTL deleted 12`. */
  statusBarText(): string;
  /** Notifications shown so far (the last 200). */
  messages(): readonly ShownMessage[];
  /** Resolves when tree, status bar and diagnostics have caught up with every event so far. */
  whenIdle(): Promise<void>;
  /** TTL problems found in source files (the NaN audit's are in `diagnostics`). */
  sourceDiagnostics: vscode.DiagnosticCollection;
  /** How long `activate()` took, in milliseconds. */
  activationMs: number;
  /** Playground notebooks: each notebook's engine, and when its runs are done. */
  notebooks: NotebookApi;
  /** What started the engine ("the Databases view", "the command ttlWorkbench.x", ...); undefined while it has not. */
  engineStartedBy(): string | undefined;
  /** The language model tools (ttl_*): what ttl_apply's confirmation would say for an input. */
  agentTools: AgentToolsApi;
  /** The activation and engine-start lines the extension wrote to its log, oldest first. */
  lifecycleLog(): string[];
}
