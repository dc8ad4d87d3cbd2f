/**
 * Index commands: Create TTL Index…, Convert to TTL Index…, Change expireAfterSeconds…, Hide /
 * Unhide Index, Drop Index, Copy as mongosh. Every change goes through createIndexes / collMod /
 * dropIndexes, so the engine's rules decide; the input boxes check with the same rule functions
 * first and explain a refusal while the user types.
 */
import * as vscode from 'vscode';
import type { Document } from '../../engine';
import * as ttlRules from '../../engine/ttl/validation';
import { defaultIndexName } from '../../engine/indexes/key-pattern';
import type { CollectionInfo, IndexInfo } from '../backend/backend';
import { formatCount, formatSeconds } from '../logic/durations';
import { countReplyN, eligibleWords, expiredNowCount, newlyEligibleCount, PREVIEW_CAP } from '../logic/expiry-counts';
import { suggestTTLFields } from '../logic/field-sampling';
import { describeIndex, type IndexDescription } from '../logic/index-description';
import * as mongosh from '../logic/mongosh';
import {
  changeWords,
  checkCollModInput,
  checkTTLInput,
  checkTTLSpec,
  millisecondsWarning,
  type TTLTargetFacts,
} from '../logic/ttl-input';
import { secondsArg } from './collections';
import {
  Cancelled,
  inputBox,
  quickPick,
  registerCommand,
  reportSuccess,
  resolveCollection,
  resolveIndex,
  targetArgs,
  WorkbenchError,
  type CommandResult,
  type Invocation,
  type Services,
} from './context';
import { confirmEligibility } from './eligibility';
import { openForecastPreview } from './forecast';

function collectionFacts(c: CollectionInfo) {
  const ts = c.options.timeseries as { timeField: string; metaField?: string } | undefined;
  return { clustered: c.kind === 'clustered', ...(ts ? { timeseries: ts } : {}) };
}

export function describe(ix: IndexInfo, c: CollectionInfo): IndexDescription {
  return describeIndex(ix, collectionFacts(c));
}

async function targetFacts(services: Services, c: CollectionInfo): Promise<TTLTargetFacts> {
  const info = await services.backend.info();
  const ts = c.options.timeseries as { timeField: string; metaField?: string } | undefined;
  return {
    capped: c.kind === 'capped',
    clustered: c.kind === 'clustered',
    ...(ts ? { timeseries: ts } : {}),
    serverVersion: info.serverVersion,
  };
}

/** The raw expireAfterSeconds of the arguments: numbers as given (the engine judges them), texts parsed. */
function rawSeconds(inv: Invocation): unknown {
  const v = inv.args.expireAfterSeconds ?? inv.args.duration;
  if (v === undefined || typeof v !== 'string') return v;
  return secondsArg(v);
}

async function pickField(services: Services, c: CollectionInfo, title: string): Promise<string> {
  const reply = await services.backend.runCommand(c.db, {
    find: c.name,
    limit: 100,
    singleBatch: true,
    batchSize: 100,
  });
  const docs = ((reply.cursor as Document).firstBatch ?? []) as Document[];
  const suggestions = suggestTTLFields(docs).filter((s) => s.path !== '_id');
  // Fields that already lead an index: say which (a second index on the same key conflicts, rule 2.4).
  const indexed = new Map<string, IndexInfo>();
  for (const ix of await services.backend.listIndexes(c.db, c.name)) {
    const fields = Object.keys(ix.spec.key as Document);
    if (fields.length === 1) indexed.set(fields[0], ix);
  }
  const note = (path: string) => {
    const ix = indexed.get(path);
    if (!ix) return '';
    const d = describe(ix, c);
    return ` · has ${ix.name} (${d.ttlApplies ? d.summary : 'no TTL: use Convert to TTL Index'})`;
  };
  const OTHER = '\u0000other';
  const field = suggestions.length
    ? await quickPick(
        [
          ...suggestions.map((s) => ({
            label: `${s.dates > 0 && !s.flagged ? '$(calendar)' : '$(warning)'} ${s.path}`,
            description: `${s.detail}${note(s.path)}`,
            value: s.path,
          })),
          { label: '$(edit) Another field…', value: OTHER },
        ],
        `Date field of the TTL index (from ${docs.length} sampled documents)`,
        title,
      )
    : OTHER;
  if (field !== OTHER) return field;
  return inputBox({
    title,
    prompt: 'Field holding a date (dotted paths allowed)',
    validateInput: (v) => (v.trim() ? undefined : 'Name a field.'),
  });
}

