/** Engine-aware diagnostics apply only where code runs against the engine (issue 18.3). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  analysisTargetOf,
  globToRegExp,
  isBoundPath,
  runsAgainstEngine,
  toggledBinding,
} from '../../../src/extension/logic/engine-binding';

describe('engine binding', () => {
  it('matches workspace-relative paths and globs', () => {
    assert.ok(globToRegExp('scripts/**/*.js').test('scripts/a/b/seed.js'));
    assert.ok(globToRegExp('scripts/**/*.js').test('scripts/seed.js'));
    assert.ok(!globToRegExp('scripts/*.js').test('scripts/a/seed.js'));
    assert.ok(globToRegExp('**/*.{js,ts}').test('x/y.ts'));
    assert.ok(!globToRegExp('app.ts').test('app2ts'));
    assert.ok(isBoundPath('./seed.mongodb.js', ['seed.mongodb.js']));
    assert.ok(!isBoundPath('src/app.ts', ['scripts/**', '']));
  });

  it('notebooks always run against the engine; application code only when bound', () => {
    assert.ok(runsAgainstEngine('play/notes.ttlbook', []));
    assert.ok(!runsAgainstEngine('src/app.ts', []));
    assert.ok(runsAgainstEngine('src/app.ts', ['src/app.ts']));
  });

  it('binding a file adds its path; binding it again removes it', () => {
    const on = toggledBinding(['scripts/**'], 'src/app.ts');
    assert.deepEqual(on, { patterns: ['scripts/**', 'src/app.ts'], bound: true });
    assert.deepEqual(toggledBinding(on.patterns, 'src/app.ts'), { patterns: ['scripts/**'], bound: false });
  });

  it('a file bound to a connection compares with that connection, even when the engine list names it too', () => {
    const toServer = { 'scripts/prod/**': 'staging', 'ops/*.js': 'atlas' };
    assert.deepEqual(analysisTargetOf('scripts/prod/seed.js', ['scripts/**'], toServer), {
      kind: 'connection',
      name: 'staging',
    });
    assert.deepEqual(analysisTargetOf('ops/fix.js', [], toServer), { kind: 'connection', name: 'atlas' });
    assert.deepEqual(analysisTargetOf('scripts/dev/seed.js', ['scripts/**'], toServer), { kind: 'engine' });
    assert.equal(analysisTargetOf('src/app.ts', [], toServer), undefined);
    assert.equal(analysisTargetOf('ops/fix.js', [], { 'ops/*.js': '' }), undefined, 'an empty name binds nothing');
    assert.equal(analysisTargetOf('ops/fix.js', [], { 'ops/*.js': 3 }), undefined, 'a non-string is ignored');
  });
});
