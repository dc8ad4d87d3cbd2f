/**
 * Durations as users write them ("90s", "2h", "1h30m", "3d"): one parser for the shell's
 * `sleep`/`clock.advance`, the diagnostics and the extension's inputs. Pure text in, number out.
 */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * Milliseconds of a duration: a number is milliseconds (as for sleep); a string is one or more
 * `<number><unit>` parts with units ms, s, m, h, d, w (`"90s"`, `"2h"`, `"1h30m"`, `"3d"`); a bare
 * numeric string is milliseconds. Returns an error message for anything else.
 */
export function parseDuration(input: unknown): number | { error: string } {
  if (typeof input === 'number') {
    if (!Number.isFinite(input) || input < 0)
      return { error: `a duration must be a finite number of milliseconds >= 0, got ${input}` };
    return input;
  }
  if (typeof input !== 'string')
    return {
      error: `a duration is a number of milliseconds or a string such as "90s", "2h" or "3d", got ${typeof input}`,
    };
  const text = input.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const part = /(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)/y;
  let total = 0;
  let pos = 0;
  while (pos < text.length) {
    part.lastIndex = pos;
    const m = part.exec(text);
    if (!m)
      return {
        error: `cannot read the duration "${input}": use a number of milliseconds or parts such as "90s", "15m", "2h", "3d", "1h30m"`,
      };
    total += Number(m[1]) * UNIT_MS[m[2]];
    pos = part.lastIndex;
    while (text[pos] === ' ') pos++;
  }
  if (text.length === 0) return { error: 'the duration is empty: use e.g. "90s", "2h" or "3d"' };
  return total;
}
