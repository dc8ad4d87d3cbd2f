/**
 * Not a test: the process the recovery kill test kills. It says `S` as it starts opening a data
 * folder (which, for a damaged folder, saves the recovered state), then closes it and exits.
 *   node recovery-child.js <dir>
 */
import * as fs from 'node:fs';
import { VirtualClock } from '../../../src/engine';
import { closeStoredEngine, openStoredEngine } from '../../../src/storage/engine-store';

const [dir] = process.argv.slice(2);
fs.writeSync(1, 'S\n');
const opened = openStoredEngine(dir, { engine: { clock: new VirtualClock(Date.UTC(2026, 0, 1)) }, autoCompact: false });
closeStoredEngine(opened);
