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

/** The children of `node` (the roots without one), once the extension has settled its events. */
export async function treeRows(api: TTLWorkbenchApi, node?: TreeNode): Promise<Row[]> {
  await api.whenIdle();
  const kids = await api.treeProvider.getChildren(node);
  return Promise.all(
    kids.map(async (k) => {
      const item = await api.treeProvider.getTreeItem(k);
      const label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
      return { node: k, label, description: String(item.description ?? ''), item };
    }),
  );
}
