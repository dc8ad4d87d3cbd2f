// Per-file mutation scores from the results checked in under test/mutation/ (`npm run mutate --
// --scores`): what a reviewer needs without rerunning Stryker, and what tells them the stored
// result no longer describes the code (the file changed since its run) or covers only part of it.
'use strict';

/** The share of mutants a test noticed; Ignored (judged equivalent) and CompileError count for neither side. */
function scoreOf(counts) {
  const detected = counts.Killed + counts.Timeout;
  const undetected = counts.Survived + counts.NoCoverage;
  return detected + undetected === 0 ? undefined : (100 * detected) / (detected + undetected);
}

/**
 * One row per mutated file of a group: its stored result, or `measured: false` for a file of the
 * group with none. `sourceOf(file)` gives the file's text now (undefined if it is gone): a result
 * whose source differs is stale, so its score says nothing until the file is measured again.
 * `nothingToMutate` names files Stryker finds no mutant in (only types, say): Stryker stores no
 * result for them, and they must not read as "not measured".
 */
function scoreRows(incremental, groupFiles, sourceOf, target, nothingToMutate = new Set()) {
  const stored = (incremental && incremental.files) || {};
  const rows = [];
  for (const file of [...new Set([...groupFiles, ...Object.keys(stored)])].sort()) {
    const result = stored[file];
    const current = sourceOf(file);
    if (!result) {
      rows.push({ file, measured: false, target, ...(nothingToMutate.has(file) ? { nothingToMutate: true } : {}) });
      continue;
    }
    const counts = { Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0, Ignored: 0, CompileError: 0, Other: 0 };
    let first = Infinity;
    let last = 0;
    for (const m of result.mutants) {
      counts[m.status in counts ? m.status : 'Other']++;
      first = Math.min(first, m.location.start.line);
      last = Math.max(last, m.location.end.line);
    }
    const lines = current === undefined ? 0 : current.replace(/\n$/, '').split('\n').length;
    rows.push({
      file,
      measured: true,
      counts,
      mutants: result.mutants.length,
      score: scoreOf(counts),
      target,
      stale: current === undefined ? 'gone' : current !== result.source ? 'changed' : undefined,
      span: result.mutants.length ? [first, last] : undefined,
      lines,
    });
  }
  return rows;
}

function formatRows(group, rows) {
  const cols = [
    ['file', 45],
    ['valid', 6],
    ['killed', 7],
    ['timeout', 8],
    ['survived', 9],
    ['nocov', 6],
    ['ignored', 8],
    ['score', 8],
    ['target', 7],
    ['mutated lines', 16],
  ];
  const line = (cells) =>
    '  ' + cells.map((c, i) => (i === 0 ? c.padEnd(cols[i][1]) : c.padStart(cols[i][1]))).join('');
  const out = [`${group}:`, line(cols.map(([name]) => name))];
  for (const r of rows) {
    if (!r.measured) {
      out.push(
        `  ${r.file.padEnd(45)}  ${r.nothingToMutate ? 'nothing to mutate (no mutant in the file)' : 'not measured'}`,
      );
      continue;
    }
    const c = r.counts;
    // Only these count: CompileError and RuntimeError mutants (invalid code) and Ignored ones do not.
    const valid = c.Killed + c.Timeout + c.Survived + c.NoCoverage;
    const flags = [];
    if (r.score !== undefined && r.score < r.target) flags.push('BELOW TARGET');
    if (r.stale === 'changed') flags.push('STALE: the file changed since this result; rerun it');
    if (r.stale === 'gone') flags.push('the file is gone');
    // A run over line ranges leaves the rest unmeasured: the span of the stored mutants shows it.
    const span = r.span ? `${r.span[0]}-${r.span[1]} of ${r.lines}` : '-';
    out.push(
      line([
        r.file,
        String(valid),
        String(c.Killed),
        String(c.Timeout),
        String(c.Survived),
        String(c.NoCoverage),
        String(c.Ignored),
        r.score === undefined ? '-' : `${r.score.toFixed(2)}%`,
        `${r.target}%`,
        span,
      ]) + (flags.length ? `  ${flags.join('; ')}` : ''),
    );
  }
  return out.join('\n');
}

module.exports = { scoreOf, scoreRows, formatRows };
