/**
 * ttl_engine_state: what the Databases view shows, as data: the engine and its clock, databases,
 * collections with counts from metadata, each index in the tree's words with its expiry counts
 * (expired now, due within the hour; counted over the index range, capped), and the TTL monitor.
 */
import type { Backend, CollectionInfo, ExpiryCountResult } from '../extension/backend/backend';
import { formatCount } from '../extension/logic/durations';
import { describeCollectionTTL, describeIndex } from '../extension/logic/index-description';
import { ToolError } from './input';
import { capList, LIMITS } from './limits';
import { plain } from './values';

export interface EngineStateInput {
  db?: string;
  collection?: string;
}

const WINDOW_SECONDS = 3600;
const COUNT_CAP = 10_000;

function counts(r: ExpiryCountResult) {
  if (!r.ok) return { countsUnavailable: r.reason };
  const c = r.counts;
  const at = (n: number, capped: boolean) => (capped ? `at least ${formatCount(n)}` : n);
  return {
    expiredNow: at(c.expiredNow, c.capped.expiredNow),
    dueWithinHour: at(c.dueWithinWindow, c.capped.dueWithinWindow),
  };
}

async function describeCollection(engine: Backend, c: CollectionInfo) {
  const ts = c.options.timeseries as { timeField: string; metaField?: string } | undefined;
  const facts = { clustered: c.kind === 'clustered', ...(ts ? { timeseries: ts } : {}) };
  const indexes = [];
  for (const ix of await engine.listIndexes(c.db, c.name)) {
    const d = describeIndex(ix, facts);
    indexes.push({
      name: ix.name,
      description: d.summary,
      key: plain(ix.spec.key),
      ...(ix.spec.partialFilterExpression ? { partialFilterExpression: plain(ix.spec.partialFilterExpression) } : {}),
      ...(d.warning ? { warning: d.warning } : {}),
      ...(ix.stored
        ? { storedExpireAfterSeconds: String(ix.stored.expireAfterSeconds), problem: ix.stored.problem }
        : {}),
      ...(d.ttlApplies ? counts(await engine.expiryCounts(ix, WINDOW_SECONDS, COUNT_CAP)) : {}),
    });
  }
  const collectionTTL = describeCollectionTTL(c.options);
  const seconds = Number(c.options.expireAfterSeconds);
  return {
    name: c.name,
    kind: c.kind,
    documents: c.count,
    ...(collectionTTL ? { collectionTTL } : {}),
    ...(collectionTTL && Number.isFinite(seconds)
      ? counts(
          await engine.expiryCounts(
            { db: c.db, collection: c.name, collectionSeconds: seconds },
            WINDOW_SECONDS,
            COUNT_CAP,
          ),
        )
      : {}),
    indexes,
  };
}

export async function engineState(engine: Backend, input: EngineStateInput) {
  if (input.collection !== undefined && input.db === undefined)
    throw new ToolError("ttl_engine_state: 'collection' needs 'db' too.", 'input');
  const [info, clock, monitor, databases] = await Promise.all([
    engine.info(),
    engine.clock(),
    engine.monitorStatus(),
    engine.listDatabases(),
  ]);
  let names = databases.map((d) => d.name);
  if (input.db !== undefined) {
    if (!names.includes(input.db))
      throw new ToolError(
        `ttl_engine_state: the engine has no database '${input.db}'; it has ${names.length ? names.map((n) => `'${n}'`).join(', ') : 'none yet'}.`,
      );
    names = [input.db];
  }
  const collections: CollectionInfo[] = [];
  for (const db of names) collections.push(...(await engine.listCollections(db)));
  let chosen = collections;
  if (input.collection !== undefined) {
    chosen = collections.filter((c) => c.name === input.collection);
    if (chosen.length === 0)
      throw new ToolError(
        `ttl_engine_state: database '${input.db}' has no collection '${input.collection}'; it has ${collections.length ? collections.map((c) => `'${c.name}'`).join(', ') : 'none'}.`,
      );
  }
  const { items, omitted } = capList(chosen, LIMITS.collections);
  const described = [];
  for (const c of items) described.push({ db: c.db, ...(await describeCollection(engine, c)) });
  const ttlIndexes = described.flatMap((c) => c.indexes.filter((i) => 'expiredNow' in i || 'countsUnavailable' in i));
  return {
    summary: `${info.label} (${info.flavor} ${info.version}), ${clock.mode} clock at ${clock.now.toISOString()}: ${names.length} database${names.length === 1 ? '' : 's'}, ${chosen.length} collection${chosen.length === 1 ? '' : 's'}, ${ttlIndexes.length} TTL index${ttlIndexes.length === 1 ? '' : 'es'} shown; the TTL monitor is ${monitor.enabled ? 'on' : 'off'} and has deleted ${formatCount(monitor.deletedDocuments)} document${monitor.deletedDocuments === 1 ? '' : 's'}.`,
    engine: { flavor: info.flavor, version: info.version, clock: clock.mode, now: clock.now.toISOString() },
    monitor: {
      enabled: monitor.enabled,
      sleepSecs: monitor.sleepSecs,
      lastPassAt: monitor.lastPassAt?.toISOString() ?? null,
      nextPassAt: monitor.nextPassAt?.toISOString() ?? null,
      ...(monitor.stoppedBecause ? { stoppedBecause: monitor.stoppedBecause } : {}),
      passes: monitor.passes,
      subPasses: monitor.subPasses,
      deletedDocuments: monitor.deletedDocuments,
      lastPassDeleted: monitor.lastPassDeleted,
    },
    databases: names,
    collections: described,
    ...(omitted ? { omittedCollections: omitted } : {}),
  };
}
