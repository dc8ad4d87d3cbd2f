/**
 * What each node of the "Databases" view shows: label, description, tooltip (Markdown), icon
 * (a codicon id), contextValue (space-separated words the menus' `when` clauses test with
 * `viewItem =~ /\bword\b/`) and whether it expands. Pure: the provider turns this into TreeItems,
 * and unit tests read it directly.
 */
import type { TTLIndexProblem } from '../../engine';
import type {
  BackendInfo,
  ClockInfo,
  CollectionInfo,
  ExpiryCountResult,
  IndexInfo,
  MonitorInfo,
  StorageInfo,
} from '../backend/backend';
import { describeCollection, formatBytes, KIND_WORDS, type CollectionKind } from '../logic/collection-description';
import { formatClockTime, formatCount, formatMillis, formatRelative, formatSeconds, plural } from '../logic/durations';
import { describeIndex, type IndexDescription } from '../logic/index-description';
import { valueBlock as mongoshValue } from '../logic/mongosh';

export interface Presentation {
  label: string;
  description?: string;
  /** Markdown. */
  tooltip?: string;
  icon?: { id: string; color?: string };
  contextValue: string;
  collapsible: 'none' | 'collapsed' | 'expanded';
  command?: { command: string; title: string; arguments?: unknown[] };
}

const WARNING_COLOR = 'problemsWarningIcon.foreground';

function codeBlock(text: string, lang = 'js'): string {
  return `\n\`\`\`${lang}\n${text}\n\`\`\`\n`;
}

export function flavorWords(info: BackendInfo): string {
  return info.flavor === 'cosmos' ? `Cosmos DB for MongoDB flavor (${info.serverVersion})` : `MongoDB ${info.version}`;
}

export function clockWords(clock: ClockInfo): string {
  if (clock.mode === 'virtual') return `virtual clock · ${formatClockTime(clock.now)}`;
  return clock.aheadMs > 0
    ? `system clock (+${formatMillis(clock.aheadMs)}) · ${formatClockTime(clock.now)}`
    : `system clock · ${formatClockTime(clock.now)}`;
}

/**
 * The embedded engine's facts for the view's title (`TreeView.description`): they stay in sight
 * while the view shows its welcome content instead of the engine's row. The time is left to the
 * status bar, which updates it as the clock moves.
 */
export function engineFacts(info: BackendInfo, clock: ClockInfo, storage: StorageInfo): string {
  const where = storage.mode === 'folder' ? (storage.readOnly ? 'data folder, read-only' : 'data folder') : 'in memory';
  return `${shortFlavorWords(info)} · ${clock.mode} clock · ${where}`;
}

/** The flavor in a few words, for the engine row's label: the sidebar's default width cuts more. */
export function shortFlavorWords(info: BackendInfo): string {
  return info.flavor === 'cosmos' ? `Cosmos DB ${info.serverVersion}` : `MongoDB ${info.version}`;
}

export function presentEngine(info: BackendInfo, clock: ClockInfo): Presentation {
  return {
    label: shortFlavorWords(info),
    description: `${info.label.toLowerCase()} · ${clockWords(clock)}`,
    tooltip: [
      `**${info.label}** (in-process, nothing leaves this window)`,
      '',
      `- Emulates: ${flavorWords(info)}`,
      `- Clock: ${clock.mode}${clock.mode === 'virtual' ? ' — moves only when you advance it (status bar, or *Advance Clock…*)' : ' — wall time'}`,
      `- Now: ${formatClockTime(clock.now)}`,
    ].join('\n'),
    icon: { id: clock.mode === 'virtual' ? 'history' : 'server-environment' },
    contextValue: `engine clock-${clock.mode}`,
    collapsible: 'expanded',
  };
}

