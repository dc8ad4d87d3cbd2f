/** Collection commands: Create Collection…, Drop Collection, Insert Sample Documents, collection TTL. */
import * as vscode from 'vscode';
import type { Document } from '../../engine';
import * as ttlRules from '../../engine/ttl/validation';
import {
  createCollectionCommand,
  createCollectionOptions,
  databaseNameProblem,
  type CreateCollectionArgs,
} from '../logic/collection-commands';
import { KIND_WORDS, type CollectionKind } from '../logic/collection-description';
import { formatCount, formatSeconds, parseTTLDuration, plural } from '../logic/durations';
import { countReplyN, expiredNowCount, newlyEligibleCount } from '../logic/expiry-counts';
import * as mongosh from '../logic/mongosh';
import { sampleDocuments } from '../logic/samples';
import type { CollectionInfo } from '../backend/backend';
import {
  allCollections,
  inputBox,
  pickOrType,
  quickPick,
  registerCommand,
  reportSuccess,
  resolveCollection,
  revealInTree,
  targetArgs,
  WorkbenchError,
  type CommandResult,
  type Invocation,
  type Services,
} from './context';
import { confirmEligibility } from './eligibility';

const KINDS: CollectionKind[] = ['plain', 'capped', 'timeseries', 'clustered'];

/** Seconds from a number or a duration text (`90s`, `30d`); undefined when absent. */
export function secondsArg(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'number') return value;
  const parsed = parseTTLDuration(String(value));
  if ('error' in parsed) throw new WorkbenchError(parsed.error);
  return parsed.seconds;
}

async function askCollectionTTL(services: Services, kind: CollectionKind): Promise<number | undefined> {
  const now = (await services.backend.clock()).now.getTime();
  const text = await inputBox({
    title: `Collection-level expireAfterSeconds of the ${KIND_WORDS[kind]}`,
    prompt: `Optional: documents expire this long after the date in ${kind === 'clustered' ? '_id' : 'the timeField'} (3600, 90s, 1h, 30d). Empty: no TTL.`,
    placeHolder: 'empty = no TTL',
    validateInput: (t) => {
      if (!t.trim()) return undefined;
      const p = parseTTLDuration(t);
      if ('error' in p) return p.error;
      try {
        const s = ttlRules.checkClusteredExpireAfterSeconds(p.seconds, now);
        return {
          message: `Documents expire ${formatSeconds(s)} after their date.`,
          severity: vscode.InputBoxValidationSeverity.Info,
        };
      } catch (err) {
        return (err as Error).message;
      }
    },
  });
  return text.trim() ? secondsArg(text) : undefined;
}

async function createCollection(services: Services, inv: Invocation): Promise<CommandResult> {
  const a = inv.args;
  const t = targetArgs(inv);
  let db = t.db;
  let name = typeof a.name === 'string' && a.name ? a.name : t.collection && !inv.node ? t.collection : undefined;
  let kind = (typeof a.kind === 'string' ? a.kind : undefined) as CollectionKind | undefined;
  if (kind && !KINDS.includes(kind))
    throw new WorkbenchError(`Unknown collection kind '${kind}': use ${KINDS.join(', ')}.`);
  const spec: Partial<CreateCollectionArgs> = {
    ...(a.expireAfterSeconds !== undefined || a.duration !== undefined
      ? { expireAfterSeconds: secondsArg(a.expireAfterSeconds ?? a.duration) }
      : {}),
    ...(typeof a.size === 'number' ? { size: a.size } : {}),
    ...(typeof a.max === 'number' ? { max: a.max } : {}),
    ...(typeof a.timeField === 'string' ? { timeField: a.timeField } : {}),
    ...(typeof a.metaField === 'string' ? { metaField: a.metaField } : {}),
    ...(typeof a.granularity === 'string' ? { granularity: a.granularity as CreateCollectionArgs['granularity'] } : {}),
  };
  if (inv.interactive) {
    if (!db) {
      const dbs = await services.backend.listDatabases();
      db = await pickOrType({
        items: dbs.map((d) => ({ label: d.name, value: d.name })),
        placeHolder: dbs.length ? 'Pick a database or type a new name' : 'Type the name of a new database (e.g. app)',
        title: 'Database of the new collection',
        typedLabel: (t) => `$(add) ${t}`,
        typedDescription: 'new database',
        validate: databaseNameProblem,
      });
    }
    name ??= await inputBox({
      title: `New collection in ${db}`,
      prompt: 'Collection name',
      value: 'events',
      validateInput: (v) => (v.trim() && !v.includes('$') ? undefined : 'A collection name is not empty and has no $.'),
    });
    kind ??= await quickPick(
      [
        { label: '$(table) Plain collection', description: 'TTL through secondary indexes', value: 'plain' },
        { label: '$(archive) Capped collection', description: 'fixed size; TTL indexes need 7.1+', value: 'capped' },
        {
          label: '$(graph-line) Time-series collection',
          description: 'optional collection-level expireAfterSeconds',
          value: 'timeseries',
        },
        {
          label: '$(layers) Clustered collection',
          description: 'clustered by _id; optional collection-level expireAfterSeconds',
          value: 'clustered',
        },
      ],
      'Kind of collection',
    );
    if (kind === 'timeseries') {
      spec.timeField ??= await inputBox({
        title: 'Time-series collection',
        prompt: "timeField: the field holding each measurement's date",
        value: 'timestamp',
        validateInput: (v) => (v && !v.includes('.') ? undefined : 'A top-level field name.'),
      });
      spec.metaField ??=
        (
          await inputBox({
            title: 'Time-series collection',
            prompt: 'metaField (optional; needed for partial TTL indexes)',
            value: 'metadata',
          })
        ).trim() || undefined;
    }
    if (kind === 'capped' && spec.size === undefined) {
      const size = await inputBox({
        title: 'Capped collection',
        prompt: 'Maximum size in bytes',
        value: '1048576',
        validateInput: (v) => (Number(v) > 0 ? undefined : 'A positive number of bytes.'),
      });
      spec.size = Number(size);
    }
    if ((kind === 'timeseries' || kind === 'clustered') && spec.expireAfterSeconds === undefined)
      spec.expireAfterSeconds = await askCollectionTTL(services, kind);
  }
  if (!db || !name)
    throw new WorkbenchError(
      "Create Collection needs 'db' and 'name': e.g. {db: 'app', name: 'events', kind: 'clustered', expireAfterSeconds: 3600}.",
    );
  const args: CreateCollectionArgs = { name, kind: kind ?? 'plain', ...spec };
  const command = createCollectionCommand(args);
  const reply = await services.backend.runCommand(db, command);
  const options = createCollectionOptions(args);
  const text = mongosh.createCollection(db, name, options);
  reportSuccess(services, inv, `Created the ${KIND_WORDS[args.kind]} ${db}.${name}.`, text);
  // Shown where it now is: the database expanded, the new collection selected.
  const revealed =
    inv.interactive || inv.args.reveal === true ? await revealInTree(services, db, name).catch(() => false) : false;
  return { ok: true, db, name, kind: args.kind, options, reply, mongosh: text, revealed };
}