type Validation = string | vscode.InputBoxValidationMessage | undefined;

const blocks = (m: Validation) =>
  typeof m === 'string' || (m !== undefined && m.severity === vscode.InputBoxValidationSeverity.Error);

/**
 * An input box whose message is worked out from the start (the pre-filled value's preview shows
 * without typing) and again after every change; Enter is refused while the message is an error.
 * The latest text's message wins when answers come back out of order.
 */
function validatedInput(options: {
  title: string;
  prompt: string;
  value?: string;
  placeholder?: string;
  validate: (text: string) => Promise<Validation> | Validation;
}): Promise<string> {
  const box = vscode.window.createInputBox();
  box.title = options.title;
  box.prompt = options.prompt;
  box.value = options.value ?? '';
  if (options.placeholder) box.placeholder = options.placeholder;
  box.ignoreFocusOut = true;
  let generation = 0;
  const validate = async (text: string): Promise<Validation> => {
    const g = ++generation;
    let m: Validation;
    try {
      m = await options.validate(text);
    } catch (err) {
      m = (err as Error).message;
    }
    if (g === generation) box.validationMessage = m;
    return m;
  };
  return new Promise<string>((resolve, reject) => {
    let done = false;
    box.onDidChangeValue((t) => void validate(t));
    box.onDidAccept(async () => {
      const text = box.value;
      box.busy = true;
      const m = await validate(text);
      box.busy = false;
      if (blocks(m) || done) return;
      done = true;
      resolve(text);
      box.hide();
    });
    box.onDidHide(() => {
      if (!done) {
        done = true;
        reject(new Cancelled());
      }
      box.dispose();
    });
    box.show();
    void validate(box.value);
  });
}

async function askPartialFilter(
  services: Services,
  c: CollectionInfo,
  title: string,
  eligible?: (filter: Document | undefined) => Promise<number | undefined>,
): Promise<Document | undefined> {
  const meta = (c.options.timeseries as { metaField?: string } | undefined)?.metaField;
  const text = await validatedInput({
    title,
    prompt: meta
      ? `Time-series TTL indexes need a filter on the metaField, e.g. {"${meta}.kind": "debug"}. mongosh syntax or JSON.`
      : 'Only documents matching this filter expire; empty: every document. mongosh syntax or JSON: {status: "done"}',
    placeholder: meta ? `{"${meta}.kind": "debug"}` : '{status: "done"}  (empty for none)',
    validate: async (t) => {
      const p = services.parseFilter(t);
      if (!p.ok) return p.error;
      const n = eligible ? await eligible(p.filter).catch(() => undefined) : undefined;
      const what = p.filter ? 'Only matching documents expire.' : 'No filter: every document with a date expires.';
      return {
        message: `${what}${n !== undefined ? ` ${eligibleWords(n, PREVIEW_CAP)}` : ''}`,
        severity: vscode.InputBoxValidationSeverity.Info,
      };
    },
  });
  const p = services.parseFilter(text);
  return p.ok ? p.filter : undefined;
}

/**
 * Validates a duration as the user types, and for a valid one previews how many existing
 * documents it makes eligible at once (the docs' warning), so the number is known before Enter.
 */
