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
import { simulate, type SimulateInput } from './simulate';

export { TOOL_DEFINITIONS, toolDefinition, type ToolDefinition, type ToolName } from './definitions';
export { ToolError } from './input';
export type { ToolHost, ToolSettings } from './host';
export type { ApplyPreview } from './apply';
export { LIMITS } from './limits';

export interface ToolOutcome {
  /** The tool failed (bad input, an unknown name, a snippet that threw): `text` says why and what to do. */
  isError: boolean;
  /** `input`: the arguments were wrong (MCP answers InvalidParams); `failed`: the tool could not do it. */
  errorKind?: 'input' | 'failed';
  /** What the model reads: the result as indented JSON, or the error message. */
  text: string;
  /** The result itself (absent on error). */
  data?: Record<string, unknown>;
}

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

export async function runTool(
  host: ToolHost,
  name: string,
  input: unknown,
  options: RunOptions = {},
): Promise<ToolOutcome> {
  try {
    const data = (await dispatch(host, name as ToolName, input, options)) as Record<string, unknown>;
    // A snippet that stopped at an error is the tool's answer, and an error all the same.
    const failed = data.ok === false;
    return {
      isError: failed,
      ...(failed ? { errorKind: 'failed' as const } : {}),
      text: JSON.stringify(data, null, 2),
      data,
    };
  } catch (err) {
    if (err instanceof ToolError) return { isError: true, errorKind: err.kind, text: err.message };
    const e = err as { message?: string; code?: unknown; codeName?: unknown };
    const code =
      typeof e?.code === 'number' ? ` (code ${e.code}${typeof e.codeName === 'string' ? `, ${e.codeName}` : ''})` : '';
    return {
      isError: true,
      errorKind: 'failed',
      text: `${name} failed: ${e?.message ?? String(err)}${code}. If this persists, report it with the input that caused it.`,
    };
  }
}

/** What ttl_apply would do with this input, for a confirmation (changes nothing). */
export async function prepareApply(host: ToolHost, input: unknown): Promise<ApplyPreview> {
  const def = definitionOf('ttl_apply');
  return previewApply(await host.engine(), validateInput<ApplyInput>(def, input), host.settings().confirmExpiryAbove);
}
