/**
 * The Backend over the official `mongodb` driver: the same tree, commands and previews on a real
 * deployment (a standalone mongod, a replica set, Atlas, Cosmos DB, or `ttl-workbench serve`).
 * Every read is a catalog command or a count bounded by maxTimeMS, never a scan; what only the
 * embedded engine can do (move a virtual clock, run a pass now, load a legacy index, compact)
 * refuses with the reason. Replies become facts in driver-facts.ts, errors become messages in
 * driver-errors.ts, the server's role comes from server-role.ts. No `vscode` import.
 */
import { MongoClient, type Document as DriverDocument, type MongoClientOptions } from 'mongodb';
import type { Document, Forecast, ForecastRequest, PassRecord, TTLIndexProblem } from '../../engine';
import { describeIndex } from '../logic/index-description';
import { expiryThreshold } from '../logic/expiry-counts';
import type {
  Backend,
  BackendEvent,
  BackendInfo,
  BackendListener,
  CatalogSnapshot,
  ClockInfo,
  ClockMode,
  ClockMoveResult,
  CollectionInfo,
  DatabaseInfo,
  EngineSettings,
  ExpiryCountResult,
  IndexInfo,
  MonitorInfo,
  PassSummary,
  PlaygroundOptions,
  PlaygroundSession,
  StorageInfo,
} from './backend';
import { notifyListeners } from './backend';
import { boundedCount, boundedCountWords, type BoundedCount } from './bounded-count';
import { cosmosRefusal } from './cosmos-rules';
import { lagFromHello, lagFromStatus, lagWords, type LagReport } from './replication-lag';
import { serverForecastOf, serverForecastPipeline, serverForecastRule } from './driver-forecast';
import { commandErrorOf, connectionErrorOf, RemoteError } from './driver-errors';
import {
  collectionInfoOf,
  eventsOfCommand,
  indexInfoOf,
  isWriteCommand,
  monitorInfoOf,
  problemsOf,
} from './driver-facts';
import { readHello, serverRoleOf, type ServerRole } from './server-role';

export interface DriverBackendOptions {
  /** The connection string with its password (never shown: `label` and `redact` are). */
  uri: string;
  /** What the tree's top row says: the connection's name. */
  label: string;
  /** Removes the password from any text that leaves this backend (messages, logs). */
  redact: (text: string) => string;
  /** TLS and timeout options for the driver. */
  clientOptions?: MongoClientOptions;
  /** The budget of each eligibility count (default 2000 ms). */
  countMaxTimeMS?: number;
  /** The budget of the expiry forecast's aggregation (default 10000 ms). */
  forecastMaxTimeMS?: number;
  /** How often the monitor node refreshes (default 60 s; 0: never). */
  monitorRefreshMs?: number;
  /**
   * Asked before every write command (a connection marked production); resolving false cancels the
   * command. Absent: writes run without asking.
   */
  confirmWrite?: (what: string, db: string, command: Document) => Promise<boolean>;
  /**
   * Opens a playground session on this connection in mongosh's own runtime (its own bundle, loaded
   * by the caller). Absent: notebooks cannot run on this backend.
   */
  openShell?: (options: PlaygroundOptions) => Promise<PlaygroundSession>;
}

/** The operation only the embedded engine has: refused with the reason and what to do instead. */
function unavailable(what: string, why: string): RemoteError {
  return new RemoteError(20, 'IllegalOperation', `${what} is not available on a real server: ${why}`);
}

const VIRTUAL_CLOCK_WHY =
  'a server keeps its own wall clock; the virtual clock exists only in the embedded engine. Try expiry ahead of time there (or in `ttl-workbench serve`), then apply the index here.';

const DEFAULT_COUNT_MS = 2000;
const DEFAULT_COUNT_CAP = 10_000;
const DEFAULT_FORECAST_MS = 10_000;
/** Catalog reads run this many commands at once: the pool's size, not one per collection. */
const PARALLEL = 16;