function durationValidator(
  check: (text: string) => ReturnType<typeof checkTTLInput>,
  eligible?: (seconds: number) => Promise<number | undefined>,
  /** The value being changed, for `old → new` (Convert and Change expireAfterSeconds). */
  before?: () => number | undefined,
) {
  return async (text: string): Promise<string | vscode.InputBoxValidationMessage | undefined> => {
    const r = check(text);
    if (!r.ok) return r.message;
    let preview = '';
    try {
      const n = eligible ? await eligible(r.seconds) : undefined;
      if (n !== undefined) preview = ` ${eligibleWords(n, PREVIEW_CAP)}`;
    } catch {
      // A count that fails leaves the explanation alone; the command reports real errors on Enter.
    }
    // A change says old → new; a new index what it will do.
    const what = before ? `${changeWords(before(), r.seconds)}.` : r.explanation;
    // Rule TTL014: accepted, but likely milliseconds: a warning in the box, Enter still allowed.
    const ms = millisecondsWarning(r.seconds);
    if (ms) return { message: `${what} ${ms}${preview}`, severity: vscode.InputBoxValidationSeverity.Warning };
    return { message: `${what}${preview}`, severity: vscode.InputBoxValidationSeverity.Info };
  };
}

/** Documents of `c` past `seconds` now through `field` (counted up to PREVIEW_CAP). */
async function expiredNowFor(
  services: Services,
  c: CollectionInfo,
  field: string,
  seconds: number,
  partial: Document | undefined,
  indexName?: string,
): Promise<number> {
  const now = (await services.backend.clock()).now.getTime();
  const count = expiredNowCount(
    {
      collection: c.name,
      field,
      ...(indexName ? { indexName } : {}),
      ...(partial ? { partialFilterExpression: partial } : {}),
    },
    seconds,
    now,
    PREVIEW_CAP,
  );
  return countReplyN(await services.backend.runCommand(c.db, count));
}

async function createTTLIndex(services: Services, inv: Invocation): Promise<CommandResult> {
  const c = await resolveCollection(services, inv);
  const facts = await targetFacts(services, c);
  const a = inv.args;
  let key: Document | undefined =
    a.key !== null && typeof a.key === 'object'
      ? (a.key as Document)
      : typeof a.field === 'string'
        ? { [a.field]: 1 }
        : undefined;
  let partial: Document | undefined =
    a.partialFilterExpression !== null && typeof a.partialFilterExpression === 'object'
      ? (a.partialFilterExpression as Document)
      : undefined;
  let seconds = rawSeconds(inv);
  if (inv.interactive) {
    // field → duration → optional filter, each box naming its step.
    const ns = `${c.db}.${c.name}`;
    if (!key) key = { [await pickField(services, c, `Create TTL Index on ${ns} — step 1/3: date field`)]: 1 };
    const field = Object.keys(key)[0];
    if (seconds === undefined) {
      const text = await validatedInput({
        title: `Create TTL Index on ${ns}.${field} — step 2/3: expire after`,
        prompt:
          'Expire after: 3600 (seconds), 90s, 1h, 30d — or 0 / "at the date in the field" to expire at the stored date',
        value: '1h',
        // Time series: buckets, not documents, expire; the count after the change says how many.
        validate: durationValidator(
          (t) => checkTTLInput(t, field, facts, partial),
          c.options.timeseries ? undefined : (sec) => expiredNowFor(services, c, field, sec, partial),
        ),
      });
      const r = checkTTLInput(text, field, facts, partial);
      if (!r.ok) throw new WorkbenchError(r.message);
      seconds = r.seconds;
    }
    if (partial === undefined && !('partialFilterExpression' in a)) {
      const sec = ttlRules.effectiveExpireAfterSeconds(seconds);
      partial = await askPartialFilter(
        services,
        c,
        `Create TTL Index on ${ns}.${field} — step 3/3: optional partialFilterExpression`,
        c.options.timeseries || sec === undefined
          ? undefined
          : (filter) => expiredNowFor(services, c, field, sec, filter),
      );
    }
  }
  if (!key)
    throw new WorkbenchError(
      "Create TTL Index needs 'field' (or 'key'): e.g. {db: 'app', collection: 'events', field: 'lastModifiedDate', expireAfterSeconds: 3600}.",
    );
  if (seconds === undefined)
    throw new WorkbenchError("Create TTL Index needs 'expireAfterSeconds' (a number, or a duration such as '1h').");
  const spec: Document = {
    key,
    name: typeof a.name === 'string' ? a.name : defaultIndexName(key),
    expireAfterSeconds: seconds,
    ...(partial ? { partialFilterExpression: partial } : {}),
  };
  inv.state.spec = spec;
  // The preview only makes sense for a spec the engine accepts; otherwise its refusal is the answer.
  const check = checkTTLSpec(spec, facts);
  let eligibleNow: number | undefined;
  if (check.ok && !c.options.timeseries) {
    const now = (await services.backend.clock()).now.getTime();
    const field = Object.keys(key)[0];
    const count = expiredNowCount(
      { collection: c.name, field, ...(partial ? { partialFilterExpression: partial } : {}) },
      check.seconds,
      now,
    );
    const gate = await confirmEligibility(
      services,
      inv,
      c,
      countReplyN(await services.backend.runCommand(c.db, count)),
      `Create TTL index ${String(spec.name)}`,
      () =>
        openForecastPreview({
          db: c.db,
          collection: c.name,
          index: key,
          expireAfterSeconds: check.seconds,
          ...(partial ? { partialFilterExpression: partial } : {}),
        }),
      {
        db: c.db,
        collection: c.name,
        field,
        expireAfterSeconds: check.seconds,
        ...(partial ? { partialFilterExpression: partial } : {}),
      },
    );
    if (!gate.proceed) return gate.result;
    eligibleNow = gate.eligible;
  }
  const reply = await services.backend.runCommand(c.db, { createIndexes: c.name, indexes: [spec] });
  const options: Document = { ...spec };
  delete options.key;
  const text = mongosh.createIndex(c.db, c.name, key, options);
  const what = check.ok ? describeIndex({ name: String(spec.name), spec }, collectionFacts(c)).summary : '';
  const note = reply.note ? ` (${String(reply.note)})` : '';
  reportSuccess(
    services,
    inv,
    `Created ${String(spec.name)} on ${c.db}.${c.name}: ${what}${note}.${eligibleNow ? ` ${formatCount(eligibleNow)} existing documents are eligible now.` : ''}`,
    text,
  );
  return { ok: true, db: c.db, collection: c.name, index: spec.name, spec, eligibleNow, reply, mongosh: text };
}

