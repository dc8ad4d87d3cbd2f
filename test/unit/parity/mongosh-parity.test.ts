/**
 * The differential test: every script of the corpus (the example notebooks, the MongoDB manual's
 * TTL examples, the generated helper scripts) printed by the real mongosh against the wire
 * endpoint and by `ttl-workbench run`, each on a fresh engine at the same virtual instant. Every
 * script prints the same lines and stops with the same error (code and codeName), or is listed in
 * test/parity/deliberate.ts with the reason. `TTL_PARITY_GREP=<text>` runs only the scripts whose
 * name contains the text.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { docsScripts } from '../../parity/corpus/docs';
import { generatedScripts } from '../../parity/corpus/generated';
import { notebookScripts } from '../../parity/corpus/notebooks';
import { DELIBERATE } from '../../parity/deliberate';
import { compare, report, runUnderMongosh, runWithOurShell, type ParityScript } from '../../parity/harness';

const grep = process.env.TTL_PARITY_GREP;
const corpus: ParityScript[] = [...notebookScripts(), ...docsScripts, ...generatedScripts].filter(
  (s) => !grep || s.name.includes(grep),
);

describe('shell parity with mongosh (differential)', () => {
  test('the corpus has every example notebook, the manual TTL examples and at least 150 generated scripts', () => {
    if (grep) return;
    assert.equal(corpus.filter((s) => s.name.startsWith('examples/')).length, 7);
    assert.ok(docsScripts.length >= 15, `${docsScripts.length} manual examples`);
    assert.ok(generatedScripts.length >= 150, `${generatedScripts.length} generated scripts`);
    assert.equal(new Set(corpus.map((s) => s.name)).size, corpus.length, 'script names are unique');
  });

  test('every script prints what mongosh prints and fails with the same error, or is a listed deliberate difference', async (t) => {
    const theirs = await runUnderMongosh(corpus);
    const ours = runWithOurShell(corpus);
    const differences = compare(corpus, theirs, ours);
    const unexpected = differences.filter((d) => DELIBERATE[d.script] === undefined);
    const differing = new Set(differences.map((d) => d.script));
    const stale = Object.keys(DELIBERATE).filter((name) => corpus.some((s) => s.name === name) && !differing.has(name));
    t.diagnostic(
      `${corpus.length} scripts: ${corpus.length - differing.size} match mongosh, ${differing.size - unexpected.length} differ deliberately, ${unexpected.length} differ`,
    );
    assert.deepEqual(stale, [], 'listed as deliberate differences but matching mongosh now: remove them from the list');
    assert.equal(unexpected.length, 0, `differences from mongosh:\n${report(unexpected)}`);
  });
});
