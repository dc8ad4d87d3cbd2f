/**
 * How a single regular-expression match learns the operation's time limit. Matches that can run in
 * linear time never ask; a pattern only a backtracking engine can run (backreferences, lookaround)
 * asks before each match and runs that one match under `node:vm`'s `timeout`, because one
 * RegExp call cannot reach a safe point (interrupt checks happen between documents).
 *
 * The default source is the engine's interrupt mechanism (src/engine/interrupt.ts): the nearest
 * installed deadline's `remainingMs`, and its time-limit error. Tests install their own.
 */
import { EngineError, ErrorCode } from '../../errors';
import { nearestDeadline, timeLimitError } from '../../interrupt';

export interface MatchDeadline {
  /** Milliseconds left on a monotonic clock (0 or less: already expired). */
  remainingMs(): number;
  /** Throw the operation's time-limit error (MaxTimeMSExpired, code 50). */
  expire(): never;
}

/** Where the current operation's deadline comes from; undefined when nothing limits it. */
export type MatchDeadlineSource = () => MatchDeadline | undefined;

/** By default, the engine's nearest installed deadline (maxTimeMS, the playground's time limit). */
let source: MatchDeadlineSource = () => {
  const deadline = nearestDeadline();
  if (!deadline) return undefined;
  return {
    remainingMs: () => deadline.remainingMs(),
    expire: () => {
      throw timeLimitError(
        `operation exceeded time limit: a regular expression match ran past the ${deadline.limitMs} ms limit; use a pattern without backreferences or lookaround, or allow more time`,
      );
    },
  };
};

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
      throw new EngineError(
        ErrorCode.MaxTimeMSExpired,
        `operation exceeded time limit: a regular expression match ran past the ${limitMs} ms limit`,
      );
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