export function presentMonitor(m: MonitorInfo, now: Date): Presentation {
  const state = !m.enabled ? 'disabled' : m.stoppedBecause ? 'stopped' : `every ${formatSeconds(m.sleepSecs)}`;
  const next = m.enabled && m.nextPassAt ? ` · next ${formatRelative(m.nextPassAt, now)}` : '';
  return {
    label: 'TTL Monitor',
    description: `${state}${next} · ${formatCount(m.deletedDocuments)} deleted`,
    tooltip: monitorDetails(m, now)
      .map((d) => `- ${d.label}: ${d.description}`)
      .join('\n'),
    icon: {
      id: m.enabled && !m.stoppedBecause ? 'watch' : 'debug-pause',
      ...(m.stoppedBecause && m.enabled ? { color: WARNING_COLOR } : {}),
    },
    contextValue: `monitor ${m.enabled ? 'enabled' : 'disabled'}`,
    collapsible: 'collapsed',
  };
}

export interface DetailRow {
  key: string;
  label: string;
  description: string;
}

export function monitorDetails(m: MonitorInfo, now: Date): DetailRow[] {
  const rows: DetailRow[] = [
    {
      key: 'enabled',
      label: 'Enabled',
      description: m.enabled ? 'yes (ttlMonitorEnabled)' : 'no (ttlMonitorEnabled: false)',
    },
    {
      key: 'sleep',
      label: 'Sleep',
      description: `${formatSeconds(m.sleepSecs)} between passes (ttlMonitorSleepSecs ${m.sleepSecs})`,
    },
    {
      key: 'last',
      label: 'Last pass',
      description: m.lastPassAt
        ? `${formatClockTime(m.lastPassAt)} (${formatRelative(m.lastPassAt, now)})${m.lastPassDeleted !== null ? ` · deleted ${formatCount(m.lastPassDeleted)}` : ''}`
        : 'none yet',
    },
    {
      key: 'next',
      label: 'Next pass',
      description:
        m.enabled && m.nextPassAt
          ? `${formatClockTime(m.nextPassAt)} (${formatRelative(m.nextPassAt, now)})`
          : 'none (disabled)',
    },
    {
      key: 'metrics',
      label: 'Metrics',
      description: `passes ${formatCount(m.passes)} · subPasses ${formatCount(m.subPasses)} · deletedDocuments ${formatCount(m.deletedDocuments)}`,
    },
  ];
  if (m.stoppedBecause && m.enabled)
    rows.push({ key: 'stopped', label: 'Not deleting', description: m.stoppedBecause });
  return rows;
}

export function presentDatabase(db: string, sizeOnDisk?: number): Presentation {
  return {
    label: db,
    ...(sizeOnDisk ? { description: formatBytes(sizeOnDisk) } : {}),
    icon: { id: 'database' },
    contextValue: 'database',
    collapsible: 'collapsed',
  };
}

const KIND_ICONS: Record<CollectionKind, string> = {
  plain: 'table',
  timeseries: 'graph-line',
  clustered: 'layers',
  capped: 'archive',
  view: 'eye',
};

export function presentCollection(info: CollectionInfo): Presentation {
  if (info.kind === 'view') return presentView(info);
  const hasCollectionTTL = info.options.expireAfterSeconds !== undefined;
  const words = [`collection`, info.kind];
  if (hasCollectionTTL) words.push('collectionTTL');
  if (info.kind === 'clustered' || info.kind === 'timeseries') words.push('canHaveCollectionTTL');
  return {
    label: info.name,
    description: describeCollection(info.kind, info.options, info.count),
    tooltip: [
      `**${info.db}.${info.name}** — ${KIND_WORDS[info.kind]}`,
      '',
      `${plural(info.count, 'document')} (from metadata)`,
      ...(Object.keys(info.options).length
        ? ['', 'Options:', codeBlock(mongoshValue(info.options))]
        : ['', 'No options (a plain collection).']),
    ].join('\n'),
    icon: { id: KIND_ICONS[info.kind] },
    contextValue: words.join(' '),
    collapsible: 'collapsed',
  };
}

