/**
 * Quick fixes of the source diagnostics: each fix of the analysis becomes a CodeAction with a
 * WorkspaceEdit. A fix that needs a number from the user (NaN) runs `ttlWorkbench.replaceTTLValue`,
 * which asks for it (or takes `value` from code) and checks it with the engine's rules.
 */
import * as vscode from 'vscode';
import { INT32_MAX, checkIndexExpireAfterSeconds } from '../../engine/ttl/validation';
import { EngineError } from '../../engine/errors';
import type { Fix } from '../../analysis';
import { parseTTLDuration } from '../logic/durations';
import { QUICK_FIX_APPLIED_COMMAND } from '../commands/walkthrough';
import { problemFor, rangeOf, SOURCE, type DocumentAnalyzer } from './document-analysis';

const REPLACE_VALUE_COMMAND = 'ttlWorkbench.replaceTTLValue';

export class SourceCodeActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  constructor(private readonly analyzer: DocumentAnalyzer) {}

  provideCodeActions(
    doc: vscode.TextDocument,
    _range: vscode.Range,
    context: vscode.CodeActionContext,
  ): vscode.CodeAction[] {
    const ours = context.diagnostics.filter((d) => d.source === SOURCE);
    if (ours.length === 0) return [];
    const analysis = this.analyzer.analyze(doc);
    const actions: vscode.CodeAction[] = [];
    for (const d of ours) {
      const problem = problemFor(doc, analysis, d);
      for (const fix of problem?.fixes ?? []) actions.push(this.action(doc, d, fix));
    }
    return actions;
  }

  private action(doc: vscode.TextDocument, d: vscode.Diagnostic, fix: Fix): vscode.CodeAction {
    const action = new vscode.CodeAction(fix.title, vscode.CodeActionKind.QuickFix);
    action.diagnostics = [d];
    action.isPreferred = fix.preferred === true;
    const asked = fix.edits.find((e) => e.fromInput);
    if (asked) {
      const range = rangeOf(doc, asked);
      action.command = {
        command: REPLACE_VALUE_COMMAND,
        title: fix.title,
        arguments: [
          {
            uri: doc.uri.toString(),
            range: [range.start.line, range.start.character, range.end.line, range.end.character],
            prompt: fix.input?.prompt,
            placeholder: fix.input?.placeholder,
          },
        ],
      };
      return action;
    }
    const edit = new vscode.WorkspaceEdit();
    for (const e of fix.edits) edit.replace(doc.uri, rangeOf(doc, e), e.newText);
    action.edit = edit;
    // Runs after the edit: the walkthrough's quick-fix step completes on it.
    action.command = {
      command: QUICK_FIX_APPLIED_COMMAND,
      title: fix.title,
      arguments: [typeof d.code === 'object' ? d.code.value : d.code],
    };
    return action;
  }
}

/** A typed duration (`3600`, `1h`, `30d`) as seconds the engine accepts, or why not. */
export function secondsFromInput(text: string): { seconds: number } | { error: string } {
  const parsed = parseTTLDuration(text);
  if ('error' in parsed) return { error: parsed.error };
  try {
    checkIndexExpireAfterSeconds(parsed.seconds);
  } catch (e) {
    return { error: e instanceof EngineError ? e.message : String(e) };
  }
  if (!Number.isInteger(parsed.seconds)) return { error: `Use whole seconds (at most ${INT32_MAX}).` };
  return { seconds: parsed.seconds };
}

/** `ttlWorkbench.replaceTTLValue {uri, range: [l, c, l, c], value?}`: returns the seconds written. */
export async function replaceTTLValue(args: {
  uri: string;
  range: [number, number, number, number];
  value?: string;
  prompt?: string;
  placeholder?: string;
}): Promise<{ ok: boolean; seconds?: number; message?: string }> {
  let text = args.value;
  if (text === undefined) {
    text = await vscode.window.showInputBox({
      title: 'TTL Workbench: expireAfterSeconds',
      prompt: args.prompt ?? 'Seconds (3600) or a duration (1h, 30d)',
      placeHolder: args.placeholder ?? '3600',
      validateInput: (t) => {
        const r = secondsFromInput(t);
        return 'error' in r ? r.error : undefined;
      },
    });
    if (text === undefined) return { ok: false, message: 'cancelled' };
  }
  const r = secondsFromInput(text);
  if ('error' in r) return { ok: false, message: r.error };
  const edit = new vscode.WorkspaceEdit();
  const [l1, c1, l2, c2] = args.range;
  edit.replace(vscode.Uri.parse(args.uri), new vscode.Range(l1, c1, l2, c2), String(r.seconds));
  const applied = await vscode.workspace.applyEdit(edit);
  return applied ? { ok: true, seconds: r.seconds } : { ok: false, message: 'the edit could not be applied' };
}
