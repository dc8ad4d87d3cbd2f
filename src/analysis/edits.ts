/** Text edits on a unit's syntax nodes, in the analysed text's offsets. */
import type { Node } from '@babel/types';
import type { Unit } from './source';
import type { Span, TextEdit } from './types';

/** The offset in `unit.text` of a node position. */
export function textOffset(unit: Unit, position: number): number {
  return unit.offsetOf ? unit.offsetOf(position) : position;
}

/** Where a node is in `unit.text` (its end follows its start: a node's length never changes). */
function textRange(unit: Unit, node: Node): [number, number] {
  const start = node.start ?? 0;
  const at = textOffset(unit, start);
  return [at, at + (node.end ?? 0) - start];
}

export function spanOf(unit: Unit, node: Node): Span {
  const [start, end] = textRange(unit, node);
  return unit.cell !== undefined
    ? { start: unit.base + start, end: unit.base + end, cell: unit.cell }
    : { start: unit.base + start, end: unit.base + end };
}

export function nodeText(unit: Unit, node: Node): string {
  const [start, end] = textRange(unit, node);
  return unit.text.slice(start, end);
}

/** The text of `unit` between two node positions. */
export function textBetween(unit: Unit, from: number, to: number): string {
  return unit.text.slice(textOffset(unit, from), textOffset(unit, to));
}

export function replace(unit: Unit, node: Node, newText: string): TextEdit {
  return { ...spanOf(unit, node), newText };
}

/** Insert at a node position. */
export function insertAt(unit: Unit, position: number, newText: string): TextEdit {
  const at = unit.base + textOffset(unit, position);
  return { start: at, end: at, newText, ...(unit.cell !== undefined ? { cell: unit.cell } : {}) };
}

/** Remove the text between two node positions. */
export function removeRange(unit: Unit, from: number, to: number): TextEdit {
  return {
    start: unit.base + textOffset(unit, from),
    end: unit.base + textOffset(unit, to),
    newText: '',
    ...(unit.cell !== undefined ? { cell: unit.cell } : {}),
  };
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
  const start = textOffset(unit, node.start ?? 0);
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
