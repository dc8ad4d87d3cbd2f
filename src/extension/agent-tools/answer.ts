/**
 * What a language model tool answers, apart from the `vscode` classes that carry it: the shared
 * tool core's text (src/agent-tools), or an Error with that text, which VS Code hands to the model
 * as the tool's failure. No `vscode` import, so unit tests compare it with the MCP server's answer.
 */
import type { ToolHost, ToolOutcome } from '../../agent-tools/index';
import { runCheckDefinitions } from '../../agent-tools/light';

/** The shared core's runner (src/agent-tools/index.ts `runTool`), from the bundle that holds it. */
export type ToolRunner = (
  host: ToolHost,
  name: string,
  input: unknown,
  options: { confirmed?: boolean },
) => Promise<ToolOutcome>;

/**
 * ttl_check_definitions runs here (the source analysis is already loaded); the others through
 * `heavy()`, the core in the engine's bundle. `confirmed`: VS Code showed ttl_apply's confirmation.
 */
export async function languageModelToolText(
  heavy: () => ToolRunner,
  host: ToolHost,
  name: string,
  input: unknown,
  confirmed: boolean,
): Promise<string> {
  const outcome =
    name === 'ttl_check_definitions'
      ? await runCheckDefinitions(host, input)
      : await heavy()(host, name, input, { confirmed });
  if (outcome.isError) throw new Error(outcome.text);
  return outcome.text;
}
