/** "Run All Cells Against a Fresh Engine" and Reset Engine: what a reset deletes, which engine a notebook gets. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  contentsOf,
  describeLoss,
  differsFromWindow,
  freshChoices,
  mismatchQuestion,
} from '../../../src/extension/logic/fresh-engine';

const mongodb = { flavor: 'mongodb' as const, serverVersion: '8.0' as const };
const data = contentsOf([
  { db: 'app', count: 12 },
  { db: 'app2', count: 1 },
  { db: 'app', count: 3 },
]);

describe('fresh engine choices', () => {
  it('counts documents per database and names what a reset deletes, with plural forms', () => {
    assert.deepEqual(data, [
      { name: 'app', documents: 15 },
      { name: 'app2', documents: 1 },
    ]);
    assert.equal(describeLoss(data), '2 databases (app: 15 documents, app2: 1 document)');
    assert.equal(describeLoss([{ name: 'a', documents: 0 }]), '1 database (a: 0 documents)');
    assert.equal(describeLoss([]), 'nothing (the engine is empty)');
    const many = Array.from({ length: 6 }, (_, i) => ({ name: `d${i}`, documents: 1 }));
    assert.match(describeLoss(many), /^6 databases \(d0: 1 document, .*d3: 1 document, 2 others\)$/);
  });

  it('a notebook asking for another flavor or version gets only an isolated engine: it never changes the window flavor', () => {
    assert.match(differsFromWindow({ isolated: false, flavor: 'cosmos' }, mongodb)!, /cosmos flavor/);
    assert.match(differsFromWindow({ isolated: false, serverVersion: '7.0' }, mongodb)!, /server version 7\.0/);
    assert.equal(differsFromWindow({ isolated: false, flavor: 'mongodb' }, mongodb), undefined);
    // The window's engine is a standalone: a notebook asking for a replica set gets its own.
    assert.match(differsFromWindow({ isolated: false, replSet: 'rs0' }, mongodb)!, /a replica set \(rs0/);
    const choices = freshChoices({ isolated: false, flavor: 'cosmos', now: new Date(0) }, mongodb, data);
    assert.deepEqual(
      choices.map((c) => c.target),
      ['isolated'],
    );
  });

  it('a notebook naming `now` defaults to an isolated engine; the reset says what it deletes', () => {
    const choices = freshChoices({ isolated: false, now: new Date('2026-01-01T00:00:00Z') }, mongodb, data);
    assert.deepEqual(
      choices.map((c) => c.target),
      ['isolated', 'shared'],
    );
    assert.match(choices[1].label, /deletes 2 databases \(app: 15 documents, app2: 1 document\)/);
    assert.match(choices[1].detail, /new mongodb 8\.0 engine at 2026-01-01T00:00:00\.000Z/);
    assert.match(choices[0].detail, /Nothing is deleted/);
  });

  it('a plain notebook: isolated first while the shared engine holds data, the reset first when it is empty', () => {
    assert.deepEqual(
      freshChoices({ isolated: false }, mongodb, data).map((c) => c.target),
      ['isolated', 'shared'],
    );
    const empty = freshChoices({ isolated: false }, mongodb, []);
    assert.deepEqual(
      empty.map((c) => c.target),
      ['shared', 'isolated'],
    );
    assert.match(empty[0].label, /deletes nothing\)$/);
  });
});

describe('stored engine against the settings', () => {
  it('offers a reset that names what it deletes, or keeping the stored flavor and changing the setting (issue 18.2)', () => {
    const q = mismatchQuestion({ flavor: 'cosmos', serverVersion: '8.0' }, mongodb, data);
    assert.ok(q);
    assert.equal(q.reset, 'Reset to mongodb 8.0 (deletes 2 databases)');
    assert.equal(q.keep, 'Keep cosmos 8.0 and change the setting');
    assert.match(q.text, /stored engine is cosmos 8\.0, but the settings ask for mongodb 8\.0/);
    assert.equal(
      mismatchQuestion({ flavor: 'mongodb', serverVersion: '7.0' }, mongodb, [])?.reset,
      'Reset to 8.0 (deletes nothing)',
    );
    assert.equal(mismatchQuestion(mongodb, mongodb, data), undefined);
  });
});
