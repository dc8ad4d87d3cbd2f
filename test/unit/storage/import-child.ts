/**
 * Not a test: the process the interrupted-import test kills. It opens a data folder (as the
 * extension does: default options), reads an export, says `S` just before "Import EJSON…"
 * (`importDatabaseText`: parse, then one command per create / createIndexes / batch of 10,000
 * documents), `B <n>` before its n-th command and `A <n>` once that command returned (stored:
 * fsync mode), `D <summary>` once the import returned; then it closes the folder and exits.
 * Output is written synchronously, so an acknowledgement the parent reads was really given.
 *   node import-child.js <dir> <export.json>
 */
import * as fs from 'node:fs';
import { VirtualClock, type Document } from '../../../src/engine';
import { importDatabaseText } from '../../../src/engine/storage/export';
import { closeStoredEngine, openStoredEngine } from '../../../src/storage/engine-store';

const say = (line: string) => fs.writeSync(1, `${line}\n`);
const [dir, file] = process.argv.slice(2);
const text = fs.readFileSync(file, 'utf8');
const opened = openStoredEngine(dir, { engine: { clock: new VirtualClock(Date.UTC(2026, 0, 1)) } });
const engine = opened.engine;
const run = engine.runCommand.bind(engine);
let commands = 0;
engine.runCommand = (db: string, command: Document): Document => {
  const n = ++commands;
  say(`B ${n}`);
  const reply = run(db, command);
  say(`A ${n}`);
  return reply;
};
say('S');
const summary = importDatabaseText(engine, text);
say(`D ${JSON.stringify(summary)}`);
closeStoredEngine(opened);