async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export class DriverBackend implements Backend {
  private client: MongoClient | undefined;
  private role: ServerRole | undefined;
  /** Server time minus local time, from hello's localTime (thresholds use the server's now). */
  private offsetMs = 0;
  private deletedAtConnect = 0;
  private readonly listeners = new Set<BackendListener>();
  private timer: NodeJS.Timeout | undefined;
  private lastCatalog: CatalogSnapshot | undefined;
  private disposed = false;

  constructor(private readonly options: DriverBackendOptions) {}

  /** Connects and reads the server's role; rejects with HostUnreachable / HostNotFound / AuthenticationFailed / NetworkTimeout. */
  async connect(): Promise<ServerRole> {
    const client = new MongoClient(this.options.uri, {
      serverSelectionTimeoutMS: 10_000,
      connectTimeoutMS: 10_000,
      appName: 'TTL Workbench',
      ...this.options.clientOptions,
    });
    try {
      await client.connect();
      const admin = client.db('admin');
      const sent = Date.now();
      const hello = await readHello((command) => admin.command(command));
      const received = Date.now();
      const buildInfo = await admin.command({ buildInfo: 1 });
      const hosts = hostsOf(this.options.uri);
      this.role = serverRoleOf(hello, buildInfo, hosts);
      if (hello.localTime instanceof Date) this.offsetMs = hello.localTime.getTime() - (sent + received) / 2;
      this.client = client;
      this.deletedAtConnect = (await this.monitorStatus().catch(() => undefined))?.deletedDocuments ?? 0;
    } catch (err) {
      await client.close().catch(() => undefined);
      this.client = undefined;
      throw connectionErrorOf(err, this.options.label, this.options.redact);
    }
    const every = this.options.monitorRefreshMs ?? 60_000;
    if (every > 0) {
      this.timer = setInterval(() => this.emit([{ kind: 'monitorRan' }]), every);
      this.timer.unref();
    }
    return this.role;
  }

  get serverRole(): ServerRole | undefined {
    return this.role;
  }

  private emit(events: readonly BackendEvent[]): void {
    if (events.length) notifyListeners(this.listeners, events);
  }

  private get connected(): MongoClient {
    if (this.disposed) throw new Error(`The connection ${this.options.label} was closed.`);
    if (!this.client)
      throw new RemoteError(
        6,
        'HostUnreachable',
        `${this.options.label} is not connected: connect it first (Connect).`,
      );
    return this.client;
  }

  /** Runs a driver call, turning its errors into code + codeName + what to do, password removed. */
  private async call<T>(work: (client: MongoClient) => Promise<T>): Promise<T> {
    const client = this.connected;
    try {
      return await work(client);
    } catch (err) {
      if (err instanceof RemoteError) throw err;
      throw commandErrorOf(err, this.options.label, this.options.redact);
    }
  }

  private now(): number {
    return Date.now() + this.offsetMs;
  }

  info(): Promise<BackendInfo> {
    const role = this.role;
    if (!role) return Promise.reject(this.notConnected());
    const major = Number(role.version.split('.')[0]);
    return Promise.resolve({
      kind: 'driver',
      label: this.options.label,
      flavor: role.flavor,
      // The TTL rules that differ between versions: 8.0's from 8.0 on, 7.0's before.
      serverVersion: major >= 8 ? '8.0' : '7.0',
      version: role.version,
      server: role,
    });
  }

  private notConnected(): RemoteError {
    return new RemoteError(6, 'HostUnreachable', `${this.options.label} is not connected: connect it first (Connect).`);
  }

  clock(): Promise<ClockInfo> {
    return Promise.resolve({ mode: 'system', now: new Date(this.now()), aheadMs: 0, canAdvance: false });
  }

  listDatabases(): Promise<DatabaseInfo[]> {
    return this.call(async (client) => {
      const reply = await client.db('admin').command({ listDatabases: 1, nameOnly: false, authorizedDatabases: true });
      return (reply.databases as DriverDocument[]).map((d) => ({
        name: String(d.name),
        ...(d.sizeOnDisk !== undefined ? { sizeOnDisk: Number(d.sizeOnDisk) } : {}),
      }));
    });
  }

  listCollections(db: string): Promise<CollectionInfo[]> {
    return this.call(async (client) => {
      const entries = await client
        .db(db)
        .listCollections({}, { nameOnly: false, authorizedCollections: true })
        .toArray();
      return mapLimited(entries, PARALLEL, async (entry) => {
        // estimatedDocumentCount reads collection metadata: never a scan. A view has no count of its own.
        const count =
          entry.type === 'view'
            ? 0
            : await client
                .db(db)
                .collection(String(entry.name))
                .estimatedDocumentCount({ maxTimeMS: this.options.countMaxTimeMS ?? DEFAULT_COUNT_MS })
                .catch(() => 0);
        return collectionInfoOf(db, entry, count);
      });
    });
  }

  listIndexes(db: string, collection: string): Promise<IndexInfo[]> {
    return this.call(async (client) => {
      const specs = await client.db(db).collection(collection).listIndexes().toArray();
      return specs.map((s) => indexInfoOf(db, collection, s as Document));
    });
  }

  async runCommand(db: string, command: Document): Promise<Document> {
    const name = Object.keys(command)[0] ?? '';
    if (isWriteCommand(command)) await this.checkWrite(db, command, name);
    if (name === 'count' && command.query !== undefined) return this.boundedCountCommand(db, command);
    const reply = await this.call((client) => client.db(db).command(command));
    if (isWriteCommand(command)) this.emit(eventsOfCommand(db, command));
    return reply;
  }

  /** The reasons a write does not run here: a secondary, Cosmos' rules, the production confirmation. */
  private async checkWrite(db: string, command: Document, name: string): Promise<void> {
    const role = this.role;
    if (!role) throw this.notConnected();
    if (!role.canWrite)
      throw new RemoteError(10107, 'NotWritablePrimary', `${name} was not run: ${role.writesDisabledBecause ?? ''}`);
    if (role.flavor === 'cosmos') {
      const refusal = cosmosRefusalOf(command);
      if (refusal) throw new RemoteError(115, 'CommandNotSupported', `${name} was not run on Cosmos DB: ${refusal}`);
    }
    if (this.options.confirmWrite && !(await this.options.confirmWrite(name, db, command)))
      throw new RemoteError(
        11601,
        'Interrupted',
        `${name} was not run: ${this.options.label} is marked as production and the change was not confirmed (confirm it in the dialog, or pass confirmProduction: true from code).`,
      );
  }

  /**
   * A `count` with a query (the eligibility preview, the expiry counts) as bounded countDocuments
   * steps: exact below its limit, or MaxTimeMSExpired saying "more than N" when the budget ran out.
   */
  private async boundedCountCommand(db: string, command: Document): Promise<Document> {
    const coll = String(command.count);
    const cap = typeof command.limit === 'number' && command.limit > 0 ? command.limit : Number.MAX_SAFE_INTEGER;
    const maxTimeMS =
      typeof command.maxTimeMS === 'number' ? command.maxTimeMS : (this.options.countMaxTimeMS ?? DEFAULT_COUNT_MS);
    const r = await this.count(db, coll, command.query as Document, command.hint as string | undefined, cap, maxTimeMS);
    if (r.kind === 'moreThan')
      throw new RemoteError(
        50,
        'MaxTimeMSExpired',
        `${db}.${coll}: ${boundedCountWords(r)} documents match. Counting on the server is bounded so it never loads it; the count is large, so treat it as above any confirmation limit.`,
      );
    return { n: r.n, ok: 1 };
  }

  private count(
    db: string,
    collection: string,
    filter: Document,
    hint: string | undefined,
    cap: number,
    maxTimeMS: number,
  ): Promise<BoundedCount> {
    return this.call((client) =>
      boundedCount(
        (limit, ms) =>
          client
            .db(db)
            .collection(collection)
            .countDocuments(filter, { limit, maxTimeMS: ms, ...(hint ? { hint } : {}) }),
        { cap, maxTimeMS },
      ),
    );
  }

  async expiryCounts(
    index: IndexInfo | { db: string; collection: string; collectionSeconds: number },
    windowSeconds: number,
    cap: number = DEFAULT_COUNT_CAP,
  ): Promise<ExpiryCountResult> {
    const role = this.role;
    if (!role) throw this.notConnected();
    if (role.flavor === 'cosmos') return { ok: false, reason: cosmosRefusal({ kind: 'preview' })! };
    let field: string;
    let seconds: number;
    let hint: string | undefined;
    let partial: Document | undefined;
    let notBeforeEpoch = false;
    if ('collectionSeconds' in index) {
      const info = (await this.listCollections(index.db)).find((c) => c.name === index.collection);
      if (info?.kind === 'timeseries')
        return {
          ok: false,
          reason:
            'The monitor deletes whole buckets of a time-series collection; a client cannot see bucket bounds, so the count would overstate the next pass.',
        };
      field = '_id';
      hint = '_id_';
      seconds = index.collectionSeconds;
      notBeforeEpoch = true;
    } else {
      const d = describeIndex(index);
      if (!d.ttlApplies || d.seconds === undefined || !d.field)
        return { ok: false, reason: 'The TTL monitor deletes nothing through this index.' };
      if (d.hidden)
        return {
          ok: false,
          reason:
            'Hidden: the query planner may not use this index, and counting without it would scan the collection. Unhide it to see counts (the monitor deletes through it either way).',
        };
      field = d.field;
      seconds = d.seconds;
      hint = index.name;
      partial = index.spec.partialFilterExpression as Document | undefined;
    }
    const now = this.now();
    const within = (range: Document) => {
      const clause = { [field]: range };
      return partial ? { $and: [partial, clause] } : clause;
    };
    const expiredRange: Document = { $lte: expiryThreshold(now, seconds) };
    if (notBeforeEpoch) expiredRange.$gte = new Date(0);
    const dueRange: Document = {
      $gt: expiryThreshold(now, seconds),
      $lte: expiryThreshold(now + windowSeconds * 1000, seconds),
    };
    const budget = this.options.countMaxTimeMS ?? DEFAULT_COUNT_MS;
    const [expired, due] = await Promise.all([
      this.count(index.db, index.collection, within(expiredRange), hint, cap, budget),
      this.count(index.db, index.collection, within(dueRange), hint, cap, budget),
    ]);
    if (expired.kind === 'moreThan' || due.kind === 'moreThan')
      return {
        ok: false,
        reason: `Expired now: ${boundedCountWords(expired)}; due within the window: ${boundedCountWords(due)}.`,
      };
    return {
      ok: true,
      counts: {
        at: new Date(now),
        expiredNow: expired.n,
        dueWithinWindow: due.n,
        windowSeconds,
        cap,
        capped: { expiredNow: expired.kind === 'atLeast', dueWithinWindow: due.kind === 'atLeast' },
      },
    };
  }

  /**
   * The expiry forecast computed by the server (driver-forecast.ts): one aggregation bounded by
   * maxTimeMS, whose groups are the embedded chart's buckets; only counts come back.
   */
  async forecast(db: string, collection: string, request: ForecastRequest): Promise<Forecast> {
    const role = this.role;
    if (!role) throw this.notConnected();
    if (role.flavor === 'cosmos')
      throw new RemoteError(115, 'CommandNotSupported', `The expiry forecast: ${cosmosRefusal({ kind: 'preview' })!}`);
    const budget = this.options.forecastMaxTimeMS ?? DEFAULT_FORECAST_MS;
    return this.call(async (client) => {
      const entry = (await client.db(db).listCollections({ name: collection }, { nameOnly: false }).toArray())[0];
      if (!entry)
        throw new RemoteError(
          26,
          'NamespaceNotFound',
          `${db}.${collection} does not exist on ${this.options.label}: pick a collection from the tree (Refresh if it was just made).`,
        );
      const type = String(entry.type ?? 'collection');
      const indexes =
        type === 'collection'
          ? ((await client.db(db).collection(collection).listIndexes().toArray()) as Document[])
          : [];
      const rule = serverForecastRule({ db, name: collection, type, options: entry.options ?? {}, indexes }, request);
      const now = this.now();
      try {
        const groups = await client
          .db(db)
          .collection(collection)
          .aggregate(serverForecastPipeline(rule, now, request), { maxTimeMS: budget })
          .toArray();
        return serverForecastOf(rule, groups, now, request);
      } catch (err) {
        if ((err as { code?: unknown }).code === 50)
          throw new RemoteError(
            50,
            'MaxTimeMSExpired',
            `The forecast of ${db}.${collection} did not finish within ${budget} ms on ${this.options.label}: the server reads every document the rule covers. Forecast part of it (a what-if partial filter), or a copy in the embedded engine (Export, then Import there).`,
          );
        throw err;
      }
    });
  }

  monitorStatus(): Promise<MonitorInfo> {
    return this.call(async (client) => {
      const role = this.role!;
      const admin = client.db('admin');
      const [status, params] = await Promise.all([
        admin.command({ serverStatus: 1 }),
        role.flavor === 'cosmos'
          ? Promise.resolve({} as DriverDocument)
          : admin.command({ getParameter: 1, ttlMonitorEnabled: 1, ttlMonitorSleepSecs: 1 }),
      ]);
      const info = monitorInfoOf(status, params, role, this.deletedAtConnect);
      if (role.setName === undefined || role.flavor === 'cosmos') return info;
      return { ...info, replication: lagWords(await this.replicationLag(client)) };
    });
  }

  /** replSetGetStatus when the user may run it; else the connected member's own hello (lastWrite). */
  private async replicationLag(client: MongoClient): Promise<LagReport> {
    const admin = client.db('admin');
    try {
      return lagFromStatus(await admin.command({ replSetGetStatus: 1 }));
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      // Unauthorized (13) is the common case on Atlas without clusterMonitor; anything else is said as it is.
      if (code !== 13)
        return { source: 'none', why: `replSetGetStatus failed (${this.options.redact((err as Error).message)})` };
    }
    return lagFromHello(await readHello((command) => admin.command(command)), this.now());
  }

  monitorHistory(): Promise<PassRecord[]> {
    return Promise.reject(
      unavailable('The pass history', 'a server keeps only its totals (serverStatus().metrics.ttl), not each pass.'),
    );
  }

  runTTLPass(): Promise<PassSummary> {
    return Promise.reject(
      unavailable(
        'Running a TTL pass now',
        "the server's TTL monitor runs on its own every ttlMonitorSleepSecs, and no command starts a pass.",
      ),
    );
  }

  advanceClock(_ms: number): Promise<ClockMoveResult> {
    return Promise.reject(unavailable('Advancing the clock', VIRTUAL_CLOCK_WHY));
  }

  setClockMode(mode: ClockMode): Promise<ClockInfo> {
    if (mode === 'system') return this.clock();
    return Promise.reject(unavailable('A virtual clock', VIRTUAL_CLOCK_WHY));
  }

  findInvalidTTLIndexes(): Promise<TTLIndexProblem[]> {
    return this.call(async () => {
      const snapshot = await this.catalog();
      return snapshot.collections.flatMap((c) => problemsOf(c.db, c.name, c.indexes));
    });
  }

  loadLegacyIndexSpec(): Promise<void> {
    return Promise.reject(
      unavailable(
        'Loading a legacy index',
        'a server validates every createIndex; only the embedded engine can hold what an old server left behind.',
      ),
    );
  }

  reset(): Promise<EngineSettings> {
    return Promise.reject(
      unavailable('Reset Engine', "it would drop a real deployment's data. Drop databases one by one if you mean it."),
    );
  }

  catalog(options: { allowStale?: boolean } = {}): Promise<CatalogSnapshot> {
    if (options.allowStale && this.lastCatalog) return Promise.resolve(this.lastCatalog);
    return this.call(async (client) => {
      const dbs = await this.listDatabases();
      const collections: CatalogSnapshot['collections'] = [];
      for (const d of dbs) {
        const entries = await client
          .db(d.name)
          .listCollections({}, { nameOnly: false, authorizedCollections: true })
          .toArray();
        const rows = await mapLimited(entries, PARALLEL, async (c) => {
          const type = String(c.type ?? 'collection');
          const indexes =
            type === 'collection'
              ? ((await client.db(d.name).collection(String(c.name)).listIndexes().toArray()) as Document[])
              : [];
          return { db: d.name, name: String(c.name), type, options: c.options ?? {}, indexes };
        });
        collections.push(...rows);
      }
      this.lastCatalog = { collections };
      return this.lastCatalog;
    });
  }

  openPlayground(options: PlaygroundOptions = {}): Promise<PlaygroundSession> {
    if (this.options.openShell) return this.options.openShell(options);
    return Promise.reject(
      unavailable(
        'A playground notebook',
        "cells on a connection run through mongosh's own runtime, which this backend was made without. Run the notebook on the embedded engine, or use mongosh against this connection.",
      ),
    );
  }

  storageInfo(): Promise<StorageInfo> {
    return Promise.resolve({ mode: 'server', readOnly: false, journalBytes: 0, notes: [], restoredDocuments: 0 });
  }

  acknowledgeStorageDamage(): Promise<void> {
    return Promise.resolve();
  }

  compactNow(): Promise<{ bytes: number; documents: number; heldMs: number; totalMs: number }> {
    return Promise.reject(
      unavailable('Compact', 'the server manages its own storage; run the compact command per collection if needed.'),
    );
  }

  exportDatabase(): Promise<string> {
    return Promise.reject(unavailable('Export', 'use mongodump or mongoexport against the server.'));
  }

  importDatabase(): Promise<{ database: string; collections: number; documents: number; indexes: number }> {
    return Promise.reject(unavailable('Import', 'use mongorestore or mongoimport against the server.'));
  }

  exportDatabaseToFile(): Promise<{ bytes: number }> {
    return this.exportDatabase().then(() => ({ bytes: 0 }));
  }

  importDatabaseFromFile(): Promise<{
    database: string;
    collections: number;
    documents: number;
    indexes: number;
    bytes: number;
  }> {
    return this.importDatabase().then((r) => ({ ...r, bytes: 0 }));
  }

  onDidChange(listener: BackendListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.timer) clearInterval(this.timer);
    this.listeners.clear();
    const client = this.client;
    this.client = undefined;
    void client?.close().catch(() => undefined);
  }
}

