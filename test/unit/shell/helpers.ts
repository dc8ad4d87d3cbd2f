/** Shared set-up for the shell tests: an engine on a virtual clock and a session over it. */
import assert from 'node:assert/strict';
import { Engine, VirtualClock, type Clock } from '../../../src/engine';
import { ShellSession, type EvaluationResult, type StatementResult } from '../../../src/shell/session';

/**
 * A host-realm copy of a value made in the script's realm (literals there have the script's
 * Object/Array prototypes, which strict deep equality compares).
 */
export function plain<T>(value: T): T {
  return structuredClone(value);
}

export const START = Date.parse('2026-01-01T00:00:00.000Z');

export interface Harness {
  engine: Engine;
  session: ShellSession;
  /** Evaluate and return the whole result. */
  run(source: string, options?: { filename?: string; lineOffset?: number }): EvaluationResult;
  /** Evaluate; every statement must succeed; the last statement's result. */
  last(source: string): StatementResult;
  /** Evaluate; every statement must succeed; the last statement's value. */
  value(source: string): unknown;
  /** Evaluate; every statement must succeed; the last statement's rendered text. */
  rendered(source: string): string | undefined;
  /** Evaluate; the evaluation must fail; the failing statement. */
  failure(source: string): StatementResult;
}

export function harness(
  options: { clock?: Clock; timeoutMs?: number; dbName?: string; replSetName?: string } = {},
): Harness {
  const engine = new Engine({
    clock: options.clock ?? new VirtualClock(START),
    ...(options.replSetName !== undefined ? { replSetName: options.replSetName } : {}),
  });
  const session = new ShellSession({ engine, timeoutMs: options.timeoutMs, dbName: options.dbName });
  const run = (source: string, opts?: { filename?: string; lineOffset?: number }) => session.evaluate(source, opts);
  const last = (source: string): StatementResult => {
    const result = run(source);
    const failed = result.statements.find((s) => !s.ok);
    assert.ok(result.ok, `evaluation failed: ${failed?.error?.name}: ${failed?.error?.message} (in ${failed?.source})`);
    assert.ok(result.statements.length > 0, 'no statements');
    return result.statements[result.statements.length - 1];
  };
  return {
    engine,
    session,
    run,
    last,
    value: (source) => last(source).value,
    rendered: (source) => last(source).rendered,
    failure: (source) => {
      const result = run(source);
      assert.equal(result.ok, false, 'expected the evaluation to fail');
      const failed = result.statements[result.statements.length - 1];
      assert.equal(failed.ok, false);
      return failed;
    },
  };
}