async function dropCollection(services: Services, inv: Invocation): Promise<CommandResult> {
  const coll = await resolveCollection(services, inv);
  if (inv.interactive) {
    const yes = await services.notifier.confirm(
      `Drop ${coll.db}.${coll.name}?`,
      `${plural(coll.count, 'document')} and every index go. This cannot be undone.`,
      'Drop',
    );
    if (yes !== 'Drop') return { ok: false, cancelled: true };
  }
  const reply = await services.backend.runCommand(coll.db, { drop: coll.name });
  const text = mongosh.dropCollection(coll.db, coll.name);
  reportSuccess(services, inv, `Dropped ${coll.db}.${coll.name}.`, text);
  return { ok: true, db: coll.db, collection: coll.name, reply, mongosh: text };
}

const BATCH = 10_000;

/**
 * The collection sample documents go into. Like MongoDB's insert, a named collection that does not
 * exist yet is created; an engine with no collection at all (the Databases view's empty state)
 * gets app.sessions, so the first click works.
 */
async function sampleTarget(services: Services, inv: Invocation): Promise<CollectionInfo> {
  const t = targetArgs(inv);
  let name = t.db && t.collection ? { db: t.db, collection: t.collection } : undefined;
  if (!name && (await allCollections(services.backend)).length === 0) name = { db: 'app', collection: 'sessions' };
  if (name) {
    const existing = (await services.backend.listCollections(name.db)).find((c) => c.name === name.collection);
    if (existing) return existing;
    await services.backend.runCommand(name.db, { create: name.collection });
    const created = (await services.backend.listCollections(name.db)).find((c) => c.name === name.collection);
    if (created) return created;
  }
  return resolveCollection(services, inv);
}

async function insertSampleDocuments(services: Services, inv: Invocation): Promise<CommandResult> {
  const coll = await sampleTarget(services, inv);
  let count = typeof inv.args.count === 'number' ? inv.args.count : undefined;
  if (count === undefined && inv.interactive && !inv.node) {
    count = Number(
      await inputBox({
        title: `Sample documents for ${coll.db}.${coll.name}`,
        prompt: 'How many (dates spread from 2 days ago to 2 days ahead)',
        value: '100',
        validateInput: (v) =>
          Number.isInteger(Number(v)) && Number(v) > 0 && Number(v) <= 1_000_000
            ? undefined
            : 'A whole number from 1 to 1,000,000.',
      }),
    );
  }
  count ??= 100;
  const now = (await services.backend.clock()).now.getTime();
  const ts = coll.options.timeseries as { timeField?: string; metaField?: string } | undefined;
  const docs = sampleDocuments({
    kind: coll.kind,
    nowMs: now,
    count,
    ...(ts?.timeField ? { timeField: ts.timeField } : {}),
    ...(ts?.metaField ? { metaField: ts.metaField } : {}),
    ...(typeof inv.args.pastMs === 'number' ? { pastMs: inv.args.pastMs } : {}),
    ...(typeof inv.args.futureMs === 'number' ? { futureMs: inv.args.futureMs } : {}),
  });
  let inserted = 0;
  const errors: Document[] = [];
  for (let i = 0; i < docs.length; i += BATCH) {
    const reply = await services.backend.runCommand(coll.db, {
      insert: coll.name,
      documents: docs.slice(i, i + BATCH),
      ordered: false,
    });
    inserted += Number(reply.n ?? 0);
    if (Array.isArray(reply.writeErrors)) errors.push(...(reply.writeErrors as Document[]).slice(0, 5));
  }
  const text = mongosh.insertMany(coll.db, coll.name, docs.slice(0, 20));
  reportSuccess(
    services,
    inv,
    `Inserted ${formatCount(inserted)} sample documents into ${coll.db}.${coll.name} (dates from 2 days ago to 2 days ahead).${errors.length ? ` ${errors.length} refused: ${String(errors[0].errmsg)}` : ''}`,
    text,
  );
  return { ok: true, db: coll.db, collection: coll.name, inserted, writeErrors: errors, mongosh: text };
}

