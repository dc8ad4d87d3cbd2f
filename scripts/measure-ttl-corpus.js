#!/usr/bin/env node
// Measures the TTL diagnostics on a corpus of real source files judged by hand (issue 25):
//   node scripts/measure-ttl-corpus.js <corpus folder> [--json] [--verbose] [--no-build]
// The folder holds a manifest.json listing files (repository, path, commit, file) and, per file, each TTL
// definition: the line of its value, the value as written, and the judgement ("correct", or a mistake with
// its category, "index" or "data", and the rule codes that catch it). The analysis is the one `ttl-workbench
// check` runs (checkPaths of out/src/cli/check.js), on a copy of each file in a folder of its own.
//   visibility: each definition's value replaced by -1 (refused everywhere) must draw an error or warning on
//     that line, i.e. the checker sees the definition at all;
//   recall: the judged mistakes for which one of the expected codes is reported on the definition's lines,
//     index-definition mistakes and data-level bugs apart;
//   false positives: correct definitions with an error or warning on their lines, and every other error or
//     warning that no judged mistake explains.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { compileOrExit } = require('./lib/compile');

const root = path.resolve(__dirname, '..');
const args = process.argv.slice(2);
const corpus = args.find((a) => !a.startsWith('--'));
if (!corpus) {
  console.error('usage: node scripts/measure-ttl-corpus.js <corpus folder> [--json] [--verbose] [--no-build]');
  process.exit(2);
}
if (!args.includes('--no-build')) {
  compileOrExit('measure');
}
const { checkPaths } = require(path.join(root, 'out/src/cli/check.js'));
const manifest = JSON.parse(fs.readFileSync(path.join(corpus, 'manifest.json'), 'utf8'));

const SEEN = new Set(['error', 'warning']);
const OPTION_BEFORE_VALUE = /(expire\w*|exexpires|ttl)["']?\s*:\s*/gi;

/** Where the definition's value starts on its line: right after a TTL option name, else its last occurrence. */
function valueAt(lineText, value) {
  for (const m of lineText.matchAll(OPTION_BEFORE_VALUE)) {
    const at = m.index + m[0].length;
    if (lineText.startsWith(value, at)) return at;
  }
  return lineText.lastIndexOf(value);
}

/** The records `check` gives for one text, analysed as a file of the given relative path in a folder of its own. */
function check(relPath, text, extraFiles) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-corpus-'));
  try {
    for (const [rel, body] of extraFiles) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), body);
    }
    fs.mkdirSync(path.dirname(path.join(dir, relPath)), { recursive: true });
    fs.writeFileSync(path.join(dir, relPath), text);
    const outcome = checkPaths({ paths: [relPath], serverVersion: '8.0', disabledRules: [] }, dir);
    return { records: outcome.records, partial: outcome.partialFiles ?? 0 };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The other corpus files of the same repository, so imports inside the workspace resolve as they would there. */
function siblings(entry) {
  return manifest.files
    .filter((f) => f.repository === entry.repository && f.path !== entry.path)
    .map((f) => [f.path, fs.readFileSync(path.join(corpus, f.file), 'utf8')]);
}

const rows = [];
const stray = [];
let partialFiles = 0;
for (const entry of manifest.files) {
  const text = fs.readFileSync(path.join(corpus, entry.file), 'utf8');
  const lines = text.split('\n');
  const others = siblings(entry);
  const base = check(entry.path, text, others);
  partialFiles += base.partial ? 1 : 0;
  const explained = new Set();
  for (const def of entry.definitions) {
    const [from, to] = def.lines ?? [def.line, def.line];
    const onLines = base.records.filter((r) => r.line >= from && r.line <= to && SEEN.has(r.severity));
    const row = {
      file: `${entry.repository}/${entry.path}`,
      line: def.line,
      judgement: def.judgement,
      visible: undefined,
    };
    if (def.judgement === 'correct') {
      row.falseAlarms = onLines.map((r) => `${r.code} ${r.message.slice(0, 90)}`);
    } else {
      const hits = onLines.filter((r) => def.judgement.expect.includes(r.code));
      row.found = hits.length > 0;
      for (const r of hits) explained.add(r);
      for (const r of onLines) explained.add(r);
    }
    if (def.value !== null && def.value !== undefined) {
      const lineText = lines[def.line - 1];
      const at = valueAt(lineText, def.value);
      const mutatedLines = [...lines];
      mutatedLines[def.line - 1] = lineText.slice(0, at) + '-1' + lineText.slice(at + def.value.length);
      const mutated = check(entry.path, mutatedLines.join('\n'), others);
      row.visible = mutated.records.some((r) => r.line === def.line && SEEN.has(r.severity));
    }
    rows.push(row);
  }
  for (const r of base.records) {
    if (!SEEN.has(r.severity) || explained.has(r)) continue;
    const onCorrect = entry.definitions.some((d) => {
      const [from, to] = d.lines ?? [d.line, d.line];
      return d.judgement === 'correct' && r.line >= from && r.line <= to;
    });
    if (!onCorrect) stray.push(`${entry.repository}/${entry.path}:${r.line} ${r.code} ${r.message.slice(0, 90)}`);
  }
}

