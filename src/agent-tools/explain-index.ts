/**
 * ttl_explain_index: one index spec tried on a scratch engine with a virtual clock. The engine's
 * own createIndexes decides whether mongod accepts it (its code and codeName when not), the tree's
 * words say what it does, the source analysis adds warnings a server would not give (milliseconds,
 * a creation-time field at 0), and the TTL monitor itself deletes the samples: one pass now, then
 * the clock moved `afterHours` forward. Nothing here guesses what the monitor would do.
 */
import { EJSON } from 'bson';
import type { Document } from '../engine';
import { defaultIndexName } from '../engine/indexes/key-pattern';
import type { Backend } from '../extension/backend/backend';
import { formatCount, formatSeconds } from '../extension/logic/durations';
import { describeCollectionTTL, describeIndex } from '../extension/logic/index-description';
import * as mongosh from '../extension/logic/mongosh';
import type { ToolHost } from './host';
import { ToolError } from './input';
import { capJson, capList, LIMITS } from './limits';
import { errorFacts, parseNow, plain } from './values';

export interface ExplainIndexInput {
  key: Record<string, unknown>;
  options?: Record<string, unknown>;
  collectionOptions?: Record<string, unknown>;
  samples?: Record<string, unknown>[];
  afterHours?: number;
  now?: string;
  serverVersion?: '8.0' | '7.0';
}

const DB = 'explain';
const COLLECTION = 'samples';

function fromEjson(value: unknown, what: string): Document {
  try {
    return EJSON.deserialize(value as Document, { relaxed: true }) as Document;
  } catch (err) {
    throw new ToolError(`ttl_explain_index: ${what} is not valid Extended JSON: ${(err as Error).message}`, 'input');
  }
}

function positions(ids: readonly string[], gone: ReadonlySet<string>) {
  const list: number[] = [];
  ids.forEach((id, i) => {
    if (gone.has(id)) list.push(i);
  });
  const { items, omitted } = capList(list, LIMITS.samplePositions);
  return { count: list.length, samples: items, ...(omitted ? { omittedPositions: omitted } : {}) };
}

async function idsOf(engine: Backend): Promise<string[]> {
  const reply = await engine.runCommand(DB, {
    find: COLLECTION,
    projection: { _id: 1 },
    batchSize: 100_000,
    singleBatch: true,
  });
  return (((reply.cursor as Document).firstBatch ?? []) as Document[]).map((d) => EJSON.stringify(d._id));
}

