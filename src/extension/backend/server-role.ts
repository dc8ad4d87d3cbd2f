/**
 * Which server a connection talks to, read from its `hello` and `buildInfo` replies and its host
 * names: a standalone, a replica-set member (primary or secondary, which member), a mongos, or
 * Azure Cosmos DB for MongoDB. The tree's top row and the monitor node say it; the write commands
 * are refused on a connection that reaches no primary, and TTL deletes happen on the primary only
 * (secondaries apply the primary's deletes through replication). Pure: no driver, no `vscode`.
 *
 * How Cosmos DB (RU) is told apart: its gateway presents itself as a replica set named `globaldb`
 * behind host names under `.mongo.cosmos.azure.com` (older accounts: `.documents.azure.com`), and
 * its replies carry a `_t` type tag (`BuildInfoResponse`, `IsMasterResponse`…) that no mongod
 * sends. Any one of the host suffix or the `_t` tag is enough; `globaldb` alone is not (anyone may
 * name a replica set so). The vCore service (`.mongocluster.cosmos.azure.com`) runs MongoDB's own
 * TTL rules and is treated as MongoDB.
 */
import type { Document } from '../../engine';

export type ServerKind = 'standalone' | 'primary' | 'secondary' | 'arbiter' | 'mongos' | 'other';

export interface ServerRole {
  kind: ServerKind;
  /** The member this connection's commands reach (hello's `me`, or the host it was given). */
  member: string;
  setName?: string;
  /** The primary hello names, if any. */
  primary?: string;
  /** Every data-bearing member hello lists. */
  members: string[];
  flavor: 'mongodb' | 'cosmos';
  /** Why the flavor is Cosmos (for the tooltip), when it is. */
  cosmosBecause?: string;
  /** The server's version (buildInfo). */
  version: string;
  /** Write commands can run here. */
  canWrite: boolean;
  /** Why not, in words that say what to do. */
  writesDisabledBecause?: string;
  /** Where TTL deletes happen, for the monitor node. */
  ttlDeletes: string;
  /** One line for the tree: `replica set rs0 · primary a:27017`. */
  summary: string;
}

const COSMOS_RU_HOST = /\.(mongo\.cosmos\.azure\.com|documents\.azure\.com)(:\d+)?$/i;
const COSMOS_VCORE_HOST = /\.mongocluster\.cosmos\.azure\.com(:\d+)?$/i;

/** Cosmos DB (RU) or MongoDB, and why. */
export function detectFlavor(
  hello: Document,
  buildInfo: Document,
  hosts: readonly string[],
): { flavor: 'mongodb' | 'cosmos'; because?: string } {
  const host = hosts.find((h) => COSMOS_RU_HOST.test(h) && !COSMOS_VCORE_HOST.test(h));
  if (host) return { flavor: 'cosmos', because: `the host ${host} is an Azure Cosmos DB for MongoDB (RU) account` };
  for (const [what, reply] of [
    ['buildInfo', buildInfo],
    ['hello', hello],
  ] as const) {
    const tag = reply._t;
    if (typeof tag === 'string')
      return {
        flavor: 'cosmos',
        because: `its ${what} reply carries the type tag _t: "${tag}", which only Cosmos DB sends`,
      };
  }
  return { flavor: 'mongodb' };
}

/**
 * The server's `hello` reply, or its `isMaster` reply where it refuses `hello`: Azure Cosmos DB for
 * MongoDB (RU) answers only the older command (its users report `hello` failing, and Microsoft's
 * own example is an isMaster reply), and both replies carry what the role is read from. Only a
 * refusal by the server (an error with a code) falls back; a lost connection is no answer.
 */
export async function readHello(run: (command: Document) => Promise<Document>): Promise<Document> {
  try {
    return await run({ hello: 1 });
  } catch (err) {
    if (typeof (err as { code?: unknown }).code !== 'number') throw err;
    return run({ isMaster: 1 });
  }
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** The role of the server that answered `hello` on this connection. */
export function serverRoleOf(hello: Document, buildInfo: Document, hosts: readonly string[]): ServerRole {
  const { flavor, because } = detectFlavor(hello, buildInfo, hosts);
  const setName = str(hello.setName);
  const member = str(hello.me) ?? hosts[0] ?? 'the server';
  const primary = str(hello.primary);
  const members = Array.isArray(hello.hosts) ? hello.hosts.map(String) : [];
  const writable = hello.isWritablePrimary === true || hello.ismaster === true || hello.isMaster === true;
  const version = str(buildInfo.version) ?? 'unknown';
  let kind: ServerKind;
  if (hello.msg === 'isdbgrid') kind = 'mongos';
  else if (hello.arbiterOnly === true) kind = 'arbiter';
  else if (setName && writable) kind = 'primary';
  else if (setName && hello.secondary === true) kind = 'secondary';
  else if (!setName && writable) kind = 'standalone';
  else kind = 'other';

  const base = { member, members, flavor, version, ...(setName ? { setName } : {}), ...(primary ? { primary } : {}) };
  const cosmos = because ? { cosmosBecause: because } : {};
  if (flavor === 'cosmos')
    return {
      ...base,
      ...cosmos,
      kind,
      canWrite: writable,
      ...(writable
        ? {}
        : {
            writesDisabledBecause: "Cosmos DB answered as a read-only endpoint: connect to the account's write region.",
          }),
      ttlDeletes:
        'Cosmos DB deletes expired documents in the background with spare request units, at a time the service chooses (rule 10.5).',
      summary: `Azure Cosmos DB for MongoDB · ${member}`,
    };
  switch (kind) {
    case 'primary':
      return {
        ...base,
        kind,
        canWrite: true,
        ttlDeletes: `TTL deletes run on the primary (${member}) only; secondaries apply them through replication.`,
        summary: `replica set ${setName} · primary ${member}`,
      };
    case 'secondary':
      return {
        ...base,
        kind,
        canWrite: false,
        writesDisabledBecause: `This connection reaches ${member}, a secondary of replica set ${setName}: writes go to the primary${primary ? ` (${primary})` : ''}. Connect without directConnection (or with readPreference=primary) to change indexes.`,
        ttlDeletes: `TTL deletes run on the primary${primary ? ` (${primary})` : ''} only; this secondary applies them through replication, so its counts lag by its replication lag.`,
        summary: `replica set ${setName} · secondary ${member} (read-only)`,
      };
    case 'mongos':
      return {
        ...base,
        kind,
        canWrite: true,
        ttlDeletes:
          "TTL deletes run on each shard's primary; the counters shown are this mongos's, which runs no TTL monitor.",
        summary: `sharded cluster · mongos ${member}`,
      };
    case 'arbiter':
    case 'other':
      return {
        ...base,
        kind,
        canWrite: false,
        writesDisabledBecause: `${member} holds no data it can write (${kind === 'arbiter' ? 'an arbiter' : 'not a primary'}): connect to the replica set's primary.`,
        ttlDeletes: 'This member runs no TTL deletes: the primary does.',
        summary: `${setName ? `replica set ${setName} · ` : ''}${kind} ${member}`,
      };
    default:
      return {
        ...base,
        kind,
        canWrite: true,
        ttlDeletes: `TTL deletes run on this server (${member}).`,
        summary: `standalone ${member}`,
      };
  }
}
