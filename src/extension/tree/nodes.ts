/**
 * The nodes of the "Databases" view: plain data with a stable id (`db:app`, `coll:["app","events"]`,
 * `index:["app","events","expireAt_1"]`), so VS Code keeps expansion state across refreshes. The data a
 * node shows is fetched by its parent's getChildren (engine and monitor nodes fetch their own,
 * they change with the clock). No `vscode` import.
 */
import type { TTLIndexProblem } from '../../engine';
import type { CollectionInfo, IndexInfo } from '../backend/backend';

interface Base {
  readonly id: string;
  /** The id of the parent node, undefined at the top. */
  readonly parentId?: string;
  /** The saved connection whose server the node shows; absent: the embedded engine. */
  readonly connection?: string;
}

export type TreeNode =
  | (Base & { type: 'engine' })
  | (Base & { type: 'monitor' })
  | (Base & { type: 'detail'; label: string; description?: string; tooltip?: string; icon?: string })
  | (Base & { type: 'problems'; problems: TTLIndexProblem[] })
  | (Base & { type: 'problem'; problem: TTLIndexProblem })
  | (Base & { type: 'database'; db: string; sizeOnDisk?: number })
  | (Base & { type: 'collection'; db: string; info: CollectionInfo })
  | (Base & { type: 'index'; db: string; collection: string; info: IndexInfo; collectionInfo: CollectionInfo })
  | (Base & { type: 'collectionTTL'; db: string; collection: string; seconds: number; collectionInfo: CollectionInfo })
  /** A saved connection that is not connected (connected ones show their server's `engine` row). */
  | (Base & { type: 'connection'; name: string; production: boolean; error?: string })
  | (Base & {
      type: 'message';
      label: string;
      description?: string;
      command?: string;
      icon?: string;
      tooltip?: string;
    });

export type NodeType = TreeNode['type'];

/** A value that came from the tree (a context-menu or inline-command argument). */
export function isTreeNode(value: unknown): value is TreeNode {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { id?: unknown }).id === 'string' &&
    typeof (value as { type?: unknown }).type === 'string' &&
    NODE_TYPES.has((value as { type: string }).type)
  );
}

const NODE_TYPES = new Set<string>([
  'engine',
  'monitor',
  'detail',
  'problems',
  'problem',
  'database',
  'collection',
  'index',
  'collectionTTL',
  'connection',
  'message',
]);

export const ENGINE_ID = 'engine';
export const MONITOR_ID = 'monitor';
export const PROBLEMS_ID = 'problems';
/** The row that reports damage recovered from the data folder until it is acknowledged. */
export const STORAGE_DAMAGE_ID = 'message:storageDamage';

export function databaseId(db: string): string {
  return `db:${db}`;
}

export function collectionId(db: string, collection: string): string {
  return `coll:${JSON.stringify([db, collection])}`;
}

export function indexId(db: string, collection: string, index: string): string {
  return `index:${JSON.stringify([db, collection, index])}`;
}

/** The id prefix of every node of a connection's part of the tree. */
export function connectionScope(name: string): string {
  return `conn:${JSON.stringify(name)}/`;
}
