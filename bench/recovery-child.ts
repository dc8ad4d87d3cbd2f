/**
 * Opens a data folder in a fresh process, as VS Code does after a restart, and prints what the
 * recovery took as one JSON line: wall-clock ms, this process's CPU ms (GC threads included), the
 * main thread's CPU ms (Linux schedstat; what the open takes on an idle machine, where the GC
 * helpers run beside it) and the document count of `db.coll` (argv: dir, db, coll).
 */
import * as fs from 'node:fs';
import { VirtualClock } from '../src/engine';
import { closeStoredEngine, openStoredEngine } from '../src/storage/engine-store';

const [dir, db, coll] = process.argv.slice(2);
const threadMs = (): number | undefined => {
  try {
    return Number(fs.readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ', 1)[0]) / 1e6;
  } catch {
    return undefined;
  }
};
const thread0 = threadMs();
const t = performance.now();
const cpu0 = process.cpuUsage();
const o = openStoredEngine(dir, { engine: { clock: new VirtualClock(Date.UTC(2026, 0, 1)) } });
const ms = performance.now() - t;
const cpu = process.cpuUsage(cpu0);
const thread1 = threadMs();
const count = o.engine.getCollection(db, coll)?.count ?? 0;
closeStoredEngine(o);
process.stdout.write(
  `${JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, threadMs: thread0 === undefined || thread1 === undefined ? undefined : thread1 - thread0, maxRssMb: process.resourceUsage().maxRSS / 1024, count })}\n`,
);
