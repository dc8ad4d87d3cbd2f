/**
 * The MCP door: the agent tools over the Model Context Protocol (`@modelcontextprotocol/sdk`'s
 * low-level Server, so the tools' JSON schemas are listed as written). tools/list gives every tool
 * with its schema and hints; tools/call runs `runTool`. Arguments that do not fit the schema get a
 * JSON-RPC InvalidParams error; a tool that fails (an unknown collection, a snippet that threw or
 * ran out of time) answers with `isError: true` and the reason, as the protocol asks, so the model
 * reads it. ttl_apply above the limit asks the user through elicitation when the client offers it,
 * and is refused otherwise.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { prepareApply, runTool, toolDefinition, TOOL_DEFINITIONS, type ToolHost } from '../index';

export interface McpServerOptions {
  version: string;
  /** Told of every failed call (stderr in the CLI). */
  log?: (line: string) => void;
  /**
   * Why the server's engine is only read (`--read-only`): the tools that write are refused before
   * they run, with code 20 (IllegalOperation) as the engine would answer; the others run as usual.
   */
  readOnly?: string;
}

/** The refusal of a writing tool on a read-only server: why, what still works, how to write. */
export function readOnlyToolRefusal(name: string, reason: string): string {
  const reading = TOOL_DEFINITIONS.filter((t) => t.readOnly).map((t) => t.name);
  return `${name} refused (code 20, IllegalOperation): it changes the engine, and this server is read-only (${reason}). ${reading.join(', ')} still work (ttl_explain_index and ttl_simulate on a new engine of their own). To apply the change, restart ttl-workbench mcp without --read-only once no other process holds the data folder, or apply it in the process that holds it.`;
}

export function createMcpServer(host: ToolHost, options: McpServerOptions): Server {
  const server = new Server(
    { name: 'ttl-workbench', title: 'TTL Workbench', version: options.version },
    {
      capabilities: { tools: {} },
      instructions:
        'TTL Workbench knows MongoDB TTL (expireAfterSeconds) rules exactly as mongod applies them. Check index code with ttl_check_definitions, try an index with ttl_explain_index, try a scenario on a virtual clock with ttl_simulate, read the engine with ttl_engine_state, and change a TTL index with ttl_apply.',
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOL_DEFINITIONS.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      annotations: {
        title: t.title,
        readOnlyHint: t.readOnly,
        destructiveHint: !t.readOnly,
        idempotentHint: t.readOnly,
        openWorldHint: false,
      },
    })),
  }));

  /** ttl_apply above the limit: the user's word, asked through the client (elicitation). */
  const confirmAboveLimit = async (input: unknown): Promise<boolean> => {
    const preview = await prepareApply(host, input).catch(() => undefined);
    if (!preview?.aboveLimit) return false;
    if (!server.getClientCapabilities()?.elicitation) return false;
    const answer = await server.elicitInput({
      mode: 'form',
      message: `${preview.title}\n\n${preview.message}`,
      requestedSchema: { type: 'object', properties: {} },
    });
    return answer.action === 'accept';
  };

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: input } = request.params;
    if (options.readOnly !== undefined && toolDefinition(name)?.readOnly === false) {
      const text = readOnlyToolRefusal(name, options.readOnly);
      options.log?.(`${name}: refused, read-only`);
      return { content: [{ type: 'text' as const, text }], isError: true };
    }
    const confirmed = name === 'ttl_apply' ? await confirmAboveLimit(input ?? {}) : false;
    const outcome = await runTool(host, name, input ?? {}, { confirmed });
    if (outcome.isError)
      options.log?.(typeof outcome.data?.summary === 'string' ? `${name}: ${outcome.data.summary}` : outcome.text);
    if (outcome.isError && outcome.errorKind === 'input') throw new McpError(ErrorCode.InvalidParams, outcome.text);
    return { content: [{ type: 'text' as const, text: outcome.text }], ...(outcome.isError ? { isError: true } : {}) };
  });
  return server;
}
