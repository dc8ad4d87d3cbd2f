/**
 * Every example notebook under examples/ as a script: its code cells in order, each top-level
 * expression statement printed with `print(…)` (what a notebook shows as the statement's value),
 * every other statement as it is. Both shells run the same script, the TTL Workbench prelude
 * giving mongosh the notebook's clock, ttl and sleep.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'acorn';
import { codeCells, engineRequestOf, parseTtlbook } from '../../../src/formats/ttlbook';
import { root, type ParityScript } from '../harness';

export function notebookSource(text: string): string {
  const out: string[] = [];
  for (const cell of codeCells(parseTtlbook(text))) {
    const program = parse(cell.source, { ecmaVersion: 'latest', sourceType: 'script' });
    for (const node of program.body) {
      const code = cell.source.slice(node.start, node.end);
      if (node.type === 'ExpressionStatement') {
        const e = node.expression;
        out.push(`print(${cell.source.slice(e.start, e.end)});`);
      } else out.push(code);
    }
  }
  return `${out.join('\n')}\n`;
}

export function notebookScripts(): ParityScript[] {
  const dir = path.join(root, 'examples');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.ttlbook'))
    .sort()
    .map((f) => {
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      const meta = engineRequestOf(parseTtlbook(text).metadata);
      const flavor = 'flavor' in meta && meta.flavor === 'cosmos' ? 'cosmos' : 'mongodb';
      return { name: `examples/${f}`, source: notebookSource(text), flavor };
    });
}
