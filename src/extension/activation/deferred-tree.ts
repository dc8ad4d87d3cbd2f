/**
 * The Databases view's data provider from activation on, before the engine exists. VS Code asks a
 * tree for its rows only while the view is visible, so the first `getChildren` is the moment the
 * user looks at the databases: it starts the engine (`start`) and from then on every call goes to
 * the real provider. If the engine cannot start, the view shows no rows (the starter sets the
 * view's message saying why).
 */
import * as vscode from 'vscode';

export class DeferredTreeProvider<T> implements vscode.TreeDataProvider<T>, vscode.Disposable {
  private real: vscode.TreeDataProvider<T> | undefined;
  private readonly changed = new vscode.EventEmitter<T | T[] | undefined | null | void>();
  private forwarding: vscode.Disposable | undefined;
  readonly onDidChangeTreeData = this.changed.event;

  /** `start` makes the engine and calls `connect` with its tree before it returns true. */
  constructor(private readonly start: () => boolean) {}

  connect(real: vscode.TreeDataProvider<T>): void {
    this.real = real;
    this.forwarding = real.onDidChangeTreeData?.((e) => this.changed.fire(e));
    this.changed.fire(undefined);
  }

  getChildren(element?: T): vscode.ProviderResult<T[]> {
    if (!this.real && !this.start()) return [];
    return this.real?.getChildren(element) ?? [];
  }

  // Elements exist only once the real provider has given them: the calls below always have it.
  getTreeItem(element: T): vscode.TreeItem | Thenable<vscode.TreeItem> {
    return this.real!.getTreeItem(element);
  }

  getParent(element: T): vscode.ProviderResult<T> {
    return this.real?.getParent?.(element);
  }

  resolveTreeItem(
    item: vscode.TreeItem,
    element: T,
    token: vscode.CancellationToken,
  ): vscode.ProviderResult<vscode.TreeItem> {
    return this.real?.resolveTreeItem ? this.real.resolveTreeItem(item, element, token) : item;
  }

  dispose(): void {
    this.forwarding?.dispose();
    this.changed.dispose();
  }
}