async function changeCollectionExpireAfterSeconds(services: Services, inv: Invocation): Promise<CommandResult> {
  const coll = await resolveCollection(services, inv, (c) => c.kind === 'clustered' || c.kind === 'timeseries');
  if (coll.kind !== 'clustered' && coll.kind !== 'timeseries') {
    throw new WorkbenchError(
      `${coll.db}.${coll.name} is a ${KIND_WORDS[coll.kind]}: only clustered and time-series collections have a collection-level expireAfterSeconds. Create a TTL index instead.`,
      {
        title: 'Create TTL Index…',
        command: 'ttlWorkbench.createTTLIndex',
        args: [{ db: coll.db, collection: coll.name, interactive: true }],
      },
    );
  }
  const old =
    coll.options.expireAfterSeconds === undefined ? undefined : Number(String(coll.options.expireAfterSeconds));
  let value: number | 'off' | undefined =
    inv.args.expireAfterSeconds === 'off' ? 'off' : secondsArg(inv.args.expireAfterSeconds ?? inv.args.duration);
  if (value === undefined && inv.interactive) {
    const now = (await services.backend.clock()).now.getTime();
    const text = await inputBox({
      title: `expireAfterSeconds of ${coll.db}.${coll.name}`,
      prompt: `Now: ${old === undefined ? 'none' : `${old} (${formatSeconds(old)})`}. New value (3600, 90s, 1h, 30d) or "off".`,
      value: old === undefined ? '' : String(old),
      validateInput: (t) => {
        if (t.trim() === 'off') return undefined;
        const p = parseTTLDuration(t);
        if ('error' in p) return p.error;
        try {
          ttlRules.checkClusteredExpireAfterSeconds(p.seconds, now);
          return undefined;
        } catch (err) {
          return (err as Error).message;
        }
      },
    });
    value = text.trim() === 'off' ? 'off' : secondsArg(text);
  }
  if (value === undefined)
    throw new WorkbenchError("Missing 'expireAfterSeconds' (seconds, a duration such as '30d', or 'off').");
  let eligibleNow: number | undefined;
  if (value !== 'off' && coll.kind === 'clustered') {
    const now = (await services.backend.clock()).now.getTime();
    const target = { collection: coll.name, field: '_id', indexName: '_id_', notBeforeEpoch: true };
    const count = old === undefined ? expiredNowCount(target, value, now) : newlyEligibleCount(target, old, value, now);
    if (count) {
      const gate = await confirmEligibility(
        services,
        inv,
        coll,
        countReplyN(await services.backend.runCommand(coll.db, count)),
        `Set expireAfterSeconds of ${coll.db}.${coll.name} to ${value}`,
      );
      if (!gate.proceed) return gate.result;
      eligibleNow = gate.eligible;
    }
  }
  const command = { collMod: coll.name, expireAfterSeconds: value };
  const reply = await services.backend.runCommand(coll.db, command);
  const text = mongosh.runCommand(coll.db, command);
  reportSuccess(services, inv, `${coll.db}.${coll.name}: expireAfterSeconds ${old ?? 'none'} → ${value}.`, text);
  return { ok: true, db: coll.db, collection: coll.name, old, new: value, eligibleNow, reply, mongosh: text };
}

export function registerCollectionCommands(services: Services): vscode.Disposable[] {
  return [
    registerCommand(services, {
      id: 'ttlWorkbench.createCollection',
      action: 'Create Collection',
      run: (inv) => createCollection(services, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.dropCollection',
      action: 'Drop Collection',
      run: (inv) => dropCollection(services, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.insertSampleDocuments',
      action: 'Insert Sample Documents',
      run: (inv) => insertSampleDocuments(services, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.changeCollectionExpireAfterSeconds',
      action: "Change the Collection's expireAfterSeconds",
      run: (inv) => changeCollectionExpireAfterSeconds(services, inv),
    }),
  ];
}
