/**
 * A tool's answer as both doors send it: the result as indented JSON text, or the error's message.
 * Kept apart from the tools themselves so the light part of the extension (ttl_check_definitions,
 * which needs no engine) answers through it without loading the others.
 */
import { ToolError } from './input';

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

export async function outcomeOf(name: string, run: () => Promise<unknown>): Promise<ToolOutcome> {
  try {
    const data = (await run()) as Record<string, unknown>;
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
