/**
 * `ttl-workbench mcp`: the agent tools (src/agent-tools) as an MCP server on stdin/stdout. stdout
 * carries only the protocol; what a person should read (the data folder's notes, failed calls)
 * goes to stderr. The server ends when the client closes stdin or on SIGINT/SIGTERM, closing its
 * engine (a kept one synced to its folder and unlocked). Exit codes: 0 closed, 1 could not start.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { EmbeddedToolHost } from '../agent-tools/mcp/embedded-host';
import { createMcpServer } from '../agent-tools/mcp/server';
import type { McpOptions } from './args';

type Write = (text: string) => void;

export async function mcpCommand(options: McpOptions, version: string, err: Write): Promise<number> {
  const readOnly = options.readOnly ? 'opened with --read-only' : undefined;
  const host = new EmbeddedToolHost({
    ...(options.data !== undefined ? { data: options.data } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.flavor ? { flavor: options.flavor } : {}),
    ...(options.serverVersion ? { serverVersion: options.serverVersion } : {}),
    ...(readOnly !== undefined ? { readOnly } : {}),
    cwd: process.cwd(),
    settings: { confirmExpiryAbove: options.confirmExpiryAbove, timeLimitMs: options.timeoutMs },
  });
  try {
    const engine = host.open();
    const info = await engine.storageInfo();
    for (const note of info.notes) err(`ttl-workbench mcp: ${options.data}: ${note}\n`);
  } catch (e) {
    err(`ttl-workbench mcp: cannot open the engine: ${(e as Error).message}\n`);
    return 1;
  }
  const server = createMcpServer(host, {
    version,
    log: (line) => err(`ttl-workbench mcp: ${line}\n`),
    ...(readOnly !== undefined ? { readOnly } : {}),
  });
  const transport = new StdioServerTransport();
  return new Promise<number>((resolve) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      process.off('SIGINT', finish);
      process.off('SIGTERM', finish);
      try {
        host.dispose();
        resolve(0);
      } catch (e) {
        err(`ttl-workbench mcp: closing the engine failed: ${(e as Error).message}\n`);
        resolve(1);
      }
    };
    process.on('SIGINT', finish);
    process.on('SIGTERM', finish);
    // The client closing stdin ends the session (the SDK's stdio transport does not watch for it).
    process.stdin.on('end', () => void server.close().finally(finish));
    server.onclose = finish;
    server.connect(transport).catch((e: unknown) => {
      err(`ttl-workbench mcp: cannot start: ${(e as Error).message}\n`);
      done = true;
      resolve(1);
    });
  });
}
