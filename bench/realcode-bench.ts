/**
 * Issue 25's numbers (a benchmark, not a test): `check` over a generated workspace of 2,000
 * NestJS-style TypeScript model files with decorators, and the live analysis of one 3,000-line
 * decorated file per keystroke. `node out/bench/realcode-bench.js [out folder]` measures the build
 * in the given `out` folder (default: this one), so an older build can be measured beside it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

interface Analysis {
  checkPaths(
    options: { paths: string[]; serverVersion: '8.0'; disabledRules: string[] },
    cwd: string,
  ): { records: unknown[] };
}
interface Session {
  update(
    text: string,
    options?: object,
    changes?: Array<{ rangeOffset: number; rangeLength: number; text: string }>,
  ): {
    problems: unknown[];
  };
  lastUpdate: { mode: string };
}

/** One NestJS model: a @Schema() class with @Prop fields, one with a TTL, and a schema.index below. */
export function nestModel(n: number): string {
  return [
    `import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';`,
    `import { HydratedDocument, Types } from 'mongoose';`,
    ``,
    `export type Model${n}Document = HydratedDocument<Model${n}>;`,
    ``,
    `@Schema({ timestamps: true, collection: 'model_${n}' })`,
    `export class Model${n} {`,
    `  @Prop({ type: Types.ObjectId, ref: 'User', required: true, index: true })`,
    `  owner: Types.ObjectId;`,
    ``,
    `  @Prop({ required: true, trim: true })`,
    `  title: string;`,
    ``,
    `  @Prop({ default: 0, min: 0 })`,
    `  count: number;`,
    ``,
    `  @Prop({ type: Date, default: Date.now, expires: ${60 * (n % 50) + 60} })`,
    `  lastSeen: Date;`,
    ``,
    `  @Prop({ type: [String], default: [] })`,
    `  tags: string[];`,
    `}`,
    ``,
    `export const Model${n}Schema = SchemaFactory.createForClass(Model${n});`,
    `Model${n}Schema.index({ owner: 1, title: 1 }, { unique: true });`,
    `Model${n}Schema.index({ updatedAt: 1 }, { expireAfterSeconds: ${86400 * ((n % 30) + 1)} });`,
    ``,
  ].join('\n');
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export function runRealCodeBench(outRoot = path.resolve(__dirname, '..')): void {
  const { checkPaths } = require(path.join(outRoot, 'src/cli/check.js')) as Analysis;
  const { AnalysisSession } = require(path.join(outRoot, 'src/analysis/index.js')) as {
    AnalysisSession: new (file: string) => Session;
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-realcode-bench-'));
  try {
    for (let n = 0; n < 2000; n++) {
      const sub = path.join(dir, 'src', `module${n % 40}`);
      fs.mkdirSync(sub, { recursive: true });
      fs.writeFileSync(path.join(sub, `model${n}.schema.ts`), nestModel(n));
    }
    const samples: number[] = [];
    let problems = 0;
    for (let r = 0; r < 3; r++) {
      const t0 = performance.now();
      problems = checkPaths({ paths: ['.'], serverVersion: '8.0', disabledRules: [] }, dir).records.length;
      samples.push(performance.now() - t0);
    }
    process.stdout.write(
      `check over 2,000 NestJS model files (${outRoot}): median ${median(samples).toFixed(0)} ms of 3 runs, ${problems} problems\n`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }

  // One file of about 3,000 lines: 125 models one after another; a keystroke changes a TTL digit in the middle.
  const parts: string[] = [];
  for (let n = 0; n < 125; n++)
    parts.push(
      nestModel(n)
        .split('\n')
        .slice(n === 0 ? 0 : 3)
        .join('\n'),
    );
  const text = parts.join('\n');
  const at = text.indexOf('expires: ', text.length >> 1) + 'expires: '.length;
  const digit = text[at] === '9' ? '8' : '9';
  const edited = text.slice(0, at) + digit + text.slice(at + 1);
  const session = new AnalysisSession('big.schema.ts');
  session.update(text);
  const times: number[] = [];
  const modes = new Set<string>();
  for (let r = 0; r < 21; r++) {
    const t0 = performance.now();
    session.update(edited, {}, [{ rangeOffset: at, rangeLength: 1, text: digit }]);
    if (r > 0) times.push(performance.now() - t0);
    modes.add(session.lastUpdate.mode);
    session.update(text, {}, [{ rangeOffset: at, rangeLength: 1, text: text[at] }]);
  }
  const full: number[] = [];
  for (let r = 0; r < 5; r++) {
    const fresh = new AnalysisSession('big.schema.ts');
    const t0 = performance.now();
    fresh.update(text);
    full.push(performance.now() - t0);
  }
  process.stdout.write(
    `live analysis of a ${text.split('\n').length.toLocaleString('en-US')}-line decorated file: per keystroke median ${median(times).toFixed(1)} ms (${[...modes].join('/')}), first analysis median ${median(full).toFixed(1)} ms\n`,
  );
}

if (require.main === module) runRealCodeBench(process.argv[2] ? path.resolve(process.argv[2]) : undefined);
