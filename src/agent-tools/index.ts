/**
 * The agent tools' one entry: validate the input against the tool's schema, run the tool, and
 * turn what it returns (or throws) into the text both doors send. VS Code's language model tools
 * (src/extension/agent-tools/) and the MCP server (./mcp/) are thin adapters over `runTool`, so a
 * tool answers the same input with the same text through either. No `vscode` here.
 */
import { apply, previewApply, type ApplyInput, type ApplyPreview } from './apply';
import { checkDefinitions, type CheckDefinitionsInput } from './check-definitions';
import { toolDefinition, TOOL_DEFINITIONS, type ToolName } from './definitions';
import { engineState, type EngineStateInput } from './engine-state';
import { explainIndex, type ExplainIndexInput } from './explain-index';
import type { ToolHost } from './host';
import { ToolError, validateInput } from './input';
import { runCheckDefinitions } from './light';
import { outcomeOf, type ToolOutcome } from './outcome';
import { simulate, type SimulateInput } from './simulate';

export { TOOL_DEFINITIONS, toolDefinition, type ToolDefinition, type ToolName } from './definitions';
export { ToolError } from './input';
export type { ToolHost, ToolSettings } from './host';
export type { ApplyPreview } from './apply';
export { LIMITS } from './limits';
export type { ToolOutcome } from './outcome';

export interface RunOptions {
  /** ttl_apply: the user confirmed this input's preview (see apply()). */
  confirmed?: boolean;
}

function definitionOf(name: string) {
  const def = toolDefinition(name);
  if (!def)
    throw new ToolError(
      `There is no tool '${name}'; the tools are ${TOOL_DEFINITIONS.map((t) => t.name).join(', ')}.`,
      'input',
    );
  return def;
}

async function dispatch(host: ToolHost, name: ToolName, input: unknown, options: RunOptions) {
  const def = definitionOf(name);
  switch (def.name) {
    case 'ttl_check_definitions':
      return checkDefinitions(host, validateInput<CheckDefinitionsInput>(def, input));
    case 'ttl_explain_index':
      return explainIndex(host, validateInput<ExplainIndexInput>(def, input));
    case 'ttl_simulate':
      return simulate(host, validateInput<SimulateInput>(def, input));
    case 'ttl_engine_state':
      return engineState(await host.engine(), validateInput<EngineStateInput>(def, input));
    case 'ttl_apply':
      return apply(
        await host.engine(),
        validateInput<ApplyInput>(def, input),
        host.settings().confirmExpiryAbove,
        options.confirmed === true,
      );
  }
}

export function runTool(host: ToolHost, name: string, input: unknown, options: RunOptions = {}): Promise<ToolOutcome> {
  if (name === 'ttl_check_definitions') return runCheckDefinitions(host, input);
  return outcomeOf(name, () => dispatch(host, name as ToolName, input, options));
}

/** What ttl_apply would do with this input, for a confirmation (changes nothing). */
export async function prepareApply(host: ToolHost, input: unknown): Promise<ApplyPreview> {
  const def = definitionOf('ttl_apply');
  return previewApply(await host.engine(), validateInput<ApplyInput>(def, input), host.settings().confirmExpiryAbove);
}
