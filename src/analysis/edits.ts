/** Text edits on a unit's syntax nodes, in the analysed text's offsets. */
import type { Node } from '@babel/types';
import type { Unit } from './source';
import type { Span, TextEdit } from './types';

export function spanOf(unit: Unit, node: Node): Span {
  return { start: unit.base + (node.start ?? 0), end: unit.base + (node.end ?? 0), ...(unit.cell !== undefined ? { cell: unit.cell } : {}) };
}

export function nodeText(unit: Unit, node: Node): string {
  return unit.text.slice(node.start ?? 0, node.end ?? 0);
}

export function replace(unit: Unit, node: Node, newText: string): TextEdit {
  return { ...spanOf(unit, node), newText };
}

export function insertAt(unit: Unit, offsetInUnit: number, newText: string): TextEdit {
  const at = unit.base + offsetInUnit;
  return { start: at, end: at, newText, ...(unit.cell !== undefined ? { cell: unit.cell } : {}) };
}

export function removeRange(unit: Unit, from: number, to: number): TextEdit {
  return { start: unit.base + from, end: unit.base + to, newText: '', ...(unit.cell !== undefined ? { cell: unit.cell } : {}) };
}

/** Remove one property of an object literal with the comma that separates it from a neighbour. */
export function removeProperty(unit: Unit, object: Node, property: Node): TextEdit | undefined {
  if (object.type !== 'ObjectExpression') return undefined;
  const props = object.properties as Node[];
  const i = props.indexOf(property);
  if (i < 0) return undefined;
  if (i + 1 < props.length) return removeRange(unit, property.start ?? 0, props[i + 1].start ?? 0);
  if (i > 0) return removeRange(unit, props[i - 1].end ?? 0, property.end ?? 0);
  return removeRange(unit, property.start ?? 0, property.end ?? 0);
}

/** The indentation of the line a node starts on. */
export function indentOf(unit: Unit, node: Node): string {
  const start = node.start ?? 0;
  const lineStart = unit.text.lastIndexOf('\n', start - 1) + 1;
  let end = lineStart;
  while (end < start && (unit.text[end] === ' ' || unit.text[end] === '\t')) end++;
  return unit.text.slice(lineStart, end);
}

/** Apply edits (non-overlapping, in any order) to a text. */
export function applyEdits(text: string, edits: readonly TextEdit[], input?: string): string {
  const sorted = [...edits].sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  for (const e of sorted) {
    const newText = e.fromInput ? (input ?? '') : e.newText;
    out = out.slice(0, e.start) + newText + out.slice(e.end);
  }
  return out;
}