export async function explainIndex(host: ToolHost, input: ExplainIndexInput) {
  const startMs = parseNow(input.now, 'ttl_explain_index');
  const key = fromEjson(input.key, 'key');
  const options = input.options ? fromEjson(input.options, 'options') : {};
  const collectionOptions = input.collectionOptions ? fromEjson(input.collectionOptions, 'collectionOptions') : {};
  const samples = (input.samples ?? []).map((s, i) => fromEjson(s, `samples[${i}]`));
  const afterHours = input.afterHours ?? 1;
  const serverVersion = input.serverVersion ?? '8.0';
  const spec: Document = {
    key,
    name: typeof options.name === 'string' ? options.name : defaultIndexName(key),
    ...options,
  };
  const createText = mongosh.createIndex(DB, COLLECTION, key, options);
  const engine = await host.scratch({ clock: 'virtual', flavor: 'mongodb', serverVersion }, startMs);
  try {
    if (Object.keys(collectionOptions).length > 0) {
      try {
        await engine.runCommand(DB, { create: COLLECTION, ...collectionOptions });
      } catch (err) {
        const e = errorFacts(err);
        return {
          summary: `The collection options are refused before the index is reached: ${e.codeName ?? 'error'} (${e.code ?? '?'}): ${e.message}`,
          accepted: false,
          collectionRefused: e,
        };
      }
    }
    const collectionInfo = (await engine.listCollections(DB)).find((c) => c.name === COLLECTION);
    const ts = collectionOptions.timeseries as { timeField: string; metaField?: string } | undefined;
    const facts = { clustered: collectionInfo?.kind === 'clustered', ...(ts ? { timeseries: ts } : {}) };
    const collectionTTL = describeCollectionTTL(collectionOptions);
    // Warnings the source analysis gives for the same definition written as mongosh.
    const analysis = host.analyze(
      `${Object.keys(collectionOptions).length ? `${mongosh.createCollection(DB, COLLECTION, collectionOptions)};\n` : ''}${createText};\n`,
      'javascript',
      { serverVersion, nowMs: startMs },
    );
    const warnings = analysis.problems.map((p) => ({ code: p.code, severity: p.severity, message: p.message }));
    let accepted = true;
    let refusal: ReturnType<typeof errorFacts> | undefined;
    let note: string | undefined;
    try {
      const reply = await engine.runCommand(DB, { createIndexes: COLLECTION, indexes: [spec] });
      if (reply.note) note = String(reply.note);
    } catch (err) {
      accepted = false;
      refusal = errorFacts(err);
    }
    const listed = accepted ? (await engine.listIndexes(DB, COLLECTION)).find((i) => i.name === spec.name) : undefined;
    const description = listed ? describeIndex(listed, facts) : undefined;
    const words = description
      ? `${String(spec.name)} — ${description.summary}${description.warning ? ` (${description.warning})` : ''}`
      : `mongod refuses it: ${refusal?.codeName ?? 'error'} (${refusal?.code ?? '?'}): ${refusal?.message ?? ''}`;

    let sampleReport: Record<string, unknown> | undefined;
    if (samples.length > 0) {
      let refused: unknown[] = [];
      try {
        const reply = await engine.runCommand(DB, { insert: COLLECTION, documents: samples, ordered: false });
        refused = (reply.writeErrors as Document[] | undefined) ?? [];
      } catch (err) {
        refused = [errorFacts(err)];
      }
      const ids = await idsOf(engine);
      const pass = await engine.runTTLPass();
      const afterPass = new Set(await idsOf(engine));
      const nowGone = new Set(ids.filter((id) => !afterPass.has(id)));
      const move = afterHours > 0 ? await engine.advanceClock(afterHours * 3_600_000) : undefined;
      const afterMove = new Set(await idsOf(engine));
      const laterGone = new Set(ids.filter((id) => afterPass.has(id) && !afterMove.has(id)));
      sampleReport = {
        inserted: ids.length,
        ...(refused.length ? { refusedByInsert: capJson(plain(refused)) } : {}),
        deletedNow: positions(ids, nowGone),
        ...(move
          ? {
              [`deletedWithin${afterHours}h`]: positions(ids, laterGone),
              ttlPassesInThoseHours: move.passes,
            }
          : {}),
        remaining: afterMove.size,
        ...(pass.skipped ? { monitorSkipped: pass.skipped } : {}),
        note: 'Sample positions are 0-based indexes into "samples". "deletedNow" is one TTL pass at "now"; the later group is deleted by the passes while the virtual clock moves.',
      };
    }
    const deleted = sampleReport
      ? ` Of ${formatCount(sampleReport.inserted as number)} samples, ${formatCount((sampleReport.deletedNow as { count: number }).count)} are deleted by the next pass${afterHours > 0 ? ` and ${formatCount((sampleReport[`deletedWithin${afterHours}h`] as { count: number }).count)} more within ${formatSeconds(afterHours * 3600)}` : ''}; ${formatCount(sampleReport.remaining as number)} remain.`
      : '';
    return {
      summary: `${accepted ? 'Accepted' : 'Refused'}: ${words}.${collectionTTL ? ` The collection itself: ${collectionTTL}.` : ''}${deleted}`,
      accepted,
      ...(refusal ? { error: refusal } : {}),
      index: accepted
        ? { spec: capJson(plain(listed?.spec)), kind: description?.kind, description: description?.summary }
        : { spec: capJson(plain(spec)) },
      ...(note ? { serverNote: note } : {}),
      ...(collectionTTL ? { collectionTTL } : {}),
      mongosh: createText,
      warnings,
      now: new Date(startMs).toISOString(),
      ...(sampleReport ? { samples: sampleReport } : {}),
    };
  } finally {
    engine.dispose();
  }
}