const pct = (n, d) => (d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)}%`);
const withValue = rows.filter((r) => r.visible !== undefined);
const visible = withValue.filter((r) => r.visible);
const mistakes = (category) => rows.filter((r) => r.judgement !== 'correct' && r.judgement.category === category);
const index = mistakes('index');
const data = mistakes('data');
const correct = rows.filter((r) => r.judgement === 'correct');
const falseOnCorrect = correct.filter((r) => r.falseAlarms.length > 0);
const summary = {
  files: manifest.files.length,
  repositories: new Set(manifest.files.map((f) => f.repository)).size,
  definitions: rows.length,
  visibility: { visible: visible.length, of: withValue.length, rate: pct(visible.length, withValue.length) },
  indexMistakes: {
    found: index.filter((r) => r.found).length,
    of: index.length,
    rate: pct(index.filter((r) => r.found).length, index.length),
  },
  dataBugs: {
    found: data.filter((r) => r.found).length,
    of: data.length,
    rate: pct(data.filter((r) => r.found).length, data.length),
  },
  falsePositives: {
    onCorrect: falseOnCorrect.length,
    of: correct.length,
    rate: pct(falseOnCorrect.length, correct.length),
    stray: stray.length,
  },
  filesNotFullyRead: partialFiles,
};

if (args.includes('--json')) {
  console.log(JSON.stringify({ summary, rows, stray }, null, 1));
  process.exit(0);
}
console.log(
  `corpus: ${summary.files} files from ${summary.repositories} repositories, ${summary.definitions} TTL definitions judged by hand`,
);
console.log(
  `visibility (value -> -1 draws an error/warning on its line): ${visible.length}/${withValue.length} = ${summary.visibility.rate}`,
);
console.log(
  `index-definition mistakes found: ${summary.indexMistakes.found}/${index.length} = ${summary.indexMistakes.rate}`,
);
console.log(`data-level TTL bugs found: ${summary.dataBugs.found}/${data.length} = ${summary.dataBugs.rate}`);
console.log(
  `false warnings/errors on correct definitions: ${falseOnCorrect.length}/${correct.length} = ${summary.falsePositives.rate}; other unexplained warnings/errors: ${stray.length}`,
);
console.log(`files check could not read in full: ${partialFiles}`);
const verbose = args.includes('--verbose');
const show = (title, list, line) => {
  if (list.length === 0) return;
  console.log(`\n${title}:`);
  for (const r of list) console.log(`  ${line(r)}`);
};
show(
  'not visible',
  withValue.filter((r) => !r.visible),
  (r) => `${r.file}:${r.line}`,
);
show(
  'mistakes missed',
  [...index, ...data].filter((r) => !r.found),
  (r) => `${r.file}:${r.line} [${r.judgement.category}] ${r.judgement.mistake}`,
);
show('false alarms on correct definitions', falseOnCorrect, (r) => `${r.file}:${r.line} ${r.falseAlarms.join(' | ')}`);
show('other warnings/errors', stray, (s) => s);
if (verbose)
  show(
    'mistakes found',
    [...index, ...data].filter((r) => r.found),
    (r) => `${r.file}:${r.line} ${r.judgement.mistake}`,
  );