/** For remedies: an existing index with the key (or the name) that createIndexes conflicted with. */
async function existingIndexFor(
  services: Services,
  inv: Invocation,
): Promise<{ existingIndex?: { name: string; isTTL: boolean } }> {
  const spec = inv.state.spec as Document | undefined;
  const t = targetArgs(inv);
  if (!spec || !t.db || !t.collection) return {};
  const indexes = await services.backend.listIndexes(t.db, t.collection);
  const same =
    indexes.find((i) => JSON.stringify(i.spec.key) === JSON.stringify(spec.key)) ??
    indexes.find((i) => i.name === spec.name);
  return same ? { existingIndex: { name: same.name, isTTL: ttlRules.isTTLIndexSpec(same.spec) } } : {};
}

async function askCollModSeconds(
  services: Services,
  title: string,
  current?: number,
  eligible?: (seconds: number) => Promise<number | undefined>,
): Promise<number> {
  const info = await services.backend.info();
  const text = await validatedInput({
    title,
    prompt: `${current !== undefined ? `Now ${current} (${formatSeconds(current)}). ` : ''}New expireAfterSeconds: 3600, 90s, 1h, 30d, or 0 to expire at the stored date`,
    value: current !== undefined ? String(current) : '1h',
    validate: durationValidator(
      (t) => checkCollModInput(t, info.serverVersion),
      eligible,
      current !== undefined ? () => current : undefined,
    ),
  });
  const r = checkCollModInput(text, info.serverVersion);
  if (!r.ok) throw new WorkbenchError(r.message);
  return r.seconds;
}

/**
 * Documents that a collMod of `ix` from `oldSeconds` to `newSeconds` makes eligible at once
 * (undefined: not countable here — an invalid value, time series; 0 when the value grows).
 */
