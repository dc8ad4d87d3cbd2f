/**
 * Offsets to 0-based lines and characters of a text. Its own module, without the parser, so that
 * code bundled apart from the analysis (the agent tools, in the engine's bundle) can use it.
 */

/** Offsets at which each line starts. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

/** Offset → 0-based line and character. */
export class LineIndex {
  private readonly starts: number[];
  constructor(text: string) {
    this.starts = lineStarts(text);
  }
  position(offset: number): { line: number; character: number } {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: offset - this.starts[lo] };
  }
  offset(line: number, character: number): number {
    return (this.starts[line] ?? this.starts[this.starts.length - 1]) + character;
  }
}
