/**
 * The engine state the introspection stages report ($collStats, $indexStats, $currentOp): the
 * collection's counts and sizes, each index's spec and accesses counted by the query executor, and
 * the operations in progress.
 */
import { latencyStatsOf } from './usage-stats';
import { Int32, Long } from 'bson';
import type { EngineContext } from '../engine-context';
import { accessesOf, collectionScansOf } from '../indexes/usage';
import { listLocalSessions } from '../catalog/local-sessions';
import type { PipelineIntrospection } from '../query/stages/types';
import { cloneDocument } from '../values/clone';
import type { Document } from '../values/types';

const HOST = 'localhost';

/** Bytes per index entry, the estimate the collStats command uses too. */
const INDEX_ENTRY_BYTES = 40;

export function engineIntrospection(engine: EngineContext, collection: string | undefined): PipelineIntrospection {
  return {
    collection,
    host: HOST,

    collectionStats(db, name) {
      const coll = engine.getCollection(db, name);
      if (!coll) return undefined;
      const indexSizes: Record<string, number> = {};
      for (const index of coll.indexes.values()) indexSizes[index.name] = index.size * INDEX_ENTRY_BYTES;
      return {
        count: coll.count,
        size: coll.dataSizeBytes,
        capped: coll.isCapped,
        ...(coll.isCapped ? { max: coll.options.max ?? 0, maxSize: coll.options.size } : {}),
        indexSizes,
        collectionScans: collectionScansOf(coll),
      };
    },

    latencyStats(db, name) {
      return latencyStatsOf(engine, `${db}.${name}`);
    },

    isView(db, name) {
      return engine.getCollection(db, name)?.isView === true;
    },

    indexStats(db, name) {
      const coll = engine.getCollection(db, name);
      if (!coll) return [];
      const opened = new Date(engine.startedAt);
      return [...coll.indexes.values()].map((index) => {
        const accesses = accessesOf(index, opened);
        return {
          name: index.name,
          key: cloneDocument(index.spec.key as Document),
          host: HOST,
          accesses: { ops: Long.fromNumber(accesses.ops), since: accesses.since },
          spec: cloneDocument(index.spec),
        };
      });
    },

    localSessions(options) {
      return listLocalSessions(engine, options);
    },

    currentOps({ idleSessions }) {
      const now = engine.now();
      const currentOpTime = now.toISOString().replace('Z', '+00:00');
      const idle = idleSessions ? (engine.idleTransactions?.() ?? []) : [];
      const running = engine.operations.list().map((op) => ({
        type: 'op',
        host: HOST,
        desc: op.desc,
        active: true,
        currentOpTime,
        opid: new Int32(op.opid),
        secs_running: Long.fromNumber(Math.floor(op.microsRunning / 1e6)),
        microsecs_running: Long.fromNumber(op.microsRunning),
        op: op.op,
        ns: op.ns,
        ...(op.command ? { command: cloneDocument(op.command) } : {}),
        numYields: 0,
        locks: {},
        waitingForLock: false,
        lockStats: {},
      }));
      return [...running, ...idle.map((t) => ({ type: 'idleSession', host: HOST, currentOpTime, ...t }))];
    },
  };
}