async function newlyEligible(
  services: Services,
  c: CollectionInfo,
  ix: IndexInfo,
  d: IndexDescription,
  oldSeconds: number | undefined,
  newSeconds: unknown,
  cap?: number,
): Promise<number | undefined> {
  const s = ttlRules.effectiveExpireAfterSeconds(newSeconds);
  if (s === undefined || !d.field || c.options.timeseries) return undefined;
  const now = (await services.backend.clock()).now.getTime();
  const target = {
    collection: c.name,
    field: d.field,
    // A hidden index cannot serve a hinted count; the planner finds another index or scans.
    ...(d.hidden ? {} : { indexName: ix.name }),
    ...(ix.spec.partialFilterExpression
      ? { partialFilterExpression: ix.spec.partialFilterExpression as Document }
      : {}),
  };
  const count = newlyEligibleCount(target, oldSeconds, s, now);
  if (!count) return 0;
  return countReplyN(await services.backend.runCommand(c.db, cap ? { ...count, limit: cap } : count));
}

async function preview(
  services: Services,
  inv: Invocation,
  c: CollectionInfo,
  ix: IndexInfo,
  d: IndexDescription,
  oldSeconds: number | undefined,
  newSeconds: unknown,
  what: string,
) {
  const s = ttlRules.effectiveExpireAfterSeconds(newSeconds);
  const forecast =
    s === undefined
      ? undefined
      : () => openForecastPreview({ db: c.db, collection: c.name, index: ix.name, expireAfterSeconds: s });
  const n = await newlyEligible(services, c, ix, d, oldSeconds, newSeconds);
  if (n === undefined || n === 0) {
    if (forecast && inv.args.showForecast === true) forecast();
    return { proceed: true as const, eligible: n };
  }
  const partial = ix.spec.partialFilterExpression as Document | undefined;
  return confirmEligibility(
    services,
    inv,
    c,
    n,
    what,
    forecast,
    s !== undefined && d.field
      ? {
          db: c.db,
          collection: c.name,
          field: d.field,
          expireAfterSeconds: s,
          ...(partial ? { partialFilterExpression: partial } : {}),
        }
      : undefined,
  );
}

async function convertToTTLIndex(services: Services, inv: Invocation): Promise<CommandResult> {
  const { collection: c, index: ix } = await resolveIndex(
    services,
    inv,
    (i, coll) => describe(i, coll).convertible,
    'a single-field index without TTL',
  );
  const d = describe(ix, c);
  let seconds = rawSeconds(inv);
  if (seconds === undefined && inv.interactive) {
    seconds = await askCollModSeconds(services, `Convert ${ix.name} to a TTL index`, undefined, (sec) =>
      newlyEligible(services, c, ix, d, undefined, sec, PREVIEW_CAP),
    );
  }
  if (seconds === undefined)
    throw new WorkbenchError(
      "Convert to TTL Index needs 'expireAfterSeconds': e.g. {db, collection, index: 'createdAt_1', expireAfterSeconds: 3600}.",
    );
  const gate = await preview(services, inv, c, ix, d, undefined, seconds, `Convert ${ix.name} to a TTL index`);
  if (!gate.proceed) return gate.result;
  const command = { collMod: c.name, index: { name: ix.name, expireAfterSeconds: seconds } };
  const reply = await services.backend.runCommand(c.db, command);
  const text = mongosh.runCommand(c.db, command);
  reportSuccess(
    services,
    inv,
    `${ix.name} is now a TTL index: ${describe({ ...ix, spec: { ...ix.spec, expireAfterSeconds: Number(seconds) } }, c).summary}.`,
    text,
  );
  return {
    ok: true,
    db: c.db,
    collection: c.name,
    index: ix.name,
    old: undefined,
    new: Number(String(reply.expireAfterSeconds_new ?? seconds)),
    eligibleNow: gate.eligible,
    reply,
    mongosh: text,
  };
}

