/**
 * The diagnostics issue's number: how long the source analysis takes for generated 1k / 10k /
 * 50k-line files (target: 10,000 lines under 50 ms). The files look like application code: driver
 * and mongosh index definitions (some with mistakes), inserts, helper functions and comments.
 * Reported per size: the median of several runs of `analyzeText`, and of the parse alone (the
 * floor any parser-based analysis pays).
 */
import { parse } from '@babel/parser';
import { analyzeText } from '../src/analysis';

export function generate(lines: number, ts: boolean): string {
  const out: string[] = [];
  if (ts) out.push("import type { Db, IndexOptions } from 'mongodb';", 'declare const db: Db;');
  let i = 0;
  // Whole blocks only, padded with comments: a cut-off function would be a syntax error.
  for (;;) {
    const n = i++;
    const block = ts
      ? [
          `// Collection ${n}: sessions expire after a while.`,
          `const opts${n}: IndexOptions = { expireAfterSeconds: ${(n % 7) * 3600 + (n % 13 === 0 ? 0.5 : 0)} };`,
          `export async function setup${n}(tenant: string): Promise<void> {`,
          `  const c = db.collection('c${n}');`,
          `  await c.createIndex({ lastSeen: 1 }, opts${n});`,
          `  await c.insertOne({ tenant, lastSeen: new Date(), score: ${n} * 2 });`,
          `  if (tenant.length > ${n % 10}) await c.createIndex({ tenant: 1, lastSeen: 1 }, { name: 't${n}' });`,
          '}',
        ]
      : [
          `// Collection ${n}`,
          `db.c${n}.createIndex({ createdAt: 1 }, { expireAfterSeconds: ${n % 11 === 0 ? -1 : (n % 5) * 86400} });`,
          `db.c${n}.insertOne({ createdAt: ${n % 17 === 0 ? 'Date.now()' : 'new Date()'}, n: ${n} });`,
          `function helper${n}(a, b) { return a.map((x) => x * b + ${n}).filter(Boolean); }`,
          `db.runCommand({ collMod: 'c${n}', index: { keyPattern: { createdAt: 1 }, expireAfterSeconds: ${3600 + n} } });`,
        ];
    if (out.length + block.length > lines) break;
    out.push(...block);
  }
  while (out.length < lines) out.push(`// padding ${out.length}`);
  return out.join('\n');
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function time(fn: () => unknown, runs: number): number {
  fn(); // warm-up: JIT and lazy parser tables
  const samples: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
  }
  return median(samples);
}

export function runAnalysisBench(sizes = [1_000, 10_000, 50_000]): void {
  process.stdout.write('\n# Source analysis (diagnostics): analyzeText on generated files, median of runs\n\n');
  process.stdout.write('| lines | language | chars | problems | parse only | analyzeText | per 1k lines |\n| ---: | --- | ---: | ---: | ---: | ---: | ---: |\n');
  for (const lines of sizes) {
    for (const ts of [false, true]) {
      const text = generate(lines, ts);
      const file = ts ? 'bench.ts' : 'bench.js';
      const runs = lines >= 50_000 ? 3 : lines >= 10_000 ? 7 : 15;
      const plugins = ts ? (['typescript'] as const) : (['jsx'] as const);
      const parseMs = time(() => parse(text, { sourceType: 'unambiguous', plugins: [...plugins], errorRecovery: true, allowAwaitOutsideFunction: true, attachComment: false }), runs);
      let problems = 0;
      const ms = time(() => {
        problems = analyzeText(text, file).problems.length;
      }, runs);
      process.stdout.write(`| ${lines.toLocaleString('en-US')} | ${ts ? 'TypeScript' : 'JavaScript'} | ${text.length.toLocaleString('en-US')} | ${problems} | ${parseMs.toFixed(1)} ms | ${ms.toFixed(1)} ms | ${((ms / lines) * 1000).toFixed(2)} ms |\n`);
    }
  }
  process.stdout.write('\nTarget: 10,000 lines under 50 ms. Times are wall-clock on this machine as it is loaded now.\n');
}
