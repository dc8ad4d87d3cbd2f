/**
 * How far a replica set's secondaries are behind its primary, for the monitor node: TTL deletes run
 * on the primary only, and a secondary shows them once it has replicated them. Read from
 * `replSetGetStatus` (each member's `optimeDate` against the primary's) when the user may run it;
 * otherwise the connected member's own `hello` says when it applied its last write
 * (`lastWrite.lastWriteDate`), which bounds its lag only while the primary keeps writing.
 * Pure: no driver, no `vscode`.
 */
import type { Document } from '../../engine';

export interface MemberLag {
  name: string;
  behindMs: number;
}

export type LagReport =
  | { source: 'replSetGetStatus'; setName?: string; primary?: string; secondaries: MemberLag[] }
  | { source: 'hello'; member: string; kind: 'primary' | 'secondary'; lastWriteAgoMs: number }
  | { source: 'none'; why: string };

function dateMs(v: unknown): number | undefined {
  return v instanceof Date && !Number.isNaN(v.getTime()) ? v.getTime() : undefined;
}

/** Each SECONDARY's optimeDate against the PRIMARY's, from a replSetGetStatus reply. */
export function lagFromStatus(status: Document): LagReport {
  const members = Array.isArray(status.members) ? (status.members as Document[]) : [];
  const primary = members.find((m) => m.stateStr === 'PRIMARY');
  const setName = typeof status.set === 'string' ? status.set : undefined;
  const primaryAt = dateMs(primary?.optimeDate);
  if (!primary || primaryAt === undefined)
    return {
      source: 'none',
      why: `replSetGetStatus shows no primary${setName ? ` in replica set ${setName}` : ''}: there is nothing to measure lag against, and no TTL deletes run until one is elected`,
    };
  const secondaries: MemberLag[] = [];
  for (const m of members) {
    if (m.stateStr !== 'SECONDARY') continue;
    const at = dateMs(m.optimeDate);
    if (at === undefined) continue;
    secondaries.push({ name: String(m.name), behindMs: Math.max(0, primaryAt - at) });
  }
  return {
    source: 'replSetGetStatus',
    ...(setName ? { setName } : {}),
    primary: String(primary.name),
    secondaries,
  };
}

/** The connected member's own last write, from its hello (when replSetGetStatus is not allowed). */
export function lagFromHello(hello: Document, nowMs: number): LagReport {
  const member = typeof hello.me === 'string' ? hello.me : 'this member';
  const last = dateMs((hello.lastWrite as Document | undefined)?.lastWriteDate);
  if (last === undefined)
    return { source: 'none', why: `${member}'s hello reply carries no lastWrite: its lag is not visible` };
  const writable = hello.isWritablePrimary === true || hello.ismaster === true;
  return {
    source: 'hello',
    member,
    kind: writable ? 'primary' : 'secondary',
    lastWriteAgoMs: Math.max(0, nowMs - last),
  };
}

/** A lag in words: "4 s", "3 min 5 s", "2 h 10 min". */
export function lagText(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return s % 60 ? `${min} min ${s % 60} s` : `${min} min`;
  const h = Math.floor(min / 60);
  return min % 60 ? `${h} h ${min % 60} min` : `${h} h`;
}

/** The monitor node's lines: one per secondary ("secondary db2:27017 is 4 s behind"), or why none. */
export function lagWords(report: LagReport): string[] {
  switch (report.source) {
    case 'none':
      return [`Replication lag: ${report.why}.`];
    case 'hello':
      return report.kind === 'primary'
        ? [
            `Replication lag: not visible from here (replSetGetStatus was refused; needs the clusterMonitor role). ${report.member}, the primary, last wrote ${lagText(report.lastWriteAgoMs)} ago.`,
          ]
        : [
            `secondary ${report.member} applied its last write ${lagText(report.lastWriteAgoMs)} ago (from its hello; replSetGetStatus was refused, so its lag behind the primary is at most that while the primary keeps writing).`,
          ];
    case 'replSetGetStatus':
      if (report.secondaries.length === 0)
        return [
          `${report.setName ? `replica set ${report.setName}` : 'the replica set'} has no secondaries: TTL deletes on ${report.primary ?? 'the primary'} have nothing to replicate to.`,
        ];
      return report.secondaries.map((m) =>
        m.behindMs < 1000
          ? `secondary ${m.name} is up to date`
          : `secondary ${m.name} is ${lagText(m.behindMs)} behind`,
      );
  }
}
