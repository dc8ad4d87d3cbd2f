/** The `ttlWorkbench.diagnostics.*` settings (and the server version the rules follow). */
import * as vscode from 'vscode';

export const DIAGNOSTICS_SECTION = 'ttlWorkbench.diagnostics';

export interface DiagnosticsSettings {
  enabled: boolean;
  disabledRules: string[];
  serverVersion: '8.0' | '7.0';
  /** ttlWorkbench.engineBoundFiles: files whose code runs against the engine (engine-aware rules apply). */
  boundFiles: string[];
  /** ttlWorkbench.connectionBoundFiles: files whose code runs against a saved connection (`{glob: name}`). */
  connectionBoundFiles: Record<string, unknown>;
  /** ttlWorkbench.codeLens.applyEverywhere: "Apply to engine" above definitions in every file. */
  applyLensEverywhere: boolean;
}

export function readDiagnosticsSettings(): DiagnosticsSettings {
  const c = vscode.workspace.getConfiguration(DIAGNOSTICS_SECTION);
  const rules = c.get<unknown>('disabledRules', []);
  const root = vscode.workspace.getConfiguration('ttlWorkbench');
  const version = root.get<string>('serverVersion', '8.0');
  const bound = root.get<unknown>('engineBoundFiles', []);
  const toConnections = root.get<unknown>('connectionBoundFiles', {});
  return {
    enabled: c.get<boolean>('enabled', true) !== false,
    disabledRules: Array.isArray(rules)
      ? rules.filter((r): r is string => typeof r === 'string').map((r) => r.trim().toUpperCase())
      : [],
    serverVersion: version === '7.0' ? '7.0' : '8.0',
    boundFiles: Array.isArray(bound) ? bound.filter((b): b is string => typeof b === 'string') : [],
    connectionBoundFiles:
      toConnections !== null && typeof toConnections === 'object' && !Array.isArray(toConnections)
        ? (toConnections as Record<string, unknown>)
        : {},
    applyLensEverywhere: root.get<boolean>('codeLens.applyEverywhere', false) === true,
  };
}
