/** The `ttlWorkbench.*` settings, read in one place. */
import * as vscode from 'vscode';
import type { EngineSettings } from './backend/backend';
import { DEFAULT_LOCAL_ENDPOINT_PORT, endpointPortOf } from './logic/local-endpoint';

export interface WorkbenchSettings extends EngineSettings {
  /** Ask before a TTL change makes more existing documents eligible for deletion at once. */
  confirmExpiryAbove: number;
  /** Where the engine's data live between sessions. */
  storage: 'workspace' | 'global' | 'memory';
  durability: 'fsync' | 'batched';
  /** The engine host worker's heap limit in MiB (applies when the worker starts). */
  engineHostMaxHeapMb: number;
  /** The local endpoint's port (0: any free one); it always binds to 127.0.0.1. */
  localEndpointPort: number;
}

/** Room for about 2M small documents with a few indexes (1M measured at ~0.5 GB in the worker). */
export const DEFAULT_ENGINE_HOST_HEAP_MB = 2048;

export const SECTION = 'ttlWorkbench';

export function readSettings(): WorkbenchSettings {
  const c = vscode.workspace.getConfiguration(SECTION);
  const clock = c.get<string>('clock', 'virtual');
  const flavor = c.get<string>('flavor', 'mongodb');
  const serverVersion = c.get<string>('serverVersion', '8.0');
  const confirm = c.get<number>('confirmExpiryAbove', 1000);
  const storage = c.get<string>('storage', 'workspace');
  const durability = c.get<string>('durability', 'fsync');
  const heap = c.get<number>('engineHost.maxHeapMb', DEFAULT_ENGINE_HOST_HEAP_MB);
  const endpointPort = c.get<number>('localEndpoint.port', DEFAULT_LOCAL_ENDPOINT_PORT);
  return {
    clock: clock === 'system' ? 'system' : 'virtual',
    flavor: flavor === 'cosmos' ? 'cosmos' : 'mongodb',
    serverVersion: serverVersion === '7.0' ? '7.0' : '8.0',
    confirmExpiryAbove: Number.isFinite(confirm) && confirm >= 0 ? confirm : 1000,
    storage: storage === 'global' || storage === 'memory' ? storage : 'workspace',
    durability: durability === 'batched' ? 'batched' : 'fsync',
    engineHostMaxHeapMb: Number.isInteger(heap) && heap >= 128 ? heap : DEFAULT_ENGINE_HOST_HEAP_MB,
    localEndpointPort: endpointPortOf(endpointPort) ?? DEFAULT_LOCAL_ENDPOINT_PORT,
  };
}
