/**
 * The messages between the extension host (client) and the engine host's worker. Requests carry
 * an id and get exactly one reply; a playground run also streams its events under its request id;
 * the worker pushes engine events, catalog snapshots and log lines on its own. Values that can hold
 * documents are BSON bytes, long strings beside them (wire-values.ts); the rest is plain data, structured-cloned.
 */
import type { WireError } from './wire-values';
import type { BackendEvent, EngineSettings, PlaygroundEvent } from '../backend/backend';
import type { Durability } from '../../storage/journal';

/** What the worker needs to open one backend (the window's shared engine, or an isolated notebook's). */
export interface BackendSpec {
  settings: Partial<EngineSettings>;
  startMs?: number;
  dataDir?: string;
  durability?: Durability;
  yieldAfterMs?: number;
}

/** The Backend methods answered by a plain call (everything but sessions and listeners). */
export const CALLS = [
  'info',
  'clock',
  'listDatabases',
  'listCollections',
  'listIndexes',
  'runCommand',
  'expiryCounts',
  'forecast',
  'monitorStatus',
  'monitorHistory',
  'runTTLPass',
  'advanceClock',
  'setClockMode',
  'findInvalidTTLIndexes',
  'loadLegacyIndexSpec',
  'reset',
  'catalog',
  'storageInfo',
  'acknowledgeStorageDamage',
  'compactNow',
  'exportDatabase',
  'importDatabase',
  'exportDatabaseToFile',
  'importDatabaseFromFile',
] as const;
export type CallName = (typeof CALLS)[number];

export type ToWorker =
  | {
      t: 'open';
      id: number;
      backend: number;
      spec: BackendSpec;
      /** The lock token of this worker, and those of the dead workers whose lock it may take over. */
      lock: { owner: string; takeOverFrom?: string[] };
    }
  | { t: 'call'; id: number; backend: number; method: CallName; args: Uint8Array }
  | { t: 'close'; id: number; backend: number }
  /**
   * `interrupt`: three Int32 cells shared with the client: [0] the client sets it to interrupt,
   * [1] the worker sets it while a statement of the session executes, [2] counts statements begun
   * (the client restarts the worker only when the same statement still runs after an interrupt).
   */
  | {
      t: 'session.open';
      id: number;
      backend: number;
      session: number;
      timeoutMs?: number;
      interrupt: SharedArrayBuffer;
    }
  | { t: 'session.run'; id: number; session: number; source: string; filename?: string; lineOffset?: number }
  | { t: 'session.stop'; run: number }
  | { t: 'session.dispose'; session: number }
  /**
   * The local endpoint: the MongoDB wire protocol served from the worker over one backend's engine
   * (engine-host/endpoint.ts); one per worker, a second start replaces the first. Answer: its
   * EndpointAddress; a port that cannot be had fails with EndpointListenError (`listenCode`).
   */
  | { t: 'endpoint.start'; id: number; backend: number; port: number; host: string }
  | { t: 'endpoint.stop'; id: number }
  /** Answered at once, whatever the engine does: the client's latency probe. */
  | { t: 'ping'; id: number }
  /** The worker's heap (WorkerHeapStats); `gc`: after a full collection, where the process allows one (--expose-gc). */
  | { t: 'stats'; id: number; gc?: boolean }
  | { t: 'shutdown'; id: number };

/**
 * The worker's V8 heap, from its own v8.getHeapStatistics(): the extension host's process figures
 * do not show it (heapUsed is per thread). External bytes hold typed arrays (the engine's _id table).
 */
export interface WorkerHeapStats {
  usedHeapBytes: number;
  externalBytes: number;
  heapLimitBytes: number;
}

export type FromWorker =
  | { t: 'reply'; id: number; ok: true; value?: Uint8Array }
  | { t: 'reply'; id: number; ok: false; error: WireError }
  /** Events of a running playground run (id = the run's request id). */
  | { t: 'run'; id: number; events: PlaygroundEvent[] }
  | { t: 'events'; backend: number; events: BackendEvent[] }
  | { t: 'catalog'; backend: number; catalog: Uint8Array }
  | { t: 'log'; text: string; severity: 'info' | 'error' }
  /** Sent once the worker listens: the client then sends what it queued. */
  | { t: 'ready'; heapLimitMb: number };
