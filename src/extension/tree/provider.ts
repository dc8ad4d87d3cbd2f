/**
 * The "Databases" view's TreeDataProvider: TreeItems from the pure presentation, children from the
 * TreeModel, tooltips with expiry counts resolved on hover, and refreshes driven by backend events
 * (debounced: one refresh per burst, never polling the data).
 */
import * as vscode from 'vscode';
import type { Backend, BackendEvent, ExpiryCountResult } from '../backend/backend';
import { currentConnection } from '../backend/backend-scope';
import { presentConnection, presentServer } from './connection-presentation';
import { TreeModel } from './model';
import { connectionScope, type TreeNode } from './nodes';
import {
  collectionTTLTooltip,
  describeIndexRow,
  indexTooltip,
  presentCollection,
  presentCollectionTTL,
  presentDatabase,
  presentEngine,
  presentIndex,
  presentMonitor,
  presentProblem,
  presentProblems,
  type Presentation,
} from './presentation';

/** Expiry counts cover this window after "now" (the tooltip's "due in the next hour"). */
export const DUE_WINDOW_SECONDS = 3600;

const COLLAPSIBLE = {
  none: vscode.TreeItemCollapsibleState.None,
  collapsed: vscode.TreeItemCollapsibleState.Collapsed,
  expanded: vscode.TreeItemCollapsibleState.Expanded,
} as const;

export function markdown(text: string): vscode.MarkdownString {
  const md = new vscode.MarkdownString(text, true);
  md.isTrusted = false;
  return md;
}

/** The saved connections the view shows next to the embedded engine (connections/manager.ts). */
export interface ConnectionRows {
  list(): Array<{ name: string; production: boolean; backend?: Backend; error?: string }>;
  onDidChange(listener: () => void): () => void;
}

interface ConnectedModel {
  backend: Backend;
  model: TreeModel;
  production: boolean;
  unsubscribe: () => void;
}

