/**
 * Benchmark entry point (run through `node scripts/bench.js`, which compiles first and passes
 * --expose-gc). Options:
 *   --sizes 100000,1000000   document counts to run (default both; accepts 100k / 1m)
 *   --quick                  20000 documents only
 *   --contenders engine,loki run a subset of engine, nedb, loki, baseline (default all)
 *   --clock thread|process|wall  what to time: main-thread CPU time (default on Linux; robust on a busy
 *                            machine), CPU time of all threads, or wall-clock time (default elsewhere)
 *   --no-matcher             skip the matcher-vs-mingo report
 *   --only engine,ttl,shell,extension,storage,matcher,analysis,host,wire,forecast,aggregation,deploy   run only these parts (default all)
 * The host part (the engine host's worker vs the in-thread engine) runs on one size: the first of
 * --sizes (or --quick's), 1M by default.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runAnalysisBench } from './analysis-bench';
import { runRealCodeBench } from './realcode-bench';
import { runEngineBench, type BenchClock } from './engine-bench';
import { runExtensionBench } from './extension-bench';
import { runHostBench } from './host-bench';
import { runShellBench } from './shell-bench';
import { runStorageBench } from './storage-bench';
import { runTTLBench } from './ttl-bench';
import { runWireBench } from './wire-bench';
import { runDeployBench } from './deploy-bench';
import { runForecastBench } from './forecast-bench';
import { runAggregationBench } from './aggregation-bench';

const DEFAULT_SIZES = [100_000, 1_000_000];
const QUICK_SIZES = [20_000];
/** The host part runs on one size: the first given, or this one. */
const DEFAULT_HOST_SIZE = 1_000_000;

function parseSize(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text.trim().replace(/_/g, ''));
  if (!m) throw new Error(`bad size "${text}": use a number such as 100000, 100k or 1m`);
  const mult = m[2].toLowerCase() === 'k' ? 1e3 : m[2].toLowerCase() === 'm' ? 1e6 : 1;
  const n = Math.round(Number(m[1]) * mult);
  if (n < 1000) throw new Error(`size ${n} is too small: use at least 1000 documents`);
  return n;
}

const PARTS = [
  'engine',
  'ttl',
  'shell',
  'extension',
  'storage',
  'matcher',
  'analysis',
  'host',
  'wire',
  'forecast',
  'aggregation',
  'deploy',
] as const;
type Part = (typeof PARTS)[number];

interface Options {
  sizes: number[];
  /** --sizes or --quick was given (the host part then uses the first size rather than its own default). */
  sizesGiven: boolean;
  quick: boolean;
  parts: Set<Part>;
  matcher: boolean;
  contenders?: string[];
  clock?: BenchClock;
}

function parseArgs(argv: string[]): Options {
  let sizes = DEFAULT_SIZES;
  let matcher = true;
  let contenders: string[] | undefined;
  let clock: BenchClock | undefined;
  let quick = false;
  let sizesGiven = false;
  let parts = new Set<Part>(PARTS);
  const valueOf = (arg: string, i: number, name: string): string => {
    const value = arg === name ? argv[i + 1] : arg.slice(name.length + 1);
    if (!value) throw new Error(`${name} needs a value`);
    return value;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') {
      sizes = QUICK_SIZES;
      quick = true;
      sizesGiven = true;
    } else if (arg === '--only' || arg.startsWith('--only=')) {
      const names = valueOf(arg, i, '--only')
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
      const unknown = names.filter((x) => !(PARTS as readonly string[]).includes(x));
      if (unknown.length) throw new Error(`--only takes ${PARTS.join(', ')}; not ${unknown.join(', ')}`);
      parts = new Set(names as Part[]);
      if (arg === '--only') i++;
    } else if (arg === '--sizes' || arg.startsWith('--sizes=')) {
      sizes = valueOf(arg, i, '--sizes')
        .split(',')
        .filter((s) => s.trim() !== '')
        .map(parseSize);
      sizesGiven = true;
      if (arg === '--sizes') i++;
    } else if (arg === '--contenders' || arg.startsWith('--contenders=')) {
      contenders = valueOf(arg, i, '--contenders')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (arg === '--contenders') i++;
    } else if (arg === '--clock' || arg.startsWith('--clock=')) {
      const value = valueOf(arg, i, '--clock');
      if (value !== 'thread' && value !== 'process' && value !== 'wall')
        throw new Error('--clock takes thread, process or wall');
      clock = value;
      if (arg === '--clock') i++;
    } else if (arg === '--no-matcher') matcher = false;
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write(
        'usage: node scripts/bench.js [--sizes 100000,1000000 | --quick] [--contenders engine,nedb,loki,baseline] [--clock thread|process|wall] [--no-matcher] [--only engine,ttl,shell,extension,storage,matcher,analysis,host,wire,forecast,aggregation,deploy]\n',
      );
      process.exit(0);
    } else throw new Error(`unknown argument "${arg}" (try --help)`);
  }
  if (!matcher) parts.delete('matcher');
  return { sizes, sizesGiven, quick, parts, matcher, contenders, clock };
}

