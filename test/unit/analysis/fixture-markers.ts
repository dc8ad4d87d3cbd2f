/**
 * Expected problems written into fixture files as caret lines under the code they point at:
 *
 *   db.a.createIndex({ t: 1 }, { expireAfterSeconds: -1 });
 *   //                                                ^^ TTL003
 *
 * A marker line refers to the nearest line above it that is not a marker line. Everything without
 * a marker must produce no problem at all, so negative cases are the unmarked lines.
 */
import { LineIndex, type Problem } from '../../../src/analysis';

export interface Expected {
  line: number;
  start: number;
  end: number;
  code: string;
}

const MARKER = /^\/\/( *)(\^+) (TTL\d{3})$/;

export function expectedProblems(text: string): Expected[] {
  const out: Expected[] = [];
  let codeLine = -1;
  text.split('\n').forEach((line, i) => {
    const m = MARKER.exec(line);
    if (!m) {
      codeLine = i;
      return;
    }
    const start = 2 + m[1].length;
    out.push({ line: codeLine, start, end: start + m[2].length, code: m[3] });
  });
  return out;
}

/** Problems as the same shape (single-line ranges; a multi-line one shows its end line's column). */
export function actualProblems(text: string, problems: readonly Problem[]): Array<Expected & { endLine: number }> {
  const index = new LineIndex(text);
  return problems.map((p) => {
    const s = index.position(p.start);
    const e = index.position(p.end);
    return { line: s.line, start: s.character, end: e.character, endLine: e.line, code: p.code };
  });
}

export function describeAll(list: ReadonlyArray<Expected>, text: string): string[] {
  const lines = text.split('\n');
  return list
    .map((e) => `${e.code} line ${e.line + 1} [${e.start}, ${e.end}) "${lines[e.line]?.slice(e.start, e.end)}"`)
    .sort();
}
