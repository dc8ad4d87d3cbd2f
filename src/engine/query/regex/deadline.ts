/**
 * How a single regular-expression match learns the operation's time limit. Matches that can run in
 * linear time never ask; a pattern only a backtracking engine can run (backreferences, lookaround)
 * asks before each match and runs that one match under `node:vm`'s `timeout`, because one
 * RegExp call cannot reach a safe point (interrupt checks happen between documents).
 *
 * The interface is deliberately small so the engine's interrupt mechanism (src/engine/interrupt.ts
 * on branch `interrupt`) plugs in with one `setMatchDeadlineSource` call: the nearest installed
 * deadline's `remainingMs`, and its time-limit error.
 */
import { EngineError, ErrorCode } from '../../errors';

export interface MatchDeadline {
  /** Milliseconds left on a monotonic clock (0 or less: already expired). */
  remainingMs(): number;
  /** Throw the operation's time-limit error (MaxTimeMSExpired, code 50). */
  expire(): never;
}

/** Where the current operation's deadline comes from; undefined when nothing limits it. */
export type MatchDeadlineSource = () => MatchDeadline | undefined;

let source: MatchDeadlineSource = () => undefined;

/** Install the deadline source (returns the previous one, to restore). */
export function setMatchDeadlineSource(next: MatchDeadlineSource): MatchDeadlineSource {
  const previous = source;
  source = next;
  return previous;
}

export function currentMatchDeadline(): MatchDeadline | undefined {
  return source();
}

/** A deadline `limitMs` from now on `performance.now()`, failing with code 50 like maxTimeMS. */
export function deadlineIn(limitMs: number, now: () => number = () => performance.now()): MatchDeadline {
  const expiresAt = now() + limitMs;
  return {
    remainingMs: () => expiresAt - now(),
    expire: () => {
      throw new EngineError(ErrorCode.MaxTimeMSExpired, `operation exceeded time limit: a regular expression match ran past the ${limitMs} ms limit`);
    },
  };
}

/** Run `fn` with `deadline` as the current one (tests, and callers without the interrupt module). */
export function withMatchDeadline<T>(deadline: MatchDeadline | undefined, fn: () => T): T {
  const previous = setMatchDeadlineSource(() => deadline);
  try {
    return fn();
  } finally {
    setMatchDeadlineSource(previous);
  }
}
