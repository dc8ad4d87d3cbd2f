/**
 * The collation document: mongod's validation (codes and messages of its ICU collator factory) and
 * the normalized collation echoed back with every default filled in.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { collationDocument, parseCollation } from '../../../../src/engine/collation/spec';
import { expectError } from '../../helpers/expect-error';

function echoed(spec: unknown): Record<string, unknown> {
  const parsed = parseCollation(spec);
  assert.ok(parsed);
  const doc = collationDocument(parsed);
  return { ...doc, strength: Number(doc.strength) };
}

describe('collation document', () => {
  it('collation: {locale: "simple"} is binary comparison (no collator) and takes no other field', () => {
    assert.equal(parseCollation({ locale: 'simple' }), null);
    expectError(() => parseCollation({ locale: 'simple', strength: 2 }), 9, /If locale=simple, no other fields/);
  });

  it('collation: the echoed document fills every field with the locale defaults, ICU version 57.1', () => {
    assert.deepEqual(echoed({ locale: 'en_US', strength: 2 }), {
      locale: 'en_US',
      caseLevel: false,
      caseFirst: 'off',
      strength: 2,
      numericOrdering: false,
      alternate: 'non-ignorable',
      maxVariable: 'punct',
      normalization: false,
      backwards: false,
      version: '57.1',
    });
  });

  it('collation: locale data supplies defaults (fr_CA backwards, da caseFirst upper, th alternate shifted)', () => {
    assert.equal(echoed({ locale: 'fr_CA' }).backwards, true);
    assert.equal(echoed({ locale: 'fr' }).backwards, false);
    assert.equal(echoed({ locale: 'da' }).caseFirst, 'upper');
    assert.equal(echoed({ locale: 'th' }).alternate, 'shifted');
  });

  it('collation: ICU locale IDs with script, region, POSIX variant and @collation keyword are accepted', () => {
    for (const locale of ['zh_Hant', 'sr_Latn', 'en_US_POSIX', 'de@collation=phonebook', 'zh@collation=pinyin', 'root'])
      assert.equal(echoed({ locale }).locale, locale);
  });

  it('collation: an ID-prefixed or unknown locale is BadValue (2), with the locale ICU would use suggested', () => {
    for (const locale of ['x_invalid', 'X_invalid', 'i-invalid', 'I-invalid', 'xx_invalid'])
      expectError(() => parseCollation({ locale }), 2, /Field 'locale' is invalid/);
    expectError(() => parseCollation({ locale: 'en_XX' }), 2, /Did you mean 'en'\?/);
    expectError(() => parseCollation({ locale: '' }), 2, /cannot be the empty string/);
  });

  it('collation: a missing locale is NoSuchKey (4); a locale of the wrong type is TypeMismatch (14)', () => {
    expectError(() => parseCollation({ strength: 2 }), 4, /Missing expected field "locale"/);
    expectError(() => parseCollation({ locale: 1 }), 14, /"locale" had the wrong type. Expected string/);
    expectError(() => parseCollation('en'), 14);
  });

  it('collation: fields of the wrong type are TypeMismatch (14), unknown values and fields FailedToParse (9)', () => {
    expectError(() => parseCollation({ locale: 'en', caseLevel: 1 }), 14, /"caseLevel" had the wrong type/);
    expectError(() => parseCollation({ locale: 'en', numericOrdering: 'yes' }), 14);
    expectError(() => parseCollation({ locale: 'en', strength: '2' }), 14);
    expectError(() => parseCollation({ locale: 'en', caseFirst: 'first' }), 9, /Field 'caseFirst' must be/);
    expectError(() => parseCollation({ locale: 'en', alternate: 'ignore' }), 9, /Field 'alternate' must be/);
    expectError(() => parseCollation({ locale: 'en', maxVariable: 'all' }), 9, /Field 'maxVariable' must be/);
    expectError(() => parseCollation({ locale: 'en', color: 'red' }), 9, /unknown field 'color'/);
  });

  it('collation: strength must be an integer 1 through 5', () => {
    expectError(() => parseCollation({ locale: 'en', strength: 0 }), 9, /must be an integer 1 through 5. Got: 0/);
    expectError(() => parseCollation({ locale: 'en', strength: 6 }), 9);
    expectError(() => parseCollation({ locale: 'en', strength: 1.5 }), 2, /exactly representable/);
    for (const strength of [1, 2, 3, 4, 5]) assert.equal(echoed({ locale: 'en', strength }).strength, strength);
  });

  it('collation: backwards at strength 1 and caseFirst below strength 3 without caseLevel are BadValue (2)', () => {
    expectError(() => parseCollation({ locale: 'en', strength: 1, backwards: true }), 2, /'backwards' is invalid/);
    expectError(() => parseCollation({ locale: 'en', strength: 2, caseFirst: 'upper' }), 2, /'caseFirst' is invalid/);
    assert.equal(echoed({ locale: 'en', strength: 2, caseFirst: 'upper', caseLevel: true }).caseFirst, 'upper');
  });

  it('collation: a version other than the ICU version in use is IncompatibleCollationVersion (161)', () => {
    assert.equal(echoed({ locale: 'en', version: '57.1' }).version, '57.1');
    expectError(
      () => parseCollation({ locale: 'en', version: '99.1' }),
      161,
      /only available collator version was 57.1/,
    );
  });
});
