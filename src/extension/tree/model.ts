/**
 * The data side of the "Databases" view: which nodes a node has, fetched through the Backend (all
 * answers asynchronous), with node objects kept per id so VS Code can refresh one node and keep
 * expansion state; and which nodes a batch of backend events makes stale. No `vscode` import: the
 * provider (provider.ts) adds TreeItems, debouncing and events.
 */
import type { TTLIndexProblem } from '../../engine';
import type { Backend, BackendEvent } from '../backend/backend';
import {
  collectionId,
  connectionScope,
  databaseId,
  ENGINE_ID,
  indexId,
  MONITOR_ID,
  PROBLEMS_ID,
  STORAGE_DAMAGE_ID,
  type TreeNode,
} from './nodes';
import { monitorDetails, storageDamageLabel, storageDamageTooltip } from './presentation';

export interface RefreshPlan {
  /** Refresh everything from the top. */
  root: boolean;
  nodes: TreeNode[];
}

export class TreeModel {
  private readonly nodes = new Map<string, TreeNode>();
  /** The result of the last "Find NaN TTL Indexes" (undefined: not run yet). */
  private problems: TTLIndexProblem[] | undefined;

  /** The id prefix of a connection's nodes ('' for the embedded engine's, whose ids stay as they were). */
  private readonly scope: string;

  /** `connection`: the saved connection this model shows (its nodes' ids are prefixed, and carry its name). */
  constructor(
    private readonly backend: Backend,
    readonly connection?: string,
  ) {
    this.scope = connection === undefined ? '' : connectionScope(connection);
  }

  /** A node id within this model's part of the tree. */
  idOf(id: string): string {
    return this.scope + id;
  }

  /** The model's top node (the engine row, or the connection's server row). */
  get topId(): string {
    return this.idOf(ENGINE_ID);
  }

  get(id: string): TreeNode | undefined {
    return this.nodes.get(id);
  }

  parentOf(node: TreeNode): TreeNode | undefined {
    return node.parentId === undefined ? undefined : this.nodes.get(node.parentId);
  }

  setProblems(problems: TTLIndexProblem[] | undefined): void {
    this.problems = problems;
  }

  get lastProblems(): TTLIndexProblem[] | undefined {
    return this.problems;
  }

  /** The cached object for this id, updated with fresh data (so VS Code sees the same element). */
  private keep<T extends TreeNode>(fresh: T): T {
    const existing = this.nodes.get(fresh.id);
    if (existing && existing.type === fresh.type) {
      for (const key of Object.keys(existing))
        if (!(key in fresh)) delete (existing as unknown as Record<string, unknown>)[key];
      Object.assign(existing, fresh);
      return existing as T;
    }
    this.nodes.set(fresh.id, fresh);
    return fresh;
  }

  /** A fresh node with this model's ids; its parentId is already scoped (it came from a scoped parent). */
  private scoped(n: TreeNode): TreeNode {
    if (!this.scope) return n;
    const parentId = n.parentId === undefined || n.parentId.startsWith(this.scope) ? n.parentId : this.idOf(n.parentId);
    return { ...n, id: this.idOf(n.id), ...(parentId !== undefined ? { parentId } : {}), connection: this.connection };
  }

  /** Forget nodes under `parentId` that are not among `kept` (and everything below them). */
  private prune(parentId: string | undefined, kept: TreeNode[]): void {
    const keep = new Set(kept.map((n) => n.id));
    const gone: string[] = [];
    for (const [id, n] of this.nodes) if (n.parentId === parentId && !keep.has(id)) gone.push(id);
    while (gone.length) {
      const id = gone.pop()!;
      this.nodes.delete(id);
      for (const [cid, n] of this.nodes) if (n.parentId === id) gone.push(cid);
    }
  }

  /**
   * Whether the engine has nothing to show below its row: no database, no storage damage waiting to
   * be read, no audit result with problems. The view then shows its welcome content instead.
   */
  async isEmpty(): Promise<boolean> {
    if (this.problems?.length) return false;
    const [dbs, storage] = await Promise.all([this.backend.listDatabases(), this.backend.storageInfo()]);
    return dbs.length === 0 && !storage.damage?.recoveries.length;
  }

  async children(parent?: TreeNode): Promise<TreeNode[]> {
    const out = (await this.fetchChildren(parent)).map((n) => this.scoped(n));
    const kept = out.map((n) => this.keep(n));
    this.prune(parent?.id, kept);
    return kept;
  }

