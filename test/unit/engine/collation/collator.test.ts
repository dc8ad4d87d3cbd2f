/**
 * String comparison under a collation: each option's effect, through Node's ICU.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Collator } from '../../../../src/engine/collation/collator';
import { parseCollation } from '../../../../src/engine/collation/spec';

function collator(spec: Record<string, unknown>): Collator {
  const parsed = parseCollation(spec);
  assert.ok(parsed);
  return new Collator(parsed);
}

function sorted(c: Collator, words: string[]): string[] {
  return [...words].sort((a, b) => c.compare(a, b));
}

describe('collator', () => {
  it('collation: strength 1 ignores case and accents ("cafe" = "CAFÉ")', () => {
    assert.equal(collator({ locale: 'en', strength: 1 }).compare('cafe', 'CAFÉ'), 0);
  });

  it('collation: strength 2 matches "café" and "CAFÉ" but not "cafe"', () => {
    const c = collator({ locale: 'en', strength: 2 });
    assert.equal(c.compare('café', 'CAFÉ'), 0);
    assert.notEqual(c.compare('café', 'cafe'), 0);
  });

  it('collation: strength 3 (the default) tells case apart, lower case first', () => {
    const c = collator({ locale: 'en' });
    assert.equal(c.compare('a', 'A'), -1);
    assert.equal(c.compare('A', 'b'), -1);
  });

  it('collation: caseLevel at strength 1 tells case apart but not accents', () => {
    const c = collator({ locale: 'en', strength: 1, caseLevel: true });
    assert.notEqual(c.compare('a', 'A'), 0);
    assert.equal(c.compare('a', 'á'), 0);
  });

  it('collation: caseFirst "upper" sorts "A" before "a"', () => {
    assert.equal(collator({ locale: 'en', caseFirst: 'upper' }).compare('A', 'a'), -1);
    assert.equal(collator({ locale: 'en', caseFirst: 'lower' }).compare('A', 'a'), 1);
  });

  it('collation: numericOrdering sorts "2" before "10"', () => {
    assert.deepEqual(sorted(collator({ locale: 'en', numericOrdering: true }), ['10', '2', '1']), ['1', '2', '10']);
    assert.deepEqual(sorted(collator({ locale: 'en' }), ['10', '2', '1']), ['1', '10', '2']);
  });

  it('collation: alternate "shifted" ignores spaces and punctuation below strength 4', () => {
    const c = collator({ locale: 'en', alternate: 'shifted' });
    assert.equal(c.compare('black-bird', 'blackbird'), 0);
    assert.equal(c.compare('black bird', 'blackbird'), 0);
    assert.notEqual(collator({ locale: 'en' }).compare('black-bird', 'blackbird'), 0);
  });

  it('collation: alternate "shifted" with maxVariable "space" ignores spaces but not punctuation', () => {
    const c = collator({ locale: 'en', alternate: 'shifted', maxVariable: 'space' });
    assert.equal(c.compare('black bird', 'blackbird'), 0);
    assert.notEqual(c.compare('black-bird', 'blackbird'), 0);
  });

  it('collation: strength 4 with alternate "shifted" tells punctuation apart last', () => {
    const c = collator({ locale: 'en', alternate: 'shifted', strength: 4 });
    assert.notEqual(c.compare('black-bird', 'blackbird'), 0);
    // Still ordered by the letters first: punctuation only breaks ties.
    assert.equal(c.compare('black-bird', 'blackbirds'), -1);
  });

  it('collation: strength 5 (identical) tells apart strings equal at every other level', () => {
    // U+00C5 (Å) and U+212B (Angstrom sign) are canonically equivalent: equal even at strength 5.
    assert.equal(collator({ locale: 'en', strength: 5 }).compare('\u00c5', '\u212b'), 0);
    // U+FF21 (fullwidth A) differs from A only at the tertiary level and is told apart from strength 3.
    assert.equal(collator({ locale: 'en', strength: 2 }).compare('\uff21', 'A'), 0);
    assert.notEqual(collator({ locale: 'en', strength: 5 }).compare('\uff21', 'A'), 0);
  });

  it('collation: backwards compares accents from the end of the string (French secondary order)', () => {
    const words = ['cote', 'côte', 'coté', 'côté'];
    assert.deepEqual(sorted(collator({ locale: 'fr' }), words), ['cote', 'coté', 'côte', 'côté']);
    assert.deepEqual(sorted(collator({ locale: 'fr', backwards: true }), words), ['cote', 'côte', 'coté', 'côté']);
    assert.deepEqual(sorted(collator({ locale: 'fr_CA' }), words), ['cote', 'côte', 'coté', 'côté']);
  });

  it('collation: the locale decides the alphabet ("ch" sorts after "h" in Slovak)', () => {
    assert.equal(collator({ locale: 'sk' }).compare('chata', 'hora'), 1);
    assert.equal(collator({ locale: 'en' }).compare('chata', 'hora'), -1);
  });
});
