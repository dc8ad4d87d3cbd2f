/**
 * Opens a data folder in a fresh process, as VS Code does after a restart, and prints what the
 * recovery took as one JSON line: wall-clock ms, this process's CPU ms (GC threads included) and
 * the document count of `db.coll` (argv: dir, db, coll).
 */
import { VirtualClock } from '../src/engine';
import { closeStoredEngine, openStoredEngine } from '../src/storage/engine-store';

const [dir, db, coll] = process.argv.slice(2);
const t = performance.now();
const cpu0 = process.cpuUsage();
const o = openStoredEngine(dir, { engine: { clock: new VirtualClock(Date.UTC(2026, 0, 1)) } });
const ms = performance.now() - t;
const cpu = process.cpuUsage(cpu0);
const count = o.engine.getCollection(db, coll)?.count ?? 0;
closeStoredEngine(o);
process.stdout.write(`${JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, count })}\n`);