  private async fetchChildren(parent?: TreeNode): Promise<TreeNode[]> {
    if (!parent) return [{ id: ENGINE_ID, type: 'engine' }];
    switch (parent.type) {
      case 'engine': {
        const [dbs, storage] = await Promise.all([this.backend.listDatabases(), this.backend.storageInfo()]);
        const out: TreeNode[] = [];
        // Damage recovered from the data folder stays in view until the user acknowledges it.
        const damage = storage.damage?.recoveries;
        if (damage?.length)
          out.push({
            id: STORAGE_DAMAGE_ID,
            parentId: ENGINE_ID,
            type: 'message',
            ...storageDamageLabel(damage),
            icon: 'warning',
            tooltip: storageDamageTooltip(damage),
            command: 'ttlWorkbench.acknowledgeStorageDamage',
          });
        out.push({ id: MONITOR_ID, parentId: ENGINE_ID, type: 'monitor' });
        if (this.problems)
          out.push({ id: PROBLEMS_ID, parentId: ENGINE_ID, type: 'problems', problems: this.problems });
        for (const d of dbs)
          out.push({
            id: databaseId(d.name),
            parentId: ENGINE_ID,
            type: 'database',
            db: d.name,
            ...(d.sizeOnDisk !== undefined ? { sizeOnDisk: d.sizeOnDisk } : {}),
          });
        if (dbs.length === 0) {
          out.push({
            id: 'message:empty',
            parentId: ENGINE_ID,
            type: 'message',
            label: 'No databases yet',
            description: 'click: Create Collection…',
            command: 'ttlWorkbench.createCollection',
          });
        }
        return out;
      }
      case 'monitor': {
        const [m, clock, info] = await Promise.all([
          this.backend.monitorStatus(),
          this.backend.clock(),
          this.backend.info(),
        ]);
        // On a real deployment: where TTL deletes happen (the primary only, or Cosmos' own schedule).
        const where = info.server ? [{ key: 'where', label: 'Deletes on', description: info.server.ttlDeletes }] : [];
        // A replica set: how far each secondary is behind, so deletes seen there can be read right.
        const lag = (m.replication ?? []).map((text, i) => ({
          key: `lag${i}`,
          label: 'Replication',
          description: text,
        }));
        return [...monitorDetails(m, clock.now), ...where, ...lag].map((r) => ({
          id: `monitor:${r.key}`,
          parentId: MONITOR_ID,
          type: 'detail',
          label: r.label,
          description: r.description,
        }));
      }
      case 'problems':
        return parent.problems.map((p) => ({
          id: `problem:${JSON.stringify([p.db, p.collection, p.index])}`,
          parentId: PROBLEMS_ID,
          type: 'problem',
          problem: p,
        }));
      case 'database': {
        const colls = await this.backend.listCollections(parent.db);
        colls.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        return colls.map((info) => ({
          id: collectionId(parent.db, info.name),
          parentId: parent.id,
          type: 'collection',
          db: parent.db,
          info,
        }));
      }
      case 'collection': {
        const { db, info } = parent;
        // A view has no indexes (listIndexes refuses it) and nothing expires in it.
        if (info.kind === 'view') return [];
        const indexes = await this.backend.listIndexes(db, info.name);
        const out: TreeNode[] = [];
        const eas = info.options.expireAfterSeconds;
        if (eas !== undefined) {
          out.push({
            id: `collttl:${JSON.stringify([db, info.name])}`,
            parentId: parent.id,
            type: 'collectionTTL',
            db,
            collection: info.name,
            seconds: Number(String(eas)),
            collectionInfo: info,
          });
        }
        for (const ix of indexes)
          out.push({
            id: indexId(db, info.name, ix.name),
            parentId: parent.id,
            type: 'index',
            db,
            collection: info.name,
            info: ix,
            collectionInfo: info,
          });
        return out;
      }
      default:
        return [];
    }
  }

  /** Which nodes a batch of events makes stale: the parents whose children changed. */
  planRefresh(events: readonly BackendEvent[]): RefreshPlan {
    const nodes = new Map<string, TreeNode>();
    let root = false;
    const add = (id: string) => {
      const n = this.nodes.get(this.idOf(id));
      if (n) nodes.set(id, n);
    };
    /** The database node, or everything when the database is not shown yet. */
    const db = (name: string) => {
      const n = this.nodes.get(this.idOf(databaseId(name)));
      if (n) nodes.set(n.id, n);
      else root = true;
    };
    for (const e of events) {
      switch (e.kind) {
        case 'reset':
        case 'databaseCreated':
        case 'databaseDropped':
        case 'clockChanged':
          root = true;
          break;
        case 'collectionCreated':
        case 'collectionDropped':
        case 'collectionChanged':
          db(e.db);
          break;
        case 'collectionRenamed':
          db(e.db);
          db(e.toDb);
          break;
        case 'indexesCreated':
        case 'indexesDropped':
        case 'indexChanged':
          if (this.nodes.has(this.idOf(collectionId(e.db, e.collection)))) add(collectionId(e.db, e.collection));
          else db(e.db);
          break;
        case 'documentsInserted':
        case 'documentsUpdated':
        case 'documentsDeleted':
          // Counts show on the collection row: its parent lists it anew.
          db(e.db);
          if (e.kind === 'documentsDeleted' && e.cause === 'ttl') add(MONITOR_ID);
          break;
        case 'monitorRan':
          add(MONITOR_ID);
          break;
        case 'storageChanged':
          add(ENGINE_ID);
          break;
      }
    }
    return root ? { root: true, nodes: [] } : { root: false, nodes: [...nodes.values()] };
  }
}