async function changeExpireAfterSeconds(services: Services, inv: Invocation): Promise<CommandResult> {
  const { collection: c, index: ix } = await resolveIndex(
    services,
    inv,
    (i, coll) => ['ttl', 'ttlAtDate', 'ttlInvalid'].includes(describe(i, coll).kind),
    'a TTL index',
  );
  const d = describe(ix, c);
  if (!ttlRules.isTTLIndexSpec(ix.spec) && !ix.stored) {
    throw new WorkbenchError(`${ix.name} is not a TTL index: convert it first.`, {
      title: 'Convert to TTL Index…',
      command: 'ttlWorkbench.convertToTTLIndex',
      args: [{ db: c.db, collection: c.name, index: ix.name, interactive: true }],
    });
  }
  let seconds = rawSeconds(inv);
  if (seconds === undefined && inv.interactive) {
    seconds = await askCollModSeconds(services, `Change expireAfterSeconds of ${ix.name}`, d.seconds, (sec) =>
      newlyEligible(services, c, ix, d, d.seconds, sec, PREVIEW_CAP),
    );
  }
  if (seconds === undefined)
    throw new WorkbenchError(
      "Change expireAfterSeconds needs 'expireAfterSeconds': e.g. {db, collection, index: 'createdAt_1', expireAfterSeconds: 60}.",
    );
  const gate = await preview(
    services,
    inv,
    c,
    ix,
    d,
    d.seconds,
    seconds,
    `Change expireAfterSeconds of ${ix.name} from ${d.seconds ?? 'an invalid value'} to ${String(seconds)}`,
  );
  if (!gate.proceed) return gate.result;
  const command = { collMod: c.name, index: { name: ix.name, expireAfterSeconds: seconds } };
  const reply = await services.backend.runCommand(c.db, command);
  const text = mongosh.runCommand(c.db, command);
  const newSeconds = Number(String(reply.expireAfterSeconds_new ?? seconds));
  reportSuccess(
    services,
    inv,
    `${ix.name}: expireAfterSeconds ${d.seconds ?? String(ix.stored?.expireAfterSeconds)} → ${newSeconds} (${formatSeconds(newSeconds)}).${gate.eligible ? ` ${formatCount(gate.eligible)} more documents are eligible now.` : ''}`,
    text,
  );
  return {
    ok: true,
    db: c.db,
    collection: c.name,
    index: ix.name,
    old: d.seconds ?? null,
    new: newSeconds,
    newlyEligible: gate.eligible,
    reply,
    mongosh: text,
  };
}

async function setHidden(services: Services, inv: Invocation, hidden: boolean): Promise<CommandResult> {
  const { collection: c, index: ix } = await resolveIndex(
    services,
    inv,
    (i) => i.name !== '_id_' && (i.spec.hidden === true) !== hidden,
    hidden ? 'a visible index' : 'a hidden index',
  );
  const command = { collMod: c.name, index: { name: ix.name, hidden } };
  const reply = await services.backend.runCommand(c.db, command);
  const text = mongosh.hideIndex(c.db, c.name, ix.name, hidden);
  const ttlNote = hidden && ttlRules.isTTLIndexSpec(ix.spec) ? ' The TTL monitor still deletes through it.' : '';
  reportSuccess(
    services,
    inv,
    `${ix.name} is ${hidden ? 'hidden from the query planner' : 'visible to the query planner again'}.${ttlNote}`,
    text,
  );
  return {
    ok: true,
    db: c.db,
    collection: c.name,
    index: ix.name,
    hidden_old: reply.hidden_old,
    hidden_new: reply.hidden_new,
    reply,
    mongosh: text,
  };
}

async function dropIndex(services: Services, inv: Invocation): Promise<CommandResult> {
  const { collection: c, index: ix } = await resolveIndex(services, inv, (i) => i.name !== '_id_', 'an index to drop');
  if (inv.interactive) {
    const d = describe(ix, c);
    const yes = await services.notifier.confirm(
      `Drop index ${ix.name} of ${c.db}.${c.name}?`,
      `${ix.name} — ${d.summary}.${d.ttlApplies ? ' Documents stop expiring through it.' : ''}`,
      'Drop',
    );
    if (yes !== 'Drop') return { ok: false, cancelled: true };
  }
  const reply = await services.backend.runCommand(c.db, { dropIndexes: c.name, index: ix.name });
  const text = mongosh.dropIndex(c.db, c.name, ix.name);
  reportSuccess(services, inv, `Dropped ${ix.name} of ${c.db}.${c.name}.`, text);
  return { ok: true, db: c.db, collection: c.name, index: ix.name, reply, mongosh: text };
}

