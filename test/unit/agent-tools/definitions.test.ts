/**
 * The tools' one table (src/agent-tools/definitions.ts) against package.json's
 * `languageModelTools`, which VS Code reads without running code: the same names, descriptions and
 * input schemas, so the language model tools and the MCP server describe the same tools.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { TOOL_DEFINITIONS } from '../../../src/agent-tools';

const root = path.resolve(__dirname, '../../../..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

describe('agent tool definitions', () => {
  it('package.json contributes every tool with the same name, description and input schema', () => {
    const contributed = pkg.contributes.languageModelTools as Array<Record<string, unknown>>;
    assert.deepEqual(
      contributed.map((t) => t.name),
      TOOL_DEFINITIONS.map((t) => t.name),
    );
    for (const def of TOOL_DEFINITIONS) {
      const c = contributed.find((t) => t.name === def.name)!;
      assert.equal(c.displayName, def.title);
      assert.equal(c.modelDescription, def.description);
      assert.deepEqual(c.inputSchema, def.inputSchema, `${def.name}: copy the schema from definitions.ts`);
      assert.match(String(c.toolReferenceName), /^[\w-]+$/);
    }
  });

  it('every schema closes its objects and every changing tool is marked as such', () => {
    for (const def of TOOL_DEFINITIONS) {
      assert.equal(def.inputSchema.additionalProperties, false, def.name);
      assert.ok(def.description.length > 100, `${def.name}: say when to use it`);
    }
    assert.deepEqual(
      TOOL_DEFINITIONS.filter((t) => !t.readOnly).map((t) => t.name),
      ['ttl_apply'],
    );
    // ttl_apply's input cannot claim a confirmation.
    const apply = TOOL_DEFINITIONS.find((t) => t.name === 'ttl_apply')!;
    assert.ok(!Object.keys(apply.inputSchema.properties!).some((k) => /confirm/i.test(k)));
  });
});