export class DatabasesTreeProvider implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<TreeNode | undefined | void>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly embedded: TreeModel;
  private readonly connected = new Map<string, ConnectedModel>();
  private connections: ConnectionRows | undefined;
  private unsubscribeConnections: () => void = () => undefined;
  private pending: BackendEvent[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly unsubscribe: () => void;
  private idleWaiters: Array<() => void> = [];
  /** How many refreshes fired (tests check debouncing). */
  refreshes = 0;

  constructor(
    private readonly backend: Backend,
    private readonly debounceMs = 100,
  ) {
    this.embedded = new TreeModel(backend);
    this.unsubscribe = backend.onDidChange((events) => this.queue(events));
  }

  /**
   * The model of the backend in use: inside a command started on a connection's node, that
   * connection's (so Find NaN TTL Indexes lists its problems under its own row), else the embedded one.
   */
  get model(): TreeModel {
    const name = currentConnection();
    return (name !== undefined && this.connected.get(name)?.model) || this.embedded;
  }

  /** Shows saved connections after the embedded engine; their rows follow connect and disconnect. */
  showConnections(rows: ConnectionRows): void {
    this.unsubscribeConnections();
    this.connections = rows;
    const sync = () => {
      const live = new Map(rows.list().flatMap((r) => (r.backend ? [[r.name, r] as const] : [])));
      for (const [name, c] of this.connected)
        if (live.get(name)?.backend !== c.backend) {
          c.unsubscribe();
          this.connected.delete(name);
        }
      for (const [name, r] of live) {
        const existing = this.connected.get(name);
        if (existing) {
          existing.production = r.production;
          continue;
        }
        const model = new TreeModel(r.backend!, name);
        const unsubscribe = r.backend!.onDidChange((events) => {
          const plan = model.planRefresh(events);
          const top = model.get(model.topId);
          if (plan.root) this.emitter.fire(top);
          else for (const n of plan.nodes) this.emitter.fire(n);
        });
        this.connected.set(name, { backend: r.backend!, model, production: r.production, unsubscribe });
      }
      this.refresh();
    };
    this.unsubscribeConnections = rows.onDidChange(sync);
    sync();
  }

  /** The model a node belongs to. */
  private modelOf(node: TreeNode): TreeModel {
    return (node.connection !== undefined && this.connected.get(node.connection)?.model) || this.embedded;
  }

  /** The backend a node's data come from (a connection's server, or the embedded engine). */
  backendOf(node: TreeNode): Backend {
    return (node.connection !== undefined && this.connected.get(node.connection)?.backend) || this.backend;
  }

  private queue(events: readonly BackendEvent[]): void {
    this.pending.push(...events);
    this.timer ??= setTimeout(() => this.flush(), this.debounceMs);
  }

  private flush(): void {
    this.timer = undefined;
    const events = this.pending;
    this.pending = [];
    const plan = this.model.planRefresh(events);
    this.refreshes++;
    if (plan.root) this.emitter.fire();
    else for (const n of plan.nodes) this.emitter.fire(n);
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /** Resolves once no event is waiting for its debounced refresh. */
  whenIdle(): Promise<void> {
    if (!this.timer) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Refresh everything now. */
  refresh(node?: TreeNode): void {
    this.refreshes++;
    this.emitter.fire(node);
  }

  /**
   * The view's roots: VS Code shows `viewsWelcome` content only for a view without rows, so an
   * empty engine with no saved connection has none (its facts stay in the view's description and
   * the status bar, its actions in the view's title bar).
   */
  async getChildren(node?: TreeNode): Promise<TreeNode[]> {
    if (node) return node.type === 'connection' ? [] : this.modelOf(node).children(node);
    const top = await this.topRows();
    return top.length === 1 && (await this.embedded.isEmpty()) ? [] : top;
  }

  /** The embedded engine's row, then one per saved connection, even while the view shows its welcome instead. */
  async topRows(): Promise<TreeNode[]> {
    const top = await this.embedded.children();
    for (const row of this.connections?.list() ?? []) {
      const c = this.connected.get(row.name);
      if (c) top.push(...(await c.model.children()));
      else
        top.push({
          id: `${connectionScope(row.name)}row`,
          type: 'connection',
          name: row.name,
          connection: row.name,
          production: row.production,
          ...(row.error ? { error: row.error } : {}),
        });
    }
    return top;
  }

  getParent(node: TreeNode): TreeNode | undefined {
    return this.modelOf(node).parentOf(node);
  }

  async getTreeItem(node: TreeNode): Promise<vscode.TreeItem> {
    const p = await this.present(node);
    const item = new vscode.TreeItem(p.label, COLLAPSIBLE[p.collapsible]);
    item.id = node.id;
    if (p.description !== undefined) item.description = p.description;
    if (p.tooltip !== undefined) item.tooltip = markdown(p.tooltip);
    if (p.icon)
      item.iconPath = new vscode.ThemeIcon(p.icon.id, p.icon.color ? new vscode.ThemeColor(p.icon.color) : undefined);
    item.contextValue = p.contextValue;
    if (p.command) item.command = p.command;
    return item;
  }

  /** The presentation of a node (labels and descriptions as the view shows them). */
  async present(node: TreeNode): Promise<Presentation> {
    switch (node.type) {
      case 'engine': {
        const backend = this.backendOf(node);
        const [info, clock] = await Promise.all([backend.info(), backend.clock()]);
        if (node.connection !== undefined)
          return presentServer(info, clock, this.connected.get(node.connection)?.production === true);
        return presentEngine(info, clock);
      }
      case 'monitor': {
        const backend = this.backendOf(node);
        const [m, clock] = await Promise.all([backend.monitorStatus(), backend.clock()]);
        return presentMonitor(m, clock.now);
      }
      case 'connection':
        return presentConnection(node);
      case 'detail':
        return { label: node.label, description: node.description, contextValue: 'monitorDetail', collapsible: 'none' };
      case 'problems':
        return presentProblems(node.problems);
      case 'problem':
        return presentProblem(node.problem);
      case 'database':
        return presentDatabase(node.db, node.sizeOnDisk);
      case 'collection':
        return presentCollection(node.info);
      case 'index':
        return presentIndex(node.info, node.collectionInfo);
      case 'collectionTTL':
        return presentCollectionTTL(node.collectionInfo, node.seconds);
      case 'message':
        return {
          label: node.label,
          ...(node.description ? { description: node.description } : {}),
          icon: { id: node.icon ?? 'info' },
          ...(node.tooltip ? { tooltip: node.tooltip } : {}),
          contextValue: 'message',
          collapsible: 'none',
          ...(node.command ? { command: { command: node.command, title: node.label } } : {}),
        };
    }
  }

  /** Expiry counts for an index or collection-TTL row (undefined for rows without TTL). */
  async countsFor(node: TreeNode): Promise<ExpiryCountResult | undefined> {
    if (node.type === 'index') {
      const d = describeIndexRow(node.info, node.collectionInfo);
      if (!d.ttlApplies) return undefined;
      return this.backendOf(node).expiryCounts(node.info, DUE_WINDOW_SECONDS);
    }
    if (node.type === 'collectionTTL') {
      return this.backendOf(node).expiryCounts(
        { db: node.db, collection: node.collection, collectionSeconds: node.seconds },
        DUE_WINDOW_SECONDS,
      );
    }
    return undefined;
  }

  /** The tooltip of an index or collection-TTL row, with counts (what hovering shows). */
  async tooltipFor(node: TreeNode): Promise<string | undefined> {
    if (node.type !== 'index' && node.type !== 'collectionTTL') return (await this.present(node)).tooltip;
    let counts: ExpiryCountResult | undefined;
    try {
      counts = await this.countsFor(node);
    } catch (err) {
      counts = { ok: false, reason: `counting failed: ${(err as Error).message}` };
    }
    return node.type === 'index'
      ? indexTooltip(node.info, node.collectionInfo, counts)
      : collectionTTLTooltip(node.collectionInfo, node.seconds, counts);
  }

  async resolveTreeItem(item: vscode.TreeItem, node: TreeNode): Promise<vscode.TreeItem> {
    if (item.tooltip === undefined) {
      const text = await this.tooltipFor(node);
      if (text !== undefined) item.tooltip = markdown(text);
    }
    return item;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.unsubscribe();
    this.unsubscribeConnections();
    for (const c of this.connected.values()) c.unsubscribe();
    this.connected.clear();
    this.emitter.dispose();
    for (const w of this.idleWaiters) w();
    this.idleWaiters = [];
  }
}
