/**
 * mongosh cursors over the engine's cursor commands: a find or aggregate command opens the cursor
 * on first use, getMore fetches the following batches, killCursors closes one early. Modifiers
 * (sort, limit, …) only apply before the first document is read, as in mongosh. Displaying a cursor
 * shows its next 20 documents (`takeBatch`), and `it` continues from there.
 */
import type { Document } from '../engine';
import { fullDepth, shellDisplay } from './render';
import type { IterableCursor, ShellRuntime } from './runtime';

type Transform = (doc: unknown) => unknown;

/**
 * getMore's batch when none was set: without one the engine hands over everything left, so a
 * large result shown 20 at a time would be copied whole on the first `it`.
 */
const GET_MORE_BATCH = 1000;

/**
 * Scripts see a cursor's methods, not its state: state fields are made non-enumerable so that
 * EJSON or JSON of a value holding a cursor never walks into the runtime (and the engine).
 */
function hideState(cursor: object): void {
  for (const key of Object.keys(cursor)) Object.defineProperty(cursor, key, { enumerable: false });
}

function isZeroId(id: unknown): boolean {
  if (id === undefined || id === null) return true;
  if (typeof id === 'number' || typeof id === 'bigint') return Number(id) === 0;
  const long = id as { isZero?: () => boolean };
  return typeof long.isZero === 'function' ? long.isZero() : false;
}

export abstract class ShellCursor implements IterableCursor {
  private buffer: unknown[] = [];
  private position = 0;
  private cursorId: unknown;
  private started = false;
  private closed = false;
  private readonly transforms: Transform[] = [];
  protected batch: number | undefined;
  protected timeLimit: unknown;

  constructor(
    protected readonly rt: ShellRuntime,
    protected readonly dbName: string,
    protected readonly collection: string,
  ) {
    hideState(this);
  }

  /** The command that opens the cursor (find or aggregate). */
  protected abstract openCommand(): Document;
  /** The explain command of the same query. */
  protected abstract explainCommand(verbosity: string): Document;

  protected assertNotStarted(method: string): void {
    if (this.started) {
      throw this.rt.errors.error(
        `Cannot call ${method}() on a cursor that has already returned documents: call it before reading results (next, toArray, forEach, display).`,
        'MongoshInvalidInputError',
      );
    }
  }

  /** Ensure a document is buffered; false once the cursor is exhausted or closed. */
  private fill(): boolean {
    if (!this.started) {
      this.started = true;
      const reply = this.rt.run(this.dbName, this.openCommand());
      const cursor = reply.cursor as Document;
      this.buffer = this.rt.out(cursor.firstBatch as Document[]);
      this.cursorId = cursor.id;
    }
    while (this.position >= this.buffer.length) {
      if (this.closed || isZeroId(this.cursorId)) return false;
      const reply = this.rt.run(this.dbName, {
        getMore: this.cursorId,
        collection: this.collection,
        batchSize: this.batch || GET_MORE_BATCH,
      });
      const cursor = reply.cursor as Document;
      this.buffer = this.rt.out(cursor.nextBatch as Document[]);
      this.position = 0;
      this.cursorId = cursor.id;
    }
    return true;
  }

  private take(): unknown {
    let doc = this.buffer[this.position];
    this.buffer[this.position++] = undefined; // release what was handed out
    for (const t of this.transforms) doc = t(doc);
    return doc;
  }

  hasNext(): boolean {
    return this.fill();
  }

  /** The next document, or null when there is none (as in mongosh 2.x). */
  next(): unknown {
    return this.fill() ? this.take() : null;
  }

  tryNext(): unknown {
    return this.next();
  }

  toArray(): unknown[] {
    const out: unknown[] = [];
    while (this.fill()) out.push(this.take());
    return out;
  }

  forEach(fn: unknown): void {
    const f = this.requireFunction(fn, 'forEach');
    while (this.fill()) {
      if (f(this.take()) === false) break;
    }
  }

  /** Applies `fn` to every document read from now on; returns the cursor (mongosh's map). */
  map(fn: unknown): this {
    this.transforms.push(this.requireFunction(fn, 'map'));
    return this;
  }

  /** How many documents are left, reading them all. */
  itcount(): number {
    let n = 0;
    while (this.fill()) {
      this.take();
      n++;
    }
    return n;
  }

  batchSize(size: unknown): this {
    if (typeof size !== 'number' || !(size >= 0)) throw this.rt.errors.typeError('batchSize() needs a number >= 0.');
    this.batch = size;
    return this;
  }

