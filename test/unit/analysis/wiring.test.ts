/**
 * Every rule of the table is wired: `analyzeText`, the entry point of `ttl-workbench check` and
 * Check Workspace (the editor's `AnalysisSession` returns the same result), reports each code on
 * at least one fixture file of the repository. A code added to `src/analysis/rules.ts` whose
 * check is never called, or whose definitions are never found, fails here by name.
 *
 * Each file is analysed in the two contexts the real callers give it: the CLI's (no engine) and
 * the extension's with an engine connected, whose `EngineFacts` come from the extension's own
 * `EngineSnapshot` over an `EmbeddedBackend` holding the fixtures' engine state (TTL011 needs it).
 * No rule is exempt. No rule needs notebook cells either: a `.ttlbook` file goes through the same
 * checks cell by cell.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { analyzeText, RULE_CODES, sourceKindOf, type AnalysisOptions, type EngineFacts } from '../../../src/analysis';
import { EngineSnapshot } from '../../../src/extension/analysis/engine-snapshot';
import { EmbeddedBackend } from '../../../src/extension/backend/embedded-backend';
import { EngineLink } from '../../../src/extension/engine-link';
import { FIXTURE_ENGINE_STATE } from './engine-fixture';

const root = path.resolve(__dirname, '../../../..');

/** Where the repository keeps source files for the analysis to read. */
const FIXTURE_DIRS = ['test/unit/analysis/fixtures', 'test/integration/fixtures/diagnostics'];

function fixtureFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (sourceKindOf(entry.name)) out.push(file);
    }
  };
  for (const dir of FIXTURE_DIRS) walk(path.join(root, dir));
  return out.sort();
}

/** The facts the extension's live diagnostics pass once the engine holds the fixtures' state. */
async function connectedEngineFacts(): Promise<EngineFacts> {
  const backend = new EmbeddedBackend({}, { startMs: Date.parse('2026-01-01T00:00:00Z') });
  try {
    for (const [db, command] of FIXTURE_ENGINE_STATE) await backend.runCommand(db, structuredClone(command));
    const engine = new EngineLink();
    engine.attach(backend);
    const facts = await new EngineSnapshot(engine).refresh();
    assert.ok(facts, 'an attached engine gives facts');
    return facts;
  } finally {
    backend.dispose();
  }
}

function unreachableMessage(codes: readonly string[]): string {
  const fixtures = codes.map((c) => `test/unit/analysis/fixtures/${c.toLowerCase()}.{js,ts,ttlbook}`);
  return [
    `${codes.join(', ')} ${codes.length === 1 ? 'is' : 'are'} in src/analysis/rules.ts, but analyzeText reports ${codes.length === 1 ? 'it' : 'them'} on no fixture file`,
    `(${FIXTURE_DIRS.join(', ')}), neither without an engine nor with the fixtures' engine state.`,
    'Check these steps of "Add a diagnostic rule" in docs/ARCHITECTURE.md:',
    '- 4 Call: the check is called from runChecks in src/analysis/analyze.ts (a definition without a',
    '  TTL option never gets past the `!def.ttl` guard of the index loop);',
    '- 6 Definitions: the callee name is in INTERESTING (src/analysis/scan.ts) and DefinitionFinder',
    '  (src/analysis/definitions.ts) builds the definition; Mongoose schema.index(...) becomes one only',
    '  when its options hold `expires` or `expireAfterSeconds`;',
    '- 7 Pre-filter: the fixture text has one of the NEEDED_WORDS of src/analysis/analyze.ts (a text',
    '  with none of them is not parsed at all);',
    '- 8 Engine facts: src/extension/analysis/engine-snapshot.ts fills the facts the check reads, and',
    '  FIXTURE_ENGINE_STATE (test/unit/analysis/engine-fixture.ts) holds the state its fixtures need;',
    `- 9 Tests: the fixtures exist with a positive case: ${fixtures.join(', ')}.`,
  ].join('\n');
}

describe('analysis wiring', () => {
  test('every rule code in rules.ts is reported by analyzeText on some fixture file', async () => {
    // The CLI's options (no engine), and the extension's with an engine connected.
    const contexts: AnalysisOptions[] = [{}, { engine: await connectedEngineFacts() }];
    const files = fixtureFiles();
    assert.ok(
      files.length >= RULE_CODES.length,
      `only ${files.length} fixture files found in ${FIXTURE_DIRS.join(', ')}`,
    );
    const reached = new Set<string>();
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8');
      for (const options of contexts) for (const p of analyzeText(text, file, options).problems) reached.add(p.code);
    }
    const unreachable = RULE_CODES.filter((code) => !reached.has(code));
    assert.deepEqual(unreachable, [], unreachableMessage(unreachable));
  });
});