function collectionFacts(info: CollectionInfo) {
  const ts = info.options.timeseries as { timeField: string; metaField?: string } | undefined;
  return { clustered: info.kind === 'clustered', ...(ts ? { timeseries: ts } : {}) };
}

export function describeIndexRow(index: IndexInfo, collection: CollectionInfo): IndexDescription {
  return describeIndex(index, collectionFacts(collection));
}

const INDEX_ICONS: Record<IndexDescription['kind'], string> = {
  id: 'key',
  ttl: 'watch',
  ttlAtDate: 'calendar',
  ttlInvalid: 'warning',
  ttlNeverApplies: 'circle-slash',
  plain: 'list-ordered',
};

export function presentIndex(index: IndexInfo, collection: CollectionInfo): Presentation {
  const d = describeIndexRow(index, collection);
  const words = ['index'];
  if (d.kind === 'id') words.push('idIndex');
  else words.push('droppable', d.hidden ? 'hidden' : 'visible');
  if (d.ttlApplies) words.push('ttl');
  if (d.kind === 'ttlInvalid') words.push('invalidTTL');
  if (d.kind === 'ttlNeverApplies') words.push('uselessTTL');
  if (d.convertible) words.push('convertible');
  const warn = d.kind === 'ttlInvalid' || d.kind === 'ttlNeverApplies';
  return {
    label: index.name,
    description: d.summary,
    // The tooltip is resolved on hover (indexTooltip): it needs counts.
    icon: { id: d.hidden && !warn ? 'eye-closed' : INDEX_ICONS[d.kind], ...(warn ? { color: WARNING_COLOR } : {}) },
    contextValue: words.join(' '),
    collapsible: 'none',
  };
}

function countText(n: number, capped: boolean): string {
  return capped ? `at least ${formatCount(n)}` : formatCount(n);
}

export function countsMarkdown(counts: ExpiryCountResult | undefined, kind?: CollectionInfo['kind']): string[] {
  if (!counts) return [];
  if (!counts.ok) return ['', `*Counts:* ${counts.reason}`];
  const c = counts.counts;
  return [
    '',
    `**Expired now:** ${countText(c.expiredNow, c.capped.expiredNow)} — the next TTL pass deletes them`,
    '',
    `**Due in the next ${formatSeconds(c.windowSeconds)}:** ${countText(c.dueWithinWindow, c.capped.dueWithinWindow)}`,
    '',
    kind === 'timeseries'
      ? `*(at ${formatClockTime(c.at)}; measurements go with their whole bucket, once the bucket's minimum time + its max span + expireAfterSeconds has passed)*`
      : `*(at ${formatClockTime(c.at)}, counted over the index range)*`,
  ];
}

export function indexTooltip(index: IndexInfo, collection: CollectionInfo, counts?: ExpiryCountResult): string {
  const d = describeIndexRow(index, collection);
  const lines = [`**${index.name}** — ${d.summary}`];
  if (d.warning) lines.push('', `$(warning) ${d.warning}`);
  lines.push(...countsMarkdown(counts, collection.kind));
  const spec = index.stored ? { ...index.spec, expireAfterSeconds: index.stored.expireAfterSeconds } : index.spec;
  lines.push(
    '',
    index.stored ? 'Spec (as stored in the catalog; listIndexes shows 2147483647):' : 'Spec:',
    codeBlock(mongoshValue(spec)),
  );
  return lines.join('\n');
}

/** A view: what it reads, its pipeline in the tooltip, no documents and no indexes to expand. */
function presentView(info: CollectionInfo): Presentation {
  return {
    label: info.name,
    description: describeCollection('view', info.options, 0),
    tooltip: [
      `**${info.db}.${info.name}** — ${KIND_WORDS.view} on \`${String(info.options.viewOn)}\``,
      '',
      'Pipeline:',
      codeBlock(mongoshValue(info.options.pipeline ?? [])),
    ].join('\n'),
    icon: { id: KIND_ICONS.view },
    contextValue: 'view',
    collapsible: 'none',
  };
}

