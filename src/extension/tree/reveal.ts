/**
 * Revealing a row of the Databases view. VS Code's own reveal has a race: when the view reloads its
 * rows (shown again after a refresh that came while it was hidden, or just opened), the workbench
 * learns the new rows before its tree widget holds them, and a reveal arriving in between fails
 * with TreeError "Data tree node not found: <id>", for any row (the embedded engine's too). Seen in
 * VS Code 1.139 (code-server 4.139.1) every time a reveal follows the view's focus command at once.
 * The rows are there a moment later, so a reveal that meets this error is tried again; any other
 * error is the caller's.
 */
import type * as vscode from 'vscode';
import type { TreeNode } from './nodes';

const NOT_IN_TREE_YET = /Data tree node not found/;

export async function revealRow(
  view: vscode.TreeView<TreeNode>,
  node: TreeNode,
  options: { select?: boolean; focus?: boolean; expand?: boolean | number },
  attempts = 6,
  pauseMs = 100,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await view.reveal(node, options);
      return;
    } catch (err) {
      if (attempt >= attempts || !NOT_IN_TREE_YET.test(String((err as Error | undefined)?.message))) throw err;
      await new Promise((resolve) => setTimeout(resolve, pauseMs * attempt));
    }
  }
}
