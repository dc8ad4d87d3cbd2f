/**
 * src/storage/file-names.ts: which names in a data folder the store reads as its own files. A name
 * one character off (a leading zero, a 16-digit generation, a suffix after the extension) is a
 * stray file: reading it would replay a journal twice or load a snapshot nobody wrote, so each
 * pattern is held to the exact spelling the store writes, on both sides.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { COMPACTION_TMP_NAME, JOURNAL_NAME, KEPT_NAME, SNAPSHOT_NAME } from '../../../src/storage/file-names';

/** 15 digits: the longest generation the store may write (far below 2^53); 16 is a stray name. */
const G15 = '123456789012345';
const G16 = `${G15}6`;

function accepts(re: RegExp, names: string[]): void {
  for (const name of names) assert.ok(re.test(name), `${re} should accept ${name}`);
}
function refuses(re: RegExp, names: string[]): void {
  for (const name of names) assert.ok(!re.test(name), `${re} should refuse ${name}`);
}

describe('data folder file names', () => {
  for (const [re, base, ext] of [
    [SNAPSHOT_NAME, 'snapshot', 'ttls'],
    [JOURNAL_NAME, 'journal', 'ttlj'],
  ] as const) {
    it(`file names: ${base}-<generation>.${ext} is read with its generation, written without leading zeros, up to 15 digits`, () => {
      for (const g of ['0', '7', '10', '42', '908', G15]) {
        const m = re.exec(`${base}-${g}.${ext}`);
        assert.ok(m, `${base}-${g}.${ext}`);
        assert.equal(m[1], g, 'the generation is the first group');
      }
    });

    it(`file names: a ${base} name spelled otherwise is stray (leading zero, 16 digits, no digits, other text around it)`, () => {
      refuses(re, [
        `${base}-00.${ext}`,
        `${base}-01.${ext}`,
        `${base}-${G16}.${ext}`,
        `${base}-.${ext}`,
        `${base}-x.${ext}`,
        `${base}-1x.${ext}`,
        `${base}-1.${ext}.tmp`,
        `${base}-1.${ext}x`,
        `${base}-1x${ext}`,
        `x${base}-1.${ext}`,
        `.${base}-1.${ext}`,
        `${base}_1.${ext}`,
        `${base}-1.${ext === 'ttls' ? 'ttlj' : 'ttls'}`,
      ]);
    });
  }

  it('file names: a kept file is a snapshot or journal name, then .damaged-<n> or .unreplayed-<n>', () => {
    accepts(KEPT_NAME, [
      'snapshot-0.ttls.damaged-1',
      'snapshot-7.ttls.unreplayed-1732600000000',
      `snapshot-${G15}.ttls.damaged-12`,
      'journal-0.ttlj.unreplayed-3',
      'journal-42.ttlj.damaged-1732600000000',
      `journal-${G15}.ttlj.unreplayed-99`,
    ]);
  });

  it('file names: a kept name that is not exactly so is no kept file (the stored name spelled otherwise, another reason, no number)', () => {
    refuses(KEPT_NAME, [
      'snapshot-01.ttls.damaged-1',
      `snapshot-${G16}.ttls.damaged-1`,
      'snapshot-.ttls.damaged-1',
      'snapshot-1xttls.damaged-1',
      'snapshot-1.ttlsxdamaged-1',
      'journal-00.ttlj.unreplayed-1',
      `journal-${G16}.ttlj.unreplayed-1`,
      'journal-x.ttlj.damaged-1',
      'journal-1xttlj.damaged-1',
      'journal-1.ttlj.broken-1',
      'journal-1.ttlj.damaged-',
      'journal-1.ttlj.damaged-x',
      'journal-1.ttlj.damaged-1x',
      'journal-1.ttlj.damaged1',
      'journal-1.ttlj.damaged-1.tmp',
      'xjournal-1.ttlj.damaged-1',
      'journal-1.ttls.damaged-1',
      'snapshot-1.ttlj.damaged-1',
      'journal-1.ttlj',
      'snapshot-1.ttls',
    ]);
  });

  it('file names: a compaction temporary is .snapshot-<generation>.ttls.<pid>.tmp', () => {
    accepts(COMPACTION_TMP_NAME, ['.snapshot-3.ttls.99.tmp', '.snapshot-12.ttls.4321.tmp', '.snapshot-0.ttls.1.tmp']);
    refuses(COMPACTION_TMP_NAME, [
      'snapshot-3.ttls.99.tmp',
      'xsnapshot-3.ttls.99.tmp',
      'a.snapshot-3.ttls.99.tmp',
      '.snapshot-.ttls.99.tmp',
      '.snapshot-a.ttls.99.tmp',
      '.snapshot-3.ttls..tmp',
      '.snapshot-3.ttls.9a.tmp',
      '.snapshot-3xttls.99.tmp',
      '.snapshot-3.ttlsx99.tmp',
      '.snapshot-3.ttls.99xtmp',
      '.snapshot-3.ttls.99.tmp.x',
      '.snapshot-3.ttls.99.tmpx',
      '.journal-3.ttlj.99.tmp',
      'LOCK.123.abc.tmp',
    ]);
  });
});