export function presentCollectionTTL(collection: CollectionInfo, seconds: number): Presentation {
  const field = (collection.options.timeseries as { timeField?: string } | undefined)?.timeField ?? '_id';
  return {
    label: 'expireAfterSeconds',
    description:
      seconds === 0
        ? `collection TTL: expires at the date in ${field}`
        : `collection TTL ${formatSeconds(seconds)} after ${field}`,
    icon: { id: 'watch' },
    contextValue: `collectionTTLRow ${collection.kind}`,
    collapsible: 'none',
  };
}

export function collectionTTLTooltip(collection: CollectionInfo, seconds: number, counts?: ExpiryCountResult): string {
  const field = (collection.options.timeseries as { timeField?: string } | undefined)?.timeField ?? '_id';
  return [
    `**Collection-level TTL** of the ${KIND_WORDS[collection.kind]} ${collection.db}.${collection.name}`,
    '',
    `Documents expire ${seconds === 0 ? 'at' : `${formatSeconds(seconds)} after`} the date in \`${field}\`${collection.kind === 'clustered' ? ' (dates before 1970 and non-dates never expire)' : ''}.`,
    ...countsMarkdown(counts, collection.kind),
    '',
    `Change it with collMod: \`{collMod: "${collection.name}", expireAfterSeconds: <seconds> | "off"}\``,
  ].join('\n');
}

export function presentProblems(problems: TTLIndexProblem[]): Presentation {
  return {
    label: 'TTL index problems',
    description: problems.length === 0 ? 'none found' : `${problems.length} found`,
    tooltip:
      'TTL indexes whose stored expireAfterSeconds the monitor cannot use (from *Find NaN TTL Indexes*). They are also listed in the Problems panel.',
    icon: { id: problems.length ? 'warning' : 'pass', ...(problems.length ? { color: WARNING_COLOR } : {}) },
    contextValue: 'problems',
    collapsible: problems.length ? 'expanded' : 'none',
  };
}

export function problemWords(p: TTLIndexProblem): string {
  return p.problem === 'NaN'
    ? 'NaN — ignored by the monitor'
    : `expireAfterSeconds ${String(p.expireAfterSeconds)} (${p.problem})${p.problem === 'fractional' ? '' : ' — ignored by the monitor'}`;
}

export function presentProblem(p: TTLIndexProblem): Presentation {
  return {
    label: p.index,
    description: `${p.db}.${p.collection} · ${problemWords(p)}`,
    tooltip: `**${p.db}.${p.collection} › ${p.index}**: ${problemWords(p)}\n\nThe catalog stores expireAfterSeconds ${String(p.expireAfterSeconds)} for ${p.index}. Fix it with collMod (right-click › Fix expireAfterSeconds…).`,
    icon: { id: 'warning', color: WARNING_COLOR },
    contextValue: 'problem invalidTTL',
    collapsible: 'none',
  };
}

type DamageRecoveries = ReadonlyArray<{ at: string; notes: string[]; documents: Record<string, number> }>;

/** The tree row for damage recovered from the data folder (shown until acknowledged): short label, the rest in the description. */
export function storageDamageLabel(recoveries: DamageRecoveries): { label: string; description: string } {
  return {
    label: 'Data folder damage recovered',
    description:
      recoveries.length === 1 ? 'review and acknowledge' : `${recoveries.length} times · review and acknowledge`,
  };
}

/** What each recovery found and kept, for the row's tooltip (markdown). */
export function storageDamageTooltip(recoveries: DamageRecoveries): string {
  const parts = recoveries.map((r) => {
    const kept =
      Object.entries(r.documents)
        .map(([ns, n]) => `${ns}: ${n}`)
        .join(', ') || 'no documents';
    return [`**Recovered ${r.at}** (kept ${kept})`, ...r.notes.map((n) => `- ${n}`)].join('\n');
  });
  return [
    ...parts,
    '',
    'The damaged files are kept in the data folder under a second name. Click to acknowledge (they stay).',
  ].join('\n\n');
}