/** The optional matcher-vs-mingo comparison lives in another file; a missing file is fine. */
async function runMatcherReport(): Promise<void> {
  const file = path.join(__dirname, 'matcher-vs-mingo.js');
  if (!fs.existsSync(file)) {
    process.stdout.write('\n(bench/matcher-vs-mingo.ts not present: matcher comparison skipped)\n');
    return;
  }
  let mod: { runMatcherComparison?: () => unknown };
  try {
    // A computed specifier: tsc must not try to resolve a file that may not exist yet.
    const specifier = file;
    mod = (await import(specifier)) as typeof mod;
  } catch (err) {
    process.stdout.write(`\n(matcher comparison could not be loaded: ${(err as Error).message})\n`);
    return;
  }
  if (typeof mod.runMatcherComparison !== 'function') {
    process.stdout.write('\n(bench/matcher-vs-mingo does not export runMatcherComparison(): skipped)\n');
    return;
  }
  process.stdout.write('\n# Matcher vs mingo\n');
  try {
    const report = await mod.runMatcherComparison();
    if (typeof report === 'string') process.stdout.write(report.endsWith('\n') ? report : `${report}\n`);
    else if (report !== undefined && report !== null) console.dir(report, { depth: 6 });
  } catch (err) {
    process.stdout.write(`(matcher comparison failed: ${(err as Error).stack ?? String(err)})\n`);
  }
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const { parts } = options;
  if (parts.has('engine'))
    await runEngineBench(options.sizes, { contenders: options.contenders, clock: options.clock });
  // TTL expiry (the TTL issue) and the shell's overhead (the shell issue), on the same sizes.
  if (parts.has('ttl')) await runTTLBench(options.sizes);
  if (parts.has('shell')) runShellBench(Math.min(50_000, options.sizes[0]));
  // Activation and the tree (the extension issue): the largest size (1M by default).
  if (parts.has('extension')) {
    await runExtensionBench({
      root: path.resolve(__dirname, '..', '..'),
      documents: Math.max(...options.sizes),
      indexes: 20,
      collections: 1000,
      activationRuns: options.quick ? 5 : 15,
    });
  }
  // Durable storage: write throughput per durability mode, recovery and snapshot size (largest size).
  if (parts.has('storage')) await runStorageBench(Math.max(...options.sizes));
  if (parts.has('matcher')) await runMatcherReport();
  // Source analysis (the diagnostics issue): generated 1k / 10k / 50k-line files.
  if (parts.has('analysis')) {
    runAnalysisBench();
    runRealCodeBench();
  }
  // The engine host (its issue): main-thread stalls, worker vs in-thread, on one size.
  // The wire endpoint (its issue): the driver over loopback vs the in-process API.
  if (parts.has('wire')) await runWireBench();
  // Real deployments (issue 21): the tree's first expansion over the driver, the preview's bounded count.
  if (parts.has('deploy')) await runDeployBench();
  // The expiry forecast (its issue): index range counts against a scan, at the largest size.
  if (parts.has('forecast')) runForecastBench(Math.max(...options.sizes));
  // MongoDB beyond TTL (issue 26): $lookup, positional updates and $group beside mingo.
  if (parts.has('aggregation')) runAggregationBench({ quick: options.quick });
  if (parts.has('host')) {
    await runHostBench({
      root: path.resolve(__dirname, '..', '..'),
      documents: options.sizesGiven ? options.sizes[0] : DEFAULT_HOST_SIZE,
    });
  }
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
