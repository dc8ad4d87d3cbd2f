import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { probe } from '../../../src/compatibility/probe';
import { generateReport, REPORT_PATH } from '../../../src/compatibility/main';
import { REFERENCE, type Entry } from '../../../src/compatibility/reference';

const root = path.resolve(__dirname, '../../../..');

describe('compatibility report', () => {
  it('docs/compatibility.md is what the engine answers today (run `npm run compat` after a change)', () => {
    const current = fs.readFileSync(path.join(root, REPORT_PATH), 'utf8');
    assert.equal(current, generateReport());
  });

  it('a name the engine does not know is reported refused, with its code', () => {
    const entry: Entry = { family: 'stage', name: '$noSuchStage', group: 'test', sample: {} };
    const o = probe(entry);
    assert.equal(o.supported, false);
    assert.equal(o.code, 40324);
  });

  it('a write error inside an ok reply counts as a refusal', () => {
    const entry: Entry = {
      family: 'update',
      name: '$noSuchModifier',
      group: 'test',
      sample: { u: { $noSuchModifier: { a: 1 } } },
    };
    const o = probe(entry);
    assert.equal(o.supported, false);
    assert.equal(o.codeName, 'FailedToParse');
  });

  it('a sample that works is reported supported, for each family', () => {
    const works: Entry[] = [
      { family: 'query', name: '$eq', group: 't', sample: { a: { $eq: 5 } } },
      { family: 'stage', name: '$match', group: 't', sample: { a: 5 } },
      { family: 'expression', name: '$add', group: 't', sample: ['$a', 1] },
      { family: 'accumulator', name: '$sum', group: 't', sample: '$a' },
      { family: 'command', name: 'ping', group: 't', sample: { db: 'admin', command: { ping: 1 } } },
      { family: 'indexOption', name: 'unique', group: 't', sample: { key: { s: 1 }, name: 's_1', unique: true } },
    ];
    for (const e of works) assert.equal(probe(e).supported, true, `${e.family} ${e.name}`);
  });

  it('each documented name appears once in its family', () => {
    const seen = new Set<string>();
    for (const e of REFERENCE) {
      const key = `${e.family} ${e.name}`;
      assert.ok(!seen.has(key), `${key} listed twice`);
      seen.add(key);
    }
  });
});
