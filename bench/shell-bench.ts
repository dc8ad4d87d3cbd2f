/**
 * The shell's overhead (issue: the shell): statements per second for a trivial
 * `db.c.insertOne({...})` loop evaluated by ShellSession, against the same inserts through the
 * engine's typed API, in one process. Target: the shell costs under 3x the direct calls.
 */
import { Engine, VirtualClock } from '../src/engine';
import { ShellSession } from '../src/shell/session';

function best(runs: number, fn: () => number): number {
  let top = 0;
  for (let i = 0; i < runs; i++) top = Math.max(top, fn());
  return top;
}

function perSecond(n: number, start: bigint): number {
  return n / (Number(process.hrtime.bigint() - start) / 1e9);
}

export function runShellBench(n = 50_000): void {
  const out = (s: string) => process.stdout.write(`${s}\n`);
  const direct = best(3, () => {
    const engine = new Engine({ clock: new VirtualClock(Date.UTC(2026, 0, 1)) });
    const c = engine.db('test').collection('c');
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) c.insertOne({ i, name: 'x', at: new Date() });
    const rate = perSecond(n, start);
    engine.close();
    return rate;
  });
  const shell = best(3, () => {
    const engine = new Engine({ clock: new VirtualClock(Date.UTC(2026, 0, 1)) });
    const session = new ShellSession({ engine, timeoutMs: 600_000 });
    const start = process.hrtime.bigint();
    const result = session.evaluate(`for (let i = 0; i < ${n}; i++) db.c.insertOne({ i, name: 'x', at: new Date() })`);
    const rate = perSecond(n, start);
    if (!result.ok) throw new Error(`shell bench failed: ${result.statements.at(-1)?.error?.message}`);
    engine.close();
    return rate;
  });
  out('\n# Shell overhead (insertOne loop, best of 3)');
  out('| path | inserts/s |');
  out('| --- | ---: |');
  out(`| engine API (collection handle) | ${Math.round(direct).toLocaleString('en-US')} |`);
  out(`| shell (ShellSession.evaluate) | ${Math.round(shell).toLocaleString('en-US')} |`);
  const ratio = direct / shell;
  out(`shell costs ${ratio.toFixed(2)}x the direct calls: target < 3x ${ratio < 3 ? 'PASS' : 'MISS'}`);
}

if (require.main === module) runShellBench();
