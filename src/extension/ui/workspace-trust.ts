/**
 * Restricted Mode: what an untrusted workspace may not do (run its playground code, apply its
 * definitions to the engine, import its files, keep the engine in its storage folder), and the
 * message that says why and how to trust it. Diagnostics, hovers and the tree never run workspace
 * code, so they need no gate.
 */
import * as vscode from 'vscode';
import { WorkbenchError } from '../commands/context';

export const TRUST_COMMAND = 'workbench.trust.manage';

/** The sentence every refusal ends with. */
export const HOW_TO_TRUST =
  'trust this folder (Workspaces: Manage Workspace Trust, or the Restricted Mode banner) to allow it';

export function isTrusted(): boolean {
  return vscode.workspace.isTrusted;
}

/** Throws, for a command, when the workspace is untrusted: `what` says what was refused. */
export function requireTrust(what: string): void {
  if (isTrusted()) return;
  throw new WorkbenchError(
    `${what} is off in Restricted Mode: this workspace is not trusted, and ${what.toLowerCase()} would act on its files. To use it, ${HOW_TO_TRUST}.`,
    {
      title: 'Manage Workspace Trust',
      command: TRUST_COMMAND,
    },
  );
}