  /** The time limit of the command that opens the cursor (maxTimeMS; the engine validates it as mongod does). */
  maxTimeMS(ms: unknown): this {
    this.assertNotStarted('maxTimeMS');
    this.timeLimit = this.rt.in(ms);
    return this;
  }

  /** `{maxTimeMS}` for the opening command, when one was set. */
  protected timeLimitField(): Document {
    return this.timeLimit === undefined ? {} : { maxTimeMS: this.timeLimit };
  }

  /** The legacy shell's pretty(): mongosh output is always pretty. */
  pretty(): this {
    return this;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer = [];
    this.position = 0;
    if (this.started && !isZeroId(this.cursorId)) {
      this.rt.run(this.dbName, { killCursors: this.collection, cursors: [this.cursorId] });
    }
  }

  isClosed(): boolean {
    return this.closed;
  }

  /** How many documents are read from the server and not handed out yet. */
  objsLeftInBatch(): number {
    return this.buffer.length - this.position;
  }

  isExhausted(): boolean {
    return this.closed || (this.started && this.position >= this.buffer.length && isZeroId(this.cursorId));
  }

  explain(verbosity: unknown = 'queryPlanner'): Document {
    const mode = verbosity === true ? 'allPlansExecution' : verbosity === false ? 'queryPlanner' : verbosity;
    if (typeof mode !== 'string')
      throw this.rt.errors.typeError(
        'explain() verbosity must be "queryPlanner", "executionStats" or "allPlansExecution".',
      );
    const reply = this.rt.out(this.rt.run(this.dbName, this.explainCommand(mode)));
    fullDepth.add(reply);
    return reply;
  }

  /** Nested in another value, a cursor prints as its kind and namespace (its documents print when it is the result). */
  [shellDisplay](): string {
    return `${this.constructor.name}(${this.dbName}.${this.collection})`;
  }

  *[Symbol.iterator](): Generator<unknown> {
    while (this.fill()) yield this.take();
  }

  /** Up to `max` next documents, for display (and `it`). */
  takeBatch(max: number): unknown[] {
    const out: unknown[] = [];
    while (out.length < max && this.fill()) out.push(this.take());
    return out;
  }

  /** Whether documents remain, without fetching (the engine closes a cursor once it is drained). */
  hasMoreBatched(): boolean {
    if (this.closed) return false;
    if (!this.started) return true;
    return this.position < this.buffer.length || !isZeroId(this.cursorId);
  }

  protected requireFunction(fn: unknown, method: string): Transform {
    if (typeof fn !== 'function')
      throw this.rt.errors.typeError(`${method}() needs a function, e.g. cursor.${method}(doc => …).`);
    return fn as Transform;
  }
}

export interface FindSpec {
  filter: Document;
  projection?: Document;
  sort?: Document;
  skip?: number;
  limit?: number;
  hint?: unknown;
  /** Further find command fields set by cursor methods (min, max, collation, comment, …). */
  options?: Document;
}

/** The driver's sort directions: numbers ±1 and their names, or a `$meta` document. */
const SORT_DIRECTIONS = new Map<unknown, number>([
  [1, 1],
  [-1, -1],
  ['asc', 1],
  ['ascending', 1],
  ['desc', -1],
  ['descending', -1],
]);

export class FindCursor extends ShellCursor {
  constructor(
    rt: ShellRuntime,
    dbName: string,
    collection: string,
    private readonly spec: FindSpec,
  ) {
    super(rt, dbName, collection);
    hideState(this);
  }

  private findFields(): Document {
    const s = this.spec;
    const cmd: Document = { filter: s.filter };
    if (s.sort !== undefined) cmd.sort = s.sort;
    if (s.projection !== undefined) cmd.projection = s.projection;
    if (s.skip !== undefined) cmd.skip = s.skip;
    // The driver sends a negative limit as its size with singleBatch (the command refuses one below 0).
    if (s.limit !== undefined && s.limit < 0) Object.assign(cmd, { limit: -s.limit, singleBatch: true });
    else if (s.limit !== undefined) cmd.limit = s.limit;
    if (s.hint !== undefined) cmd.hint = s.hint;
    if (s.options !== undefined) Object.assign(cmd, s.options);
    return cmd;
  }

  /** A find command field set by a cursor method, before the cursor is read. */
  private option(method: string, field: string, value: unknown): this {
    this.assertNotStarted(method);
    this.spec.options = { ...this.spec.options, [field]: this.rt.in(value) };
    return this;
  }

  protected openCommand(): Document {
    return {
      find: this.collection,
      ...this.findFields(),
      ...(this.batch !== undefined ? { batchSize: this.batch } : {}),
      ...this.timeLimitField(),
    };
  }