/** The hosts of a connection string (for Cosmos detection by host name), without parsing options. */
function hostsOf(uri: string): string[] {
  const m = /^mongodb(?:\+srv)?:\/\/(?:[^@/]*@)?([^/?]+)/i.exec(uri);
  return m ? m[1].split(',') : [];
}

/** Cosmos' refusal of a write command, if it refuses it (cosmos-rules.ts). */
function cosmosRefusalOf(command: Document): string | undefined {
  const name = Object.keys(command)[0];
  if (name === 'createIndexes' && Array.isArray(command.indexes)) {
    for (const spec of command.indexes as Document[]) {
      if (spec.expireAfterSeconds === undefined) continue;
      const field = Object.keys(spec.key ?? {})[0] ?? '';
      const refusal = cosmosRefusal({ kind: 'createTTLIndex', field });
      if (refusal) return refusal;
    }
  }
  if (name === 'collMod') {
    const index = command.index as Document | undefined;
    const key = index?.keyPattern as Document | undefined;
    if (index?.expireAfterSeconds !== undefined && (key ? Object.keys(key)[0] !== '_ts' : index.name !== '_ts_1'))
      return cosmosRefusal({ kind: 'convertToTTL' });
  }
  if (name === 'setParameter' && Object.keys(command).some((k) => k.startsWith('ttlMonitor')))
    return cosmosRefusal({ kind: 'setMonitorParameters' });
  return undefined;
}
