/** The `ttlWorkbench.diagnostics.*` settings (and the server version the rules follow). */
import * as vscode from 'vscode';

export const DIAGNOSTICS_SECTION = 'ttlWorkbench.diagnostics';

export interface DiagnosticsSettings {
  enabled: boolean;
  disabledRules: string[];
  serverVersion: '8.0' | '7.0';
}

export function readDiagnosticsSettings(): DiagnosticsSettings {
  const c = vscode.workspace.getConfiguration(DIAGNOSTICS_SECTION);
  const rules = c.get<unknown>('disabledRules', []);
  const version = vscode.workspace.getConfiguration('ttlWorkbench').get<string>('serverVersion', '8.0');
  return {
    enabled: c.get<boolean>('enabled', true) !== false,
    disabledRules: Array.isArray(rules)
      ? rules.filter((r): r is string => typeof r === 'string').map((r) => r.trim().toUpperCase())
      : [],
    serverVersion: version === '7.0' ? '7.0' : '8.0',
  };
}