  protected explainCommand(verbosity: string): Document {
    return { explain: { find: this.collection, ...this.findFields() }, verbosity };
  }

  private document(value: unknown, method: string): Document {
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw this.rt.errors.typeError(`${method}() needs a document, e.g. ${method}({ createdAt: -1 }).`);
    return this.rt.in(value as Document);
  }

  private count0(value: unknown, method: string): number {
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw this.rt.errors.typeError(`${method}() needs a number.`);
    return value;
  }

  /** The sort, each direction checked and spelled as the driver sends it (1 or -1). */
  sort(spec: unknown): this {
    this.assertNotStarted('sort');
    const sort = this.document(spec, 'sort');
    const out: Document = {};
    for (const [key, value] of Object.entries(sort)) {
      const direction = SORT_DIRECTIONS.get(typeof value === 'string' ? value.toLowerCase() : value);
      const meta = value !== null && typeof value === 'object' && '$meta' in value;
      if (direction === undefined && !meta)
        throw this.rt.errors.error(
          `Invalid sort direction: ${JSON.stringify(value)}; use 1 (ascending) or -1 (descending).`,
          'MongoInvalidArgumentError',
        );
      Object.defineProperty(out, key, { value: meta ? value : direction, enumerable: true, writable: true });
    }
    this.spec.sort = out;
    return this;
  }

  min(bound: unknown): this {
    return this.option('min', 'min', this.document(bound, 'min'));
  }

  max(bound: unknown): this {
    return this.option('max', 'max', this.document(bound, 'max'));
  }

  returnKey(enabled: unknown = true): this {
    return this.option('returnKey', 'returnKey', enabled !== false);
  }

  showRecordId(enabled: unknown = true): this {
    return this.option('showRecordId', 'showRecordId', enabled !== false);
  }

  comment(text: unknown): this {
    return this.option('comment', 'comment', text);
  }

  collation(spec: unknown): this {
    return this.option('collation', 'collation', this.document(spec, 'collation'));
  }

  noCursorTimeout(): this {
    return this.option('noCursorTimeout', 'noCursorTimeout', true);
  }

  /** As the driver: spilling to disk only means something for a sort, so one must come first. */
  allowDiskUse(enabled: unknown = true): this {
    if (this.spec.sort === undefined)
      throw this.rt.errors.error(
        'Option "allowDiskUse" requires a sort specification: call sort() before allowDiskUse().',
        'MongoInvalidArgumentError',
      );
    return this.option('allowDiskUse', 'allowDiskUse', enabled !== false);
  }

  limit(n: unknown): this {
    this.assertNotStarted('limit');
    this.spec.limit = this.count0(n, 'limit');
    return this;
  }

  skip(n: unknown): this {
    this.assertNotStarted('skip');
    this.spec.skip = this.count0(n, 'skip');
    return this;
  }

  project(spec: unknown): this {
    this.assertNotStarted('project');
    this.spec.projection = this.document(spec, 'project');
    return this;
  }

  projection(spec: unknown): this {
    return this.project(spec);
  }

  hint(index: unknown): this {
    this.assertNotStarted('hint');
    this.spec.hint = this.rt.in(index);
    return this;
  }

  /** mongosh's cursor.count(): the matches of the filter, ignoring skip and limit unless asked. */
  count(applySkipLimit: unknown = false): number {
    const s = this.spec;
    const cmd: Document = { count: this.collection, query: s.filter };
    if (applySkipLimit === true) {
      if (s.skip !== undefined) cmd.skip = s.skip;
      if (s.limit !== undefined) cmd.limit = s.limit;
    }
    if (s.hint !== undefined) cmd.hint = s.hint;
    Object.assign(cmd, this.timeLimitField());
    return this.rt.run(this.dbName, cmd).n as number;
  }

  size(): number {
    return this.count(true);
  }
}

export class AggregationCursor extends ShellCursor {
  constructor(
    rt: ShellRuntime,
    dbName: string,
    collection: string,
    private readonly pipeline: Document[],
    private readonly options: Document,
  ) {
    super(rt, dbName, collection);
    if (typeof options.batchSize === 'number') this.batch = options.batchSize;
    hideState(this);
  }

  protected openCommand(): Document {
    const { batchSize: _batchSize, cursor: _cursor, ...rest } = this.options;
    return {
      aggregate: this.collection,
      pipeline: this.pipeline,
      cursor: this.batch !== undefined ? { batchSize: this.batch } : {},
      ...rest,
      ...this.timeLimitField(),
    };
  }

  protected explainCommand(verbosity: string): Document {
    return { explain: { aggregate: this.collection, pipeline: this.pipeline, cursor: {} }, verbosity };
  }
}
