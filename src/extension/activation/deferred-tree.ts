/**
 * The Databases view's data provider from activation on, before the engine exists. VS Code asks a
 * tree for its rows only while the view is visible, so the first `getChildren` is the moment the
 * user looks at the databases: it starts the engine (`start`) and from then on every call goes to
 * the real provider.
 */
import * as vscode from 'vscode';

export class DeferredTreeProvider<T> implements vscode.TreeDataProvider<T>, vscode.Disposable {
  private real: vscode.TreeDataProvider<T> | undefined;
  private readonly changed = new vscode.EventEmitter<T | T[] | undefined | null | void>();
  private forwarding: vscode.Disposable | undefined;
  readonly onDidChangeTreeData = this.changed.event;

  /** `start` makes the engine and calls `connect` with its tree before it returns. */
  constructor(private readonly start: () => void) {}

  connect(real: vscode.TreeDataProvider<T>): void {
    this.real = real;
    this.forwarding = real.onDidChangeTreeData?.((e) => this.changed.fire(e));
    this.changed.fire(undefined);
  }

  private provider(): vscode.TreeDataProvider<T> {
    if (!this.real) this.start();
    if (!this.real) throw new Error('the Databases view has no engine');
    return this.real;
  }

  getChildren(element?: T): vscode.ProviderResult<T[]> {
    return this.provider().getChildren(element);
  }

  getTreeItem(element: T): vscode.TreeItem | Thenable<vscode.TreeItem> {
    return this.provider().getTreeItem(element);
  }

  getParent(element: T): vscode.ProviderResult<T> {
    return this.provider().getParent?.(element);
  }

  resolveTreeItem(
    item: vscode.TreeItem,
    element: T,
    token: vscode.CancellationToken,
  ): vscode.ProviderResult<vscode.TreeItem> {
    const real = this.provider();
    return real.resolveTreeItem ? real.resolveTreeItem(item, element, token) : item;
  }

  dispose(): void {
    this.forwarding?.dispose();
    this.changed.dispose();
  }
}
