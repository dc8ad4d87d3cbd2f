/**
 * The notebook contributions of package.json agree with the code and ship in the .vsix: the
 * notebook type and its serializer, the renderer's mime type and bundle, the cell language and its
 * grammar (which must highlight the shell globals and TTL keys), the examples.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DOCUMENTS_MIME } from '../../../src/extension/logic/playground-outputs';
import { CELL_LANGUAGE } from '../../../src/extension/logic/playground-notebook';

const root = path.resolve(__dirname, '..', '..', '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const source = (rel: string) => fs.readFileSync(path.join(root, rel), 'utf8');

interface Pattern {
  match?: string;
  name?: string;
  captures?: Record<string, { name: string }>;
}

describe('playground notebook contributions', () => {
  it('declare the notebook type the serializer and controller use, for *.ttlbook', () => {
    const [nb] = pkg.contributes.notebooks;
    assert.match(source('src/extension/notebook/serializer.ts'), new RegExp(`NOTEBOOK_TYPE = '${nb.type}'`));
    assert.deepEqual(nb.selector, [{ filenamePattern: '*.ttlbook' }]);
    assert.ok(pkg.activationEvents.includes(`onNotebook:${nb.type}`));
  });

  it('declare the documents renderer for the mime type the outputs use, bundled where the entrypoint says', () => {
    const [r] = pkg.contributes.notebookRenderer;
    assert.deepEqual(r.mimeTypes, [DOCUMENTS_MIME]);
    assert.equal(r.entrypoint, './dist/renderer.js');
    assert.match(source('esbuild.js'), /renderer: 'src\/extension\/notebook\/renderer\/index\.ts'/);
  });

  it('ship the renderer, the grammar and the examples in the .vsix', () => {
    const ignore = source('.vscodeignore')
      .split('\n')
      .map((l) => l.trim());
    for (const keep of ['!dist/renderer.js', '!syntaxes/*.json', '!examples/*.ttlbook'])
      assert.ok(ignore.includes(keep), keep);
  });

  it('declare the ttl-mongosh language with a grammar embedding source.js that highlights the shell globals and TTL keys', () => {
    const [lang] = pkg.contributes.languages;
    const [grammar] = pkg.contributes.grammars;
    assert.equal(lang.id, CELL_LANGUAGE);
    assert.equal(grammar.language, CELL_LANGUAGE);
    assert.ok(fs.existsSync(path.join(root, lang.configuration)));
    const g = JSON.parse(source(grammar.path));
    assert.equal(g.scopeName, grammar.scopeName);
    assert.deepEqual(g.patterns, [{ include: 'source.js' }]);
    const patterns = Object.values(g.repository as Record<string, Pattern>);
    const scopeOf = (word: string, after: string): string | undefined => {
      for (const p of patterns) {
        const m = new RegExp(p.match!).exec(`${word}${after}`);
        if (m && m.index === 0) return p.name ?? p.captures?.['1']?.name;
      }
      return undefined;
    };
    assert.equal(scopeOf('db', '.c.find()'), 'variable.language.db.ttl-mongosh');
    for (const f of ['ISODate', 'NumberLong', 'NumberInt', 'ObjectId'])
      assert.equal(scopeOf(f, '("x")'), 'support.function.bson.ttl-mongosh', f);
    for (const f of ['sleep', 'print', 'printjson', 'use'])
      assert.equal(scopeOf(f, '(1)'), 'support.function.shell.ttl-mongosh', f);
    for (const f of ['EJSON', 'clock', 'ttl']) assert.equal(scopeOf(f, '.x'), 'support.class.shell.ttl-mongosh', f);
    for (const k of ['expireAfterSeconds', 'partialFilterExpression'])
      assert.equal(scopeOf(k, ': 1'), 'keyword.other.ttl.ttl-mongosh', k);
    assert.equal(scopeOf('dbx', '.a'), undefined);
    assert.equal(scopeOf('expireAfterSeconds', ' = 1'), undefined, 'a TTL key only as an object key');
    // The globals the shell defines are the ones the grammar knows.
    const globals = source('src/shell/bson-globals.ts');
    for (const f of ['ISODate', 'NumberLong', 'NumberInt', 'ObjectId', 'EJSON']) assert.ok(globals.includes(f), f);
  });
});
