/**
 * ttl_apply: Create TTL Index, Convert to TTL Index and Change expireAfterSeconds for an agent.
 * The preview is worked out as the commands work it out (src/extension/commands/indexes.ts): the
 * same spec check with the engine's rules, the same count requests (expiry-counts.ts: expired now
 * through the new field; newly eligible between the old and the new threshold, hinted to the
 * index), the same sentence, and the same limit (ttlWorkbench.confirmExpiryAbove). The change
 * itself is the same createIndexes / collMod command. Above the limit it runs only when the door
 * it came through had the user confirm that preview; the input has no way to say "confirmed".
 */
import type { Document } from '../engine';
import { defaultIndexName } from '../engine/indexes/key-pattern';
import * as ttlRules from '../engine/ttl/validation';
import type { Backend, CollectionInfo, IndexInfo } from '../extension/backend/backend';
import { formatCount, formatSeconds, parseTTLDuration } from '../extension/logic/durations';
import { countReplyN, eligibleWords, expiredNowCount, newlyEligibleCount } from '../extension/logic/expiry-counts';
import { describeIndex } from '../extension/logic/index-description';
import * as mongosh from '../extension/logic/mongosh';
import { checkTTLSpec } from '../extension/logic/ttl-input';
import { ToolError } from './input';
import { capJson } from './limits';
import { codeWords, errorFacts, plain } from './values';

export interface ApplyInput {
  operation: 'createTTLIndex' | 'convertToTTLIndex' | 'changeExpireAfterSeconds';
  db: string;
  collection: string;
  field?: string;
  name?: string;
  partialFilterExpression?: Document;
  index?: string;
  expireAfterSeconds: number | string;
}

export interface ApplyPreview {
  /** One line: what runs. */
  title: string;
  /** What the change does and the eligibility preview, in words (the confirmation's body). */
  message: string;
  /** The command that runs, on `db`. */
  db: string;
  command: Document;
  mongosh: string;
  /** Existing documents the change makes eligible at once (undefined: not countable, e.g. time series). */
  eligibleNow: number | undefined;
  limit: number;
  aboveLimit: boolean;
  /** Set when the engine's rules refuse the change: nothing would run. */
  refused?: { code?: number; codeName?: string; message: string };
}

function secondsOf(v: number | string): number {
  if (typeof v === 'number') return v;
  const parsed = parseTTLDuration(v);
  if ('error' in parsed) throw new ToolError(`ttl_apply: expireAfterSeconds: ${parsed.error}`, 'input');
  return parsed.seconds;
}

async function collectionOf(engine: Backend, db: string, name: string): Promise<CollectionInfo> {
  const dbs = (await engine.listDatabases()).map((d) => d.name);
  if (!dbs.includes(db))
    throw new ToolError(
      `ttl_apply: the engine has no database '${db}' (it has ${dbs.length ? dbs.map((d) => `'${d}'`).join(', ') : 'none'}); use ttl_engine_state to see what exists.`,
    );
  const all = await engine.listCollections(db);
  const c = all.find((x) => x.name === name);
  if (!c)
    throw new ToolError(
      `ttl_apply: database '${db}' has no collection '${name}' (it has ${all.map((x) => `'${x.name}'`).join(', ') || 'none'}); use ttl_engine_state to see what exists.`,
    );
  return c;
}

function facts(c: CollectionInfo) {
  const ts = c.options.timeseries as { timeField: string; metaField?: string } | undefined;
  return { clustered: c.kind === 'clustered', ...(ts ? { timeseries: ts } : {}) };
}

/** The sentence the commands' confirmation uses (src/extension/commands/eligibility.ts). */
export function eligibilitySentence(eligible: number, db: string, collection: string): string {
  return `${formatCount(eligible)} existing documents of ${db}.${collection} become eligible for deletion at once: the next TTL pass deletes them.`;
}

