/**
 * Index bounds for regular expressions: an anchored literal start narrows the scan to the strings
 * that begin with it; anything else scans every string; stored regexes are always scanned. The
 * results stay exactly what a collection scan finds.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { literalPrefix } from '../../../../src/engine/query/regex-bounds';

describe('regex bounds: the literal prefix', () => {
  it('is the anchored literal start, up to the first special character', () => {
    assert.equal(literalPrefix('^abc', ''), 'abc');
    assert.equal(literalPrefix('^abc.*', ''), 'abc');
    assert.equal(literalPrefix('\\Aabc', ''), 'abc');
    assert.equal(literalPrefix('^ab[c]', ''), 'ab');
    assert.equal(literalPrefix('^a\\.b', ''), 'a.b', 'an escaped punctuation character is literal');
    assert.equal(literalPrefix('^a\\db', ''), 'a', 'a class escape ends it');
  });

  it('leaves out a character a quantifier makes optional, keeps one that + repeats', () => {
    assert.equal(literalPrefix('^aa*', ''), 'a');
    assert.equal(literalPrefix('^ab?', ''), 'a');
    assert.equal(literalPrefix('^ab{0,2}', ''), 'a');
    assert.equal(literalPrefix('^ab+c', ''), 'ab');
  });

  it('takes \\Q…\\E quoted text as literal, special characters included, across several quoted parts', () => {
    assert.equal(literalPrefix('^\\Qblah\\E', ''), 'blah');
    assert.equal(literalPrefix('^\\Q[\\Ewi\\Qth]some?s\\Eym', ''), '[with]some?sym');
    assert.equal(literalPrefix('^\\Qa.b', ''), 'a.b', 'quoting runs to the end when \\E is missing');
    assert.equal(
      literalPrefix('^\\Qab\\E*', ''),
      'a',
      'a quantifier after \\E makes the last quoted character optional',
    );
    assert.equal(literalPrefix('^\\Qab\\E+c', ''), 'ab');
  });

  it('has none without an anchor, with alternation, or with the i, m or x flags', () => {
    assert.equal(literalPrefix('abc', ''), undefined);
    assert.equal(literalPrefix('^abc|x', ''), undefined);
    assert.equal(literalPrefix('^abc', 'i'), undefined);
    assert.equal(literalPrefix('^abc', 'm'), undefined);
    assert.equal(literalPrefix('^abc', 'x'), undefined);
  });
});

function setUp(docs: Document[]): Engine {
  const engine = new Engine();
  engine.runCommand('app', { insert: 'c', documents: docs.map((d, i) => ({ _id: i, ...d })) });
  engine.runCommand('app', { createIndexes: 'c', indexes: [{ key: { name: 1 }, name: 'name_1' }] });
  return engine;
}

function explain(engine: Engine, filter: Document): { bounds: unknown; keys: number; returned: number } {
  const out = engine.runCommand('app', { explain: { find: 'c', filter }, verbosity: 'executionStats' });
  const plan = (out.queryPlanner as Document).winningPlan as Document;
  const stats = out.executionStats as Document;
  const ixscan = (plan.inputStage ?? plan) as Document;
  return {
    bounds: (ixscan.indexBounds as Document | undefined)?.name,
    keys: stats.totalKeysExamined as number,
    returned: stats.nReturned as number,
  };
}

function ids(engine: Engine, filter: Document, hint?: Document): unknown[] {
  const reply = engine.runCommand('app', { find: 'c', filter, ...(hint ? { hint } : {}) });
  return ((reply.cursor as Document).firstBatch as Document[]).map((d) => d._id).sort();
}

const NAMES = ['eliot', 'emily', 'bob', 'aaron', 'e', 'f', 'E'];

describe('regex bounds: the planner', () => {
  it('an anchored prefix scans only the strings that start with it, and stored regexes', () => {
    const engine = setUp(NAMES.map((name) => ({ name })));
    const e = explain(engine, { name: /^e.*/ });
    assert.deepEqual(e.bounds, ['["e", "f")', '[min(regex), max(regex)]']);
    assert.equal(e.returned, 3);
    assert.equal(e.keys, 4, 'e, eliot, emily, and f, the key that ends the scan (mongod counts it too)');
    assert.deepEqual(explain(engine, { name: { $regex: '^em', $options: '' } }).bounds, [
      '["em", "en")',
      '[min(regex), max(regex)]',
    ]);
  });

  it('an unanchored or case-insensitive pattern scans every string', () => {
    const engine = setUp(NAMES.map((name) => ({ name })));
    assert.deepEqual(explain(engine, { name: /^e/i }).bounds, ['["", max(string)]', '[min(regex), max(regex)]']);
    assert.deepEqual(explain(engine, { name: /li/ }).bounds, ['["", max(string)]', '[min(regex), max(regex)]']);
  });

  it('finds what a collection scan finds: strings, arrays of strings (multikey), and equal stored regexes', () => {
    const docs = [...NAMES.map((name) => ({ name })), { name: ['x', 'ebb'] }, { name: /^e/ }, { name: 5 }, {}];
    const engine = setUp(docs);
    for (const filter of [
      { name: /^e/ },
      { name: /^e.*/ },
      { name: /^E/i },
      { name: /ly$/ },
      { name: { $regex: '^e', $options: 'm' } },
      { $and: [{ name: /^e/ }, { name: { $lt: 'em' } }] },
    ]) {
      assert.deepEqual(ids(engine, filter), ids(engine, filter, { $natural: 1 }), JSON.stringify(filter));
    }
  });

  it('on a multikey index the prefix range stays tight (one element meets both bounds)', () => {
    const engine = setUp([{ name: ['x', 'ebb'] }, { name: 'eve' }, { name: 'zed' }]);
    assert.deepEqual(explain(engine, { name: /^e/ }).bounds, ['["e", "f")', '[min(regex), max(regex)]']);
  });
});

