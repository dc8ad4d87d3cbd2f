/**
 * Checking a tool's input against its JSON schema (the subset definitions.ts uses), so both doors
 * refuse bad input with the same words: which field, what was expected, what came. VS Code
 * validates against the schema too, but an MCP client need not, and a message that says what to
 * send instead is what a model can act on.
 */
import type { JsonSchema, ToolDefinition } from './definitions';

/** What the tools throw. `input`: the arguments are wrong (MCP: InvalidParams); `failed`: the tool could not do it. */
export class ToolError extends Error {
  constructor(
    message: string,
    readonly kind: 'input' | 'failed' = 'failed',
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

function typeWord(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return typeof v === 'object' ? 'an object' : `a ${typeof v} (${JSON.stringify(v).slice(0, 40)})`;
}

function matchesType(v: unknown, type: JsonSchema['type']): boolean {
  switch (type) {
    case 'object':
      return v !== null && typeof v === 'object' && !Array.isArray(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'boolean':
      return typeof v === 'boolean';
    case undefined:
      return true;
  }
}

const EXPECTED: Record<string, string> = {
  object: 'an object',
  array: 'an array',
  string: 'a string',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
};

function check(v: unknown, schema: JsonSchema, path: string): string | undefined {
  if (schema.anyOf) {
    if (schema.anyOf.some((s) => check(v, s, path) === undefined)) return undefined;
    return `${path} must be ${schema.anyOf.map((s) => EXPECTED[s.type ?? 'object']).join(' or ')}, got ${typeWord(v)}`;
  }
  if (!matchesType(v, schema.type)) return `${path} must be ${EXPECTED[schema.type ?? 'object']}, got ${typeWord(v)}`;
  if (schema.enum && !schema.enum.includes(v as string))
    return `${path} must be one of ${schema.enum.map((e) => `'${e}'`).join(', ')}, got ${JSON.stringify(v)}`;
  if (typeof v === 'number') {
    if (schema.minimum !== undefined && v < schema.minimum)
      return `${path} must be at least ${schema.minimum}, got ${v}`;
    if (schema.maximum !== undefined && v > schema.maximum)
      return `${path} must be at most ${schema.maximum}, got ${v}`;
  }
  if (typeof v === 'string') {
    if (schema.maxLength !== undefined && v.length > schema.maxLength)
      return `${path} is ${v.length} characters long; the limit is ${schema.maxLength}`;
    if (schema.pattern && !new RegExp(schema.pattern).test(v))
      return `${path} must match ${schema.pattern}, got ${JSON.stringify(v)}`;
  }
  if (Array.isArray(v)) {
    if (schema.maxItems !== undefined && v.length > schema.maxItems)
      return `${path} has ${v.length} items; the limit is ${schema.maxItems}`;
    if (schema.items) {
      for (let i = 0; i < v.length; i++) {
        const problem = check(v[i], schema.items, `${path}[${i}]`);
        if (problem) return problem;
      }
    }
  }
  if (schema.type === 'object' && schema.properties) {
    const obj = v as Record<string, unknown>;
    for (const r of schema.required ?? [])
      if (obj[r] === undefined) return `${path === 'input' ? '' : `${path}.`}${r} is required`;
    for (const [k, value] of Object.entries(obj)) {
      const sub = Object.prototype.hasOwnProperty.call(schema.properties, k) ? schema.properties[k] : undefined;
      if (!sub) {
        if (schema.additionalProperties === false)
          return `unknown field '${k}' (known: ${Object.keys(schema.properties).join(', ')})`;
        continue;
      }
      if (value === undefined) continue;
      const problem = check(value, sub, k);
      if (problem) return problem;
    }
  }
  return undefined;
}

/** The input if it fits the tool's schema; otherwise a ToolError of kind `input` that says what to fix. */
export function validateInput<T>(def: ToolDefinition, input: unknown): T {
  const problem = check(input ?? {}, def.inputSchema, 'input');
  if (problem) throw new ToolError(`${def.name}: ${problem}.`, 'input');
  return (input ?? {}) as T;
}
