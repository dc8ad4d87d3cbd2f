/**
 * Builds the script's world: a fresh node:vm context (user code never runs in the host's scope)
 * holding mongosh's globals — db, use, print/printjson/console, sleep, load (refused), it, the
 * BSON constructors, EJSON — plus the clock-reading Date and the `clock` / `ttl` helpers.
 */
import * as vm from 'node:vm';
import type { Engine } from '../engine';
import { Boundary } from './boundary';
import { createBsonGlobals } from './bson-globals';
import { ShellCursor } from './cursor';
import { createDatabase } from './database';
import { ScriptErrors, type RealmErrorConstructors } from './errors';
import { render, renderForPrint, renderForPrintjson } from './render';
import { ShellRuntime } from './runtime';
import { show } from './show';
import { createClockDate, ShellTime } from './time';

/** How many documents a displayed cursor (and each `it`) shows, as in mongosh. */
export const CURSOR_BATCH = 20;

/** mongosh's hint under a cursor batch with more to come. */
export const MORE_HINT = 'Type "it" for more';

/** What `it` evaluates to: the next documents of the last displayed cursor. */
export class CursorIterationResult {
  constructor(
    readonly documents: unknown[],
    readonly hasMore: boolean,
  ) {}
}

export interface ShellWorld {
  context: vm.Context;
  runtime: ShellRuntime;
}

interface RealmIntrinsics extends RealmErrorConstructors {
  Date: DateConstructor;
  RegExp: RegExpConstructor;
}

export function createShellWorld(engine: Engine, dbName: string): ShellWorld {
  const sandbox: Record<string, unknown> = {};
  const context = vm.createContext(sandbox, { name: 'TTL Workbench shell' });
  // The realm's own constructors, read before `Date` is replaced by the clock-reading one.
  const intrinsics = vm.runInContext(
    '({ Error, TypeError, RangeError, SyntaxError, ReferenceError, Date, RegExp })',
    context,
  ) as RealmIntrinsics;
  const now = () => engine.clock.now();
  const ScriptDate = createClockDate(now);
  // The script's `new Date()` is a host-realm object (the engine takes it as a Date), so the realm's
  // own `Object` would not count it: `new Date() instanceof Object` must hold, as in mongosh. Values
  // read back from the engine stay outside, as the driver's are in mongosh (the parity corpus has it).
  const realmObject = vm.runInContext('Object', context) as ObjectConstructor;
  Object.defineProperty(realmObject, Symbol.hasInstance, {
    value: (v: unknown): boolean =>
      Function.prototype[Symbol.hasInstance].call(realmObject, v) ||
      (typeof v === 'object' && v !== null && Object.prototype.isPrototypeOf.call(ScriptDate.prototype, v)),
    configurable: true,
  });
  const errors = new ScriptErrors(intrinsics);
  const boundary = new Boundary(intrinsics.Date, intrinsics.RegExp, ScriptDate);
  const runtime = new ShellRuntime(engine, dbName, errors, boundary, createDatabase);
  const time = new ShellTime(runtime);

  // A cursor argument prints its next batch (nothing when it has none), as mongosh's print does.
  const batchText = (cursor: ShellCursor, expanded: boolean): string => {
    const batch = cursor.takeBatch(CURSOR_BATCH);
    if (!batch.length) return '';
    const text = render(batch, { full: true, expanded }) ?? '';
    return cursor.hasMoreBatched() ? `${text}\n${MORE_HINT}` : text;
  };
  const print = (...args: unknown[]): void => {
    const text = args.map((a) => (a instanceof ShellCursor ? batchText(a, false) : renderForPrint(a))).join(' ');
    for (const line of text.split('\n')) runtime.print(line);
  };
  const printjson = (...args: unknown[]): void => {
    const text = args.map((a) => (a instanceof ShellCursor ? batchText(a, true) : renderForPrintjson(a))).join(' ');
    for (const line of text.split('\n')) runtime.print(line);
  };

  const globals: Record<string, unknown> = {
    ...createBsonGlobals(now, errors, boundary, (message) => runtime.print(`Warning: ${message}`)),
    Date: ScriptDate,
    MongoServerError: errors.MongoServerError,
    MongoBulkWriteError: errors.MongoBulkWriteError,
    use: (name: unknown) => runtime.use(name),
    show: (what: unknown) => show(runtime, what),
    print,
    printjson,
    console: Object.freeze({ log: print, info: print, warn: print, error: print, debug: print, dir: print }),
    sleep: (ms: unknown) => time.sleep(ms),
    load: () => {
      throw errors.error(
        'load() is not available in TTL Workbench: playground code cannot read files. Paste the code into the playground (or a notebook cell) instead.',
        'MongoshUnimplementedError',
      );
    },
    clock: time.clock,
    ttl: time.ttl,
  };
  for (const [name, value] of Object.entries(globals)) {
    Object.defineProperty(sandbox, name, { value, writable: true, configurable: true, enumerable: false });
  }
  Object.defineProperty(sandbox, 'db', {
    get: () => runtime.db,
    // mongosh allows `db = db.getSiblingDB("other")`: the same as use("other").
    set: (value: unknown) => {
      const name =
        typeof (value as { getName?: unknown } | null)?.getName === 'function'
          ? (value as { getName(): unknown }).getName()
          : undefined;
      if (typeof name !== 'string')
        throw errors.typeError('db can only be set to a database, e.g. db = db.getSiblingDB("other").');
      runtime.use(name);
    },
    configurable: true,
    enumerable: false,
  });
  Object.defineProperty(sandbox, 'it', {
    get: () => {
      const cursor = runtime.lastCursor;
      if (!cursor) return new CursorIterationResult([], false);
      return new CursorIterationResult(cursor.takeBatch(CURSOR_BATCH), cursor.hasMoreBatched());
    },
    configurable: true,
    enumerable: false,
  });
  return { context, runtime };
}
