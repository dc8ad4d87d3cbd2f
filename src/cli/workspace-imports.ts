/**
 * The workspace files a source file imports by a relative path (`./config`, `../constants/ttl`),
 * read from disk for the analysis's imported constants. `check` and the editor's diagnostics use
 * this same reader, so both report the same problems. Packages and path aliases are not followed,
 * nor anything outside the workspace root.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { WorkspaceImports } from '../analysis';

const EXTENSIONS = ['', '.ts', '.tsx', '.js', '.mjs', '.cjs', '.jsx', '/index.ts', '/index.js'];
const MAX_BYTES = 1 << 20;

/** What `file` imports, inside `root`. */
export function workspaceImports(file: string, root: string): WorkspaceImports {
  const dir = path.dirname(file);
  const top = path.resolve(root);
  return {
    moduleText(specifier: string) {
      if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
      const base = path.resolve(dir, specifier);
      const rel = path.relative(top, base);
      if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
      // `import './config.js'` in TypeScript names the .ts source.
      const candidates = [...EXTENSIONS.map((e) => base + e), base.replace(/\.js$/, '.ts')];
      for (const candidate of candidates) {
        try {
          const stat = fs.statSync(candidate);
          if (!stat.isFile() || stat.size > MAX_BYTES) continue;
          return { text: fs.readFileSync(candidate, 'utf8'), fileName: candidate };
        } catch {
          // not this one
        }
      }
      return undefined;
    },
  };
}
