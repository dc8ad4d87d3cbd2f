/**
 * `npm run compat`: writes docs/compatibility.md from what the engine answers; `-- --check` only
 * says whether the file is out of date (exit 1), for CI and the unit test.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { probeAll } from './probe';
import { REFERENCE } from './reference';
import { renderReport } from './render';

export const REPORT_PATH = 'docs/compatibility.md';
const SERVER_VERSION = '8.0';

export function generateReport(): string {
  return renderReport(probeAll(REFERENCE), SERVER_VERSION);
}

function main(argv: readonly string[], root: string): number {
  const file = path.join(root, REPORT_PATH);
  const report = generateReport();
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
  if (argv.includes('--check')) {
    if (current === report) return 0;
    console.error(`${REPORT_PATH} is out of date: run \`npm run compat\` and commit the result.`);
    return 1;
  }
  fs.writeFileSync(file, report);
  const summary = report
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| name') && !l.startsWith('| `') && !l.startsWith('| ---'));
  console.log(`wrote ${REPORT_PATH}\n${summary.join('\n')}`);
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2), process.cwd());
