/**
 * Runs each reference entry's sample against a fresh engine and says what happened: supported
 * (the engine ran it without an error) or refused (the error's code, codeName and message).
 * Commands go through the wire endpoint's command path, so the endpoint's own commands
 * (hello, sessions, server commands) count as a driver would see them.
 */
import { Engine, VirtualClock } from '../engine';
import { EngineError } from '../engine/errors';
import type { Document } from '../engine/values/types';
import { runWireCommand, type ConnectionState } from '../wire/commands';
import { CursorOwners } from '../wire/cursor-owners';
import { PipelineSample, SAMPLE_DOCUMENTS, type Entry, type RunCommand } from './reference';

export interface Outcome {
  readonly entry: Entry;
  readonly supported: boolean;
  readonly code?: number;
  readonly codeName?: string;
  readonly message?: string;
}

/** A fixed clock keeps messages that quote times the same from run to run. */
const PROBE_TIME = new Date('2026-03-06T00:00:00Z');

export function probeAll(entries: readonly Entry[]): Outcome[] {
  return entries.map(probe);
}

export function probe(entry: Entry): Outcome {
  // A one-member replica set, as `serve --replSet` runs it: what a standalone refuses for that reason
  // alone (change streams) is counted as what the engine can do.
  const engine = new Engine({ clock: new VirtualClock(PROBE_TIME), replSetName: 'rs0' });
  try {
    engine.runCommand('compat', { insert: 'c', documents: SAMPLE_DOCUMENTS.map((d) => ({ ...d })) });
    engine.runCommand('compat', { createIndexes: 'c', indexes: [{ key: { a: 1 }, name: 'a_1' }] });
    const reply = run(engine, entry);
    return outcome(entry, reply);
  } catch (err) {
    if (err instanceof EngineError)
      return { entry, supported: false, code: err.code, codeName: err.codeName, message: err.message };
    throw err;
  } finally {
    engine.close();
  }
}

function outcome(entry: Entry, reply: Document): Outcome {
  const firstWriteError = Array.isArray(reply.writeErrors) ? (reply.writeErrors[0] as Document | undefined) : undefined;
  const failure = reply.ok === 1 || reply.ok === 1.0 ? firstWriteError : reply;
  if (!failure) return { entry, supported: true };
  return {
    entry,
    supported: false,
    code: typeof failure.code === 'number' ? failure.code : undefined,
    codeName: typeof failure.codeName === 'string' ? failure.codeName : undefined,
    message: typeof failure.errmsg === 'string' ? failure.errmsg : undefined,
  };
}

function run(engine: Engine, entry: Entry): Document {
  const sample = entry.sample;
  const name = entry.name;
  switch (entry.family) {
    case 'command':
      return runCommandSample(engine, sample);
    case 'query':
      return engine.runCommand('compat', { find: 'c', filter: sample });
    case 'projection': {
      const { filter = {}, projection } = sample as { filter?: Document; projection: Document };
      return engine.runCommand('compat', { find: 'c', filter, projection });
    }
    case 'update': {
      const { q = { _id: 1 }, ...rest } = sample as Document;
      return engine.runCommand('compat', { update: 'c', updates: [{ q, ...rest }] });
    }
    case 'stage': {
      const p = sample instanceof PipelineSample ? sample : new PipelineSample([{ [name]: sample }]);
      return engine.runCommand(p.db, { aggregate: p.aggregate, pipeline: p.pipeline, cursor: {} });
    }
    case 'expression':
      return aggregate(engine, [{ $project: { x: { [name]: sample } } }]);
    case 'accumulator':
      return aggregate(engine, [{ $group: { _id: null, x: { [name]: sample } } }]);
    case 'window':
      return aggregate(engine, [{ $setWindowFields: { sortBy: { a: 1 }, output: { x: sample as Document } } }]);
    case 'indexType':
    case 'indexOption':
      return engine.runCommand('compat', { createIndexes: 'c', indexes: [sample as Document] });
  }
}

function aggregate(engine: Engine, pipeline: Document[]): Document {
  return engine.runCommand('compat', { aggregate: 'c', pipeline, cursor: {} });
}

function runCommandSample(engine: Engine, sample: unknown): Document {
  const connection: ConnectionState = { id: 1, remote: '127.0.0.1:50000', owners: new CursorOwners(() => engine) };
  const runWire: RunCommand = (db, command) => runWireCommand(engine, connection, { ...command, $db: db });
  if (typeof sample === 'function') return (sample as (run: RunCommand) => Document)(runWire);
  const { db, command } = sample as { db: string; command: Document };
  return runWire(db, command);
}