/** mongosh text that recreates a node: an index, a collection with its indexes, a database. */
export async function mongoshFor(services: Services, inv: Invocation): Promise<string> {
  const n = inv.node;
  const t = targetArgs(inv);
  const indexText = (db: string, coll: string, ix: IndexInfo) => {
    const { key, name, v, ...options } = ix.spec;
    void v;
    const opts: Document = { name, ...options };
    if (ix.stored) opts.expireAfterSeconds = ix.stored.expireAfterSeconds;
    return mongosh.createIndex(db, coll, key as Document, opts);
  };
  const collectionText = async (c: CollectionInfo) => {
    const lines = [mongosh.createCollection(c.db, c.name, c.options)];
    for (const ix of await services.backend.listIndexes(c.db, c.name)) {
      if (
        ix.name === '_id_' ||
        (c.kind === 'timeseries' &&
          !ttlRules.isTTLIndexSpec(ix.spec) &&
          Object.keys(ix.spec.key as Document).length > 1)
      )
        continue;
      lines.push(indexText(c.db, c.name, ix));
    }
    return lines.join('\n');
  };
  if (n?.type === 'monitor' || n?.type === 'engine') {
    const m = await services.backend.monitorStatus();
    return mongosh.setParameter({ ttlMonitorEnabled: m.enabled, ttlMonitorSleepSecs: m.sleepSecs });
  }
  if (t.db && t.collection && t.index) {
    const ix = (await services.backend.listIndexes(t.db, t.collection)).find((i) => i.name === t.index);
    if (!ix) throw new WorkbenchError(`No index ${t.index} on ${t.db}.${t.collection}.`);
    return indexText(t.db, t.collection, ix);
  }
  if (t.db && t.collection) {
    const c = (await services.backend.listCollections(t.db)).find((x) => x.name === t.collection);
    if (!c) throw new WorkbenchError(`No collection ${t.db}.${t.collection}.`);
    return collectionText(c);
  }
  if (t.db) {
    const parts = await Promise.all((await services.backend.listCollections(t.db)).map(collectionText));
    return parts.join('\n\n');
  }
  throw new WorkbenchError(
    'Copy as mongosh works on a database, collection, index or the TTL Monitor: right-click one in the Databases view.',
  );
}

async function copyAsMongosh(services: Services, inv: Invocation): Promise<CommandResult> {
  const text = await mongoshFor(services, inv);
  // Clipboard access can be refused or wait for focus (web): the text is returned and logged anyway.
  await Promise.race([
    Promise.resolve(vscode.env.clipboard.writeText(text)).catch(() => undefined),
    new Promise((r) => setTimeout(r, 1000)),
  ]);
  services.output.info(`Copy as mongosh:\n${text}`);
  if (inv.interactive)
    services.notifier.showAndForget(
      'info',
      `Copied to the clipboard: ${text.split('\n')[0]}${text.includes('\n') ? ' …' : ''}`,
      [],
    );
  return { ok: true, mongosh: text };
}

export function registerIndexCommands(services: Services): vscode.Disposable[] {
  const existing = (inv: Invocation) => existingIndexFor(services, inv);
  return [
    registerCommand(services, {
      id: 'ttlWorkbench.createTTLIndex',
      action: 'Create TTL Index',
      run: (inv) => createTTLIndex(services, inv),
      remedyContext: existing,
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.convertToTTLIndex',
      action: 'Convert to TTL Index',
      run: (inv) => convertToTTLIndex(services, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.changeExpireAfterSeconds',
      action: 'Change expireAfterSeconds',
      run: (inv) => changeExpireAfterSeconds(services, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.hideIndex',
      action: 'Hide Index',
      run: (inv) => setHidden(services, inv, true),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.unhideIndex',
      action: 'Unhide Index',
      run: (inv) => setHidden(services, inv, false),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.dropIndex',
      action: 'Drop Index',
      run: (inv) => dropIndex(services, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.copyAsMongosh',
      action: 'Copy as mongosh',
      run: (inv) => copyAsMongosh(services, inv),
    }),
  ];
}
