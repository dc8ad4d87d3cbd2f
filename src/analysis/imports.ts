/**
 * Constant values imported from other files of the workspace (`import { SESSION_TTL } from
 * './config'`, `const { TTL } = require('./config')`), as far as they are literal arithmetic in
 * that file: `export const`, `module.exports = {...}`, `exports.X = ...`, and a property of an
 * exported object (`appConf.TTL`); an environment variable read there stays one. One hop: what the
 * imported file imports in turn stays unknown. The files come from the caller's WorkspaceImports.
 */
import type { Expression, Node, Statement } from '@babel/types';
import { EnvRead, Evaluator, lastProp, plainValue, UNKNOWN, type ImportedValue } from './literals';
import { scanUnit, type ImportBinding } from './scan';
import { parseModule, sourceKindOf } from './source';
import type { WorkspaceImports } from './types';

interface ModuleValues {
  ev: Evaluator;
  /** Exported names bound to expressions other than a `const` of the same name. */
  exported: Map<string, Expression>;
}

const modules = new Map<string, ModuleValues | undefined>();
const MAX_CACHED = 200;

function isModuleExports(n: Node): boolean {
  return (
    n.type === 'MemberExpression' &&
    n.object.type === 'Identifier' &&
    n.object.name === 'module' &&
    n.property.type === 'Identifier' &&
    n.property.name === 'exports'
  );
}

/** `module.exports = {...}`, `module.exports.X = ...`, `exports.X = ...`, `export default ...`. */
function commonJsExports(body: Statement[]): Map<string, Expression> {
  const out = new Map<string, Expression>();
  for (const st of body) {
    if (
      st.type === 'ExportDefaultDeclaration' &&
      st.declaration.type !== 'ClassDeclaration' &&
      st.declaration.type !== 'FunctionDeclaration' &&
      st.declaration.type !== 'TSDeclareFunction'
    )
      out.set('default', st.declaration);
    if (st.type !== 'ExpressionStatement' || st.expression.type !== 'AssignmentExpression') continue;
    const { left, right } = st.expression;
    if (isModuleExports(left)) {
      out.set('default', right);
      if (right.type === 'ObjectExpression')
        for (const p of right.properties)
          if (p.type === 'ObjectProperty' && !p.computed && p.key.type === 'Identifier')
            out.set(p.key.name, p.value as Expression);
    } else if (
      left.type === 'MemberExpression' &&
      !left.computed &&
      left.property.type === 'Identifier' &&
      (isModuleExports(left.object) || (left.object.type === 'Identifier' && left.object.name === 'exports'))
    ) {
      out.set(left.property.name, right);
    }
  }
  return out;
}

function load(text: string, fileName: string): ModuleValues | undefined {
  const key = `${fileName}\u0000${text}`;
  if (modules.has(key)) return modules.get(key);
  let values: ModuleValues | undefined;
  const kind = sourceKindOf(fileName);
  if (kind && kind !== 'ttlbook') {
    try {
      const ast = parseModule(text, kind);
      const scan = scanUnit(ast.program);
      values = { ev: new Evaluator(scan), exported: commonJsExports(ast.program.body) };
    } catch {
      values = undefined;
    }
  }
  if (modules.size >= MAX_CACHED) modules.clear();
  modules.set(key, values);
  return values;
}

/** The value resolver the Evaluator uses, over the caller's workspace; undefined without one. */
export function importedValues(imports: WorkspaceImports | undefined): ImportedValue | undefined {
  if (!imports) return undefined;
  return (binding: ImportBinding, member?: string) => {
    const mod = imports.moduleText(binding.source);
    if (!mod) return UNKNOWN;
    const values = load(mod.text, mod.fileName);
    if (!values) return UNKNOWN;
    const init = values.exported.get(binding.imported) ?? values.ev.constInit(binding.imported);
    if (!init) return UNKNOWN;
    let lit = values.ev.eval(init);
    if (member !== undefined) {
      const p = lit.kind === 'object' && lit.complete ? lastProp(lit.props, member) : undefined;
      if (!p) return UNKNOWN;
      lit = p.value;
    }
    if (lit.kind === 'typed' && lit.env !== undefined) return new EnvRead(lit.env, lit.fallback);
    return plainValue(lit);
  };
}
