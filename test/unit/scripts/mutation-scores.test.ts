/**
 * `npm run mutate -- --scores`: the per-file scores read from the results checked in under
 * test/mutation/, computed as Stryker does (Ignored, CompileError and RuntimeError on neither side),
 * with the flags a reviewer needs: below the group's target, stale, and the lines measured.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';

const root = path.resolve(__dirname, '..', '..', '..', '..');

interface Row {
  file: string;
  measured: boolean;
  score?: number;
  stale?: string;
  span?: [number, number];
  counts?: Record<string, number>;
}
const { scoreRows, formatRows } = require(path.join(root, 'scripts', 'lib', 'mutation-scores.js')) as {
  scoreRows: (
    incremental: unknown,
    groupFiles: string[],
    sourceOf: (f: string) => string | undefined,
    target: number,
    nothingToMutate?: Set<string>,
  ) => Row[];
  formatRows: (group: string, rows: Row[]) => string;
};

function mutant(status: string, line: number) {
  return { status, location: { start: { line, column: 1 }, end: { line, column: 9 } } };
}

const source = 'a\nb\nc\nd\ne\n';
const incremental = {
  files: {
    'src/x.ts': {
      source,
      mutants: [
        mutant('Killed', 2),
        mutant('Killed', 2),
        mutant('Timeout', 3),
        mutant('Survived', 4),
        mutant('NoCoverage', 4),
        mutant('Ignored', 1),
        mutant('CompileError', 5),
        mutant('RuntimeError', 5),
      ],
    },
  },
};

test('mutation scores: (killed + timeout) / (killed + timeout + survived + no coverage); ignored and invalid mutants count for neither side', () => {
  const [row] = scoreRows(incremental, ['src/x.ts'], () => source, 85);
  assert.equal(row.score, 60);
  assert.deepEqual(row.span, [1, 5]);
  assert.equal(row.stale, undefined);
  const text = formatRows('g', [row]);
  assert.match(text, /src\/x\.ts\s+5\s+2\s+1\s+1\s+1\s+1\s+60\.00%\s+85%\s+1-5 of 5\s+BELOW TARGET/);
});

test('mutation scores: a result whose file changed since its run is flagged stale, and one whose file is gone says so', () => {
  const [changed] = scoreRows(incremental, ['src/x.ts'], () => source + 'f\n', 50);
  assert.equal(changed.stale, 'changed');
  const text = formatRows('g', [changed]);
  assert.match(text, /STALE: the file changed since this result; rerun it/);
  assert.doesNotMatch(text, /BELOW TARGET/, '60% is above a 50% target');
  const [gone] = scoreRows(incremental, [], () => undefined, 85);
  assert.equal(gone.stale, 'gone');
  assert.match(formatRows('g', [gone]), /the file is gone/);
});

test('mutation scores: a file of the group without a stored result is listed as not measured', () => {
  const rows = scoreRows(incremental, ['src/x.ts', 'src/a.ts'], () => source, 85);
  assert.deepEqual(
    rows.map((r) => [r.file, r.measured]),
    [
      ['src/a.ts', false],
      ['src/x.ts', true],
    ],
  );
  assert.match(formatRows('g', rows), /src\/a\.ts\s+not measured/);
});

test('mutation scores: a file Stryker finds nothing to mutate in says so instead of "not measured"', () => {
  const rows = scoreRows(incremental, ['src/x.ts', 'src/types.ts'], () => source, 85, new Set(['src/types.ts']));
  const text = formatRows('g', rows);
  assert.match(text, /src\/types\.ts\s+nothing to mutate/);
  assert.doesNotMatch(text, /not measured/);
});

test('npm run mutate -- --scores prints every group from the checked-in results and runs nothing', () => {
  const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'mutate.js'), '--scores', 'storage'], {
    cwd: root,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^storage:/);
  assert.match(r.stdout, /src\/storage\/frames\.ts\s+\d+/);
  assert.match(r.stdout, /\s90%/, "storage's target is 90%");
  // storage-fs.ts holds a type and one assignment: Stryker's instrumenter finds no mutant in it.
  assert.match(r.stdout, /src\/storage\/storage-fs\.ts\s+nothing to mutate/);
  assert.doesNotMatch(r.stdout, /compiling/, 'nothing is compiled or run');
});
