/**
 * Where code runs against the embedded engine, so that the engine-aware rules (TTL011, TTL008's
 * "known to the engine" part) and the "Apply to engine" CodeLens apply: playground notebooks
 * (`.ttlbook`) and the files the user binds to the engine (`ttlWorkbench.engineBoundFiles`, a
 * workspace setting of workspace-relative paths and globs). Elsewhere (an application's code that
 * talks to a real server) the scratch engine's state says nothing. No `vscode` import.
 */

export const BOUND_FILES_SETTING = 'engineBoundFiles';

/** A glob as a regular expression: `**` any depth of folders, `*` and `?` within one name, `{a,b}` alternatives. */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  const g = glob.replace(/\\/g, '/').replace(/^\.\//, '');
  for (let i = 0; i < g.length; i++) {
    const ch = g[i];
    if (ch === '*' && g[i + 1] === '*') {
      // `**/` matches zero or more folders; a trailing `**` matches anything.
      if (g[i + 2] === '/') {
        out += '(?:[^/]*/)*';
        i += 2;
      } else {
        out += '.*';
        i += 1;
      }
    } else if (ch === '*') out += '[^/]*';
    else if (ch === '?') out += '[^/]';
    else if (ch === '{') out += '(?:';
    else if (ch === '}') out += ')';
    else if (ch === ',' && out.includes('(?:')) out += '|';
    else out += ch.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** Whether a workspace-relative path (forward slashes) is bound by one of the patterns. */
export function isBoundPath(relativePath: string, patterns: readonly string[]): boolean {
  const p = relativePath.replace(/\\/g, '/').replace(/^\.\//, '');
  return patterns.some(
    (pattern) => typeof pattern === 'string' && pattern.trim() !== '' && globToRegExp(pattern.trim()).test(p),
  );
}

/** Whether code in this file runs against the engine: a notebook, or a bound file. */
export function runsAgainstEngine(relativePath: string, patterns: readonly string[]): boolean {
  return relativePath.endsWith('.ttlbook') || isBoundPath(relativePath, patterns);
}

/** The bound list after binding or unbinding one file (the exact path; globs are left as they are). */
export function toggledBinding(
  patterns: readonly string[],
  relativePath: string,
): { patterns: string[]; bound: boolean } {
  const p = relativePath.replace(/\\/g, '/');
  if (patterns.includes(p)) return { patterns: patterns.filter((x) => x !== p), bound: false };
  return { patterns: [...patterns, p], bound: true };
}

/**
 * Files bound to a saved connection (`ttlWorkbench.connectionBoundFiles`, a workspace setting of
 * `{"<path or glob>": "<connection name>"}`): their code runs against that server, so TTL011
 * compares it with the connection's indexes instead of the embedded engine's.
 */
export const CONNECTION_BOUND_FILES_SETTING = 'connectionBoundFiles';

/** What a file's engine-aware rules compare with: the embedded engine, a saved connection, or nothing. */
export type AnalysisTarget = { kind: 'engine' } | { kind: 'connection'; name: string } | undefined;

/**
 * The target of a workspace-relative path. A connection binding wins over the engine's list: a
 * file named in both was bound to the server on purpose. Among connection bindings the first
 * matching pattern (in the setting's order) wins.
 */
export function analysisTargetOf(
  relativePath: string,
  enginePatterns: readonly string[],
  connectionBindings: Readonly<Record<string, unknown>>,
): AnalysisTarget {
  for (const [pattern, name] of Object.entries(connectionBindings)) {
    if (typeof name !== 'string' || name.trim() === '') continue;
    if (isBoundPath(relativePath, [pattern])) return { kind: 'connection', name: name.trim() };
  }
  return runsAgainstEngine(relativePath, enginePatterns) ? { kind: 'engine' } : undefined;
}
