/**
 * What a move of the virtual clock will make eligible for deletion, before the user confirms it:
 * for every TTL rule the monitor applies (a TTL index, a clustered or time-series collection's own
 * expireAfterSeconds), the documents already expired plus those whose expiry falls within the jump,
 * counted by the engine over the index range (`Backend.expiryCounts`), never by a scan. No `vscode`.
 */
import type { Backend, CollectionInfo, IndexInfo } from '../backend/backend';
import { describeIndex } from './index-description';
import { formatCount, plural } from './durations';

export interface JumpTarget {
  /** `app.events › createdAt_1`, or `app.logs (collection TTL)`. */
  where: string;
  /** Eligible after the jump: expired now plus due within it. */
  eligible: number;
  /** The count stopped at the cap (at least that many). */
  atLeast: boolean;
}

export interface JumpPreview {
  targets: JumpTarget[];
  /** Sum over the targets (a document under two TTL indexes counts under each). */
  eligible: number;
  atLeast: boolean;
  /** Rules whose count the engine could not give (a hidden index), by where they are. */
  uncounted: string[];
}

/** Counts stop here per rule, so previewing a jump never waits for a big count. */
export const JUMP_PREVIEW_CAP = 100_000;

type Rule = { where: string; target: IndexInfo | { db: string; collection: string; collectionSeconds: number } };

async function rulesOf(backend: Backend): Promise<Rule[]> {
  const rules: Rule[] = [];
  for (const d of await backend.listDatabases()) {
    const collections: CollectionInfo[] = await backend.listCollections(d.name);
    for (const c of collections) {
      const ns = `${c.db}.${c.name}`;
      // Stored as a Long (mongod's type for it); undefined without a collection TTL.
      const own = c.options.expireAfterSeconds === undefined ? NaN : Number(String(c.options.expireAfterSeconds));
      if ((c.kind === 'clustered' || c.kind === 'timeseries') && Number.isFinite(own))
        rules.push({
          where: `${ns} (collection TTL)`,
          target: { db: c.db, collection: c.name, collectionSeconds: own },
        });
      const timeseries = c.options.timeseries as { timeField: string; metaField?: string } | undefined;
      const facts = { clustered: c.kind === 'clustered', ...(timeseries ? { timeseries } : {}) };
      for (const ix of await backend.listIndexes(c.db, c.name))
        if (describeIndex(ix, facts).ttlApplies) rules.push({ where: `${ns} › ${ix.name}`, target: ix });
    }
  }
  return rules;
}

/** What moving the clock `ms` ahead makes eligible, per TTL rule of the engine. */
export async function previewClockJump(backend: Backend, ms: number, cap = JUMP_PREVIEW_CAP): Promise<JumpPreview> {
  const windowSeconds = Math.max(0, Math.floor(ms / 1000));
  const rules = await rulesOf(backend);
  const results = await Promise.all(rules.map((r) => backend.expiryCounts(r.target, windowSeconds, cap)));
  const preview: JumpPreview = { targets: [], eligible: 0, atLeast: false, uncounted: [] };
  results.forEach((result, i) => {
    if (!result.ok) {
      preview.uncounted.push(rules[i].where);
      return;
    }
    const c = result.counts;
    const atLeast = c.capped.expiredNow || c.capped.dueWithinWindow;
    const eligible = c.expiredNow + c.dueWithinWindow;
    preview.eligible += eligible;
    preview.atLeast ||= atLeast;
    if (eligible > 0) preview.targets.push({ where: rules[i].where, eligible, atLeast });
  });
  preview.targets.sort((a, b) => b.eligible - a.eligible);
  return preview;
}

/** The preview in one line, for a quick pick item's detail or an input box's message. */
export function jumpPreviewWords(p: JumpPreview, maxTargets = 3): string {
  const unknown = p.uncounted.length
    ? ` (${plural(p.uncounted.length, 'hidden TTL index', 'hidden TTL indexes')} not counted)`
    : '';
  if (p.eligible === 0) return `No document becomes eligible for deletion${unknown}.`;
  const count = (n: number, atLeast: boolean) => `${atLeast ? 'at least ' : ''}${formatCount(n)}`;
  const shown = p.targets.slice(0, maxTargets).map((t) => `${t.where}: ${count(t.eligible, t.atLeast)}`);
  if (p.targets.length > maxTargets) shown.push(`${p.targets.length - maxTargets} more`);
  const total = count(p.eligible, p.atLeast);
  const word = p.eligible === 1 && !p.atLeast ? 'document becomes' : 'documents become';
  return `${total[0].toUpperCase()}${total.slice(1)} ${word} eligible for deletion — ${shown.join(', ')}${unknown}.`;
}
