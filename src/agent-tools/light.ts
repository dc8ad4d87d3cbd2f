/**
 * The tools that need no engine, for the light part of the extension (activation loads it): only
 * ttl_check_definitions, which is the source analysis the editor already runs.
 */
import { checkDefinitions, type CheckDefinitionsInput } from './check-definitions';
import { toolDefinition } from './definitions';
import type { ToolHost } from './host';
import { validateInput } from './input';
import { outcomeOf, type ToolOutcome } from './outcome';

export function runCheckDefinitions(
  host: Pick<ToolHost, 'readSource' | 'analyze'>,
  input: unknown,
): Promise<ToolOutcome> {
  return outcomeOf('ttl_check_definitions', () =>
    checkDefinitions(host, validateInput<CheckDefinitionsInput>(toolDefinition('ttl_check_definitions')!, input)),
  );
}
