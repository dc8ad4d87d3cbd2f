/**
 * What the tools need from the place they run in. VS Code gives the window's engine (the engine
 * host's backend) and isolated engines in the same worker; the MCP server gives an in-process
 * engine of its own. Both are the extension's `Backend` interface (async, vscode-free), so the tool
 * code is one implementation for both doors.
 */
import type { analyzeText } from '../analysis';
import type { Backend, EngineSettings } from '../extension/backend/backend';

export interface ToolSettings {
  /** Above this many documents made eligible at once, ttl_apply calls the count out and needs confirmation. */
  confirmExpiryAbove: number;
  /** Default time limit of one statement of ttl_simulate. */
  timeLimitMs: number;
}

export interface ToolHost {
  /** The user's engine (VS Code: the window's, started on first need; MCP: the server's). */
  engine(): Promise<Backend>;
  /** A new, empty engine of its own; the tool disposes of it. */
  scratch(settings: Partial<EngineSettings>, startMs: number): Promise<Backend>;
  /** A source file's text: absolute, or relative to the workspace (VS Code) or working directory (MCP). */
  readSource(path: string): Promise<{ text: string; name: string }>;
  settings(): ToolSettings;
  /**
   * The source analysis (src/analysis `analyzeText`), given by the host rather than imported here:
   * VS Code's light bundle already holds it, and the engine's bundle, which runs the other tools,
   * need not carry the parser a second time.
   */
  analyze: typeof analyzeText;
}
