/**
 * Which files `ttl-workbench check` reads: the given files as they are, and under each given
 * folder every analysable source file that git would not ignore. `.gitignore` files apply to their
 * own folder and below, from the current folder down (so `check src` still honours the project's
 * root `.gitignore`); `node_modules` and `.git` are always skipped.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { sourceKindOf } from '../analysis';

interface IgnoreLayer {
  dir: string;
  rules: Ignore;
}

const ALWAYS_SKIPPED = new Set(['node_modules', '.git']);

function layerOf(dir: string): IgnoreLayer | undefined {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, '.gitignore'), 'utf8');
  } catch {
    return undefined;
  }
  return { dir, rules: ignore().add(text) };
}

function ignored(abs: string, isDir: boolean, layers: readonly IgnoreLayer[]): boolean {
  for (const layer of layers) {
    const rel = path.relative(layer.dir, abs);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) continue;
    const posix = rel.split(path.sep).join('/');
    if (layer.rules.ignores(isDir ? `${posix}/` : posix)) return true;
  }
  return false;
}

/** .gitignore layers of the folders from `cwd` down to (not including) `dir`, when `dir` is inside it. */
function ancestorLayers(dir: string, cwd: string): IgnoreLayer[] {
  const rel = path.relative(cwd, dir);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return [];
  const layers: IgnoreLayer[] = [];
  let current = cwd;
  for (const part of rel ? rel.split(path.sep) : []) {
    const layer = layerOf(current);
    if (layer) layers.push(layer);
    current = path.join(current, part);
  }
  return layers;
}

export class PathError extends Error {}

export function collectFiles(paths: readonly string[], cwd: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (file: string) => {
    if (!seen.has(file)) {
      seen.add(file);
      out.push(file);
    }
  };
  const walk = (dir: string, layers: IgnoreLayer[]) => {
    const own = layerOf(dir);
    const here = own ? [...layers, own] : layers;
    const entries = fs
      .readdirSync(dir, { withFileTypes: true })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (ALWAYS_SKIPPED.has(e.name)) continue;
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!ignored(abs, true, here)) walk(abs, here);
      } else if (e.isFile() && sourceKindOf(e.name) && !ignored(abs, false, here)) {
        add(abs);
      }
    }
  };
  for (const p of paths.length ? paths : ['.']) {
    const abs = path.resolve(cwd, p);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(abs);
    } catch {
      throw new PathError(`no such file or folder: ${p}`);
    }
    if (stat.isDirectory()) walk(abs, ancestorLayers(abs, cwd));
    else add(abs);
  }
  return out;
}