describe('index scans: keys examined', () => {
  it('several intervals read the key past each one that ends it, as mongod does, but not one that opens the next interval; one range stops at its end', () => {
    const engine = setUp(['a', 'b', 'c', 'd', 'e'].map((name) => ({ name })));
    assert.equal(explain(engine, { name: { $gte: 'b', $lte: 'c' } }).keys, 2, 'one range: b, c');
    assert.equal(explain(engine, { name: { $in: ['b', 'c'] } }).keys, 3, 'b; c opens the second interval; d ends it');
    assert.equal(explain(engine, { name: { $in: ['b', 'd'] } }).keys, 4, 'b, then c past it, d, then e past it');
    assert.equal(explain(engine, { name: { $in: ['d', 'e'] } }).keys, 2, 'd, e, and nothing after');
    const backward = engine.runCommand('app', {
      explain: { find: 'c', filter: { name: { $in: ['b', 'c'] } }, sort: { name: -1 } },
      verbosity: 'executionStats',
    });
    assert.equal((backward.executionStats as Document).totalKeysExamined, 3, 'c, b, then a ends a backward scan');
  });
});

describe('regex bounds under a collation', () => {
  it('an index with a collation scans every string for a regex (its order is not the bytes a regex matches)', () => {
    const engine = new Engine();
    engine.runCommand('app', {
      insert: 'c',
      documents: ['eliot', 'Emily', 'éa', 'f'].map((name, i) => ({ _id: i, name })),
    });
    engine.runCommand('app', {
      createIndexes: 'c',
      indexes: [{ key: { name: 1 }, name: 'name_ci', collation: { locale: 'en', strength: 2 } }],
    });
    const out = engine.runCommand('app', {
      explain: { find: 'c', filter: { name: /^e/ }, collation: { locale: 'en', strength: 2 } },
      verbosity: 'executionStats',
    });
    const plan = (out.queryPlanner as Document).winningPlan as Document;
    const ixscan = (plan.inputStage ?? plan) as Document;
    assert.deepEqual((ixscan.indexBounds as Document).name, ['["", max(string)]', '[min(regex), max(regex)]']);
    const found = engine.runCommand('app', {
      find: 'c',
      filter: { name: /^e/ },
      collation: { locale: 'en', strength: 2 },
    });
    assert.deepEqual(
      ((found.cursor as Document).firstBatch as Document[]).map((d) => d.name),
      ['eliot'],
    );
  });
});
