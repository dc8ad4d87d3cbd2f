/** The sidebar tree as a user sees it: the rows under a node, with their labels and descriptions. */
import type * as vscode from 'vscode';
import type { TTLWorkbenchApi } from '../../../src/extension/api';
import type { TreeNode } from '../../../src/extension/tree/nodes';

export interface Row {
  node: TreeNode;
  label: string;
  description: string;
  item: vscode.TreeItem;
}

/**
 * The children of `node`, once the extension has settled its events. Without one: the engine's row
 * and the connections', also while the view hides them to show its welcome (an empty engine).
 */
export async function treeRows(api: TTLWorkbenchApi, node?: TreeNode): Promise<Row[]> {
  await api.whenIdle();
  const kids = node ? await api.treeProvider.getChildren(node) : await api.treeProvider.topRows();
  return Promise.all(
    kids.map(async (k) => {
      const item = await api.treeProvider.getTreeItem(k);
      const label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
      return { node: k, label, description: String(item.description ?? ''), item };
    }),
  );
}
