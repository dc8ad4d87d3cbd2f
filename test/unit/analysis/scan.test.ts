/**
 * The scan's fast walk (direct child reads for frequent node types) must see exactly what the
 * reference walk (every node's properties enumerated) sees: the same calls with the same
 * statements, the same typed declarations, bindings and const initializers, in the same order.
 * Checked on the rule fixtures, generated bench files and this project's own sources (varied
 * TypeScript and JavaScript syntax).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { generate } from '../../../bench/analysis-bench';
import { scanUnit, type ScanResult } from '../../../src/analysis/scan';
import { parseUnit, sourceKindOf, unitsOfFile } from '../../../src/analysis/source';

const root = path.resolve(__dirname, '../../../..');

function filesUnder(dir: string, out: string[] = []): string[] {
  for (const name of fs.readdirSync(dir)) {
    const p = path.join(dir, name);
    if (fs.statSync(p).isDirectory()) filesUnder(p, out);
    else if (sourceKindOf(p)) out.push(p);
  }
  return out;
}

function summary(s: ScanResult): unknown {
  return {
    calls: s.calls.map((c) => [c.name, c.node.start, c.node.end, c.statement?.start, c.statement?.end, c.awaited]),
    typed: s.typed.map((t) => [t.declarator.start, t.typeName, t.isArray]),
    bindings: [...s.bindingCounts],
    consts: [...s.constInits].map(([k, v]) => [k, v.start]),
  };
}

function assertSameScan(text: string, kind: NonNullable<ReturnType<typeof sourceKindOf>>, label: string): number {
  let calls = 0;
  for (const unit of unitsOfFile(text, kind)) {
    if (!unit.ast) continue;
    const fast = scanUnit(unit.ast.program);
    const reference = scanUnit(unit.ast.program, true);
    assert.deepEqual(summary(fast), summary(reference), label);
    // Same node objects, not just the same positions.
    fast.calls.forEach((c, i) => assert.equal(c.node, reference.calls[i].node, label));
    calls += fast.calls.length;
  }
  return calls;
}

describe('analysis scan', () => {
  test('the fast walk finds the same calls, bindings and typed declarations as the reference walk (fixtures and project sources)', () => {
    const files = [
      ...filesUnder(path.join(root, 'test/unit/analysis/fixtures')),
      ...filesUnder(path.join(root, 'src')),
      ...filesUnder(path.join(root, 'test')),
      ...filesUnder(path.join(root, 'examples')),
    ];
    assert.ok(files.length > 100, `only ${files.length} files found`);
    let calls = 0;
    for (const file of files) calls += assertSameScan(fs.readFileSync(file, 'utf8'), sourceKindOf(file)!, file);
    assert.ok(calls > 100, `only ${calls} interesting calls seen`);
  });

  test('the fast walk matches the reference walk on generated JavaScript and TypeScript bench files', () => {
    assert.ok(assertSameScan(generate(2000, false), 'js', 'bench.js') > 100);
    assert.ok(assertSameScan(generate(2000, true), 'ts', 'bench.ts') > 100);
  });

  test('calls inside switch cases, loops, try blocks and class bodies get their innermost statement', () => {
    const text = [
      'switch (x) { case 1: db.a.createIndex({ t: 1 }); break; }',
      'for (const c of cs) { await c.createIndex({ t: 1 }); }',
      'try { db.b.createIndex({ t: 1 }) } catch (e) { db.c.createIndex({ t: 1 }) } finally { db.d.createIndex({ t: 1 }) }',
      'class K { m() { db.e.createIndex({ t: 1 }) } p = db.f.createIndex({ t: 1 }) }',
    ].join('\n');
    const unit = parseUnit(text, 'js');
    const scan = scanUnit(unit.ast!.program);
    const statements = scan.calls.map((c) => text.slice(c.statement!.start!, c.statement!.end!));
    assert.deepEqual(statements, [
      'db.a.createIndex({ t: 1 });',
      'await c.createIndex({ t: 1 });',
      'db.b.createIndex({ t: 1 })',
      'db.c.createIndex({ t: 1 })',
      'db.d.createIndex({ t: 1 })',
      'db.e.createIndex({ t: 1 })',
      'p = db.f.createIndex({ t: 1 })',
    ]);
    assert.deepEqual(
      scan.calls.map((c) => c.awaited),
      [false, true, false, false, false, false, false],
    );
  });
});
