/**
 * A playground session on the embedded engine: a ShellSession (src/shell) over the backend's
 * current engine, run one statement at a time with a turn of the event loop in between, so a
 * notebook can be interrupted between statements and the tree refreshes while a long cell runs.
 * A statement itself runs in one piece, bounded by the shell's time limit: its engine operations
 * stop at a safe point (MaxTimeMSExpired, engine consistent) once the limit passes. No `vscode` import.
 */
import type { Engine } from '../../engine';
import { statementOutputs } from '../../shell/cell-outputs';
import { ShellSession, type StatementResult } from '../../shell/session';
import type { BackendEvent, PlaygroundEvent, PlaygroundRunOptions, PlaygroundSession } from './backend';

export interface EmbeddedPlaygroundHost {
  /** The backend's engine now (a reset replaces it). */
  engine: () => Engine;
  timeoutMs?: number;
  emit: (events: readonly BackendEvent[]) => void;
  disposed: () => boolean;
  /** The interrupt cell another thread sets (see ShellSessionOptions.interruptCell). */
  interruptCell?: Int32Array;
  /**
   * Printed lines go here as they are printed (the engine host streams them), instead of being
   * yielded as a `print` event after their statement.
   */
  onPrint?: (line: string) => void;
}

/** A statement's result as run events: its printed lines (unless streamed), then its end. */
export function statementEvents(result: StatementResult, printsStreamed: boolean): PlaygroundEvent[] {
  const outputs = statementOutputs(result);
  const events: PlaygroundEvent[] = [];
  if (!printsStreamed && outputs[0]?.kind === 'print') events.push(outputs[0]);
  events.push({
    kind: 'statement',
    ok: result.ok,
    line: result.line,
    outputs: outputs.filter((o) => o.kind !== 'print'),
    millis: result.millis,
  });
  return events;
}

/**
 * A pause between statements. A bare setImmediate turn is cheap but, measured in code-server, lets
 * no message through while statements keep the host busy (an interrupt arrived only after the
 * cell ended): the round trip to the workbench needs real time. So after every ~100 ms of work the
 * pause lasts 15 ms, which costs a slow cell at most ~15% and lets an interrupt in within a few
 * statements; quick statements in between only take a setImmediate turn.
 */
const WORK_SLICE_MS = 100;
const REST_MS = 15;
const immediate = () => new Promise<void>((resolve) => setImmediate(resolve));
const rest = () => new Promise<void>((resolve) => setTimeout(resolve, REST_MS));

export class EmbeddedPlayground implements PlaygroundSession {
  private session: ShellSession | undefined;
  private engine: Engine | undefined;
  private closed = false;
  restarted = false;

  constructor(private readonly host: EmbeddedPlaygroundHost) {}

  /** The session on the current engine; a new one (variables lost) after a reset. */
  private current(): ShellSession {
    const engine = this.host.engine();
    if (!this.session || this.engine !== engine) {
      this.restarted = this.session !== undefined;
      this.session = new ShellSession({
        engine,
        timeoutMs: this.host.timeoutMs,
        ...(this.host.interruptCell ? { interruptCell: this.host.interruptCell } : {}),
        ...(this.host.onPrint ? { onPrint: this.host.onPrint } : {}),
      });
      this.engine = engine;
    } else {
      this.restarted = false;
    }
    return this.session;
  }

  get dbName(): string {
    return this.session?.dbName ?? 'test';
  }

  async *run(
    source: string,
    options: PlaygroundRunOptions = {},
  ): AsyncGenerator<PlaygroundEvent, { complete: boolean }, void> {
    await immediate();
    let sliceStart = performance.now();
    // In the engine host (an interrupt cell is given) an interrupt arrives through shared memory
    // and the worker's own loop serves requests in a setImmediate turn: no rest is needed.
    const rests = this.host.interruptCell === undefined;
    const pause = async () => {
      if (!rests || performance.now() - sliceStart < WORK_SLICE_MS) return immediate();
      await rest();
      sliceStart = performance.now();
    };
    if (this.closed || this.host.disposed())
      throw new Error('The playground session was closed (its notebook or the extension is shutting down).');
    const session = this.current();
    const engine = this.engine!;
    if (options.signal?.aborted) return { complete: false };
    const steps = session.steps(source, { filename: options.filename, lineOffset: options.lineOffset });
    // An engine host's client reads whether a statement of this session executes right now
    // (cells [1] and [2], see engine-host/protocol.ts), to tell stuck code from waiting code.
    const cell = this.host.interruptCell && this.host.interruptCell.length >= 3 ? this.host.interruptCell : undefined;
    for (;;) {
      const before = engine.clock.now();
      if (cell) {
        Atomics.add(cell, 2, 1);
        Atomics.store(cell, 1, 1);
      }
      let step: IteratorResult<StatementResult, unknown>;
      try {
        step = steps.next();
      } finally {
        if (cell) Atomics.store(cell, 1, 0);
      }
      // sleep() and clock.advance() move the clock without an engine event: tell the status bar.
      if (engine.clock.now() !== before) this.host.emit([{ kind: 'clockChanged' }]);
      if (step.done) return { complete: true };
      yield* statementEvents(step.value, this.host.onPrint !== undefined);
      if (!step.value.ok) return { complete: true };
      await pause();
      if (this.host.engine() !== engine || this.host.disposed()) {
        throw new Error(
          'The engine was reset while the cell ran: the rest of the cell did not run. Run it again on the new engine.',
        );
      }
      if (options.signal?.aborted) {
        // Between statements the rest is simply left unrun. Inside a statement, only a host on
        // another thread reaches the engine (the interrupt cell); here, on the statement's own
        // thread, the time limit is what ends a long statement.
        session.interrupt('operation was interrupted: the notebook run was interrupted');
        steps.return({ ok: false, statements: [], output: [] });
        return { complete: false };
      }
    }
  }

  dispose(): void {
    this.closed = true;
    this.session = undefined;
    this.engine = undefined;
  }
}
