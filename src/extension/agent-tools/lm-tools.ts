/**
 * The VS Code door of the agent tools: each tool of src/agent-tools registered with
 * `vscode.lm.registerTool` (contributed in package.json's `languageModelTools`), answering with the
 * shared core's text. Registering costs nothing at activation: the engine (workbench.ts, the engine
 * host) starts when a tool that needs it is invoked, not before. ttl_apply always asks the user
 * first (prepareInvocation's confirmation, with the eligibility preview of the commands), and runs
 * only an input whose confirmation VS Code showed; its input has no way to claim a confirmation.
 */
import * as vscode from 'vscode';
import { analyzeText } from '../../analysis';
import type { ApplyPreview, ToolHost, ToolSettings } from '../../agent-tools/index';
import { TOOL_DEFINITIONS } from '../../agent-tools/definitions';
import type { Backend, EngineSettings } from '../backend/backend';
import { languageModelToolText, type ToolRunner } from './answer';

/** What the tools reach once the engine has started (workbench.ts, bundled with the tool core). */
export interface ToolEngines {
  backend: Backend;
  /** A new engine of its own in the engine host (an isolated notebook's kind). */
  scratchBackend: (settings: Partial<EngineSettings>, options: { startMs?: number }) => Backend;
  /** The shared tool core (src/agent-tools), bundled with the engine side so activation stays light. */
  agentTools: { runTool: ToolRunner; prepareApply: (host: ToolHost, input: unknown) => Promise<ApplyPreview> };
}

export interface LanguageModelToolsDeps {
  /** The engine side, started on first need (`reason` says which tool needed it). */
  engines: (reason: string) => ToolEngines;
  settings: () => ToolSettings;
}

/** For integration tests: what a tool's confirmation would say, without VS Code's dialog. */
export interface AgentToolsApi {
  prepare(name: string, input: unknown): Promise<{ title: string; message: string } | undefined>;
}

function readSourceIn(folder: vscode.Uri | undefined) {
  return async (file: string): Promise<{ text: string; name: string }> => {
    const isAbsolute = /^([a-zA-Z]:[\\/]|\/)/.test(file);
    if (!isAbsolute && !folder)
      throw new Error(
        `ttl_check_definitions: '${file}' is relative and no workspace folder is open; give an absolute path or the text as 'code'.`,
      );
    const uri = isAbsolute ? vscode.Uri.file(file) : vscode.Uri.joinPath(folder!, file);
    try {
      // An open editor's text, unsaved changes included; otherwise the file on disk.
      const doc = await vscode.workspace.openTextDocument(uri);
      return { text: doc.getText(), name: uri.path };
    } catch (err) {
      throw new Error(`ttl_check_definitions: cannot open ${uri.fsPath}: ${(err as Error).message}`);
    }
  };
}

export function registerLanguageModelTools(deps: LanguageModelToolsDeps): {
  disposables: vscode.Disposable[];
  api: AgentToolsApi;
} {
  const host: ToolHost = {
    engine: () => Promise.resolve(deps.engines('a language model tool').backend),
    scratch: (settings, startMs) =>
      Promise.resolve(
        deps.engines('a language model tool (ttl_explain_index or ttl_simulate)').scratchBackend(settings, { startMs }),
      ),
    readSource: (file) => readSourceIn(vscode.workspace.workspaceFolders?.[0]?.uri)(file),
    settings: deps.settings,
    analyze: analyzeText,
  };
  /** ttl_apply inputs whose confirmation VS Code has been given (one use each). */
  const shown = new Set<string>();

  const prepareApplyConfirmation = async (input: unknown) => {
    const preview = await deps.engines('the language model tool ttl_apply').agentTools.prepareApply(host, input);
    return {
      title: preview.title,
      message: preview.message,
    };
  };

  const disposables: vscode.Disposable[] = [];
  if (typeof vscode.lm?.registerTool !== 'function')
    return { disposables, api: { prepare: () => Promise.resolve(undefined) } };
  for (const def of TOOL_DEFINITIONS) {
    const tool: vscode.LanguageModelTool<Record<string, unknown>> = {
      invoke: async (options) => {
        if (def.name === 'ttl_simulate' && !vscode.workspace.isTrusted)
          throw new Error(
            'ttl_simulate runs code, and this workspace is not trusted: trust the workspace (Workspaces: Manage Workspace Trust) to use it.',
          );
        let confirmed = false;
        if (def.name === 'ttl_apply') {
          const key = JSON.stringify(options.input);
          if (!shown.delete(key))
            throw new Error(
              'ttl_apply: this change was not shown to the user for confirmation; nothing changed. Call it again.',
            );
          confirmed = true;
        }
        const heavy = () => deps.engines(`the language model tool ${def.name}`).agentTools.runTool;
        const text = await languageModelToolText(heavy, host, def.name, options.input, confirmed);
        return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
      },
      prepareInvocation: async (options) => {
        if (def.name !== 'ttl_apply') return { invocationMessage: `${def.title}…` };
        // An input the engine cannot preview (an unknown collection) fails here, with the reason.
        const confirmation = await prepareApplyConfirmation(options.input);
        shown.add(JSON.stringify(options.input));
        return {
          invocationMessage: `${def.title}…`,
          confirmationMessages: { title: confirmation.title, message: new vscode.MarkdownString(confirmation.message) },
        };
      },
    };
    disposables.push(vscode.lm.registerTool(def.name, tool));
  }
  return {
    disposables,
    api: {
      prepare: async (name, input) => (name === 'ttl_apply' ? prepareApplyConfirmation(input) : undefined),
    },
  };
}
