/**
 * The analysis entry points: text in, problems, runnable definitions and hover sites out. Pure:
 * no file system, no `vscode`, no engine instance (engine knowledge comes as `EngineFacts`).
 */
import type { Document } from '../engine';
import { checkAgainstEngine } from './checks/engine-rules';
import { checkDuplicates, checkSplitOptions } from './checks/file-rules';
import { checkIndexDefinition } from './checks/index-rules';
import { CheckContext } from './checks/context';
import { checkSchemaDefinition } from './checks/schema-rules';
import { checkOptionSlips } from './checks/slip-rules';
import { checkEnvValue, checkMongooseEnvValue, checkTTLValue } from './checks/value-rules';
import { importedValues } from './imports';
import { DefinitionFinder, type Definitions, type IndexDef } from './definitions';
import { spanOf } from './edits';
import { plainValue, UNKNOWN } from './literals';
import { scanUnit } from './scan';
import { parseUnit, sourceKindOf, unitsOfFile, type SourceKind, type Unit } from './source';
import type { Node } from '@babel/types';
import type { AnalysisOptions, AnalysisResult, Problem, RunnableDefinition, Span, TTLValueSite } from './types';

export interface CellInput {
  text: string;
  /** Editor language id (`javascript`, `typescript`...) or a file name. */
  language: string;
}

/**
 * Words without which a text holds no definition at all: every definition comes from a call of
 * one of these names (`runCommand`, `command`, `adminCommand` share "ommand") or carries a TTL
 * option or a driver type. A text with none of them is not parsed: most files of a workspace
 * define no index, and parsing is most of the cost.
 */
const NEEDED_WORDS = [
  'createIndex',
  'ensureIndex',
  'ommand',
  'createCollection',
  // expireAfterSeconds and its slips (expireAfterSecond, expireAfter); expires and expiresAfterSeconds.
  'expireAfter',
  'expires',
  'IndexOptions',
  'IndexDescription',
];

/** Whether a text has any word a definition needs (texts without one are not parsed). */
export function mayDefineIndexes(text: string): boolean {
  return NEEDED_WORDS.some((w) => text.includes(w));
}

const NOTHING: AnalysisResult = { problems: [], runnable: [], ttlValues: [], syntaxErrors: 0, partial: false };

/** Analyse a file's text; `fileNameOrLanguage` picks the parser (`.ts`, `.ttlbook`, `typescript`). */
export function analyzeText(text: string, fileNameOrLanguage: string, options: AnalysisOptions = {}): AnalysisResult {
  const kind = sourceKindOf(fileNameOrLanguage);
  if (!kind || !mayDefineIndexes(text)) return { ...NOTHING };
  return analyzeUnits(unitsOfFile(text, kind), options);
}

/** Analyse notebook cells together (later cells see earlier collections); offsets are per cell. */
export function analyzeCells(cells: readonly CellInput[], options: AnalysisOptions = {}): AnalysisResult {
  const units: Unit[] = [];
  cells.forEach((c, i) => {
    const kind: SourceKind | undefined = sourceKindOf(c.language);
    if (kind && kind !== 'ttlbook') units.push(parseUnit(c.text, kind, 0, i));
  });
  return analyzeUnits(units, options);
}

function merge(all: Definitions[]): Definitions {
  return {
    indexes: all.flatMap((d) => d.indexes),
    collections: all.flatMap((d) => d.collections),
    collMods: all.flatMap((d) => d.collMods),
    inserts: all.flatMap((d) => d.inserts),
    splitOptions: all.flatMap((d) => d.splitOptions),
    slips: all.flatMap((d) => d.slips),
  };
}

function analyzeUnits(units: Unit[], options: AnalysisOptions): AnalysisResult {
  const defs = merge(units.filter((u) => u.ast).map((u) => findDefinitions(u, options)));
  return checkDefinitions(
    defs,
    options,
    units.reduce((n, u) => n + u.syntaxErrors, 0),
    units.filter((u) => u.unreadFrom !== undefined),
  );
}

/** The definitions of one parsed unit. */
export function findDefinitions(unit: Unit, options: AnalysisOptions = {}): Definitions {
  const scan = scanUnit(unit.ast!.program);
  return new DefinitionFinder(unit, scan, scan, importedValues(options.imports)).find();
}

