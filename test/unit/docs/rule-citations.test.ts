/**
 * The repository stands alone for its TTL rule numbers: every rule that code, tests and docs cite
 * (`rule 7.8`, `rules 2.3–2.5, 3.1`, `§7.8`, `§10`, `specRule: '1.2'`) is a rule (or section) of
 * docs/ttl-rules.md, and the doc gives each number once, as a `### N.M Title` heading under its
 * `## N.` section.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

const root = path.resolve(__dirname, '..', '..', '..', '..');
const RULES_DOC = 'docs/ttl-rules.md';

/** Folders searched recursively for citations, and the files of these extensions in them. */
const SCANNED_DIRS = ['src', 'test'];
const SCANNED_EXTENSIONS = new Set(['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json', '.md', '.ttlbook']);

const NUMBER = String.raw`\d+\.\d+`;
/** Between two numbers of one citation: `,` `/` `–` `-` `and` `or` `to`, with an optional `§`. */
const SEPARATOR = String.raw`\s*(?:,|/|–|—|-|\band\b|\bor\b|\bto\b)\s*§?\s?`;
const CITATION_PATTERNS = [
  new RegExp(String.raw`\b[Rr]ules?\s+(${NUMBER}(?:${SEPARATOR}${NUMBER})*)`, 'g'),
  new RegExp(String.raw`§\s?(\d+(?:\.\d+)?(?:${SEPARATOR}${NUMBER})*)`, 'g'),
  new RegExp(String.raw`\bspecRule:\s*'(${NUMBER})'`, 'g'),
];

/** The rule numbers (`7.8`) and section numbers (`§10`) one line cites; both ends of a range. */
export function citationsIn(line: string): string[] {
  const found: { at: number; refs: string[] }[] = [];
  for (const pattern of CITATION_PATTERNS) {
    for (const m of line.matchAll(pattern)) {
      const refs = m[1].match(/\d+(?:\.\d+)?/g) ?? [];
      found.push({ at: m.index, refs: refs.map((r) => (r.includes('.') ? r : `§${r}`)) });
    }
  }
  return found.sort((a, b) => a.at - b.at).flatMap((f) => f.refs);
}

interface RulesDoc {
  rules: Map<string, number[]>;
  sections: Set<string>;
  /** Lines that look like a rule or section heading but do not have the parsed form. */
  malformed: string[];
  /** Rules filed under another section's heading. */
  misplaced: string[];
}

function readRulesDoc(): RulesDoc {
  const doc: RulesDoc = { rules: new Map(), sections: new Set(), malformed: [], misplaced: [] };
  let section: string | undefined;
  fs.readFileSync(path.join(root, RULES_DOC), 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const lineNo = i + 1;
      const sectionHeading = /^## (\d+)\. \S/.exec(line);
      const ruleHeading = /^### ((\d+)\.\d+) \S/.exec(line);
      if (sectionHeading) {
        section = sectionHeading[1];
        doc.sections.add(section);
      } else if (ruleHeading) {
        doc.rules.set(ruleHeading[1], [...(doc.rules.get(ruleHeading[1]) ?? []), lineNo]);
        if (ruleHeading[2] !== section) doc.misplaced.push(`${RULES_DOC}:${lineNo}: ${line}`);
      } else if (/^#+\s*§?\d/.test(line)) {
        doc.malformed.push(`${RULES_DOC}:${lineNo}: ${line}`);
      }
    });
  return doc;
}

function filesToScan(): string[] {
  const files: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = path.posix.join(rel, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile() && SCANNED_EXTENSIONS.has(path.extname(entry.name))) files.push(child);
    }
  };
  for (const dir of SCANNED_DIRS) walk(dir);
  for (const name of ['README.md', 'CONTRIBUTING.md']) if (fs.existsSync(path.join(root, name))) files.push(name);
  for (const name of fs.readdirSync(path.join(root, 'docs')))
    if (name.endsWith('.md')) files.push(path.posix.join('docs', name));
  return files;
}

interface Citation {
  where: string;
  ref: string;
}

function allCitations(): Citation[] {
  const citations: Citation[] = [];
  for (const file of filesToScan()) {
    fs.readFileSync(path.join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const ref of citationsIn(line)) citations.push({ where: `${file}:${i + 1}`, ref });
      });
  }
  return citations;
}

describe(`TTL rule citations resolve in ${RULES_DOC}`, () => {
  it('finds rule numbers in single citations, lists, ranges, § references and specRule fields', () => {
    assert.deepEqual(citationsIn('see rule 7.8: arrays'), ['7.8']);
    assert.deepEqual(citationsIn('Rules 2.3–2.5, 3.1 / 3.11 and 1.4 truncation'), ['2.3', '2.5', '3.1', '3.11', '1.4']);
    assert.deepEqual(citationsIn('(§1.1–1.4, 1.6, §5.5) and §10'), ['1.1', '1.4', '1.6', '5.5', '§10']);
    assert.deepEqual(citationsIn("{ specRule: '6.4', docs }"), ['6.4']);
    assert.deepEqual(citationsIn('rule 1.8: 7.1+ only; version 8.0, ruler 2.5'), ['1.8']);
  });

  it('the repository cites rules at all (the search is not silently empty)', () => {
    const citations = allCitations();
    assert.ok(citations.length > 300, `only ${citations.length} citations found`);
    assert.ok(citations.some((c) => c.ref === '7.8' && c.where.startsWith('test/unit/engine/ttl/monitor.test.ts:')));
  });

  it('the doc gives every rule number once, as `### N.M Title` under its `## N.` section', () => {
    const doc = readRulesDoc();
    const duplicates = [...doc.rules]
      .filter(([, lines]) => lines.length > 1)
      .map(
        ([rule, lines]) => `rule ${rule} is numbered ${lines.length} times, at ${RULES_DOC} lines ${lines.join(', ')}`,
      );
    assert.deepEqual(duplicates, [], 'duplicate rule numbers');
    assert.deepEqual(doc.malformed, [], 'headings that look like rules but are not `### N.M Title` or `## N. Title`');
    assert.deepEqual(doc.misplaced, [], 'rules under the heading of another section');
    assert.ok(doc.rules.size > 0, `${RULES_DOC} has no rule headings`);
  });

  it('every cited rule and section exists (file:line of each dangling citation)', () => {
    const doc = readRulesDoc();
    const dangling = allCitations()
      .filter((c) => (c.ref.startsWith('§') ? !doc.sections.has(c.ref.slice(1)) : !doc.rules.has(c.ref)))
      .map((c) => `${c.where}: ${c.ref.startsWith('§') ? `section ${c.ref}` : `rule ${c.ref}`}`);
    assert.deepEqual(dangling, [], `citations of rules that ${RULES_DOC} does not have`);
  });
});
