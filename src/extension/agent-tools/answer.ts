/**
 * What a language model tool answers, apart from the `vscode` classes that carry it: the shared
 * tool core's text (src/agent-tools), or an Error with that text, which VS Code hands to the model
 * as the tool's failure. No `vscode` import, so unit tests compare it with the MCP server's answer.
 */
import { runTool, type ToolHost } from '../../agent-tools';

/**
 * `confirmed`: VS Code showed the tool's confirmation (prepareInvocation) and the user continued.
 * Only ttl_apply reads it.
 */
export async function languageModelToolText(
  host: ToolHost,
  name: string,
  input: unknown,
  confirmed: boolean,
): Promise<string> {
  const outcome = await runTool(host, name, input, { confirmed });
  if (outcome.isError) throw new Error(outcome.text);
  return outcome.text;
}
