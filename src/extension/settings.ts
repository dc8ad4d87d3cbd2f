/** The `ttlWorkbench.*` settings, read in one place. */
import * as vscode from 'vscode';
import type { EngineSettings } from './backend/backend';

export interface WorkbenchSettings extends EngineSettings {
  /** Ask before a TTL change makes more existing documents eligible for deletion at once. */
  confirmExpiryAbove: number;
  /** Where the engine's data live between sessions. */
  storage: 'workspace' | 'global' | 'memory';
  durability: 'fsync' | 'batched';
}

export const SECTION = 'ttlWorkbench';

export function readSettings(): WorkbenchSettings {
  const c = vscode.workspace.getConfiguration(SECTION);
  const clock = c.get<string>('clock', 'virtual');
  const flavor = c.get<string>('flavor', 'mongodb');
  const serverVersion = c.get<string>('serverVersion', '8.0');
  const confirm = c.get<number>('confirmExpiryAbove', 1000);
  const storage = c.get<string>('storage', 'workspace');
  const durability = c.get<string>('durability', 'fsync');
  return {
    clock: clock === 'system' ? 'system' : 'virtual',
    flavor: flavor === 'cosmos' ? 'cosmos' : 'mongodb',
    serverVersion: serverVersion === '7.0' ? '7.0' : '8.0',
    confirmExpiryAbove: Number.isFinite(confirm) && confirm >= 0 ? confirm : 1000,
    storage: storage === 'global' || storage === 'memory' ? storage : 'workspace',
    durability: durability === 'batched' ? 'batched' : 'fsync',
  };
}
