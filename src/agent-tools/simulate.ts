/**
 * ttl_simulate: a mongosh snippet on a fresh engine of its own with a virtual clock, through the
 * same playground session a notebook cell uses (each top-level statement under the cell time
 * limit). The snippet's top-level statements are run one at a time, hoisted function declarations
 * first as a script runs them, so that the clock and the TTL monitor can be read between
 * statements wherever the engine runs: every move of the clock is reported with the statement
 * that made it, the passes it ran and the documents they deleted.
 */
import { errorText } from '../shell/cell-outputs';
import { ShellSyntaxError, splitStatements, type Statement } from '../shell/statements';
import type { Backend, PlaygroundEvent } from '../extension/backend/backend';
import { formatCount, formatMillis } from '../extension/logic/durations';
import type { ToolHost } from './host';
import { capJson, capList, capText, LIMITS } from './limits';
import { parseNow } from './values';

export interface SimulateInput {
  code: string;
  now?: string;
  flavor?: 'mongodb' | 'cosmos';
  serverVersion?: '8.0' | '7.0';
  timeLimitMs?: number;
}

interface StatementReport {
  line: number;
  source: string;
  printed?: string[];
  omittedPrintedLines?: number;
  result?: unknown;
  error?: { name: string; code?: number; codeName?: string; message: string; line?: number };
  clock?: { from: string; to: string; advanced: string; ttlPasses: number; deleted: number };
}

function outputsReport(events: PlaygroundEvent[], report: StatementReport): boolean {
  let ok = true;
  const printed: string[] = [];
  for (const e of events) {
    if (e.kind === 'print') {
      printed.push(...e.text.split('\n'));
      continue;
    }
    ok = e.ok;
    for (const o of e.outputs) {
      if (o.kind === 'print') printed.push(...o.text.split('\n'));
      else if (o.kind === 'error')
        report.error = {
          name: o.name,
          ...(o.code !== undefined ? { code: o.code } : {}),
          ...(o.codeName ? { codeName: o.codeName } : {}),
          message: capText(o.message, 1000),
          ...(o.line !== undefined ? { line: o.line } : {}),
        };
      else if (o.shape === 'documents' && Array.isArray(o.json)) {
        const { items, omitted } = capList(o.json, LIMITS.documents);
        report.result = {
          documents: items.map((d) => capJson(d)),
          ...(omitted ? { omittedDocuments: omitted } : {}),
          ...(o.hasMore ? { cursorHasMore: true } : {}),
        };
      } else if (o.shape === 'document' && o.json !== undefined) report.result = capJson(o.json);
      else report.result = capText(o.text);
    }
  }
  if (printed.length) {
    const { items, omitted } = capList(printed, LIMITS.printLines);
    report.printed = items.map((l) => capText(l, 500));
    if (omitted) report.omittedPrintedLines = omitted;
  }
  return ok;
}

async function snapshot(engine: Backend) {
  const [clock, monitor] = await Promise.all([engine.clock(), engine.monitorStatus()]);
  return { now: clock.now, passes: monitor.passes, deleted: monitor.deletedDocuments };
}

async function whatIsLeft(engine: Backend) {
  const out: Array<{ namespace: string; documents: number }> = [];
  for (const db of await engine.listDatabases())
    for (const c of await engine.listCollections(db.name))
      out.push({ namespace: `${c.db}.${c.name}`, documents: c.count });
  return capList(out, LIMITS.collections);
}

export async function simulate(host: ToolHost, input: SimulateInput) {
  const startMs = parseNow(input.now, 'ttl_simulate');
  const timeLimitMs = input.timeLimitMs ?? host.settings().timeLimitMs;
  let statements: Statement[] | undefined;
  try {
    statements = splitStatements(input.code);
  } catch (err) {
    if (!(err instanceof ShellSyntaxError)) throw err;
  }
  const engine = await host.scratch(
    { clock: 'virtual', flavor: input.flavor ?? 'mongodb', serverVersion: input.serverVersion ?? '8.0' },
    startMs,
  );
  try {
    const session = await engine.openPlayground({ timeoutMs: timeLimitMs });
    const reports: StatementReport[] = [];
    let ok = true;
    try {
      const runOne = async (source: string, line: number, column: number, shown: string) => {
        const before = await snapshot(engine);
        const events: PlaygroundEvent[] = [];
        // The statement keeps its place in the snippet: errors point at the snippet's lines and columns.
        const run = session.run(`${' '.repeat(column - 1)}${source}`, { filename: 'snippet.js', lineOffset: line - 1 });
        for (let step = await run.next(); !step.done; step = await run.next()) events.push(step.value);
        const report: StatementReport = { line, source: capText(shown, 300) };
        const fine = outputsReport(events, report);
        const after = await snapshot(engine);
        if (after.now.getTime() !== before.now.getTime()) {
          report.clock = {
            from: before.now.toISOString(),
            to: after.now.toISOString(),
            advanced: formatMillis(after.now.getTime() - before.now.getTime()),
            ttlPasses: after.passes - before.passes,
            deleted: after.deleted - before.deleted,
          };
        }
        reports.push(report);
        return fine;
      };
      if (statements === undefined) {
        // A syntax error: the session reports it as a notebook cell would.
        ok = await runOne(input.code, 1, 1, input.code.split('\n')[0]);
      } else {
        const order = [...statements.filter((s) => s.hoisted), ...statements.filter((s) => !s.hoisted)];
        for (const s of order) {
          ok = await runOne(s.source, s.line, s.column, s.source);
          if (!ok) break;
        }
      }
    } finally {
      session.dispose();
    }
    const end = await snapshot(engine);
    const left = await whatIsLeft(engine);
    const moves = reports.filter((r) => r.clock);
    const failed = reports.find((r) => r.error);
    const { items, omitted } = capList(reports, LIMITS.statements);
    const deleted = end.deleted;
    return {
      ok,
      summary: `${ok ? `Ran ${reports.length} statement${reports.length === 1 ? '' : 's'}` : `Stopped at line ${failed?.line}: ${failed?.error ? errorText({ kind: 'error', text: '', ...failed.error }, 'snippet.js') : 'error'}`}. The clock moved ${moves.length} time${moves.length === 1 ? '' : 's'} (${new Date(startMs).toISOString()} → ${end.now.toISOString()}); the TTL monitor ran ${formatCount(end.passes)} pass${end.passes === 1 ? '' : 'es'} and deleted ${formatCount(deleted)} document${deleted === 1 ? '' : 's'}.`,
      statements: items,
      ...(omitted ? { omittedStatements: omitted } : {}),
      clock: { start: new Date(startMs).toISOString(), end: end.now.toISOString() },
      ttl: { passes: end.passes, deletedDocuments: deleted },
      collections: left.items,
      ...(left.omitted ? { omittedCollections: left.omitted } : {}),
      timeLimitMs,
    };
  } finally {
    engine.dispose();
  }
}