/** Every rule over the definitions of a whole input (one file, or a notebook's cells). */
export function checkDefinitions(
  defs: Definitions,
  options: AnalysisOptions,
  syntaxErrors: number,
  unread: readonly Unit[] = [],
): AnalysisResult {
  // The engine's checks answer by throwing EngineErrors, which the rules catch and read the
  // message of; their stack traces are never read, and capturing one costs more than the check.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return runChecks(defs, options, syntaxErrors, unread);
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

/** TTL022: where reading stopped, so a half-read file is never reported as checked in silence. */
function reportUnread(ctx: CheckContext, unit: Unit): void {
  const at = unit.unreadFrom!;
  const lineEnd = unit.text.indexOf('\n', at);
  const end = lineEnd < 0 ? unit.text.length : lineEnd;
  const span =
    unit.cell !== undefined
      ? { start: unit.base + at, end: unit.base + end, cell: unit.cell }
      : { start: unit.base + at, end: unit.base + end };
  ctx.reportSpan(
    'TTL022',
    span,
    `TTL checks stop here: the parser cannot read on${unit.unreadReason ? ` (${unit.unreadReason})` : ''}, so index definitions from here to the end are not checked. Fix the syntax here; if the code is valid, please report the construct.`,
  );
}

function runChecks(
  defs: Definitions,
  options: AnalysisOptions,
  syntaxErrors: number,
  unread: readonly Unit[],
): AnalysisResult {
  const ctx = new CheckContext(defs, options);
  for (const unit of unread) reportUnread(ctx, unit);
  const ttlValues: TTLValueSite[] = [];

  for (const c of defs.collections) {
    if (!c.ttl) continue;
    const seconds = checkTTLValue(ctx, {
      unit: c.unit,
      prop: c.ttl,
      value: plainValue(c.ttl.value),
      place: 'collection',
      optionName: 'expireAfterSeconds',
    });
    if (seconds !== undefined)
      ttlValues.push(
        site(c.unit, c.ttl.node, { seconds, ns: c.ns, collectionLevel: true, field: c.timeseries?.timeField ?? '_id' }),
      );
  }
  for (const m of defs.collMods) {
    if (m.indexTtl) {
      const seconds = checkTTLValue(ctx, {
        unit: m.unit,
        prop: m.indexTtl,
        value: plainValue(m.indexTtl.value),
        place: 'collMod',
        optionName: 'expireAfterSeconds',
      });
      const field = m.indexKey ? Object.keys(m.indexKey) : [];
      if (seconds !== undefined) {
        const s: TTLValueSite = site(m.unit, m.indexTtl.node, { seconds });
        if (m.ns) s.ns = m.ns;
        if (field.length === 1) s.field = field[0];
        ttlValues.push(s);
      }
    }
    if (m.collectionTtl && !(m.collectionTtl.value.kind === 'value' && m.collectionTtl.value.value === 'off')) {
      const seconds = checkTTLValue(ctx, {
        unit: m.unit,
        prop: m.collectionTtl,
        value: plainValue(m.collectionTtl.value),
        place: 'collection',
        optionName: 'expireAfterSeconds',
      });
      if (seconds !== undefined) {
        const s: TTLValueSite = site(m.unit, m.collectionTtl.node, { seconds });
        if (m.ns) s.ns = m.ns;
        s.collectionLevel = true;
        ttlValues.push(s);
      }
    }
  }
  for (const def of defs.indexes) {
    if (def.ttl?.value.kind === 'typed' && def.ttl.value.env !== undefined) {
      const { env, fallback } = def.ttl.value;
      if (def.ttl.key === 'expireAfterSeconds') {
        checkEnvValue(ctx, def.unit, def.ttl, env, fallback);
        ctx.failed.add(def);
      } else checkMongooseEnvValue(ctx, def.unit, def.ttl, env, fallback);
      continue;
    }
    if (!def.ttl || def.ttlValue === UNKNOWN) {
      checkSchemaDefinition(ctx, def, undefined);
      continue;
    }
    const before = ctx.problems.length;
    const seconds = checkTTLValue(ctx, {
      unit: def.unit,
      prop: def.ttl,
      value: def.ttlValue,
      place: 'createIndex',
      optionName: def.ttl.key,
    });
    checkIndexDefinition(ctx, def, seconds);
    checkSchemaDefinition(ctx, def, seconds);
    if (seconds !== undefined) {
      checkAgainstEngine(ctx, def);
      ttlValues.push(hoverSite(def, seconds));
    }
    // A definition that fails at runtime creates nothing a later one could conflict with.
    if (ctx.problems.slice(before).some((p) => p.severity === 'error')) ctx.failed.add(def);
  }
  checkDuplicates(ctx);
  checkSplitOptions(ctx);
  checkOptionSlips(ctx);

  const disabled = new Set(options.disabledRules ?? []);
  return {
    problems: dedupe(ctx.problems.filter((p) => !disabled.has(p.code))),
    runnable: runnableDefinitions(defs),
    ttlValues,
    syntaxErrors,
    partial: unread.length > 0,
  };
}

function hoverSite(def: IndexDef, seconds: number): TTLValueSite {
  const fields = def.keyValue ? Object.keys(def.keyValue) : [];
  const filter = def.spec?.partialFilterExpression;
  const s: TTLValueSite = site(def.unit, def.ttl!.node, { seconds });
  if (def.ns) s.ns = def.ns;
  if (fields.length === 1) s.field = fields[0];
  if (filter && typeof filter === 'object') s.partialFilterExpression = filter as Document;
  return s;
}

/**
 * A span with more properties, assigned one by one after start, end and cell (object spreads
 * are slow when there are thousands of results).
 */
function site<T extends object>(unit: Unit, node: Node, more: T): Span & T {
  const out = spanOf(unit, node) as Span & T;
  for (const key in more) (out as T)[key] = more[key];
  return out;
}

/** One problem per rule and place: shared options (createIndexes) would report it once per key. */
function dedupe(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  const out: Problem[] = [];
  for (const p of problems) {
    const id = `${p.code}:${p.cell ?? ''}:${p.start}:${p.end}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(p);
  }
  return out.sort((a, b) => (a.cell ?? 0) - (b.cell ?? 0) || a.start - b.start || a.code.localeCompare(b.code));
}

/** Definitions the "Apply to engine" lens can run: every part literal, the collection named. */
function runnableDefinitions(defs: Definitions): RunnableDefinition[] {
  const out: RunnableDefinition[] = [];
  const byCall = new Map<unknown, IndexDef[]>();
  for (const d of defs.indexes) {
    if (
      !d.call ||
      !d.ns ||
      (d.via !== 'createIndex' &&
        d.via !== 'ensureIndex' &&
        d.via !== 'createIndexes' &&
        d.via !== 'createIndexesCommand' &&
        d.via !== 'indexDescription')
    )
      continue;
    const list = byCall.get(d.call.node) ?? [];
    list.push(d);
    byCall.set(d.call.node, list);
  }
  for (const list of byCall.values()) {
    if (list.some((d) => !d.spec)) continue;
    const first = list[0];
    const call = first.call!;
    const expected =
      call.name === 'createIndexes' || call.name === 'runCommand' || call.name === 'command' ? undefined : 1;
    if (expected !== undefined && list.length !== expected) continue;
    out.push(
      site(first.unit, call.node, {
        label: `createIndexes on ${first.ns!.collection}`,
        ns: first.ns!,
        command: { createIndexes: first.ns!.collection, indexes: list.map((d) => d.spec!) },
      }),
    );
  }
  for (const c of defs.collections) {
    const opts = c.options ? plainValue(c.options) : {};
    if (opts === UNKNOWN || typeof opts !== 'object' || opts === null) continue;
    out.push(
      site(c.unit, c.site, {
        label: `create ${c.ns.collection}`,
        ns: c.ns,
        command: { create: c.ns.collection, ...(opts as Document) },
      }),
    );
  }
  for (const m of defs.collMods) {
    if (!m.ns || (!m.indexTtl && !m.collectionTtl)) continue;
    out.push(site(m.unit, m.site, { label: `collMod ${m.ns.collection}`, ns: m.ns, command: collModCommand(m) }));
  }
  return out.filter((r) => !hasUnknown(r.command)).sort((a, b) => (a.cell ?? 0) - (b.cell ?? 0) || a.start - b.start);
}

function hasUnknown(command: Document): boolean {
  for (const key in command) if (command[key] === UNKNOWN) return true;
  return false;
}

function collModCommand(m: Definitions['collMods'][number]): Document {
  const cmd: Document = { collMod: m.ns!.collection };
  if (m.indexTtl) {
    const v = plainValue(m.indexTtl.value);
    cmd.index = {
      ...(m.indexKey ? { keyPattern: m.indexKey } : {}),
      ...(m.indexName ? { name: m.indexName } : {}),
      expireAfterSeconds: v,
    };
    if (v === UNKNOWN || (!m.indexKey && !m.indexName)) cmd.index = UNKNOWN;
  }
  if (m.collectionTtl) cmd.expireAfterSeconds = plainValue(m.collectionTtl.value);
  return cmd;
}
