/**
 * Commands about the server process and its connections, which only the endpoint can answer (the
 * engine knows no sockets, ports or host): whatsmyuri, getCmdLineOpts, hostInfo, and the replica
 * set commands a standalone mongod refuses with NoReplicationEnabled (76). mongosh's helpers
 * (db.serverCmdLineOpts(), db.hostInfo(), rs.status()) and tools such as Compass send them; an
 * answer of CommandNotFound would tell them this is not a mongod.
 */
import * as os from 'node:os';
import { Long } from 'bson';
import type { Engine } from '../engine';
import { fail } from '../engine/errors';
import type { Document } from '../engine/values/types';
import type { ReplicaSet } from '../engine/replication/replica-set';

/** What a connection knows of itself and of the server that accepted it. */
export interface ConnectionAddresses {
  /** The client's address, "host:port". */
  readonly remote: string;
  /** The address the server listens on. */
  readonly server?: { host: string; port: number };
}

/** Replica set commands: on a standalone mongod each answers NoReplicationEnabled. */
const REPLICA_SET_COMMANDS = new Set([
  'replSetGetStatus',
  'replSetGetConfig',
  'replSetInitiate',
  'replSetReconfig',
  'replSetStepDown',
  'replSetFreeze',
  'replSetMaintenance',
  'replSetSyncFrom',
]);

export const SERVER_COMMANDS = ['whatsmyuri', 'getCmdLineOpts', 'hostInfo', ...REPLICA_SET_COMMANDS];

/** The reply of a server command, or undefined when `name` is not one (the engine answers it). */
export function runServerCommand(
  engine: Engine,
  connection: ConnectionAddresses,
  dbName: string,
  name: string,
): Document | undefined {
  switch (name) {
    case 'whatsmyuri':
      return { you: connection.remote, ok: 1 };
    case 'getCmdLineOpts':
      requireAdmin(dbName, name);
      return cmdLineOpts(engine, connection);
    case 'hostInfo':
      return hostInfo(engine, connection);
  }
  if (REPLICA_SET_COMMANDS.has(name)) {
    requireAdmin(dbName, name);
    const set = engine.replication;
    if (set) return replicaSetCommand(set, memberName(connection), name);
    fail(
      'NoReplicationEnabled',
      'not running with --replSet: the TTL Workbench endpoint is a standalone server; start it with --replSet NAME for a one-member replica set (transactions, change streams).',
    );
  }
  return undefined;
}

/** This member's name in the replica set: the address it listens on, as clients reach it. */
export function memberName(connection: ConnectionAddresses): string {
  const server = connection.server;
  return server ? `${server.host.includes(':') ? `[${server.host}]` : server.host}:${server.port}` : 'localhost:27017';
}

function requireAdmin(dbName: string, name: string): void {
  if (dbName !== 'admin')
    fail('Unauthorized', `${name} may only be run against the admin database: db.adminCommand({${name}: 1}).`);
}

/** The options the server was started with, in mongod's shape (argv, and the parsed config). */
function cmdLineOpts(engine: Engine, connection: ConnectionAddresses): Document {
  const server = connection.server;
  const set = engine.replication?.name;
  return {
    argv: [
      'ttl-workbench',
      ...(server ? ['--bind', server.host, '--port', String(server.port)] : []),
      ...(set !== undefined ? ['--replSet', set] : []),
    ],
    parsed: {
      ...(server ? { net: { bindIp: server.host, port: server.port } } : {}),
      ...(set !== undefined ? { replication: { replSet: set } } : {}),
    },
    ok: 1,
  };
}

/** The replica set commands of a one-member set that is always its own healthy primary. */
function replicaSetCommand(set: ReplicaSet, me: string, name: string): Document {
  switch (name) {
    case 'replSetGetStatus':
      return set.status(me);
    case 'replSetGetConfig':
      return { config: set.config(me), ok: 1 };
    case 'replSetInitiate':
      fail(
        'AlreadyInitialized',
        `already initialized: the engine started as replica set "${set.name}" with one member (${me}).`,
      );
  }
  fail(
    'IllegalOperation',
    `${name} does not apply to the engine's replica set "${set.name}": it has one member, always its primary, and no configuration to change.`,
  );
}

const CPU_ARCH: Record<string, string> = { x64: 'x86_64', arm64: 'aarch64', ia32: 'i686' };
const OS_TYPE: Record<string, string> = { Windows_NT: 'Windows', Darwin: 'Darwin', Linux: 'Linux' };

/** The machine the endpoint runs on, in the fields mongod's hostInfo reports; its time is the engine's clock. */
function hostInfo(engine: Engine, connection: ConnectionAddresses): Document {
  const memMB = Math.floor(os.totalmem() / (1024 * 1024));
  return {
    system: {
      currentTime: new Date(engine.clock.now()),
      hostname: connection.server ? `${os.hostname()}:${connection.server.port}` : os.hostname(),
      cpuAddrSize: 64,
      memSizeMB: Long.fromNumber(memMB),
      memLimitMB: Long.fromNumber(memMB),
      numCores: os.cpus().length,
      cpuArch: CPU_ARCH[os.arch()] ?? os.arch(),
      numaEnabled: false,
    },
    os: { type: OS_TYPE[os.type()] ?? os.type(), name: os.type(), version: os.release() },
    extra: {},
    ok: 1,
  };
}
