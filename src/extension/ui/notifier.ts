/**
 * Notifications through one seam: what the extension told the user is recorded (the extension API
 * exposes it, so integration tests can read error messages VS Code has no API to read back), and a
 * command run from code never waits for a click.
 */
import * as vscode from 'vscode';

export type Severity = 'info' | 'warning' | 'error';

export interface ShownMessage {
  severity: Severity;
  text: string;
  actions: string[];
  modal: boolean;
}

const KEEP = 200;

export class Notifier {
  private readonly shown: ShownMessage[] = [];

  constructor(private readonly output?: vscode.LogOutputChannel) {}

  /** The messages shown so far (oldest first, the last 200). */
  get messages(): readonly ShownMessage[] {
    return this.shown;
  }

  private record(m: ShownMessage): void {
    this.shown.push(m);
    if (this.shown.length > KEEP) this.shown.shift();
    const line = `${m.text}${m.actions.length ? `  [${m.actions.join(' | ')}]` : ''}`;
    if (m.severity === 'error') this.output?.error(line);
    else if (m.severity === 'warning') this.output?.warn(line);
    else this.output?.info(line);
  }

  /** Show a message; resolves with the chosen action (or undefined when dismissed). */
  show(severity: Severity, text: string, actions: string[] = []): Thenable<string | undefined> {
    this.record({ severity, text, actions, modal: false });
    switch (severity) {
      case 'error':
        return vscode.window.showErrorMessage(text, ...actions);
      case 'warning':
        return vscode.window.showWarningMessage(text, ...actions);
      default:
        return vscode.window.showInformationMessage(text, ...actions);
    }
  }

  info(text: string, ...actions: string[]): Thenable<string | undefined> {
    return this.show('info', text, actions);
  }

  warn(text: string, ...actions: string[]): Thenable<string | undefined> {
    return this.show('warning', text, actions);
  }

  error(text: string, ...actions: string[]): Thenable<string | undefined> {
    return this.show('error', text, actions);
  }

  /** A modal question (interactive use only): resolves with the chosen action. */
  confirm(text: string, detail: string, ...actions: string[]): Thenable<string | undefined> {
    this.record({ severity: 'warning', text, actions, modal: true });
    return vscode.window.showWarningMessage(text, { modal: true, detail }, ...actions);
  }

  /** Show without waiting: the click, if any, runs `onChoice` later. */
  showAndForget(severity: Severity, text: string, actions: string[], onChoice?: (choice: string) => unknown): void {
    void this.show(severity, text, actions).then(
      (choice) => {
        if (choice && onChoice) void Promise.resolve(onChoice(choice)).catch(() => undefined);
      },
      () => undefined,
    );
  }
}