export async function previewApply(engine: Backend, input: ApplyInput, limit: number): Promise<ApplyPreview> {
  const c = await collectionOf(engine, input.db, input.collection);
  const seconds = secondsOf(input.expireAfterSeconds);
  const nowMs = (await engine.clock()).now.getTime();
  let command: Document;
  let text: string;
  let eligibleNow: number | undefined;
  let what: string;
  let refused: ApplyPreview['refused'];
  if (input.operation === 'createTTLIndex') {
    if (input.field === undefined)
      throw new ToolError("ttl_apply: createTTLIndex needs 'field', the date field to index.", 'input');
    const key = { [input.field]: 1 };
    const spec: Document = {
      key,
      name: input.name ?? defaultIndexName(key),
      expireAfterSeconds: seconds,
      ...(input.partialFilterExpression ? { partialFilterExpression: input.partialFilterExpression } : {}),
    };
    const info = await engine.info();
    const ts = c.options.timeseries as { timeField: string; metaField?: string } | undefined;
    const check = checkTTLSpec(spec, {
      capped: c.kind === 'capped',
      clustered: c.kind === 'clustered',
      ...(ts ? { timeseries: ts } : {}),
      serverVersion: info.serverVersion,
    });
    if (check.ok && !ts) {
      const count = expiredNowCount(
        {
          collection: c.name,
          field: input.field,
          ...(input.partialFilterExpression ? { partialFilterExpression: input.partialFilterExpression } : {}),
        },
        check.seconds,
        nowMs,
      );
      eligibleNow = countReplyN(await engine.runCommand(c.db, count));
    }
    if (!check.ok)
      refused = {
        ...(check.code !== undefined ? { code: check.code } : {}),
        ...(check.codeName ? { codeName: check.codeName } : {}),
        message: check.message,
      };
    command = { createIndexes: c.name, indexes: [spec] };
    const options: Document = { ...spec };
    delete options.key;
    text = mongosh.createIndex(c.db, c.name, key, options);
    what = `Create TTL index ${String(spec.name)} on ${c.db}.${c.name}: ${check.ok ? describeIndex({ name: String(spec.name), spec }, facts(c)).summary : 'refused'}`;
  } else {
    if (input.index === undefined)
      throw new ToolError(`ttl_apply: ${input.operation} needs 'index', the name of the existing index.`, 'input');
    const indexes = await engine.listIndexes(c.db, c.name);
    const ix: IndexInfo | undefined = indexes.find((i) => i.name === input.index);
    if (!ix)
      throw new ToolError(
        `ttl_apply: ${c.db}.${c.name} has no index '${input.index}' (it has ${indexes.map((i) => `'${i.name}'`).join(', ')}).`,
      );
    const d = describeIndex(ix, facts(c));
    const converting = input.operation === 'convertToTTLIndex';
    if (converting && !d.convertible)
      throw new ToolError(
        `ttl_apply: ${ix.name} (${d.summary}) cannot be converted: only a single-field index without TTL can${d.ttlApplies ? '; it is a TTL index already, use changeExpireAfterSeconds' : ''}.`,
      );
    if (!converting && !['ttl', 'ttlAtDate', 'ttlInvalid'].includes(d.kind))
      throw new ToolError(
        `ttl_apply: ${ix.name} (${d.summary}) is not a TTL index${d.convertible ? ': use convertToTTLIndex first' : ''}.`,
      );
    const oldSeconds = converting ? undefined : d.seconds;
    const s = ttlRules.effectiveExpireAfterSeconds(seconds);
    if (s !== undefined && d.field && !c.options.timeseries) {
      const count = newlyEligibleCount(
        {
          collection: c.name,
          field: d.field,
          ...(d.hidden ? {} : { indexName: ix.name }),
          ...(ix.spec.partialFilterExpression
            ? { partialFilterExpression: ix.spec.partialFilterExpression as Document }
            : {}),
        },
        oldSeconds,
        s,
        nowMs,
      );
      eligibleNow = count ? countReplyN(await engine.runCommand(c.db, count)) : 0;
    }
    command = { collMod: c.name, index: { name: ix.name, expireAfterSeconds: seconds } };
    text = mongosh.runCommand(c.db, command);
    what = converting
      ? `Convert ${ix.name} of ${c.db}.${c.name} to a TTL index: ${describeIndex({ ...ix, spec: { ...ix.spec, expireAfterSeconds: seconds } }, facts(c)).summary}`
      : `Change expireAfterSeconds of ${ix.name} (${c.db}.${c.name}) from ${d.seconds ?? 'an invalid value'} to ${seconds} (${formatSeconds(seconds)})`;
  }
  const aboveLimit = eligibleNow !== undefined && eligibleNow > limit;
  const preview = refused
    ? `The engine refuses it: ${refused.message}${codeWords(refused)}. Nothing would change.`
    : eligibleNow === undefined
      ? 'How many existing documents become eligible cannot be counted here (time series: whole buckets expire).'
      : aboveLimit
        ? `${eligibilitySentence(eligibleNow, c.db, c.name)} This is above ttlWorkbench.confirmExpiryAbove (${formatCount(limit)}).`
        : eligibleWords(eligibleNow);
  return {
    title: `${what}?`,
    message: `${preview}\n\nRuns: ${text}`,
    db: c.db,
    command,
    mongosh: text,
    eligibleNow,
    limit,
    aboveLimit,
    ...(refused ? { refused } : {}),
  };
}

/**
 * Runs the change. `confirmed`: the user saw the preview's count and agreed (VS Code's tool
 * confirmation, an MCP elicitation); without it a change above the limit is refused, with the count.
 */
export async function apply(engine: Backend, input: ApplyInput, limit: number, confirmed: boolean) {
  const preview = await previewApply(engine, input, limit);
  if (preview.aboveLimit && !confirmed)
    throw new ToolError(
      `ttl_apply: not run. ${eligibilitySentence(preview.eligibleNow!, input.db, input.collection)} That is above the limit of ${formatCount(limit)} (ttlWorkbench.confirmExpiryAbove; for the MCP server, --confirm-expiry-above), and the user did not confirm it. Tell the user the count and let them apply it (TTL Workbench: ${input.operation === 'createTTLIndex' ? 'Create TTL Index' : input.operation === 'convertToTTLIndex' ? 'Convert to TTL Index' : 'Change expireAfterSeconds'}…) or raise the limit.`,
    );
  let reply: Document;
  try {
    reply = await engine.runCommand(preview.db, preview.command);
  } catch (err) {
    const e = errorFacts(err);
    throw new ToolError(
      `ttl_apply: the engine refused ${preview.mongosh}: ${e.message}${codeWords(e)}. Nothing changed.`,
    );
  }
  return {
    summary: `Done: ${preview.title.slice(0, -1)}.${preview.eligibleNow ? ` ${formatCount(preview.eligibleNow)} existing document${preview.eligibleNow === 1 ? ' is' : 's are'} eligible for deletion now.` : ''}`,
    operation: input.operation,
    db: preview.db,
    collection: input.collection,
    eligibleNow: preview.eligibleNow ?? null,
    reply: capJson(plain(reply)),
    mongosh: preview.mongosh,
  };
}
