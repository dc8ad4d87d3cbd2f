/**
 * One walk over a unit's syntax tree that collects what the checks need: every binding name (to
 * know which `const`s are safe to resolve), the calls and `new` expressions whose callee names an
 * index or collection operation, and declarations typed as the driver's `IndexOptions` /
 * `IndexDescription`. Positions stay babel's; the unit's base offset is added later.
 */
import type { CallExpression, Expression, NewExpression, Node, Statement, VariableDeclarator } from '@babel/types';

/** Callee names worth a closer look (member property or plain identifier). */
const INTERESTING = new Set([
  'createIndex', 'ensureIndex', 'createIndexes', 'runCommand', 'command', 'adminCommand', 'createCollection',
  'index', 'Schema', 'insertOne', 'insertMany', 'insert', 'create', 'save', 'updateOne', 'updateMany', 'replaceOne',
]);

const SKIP_KEYS = new Set(['loc', 'start', 'end', 'extra', 'leadingComments', 'trailingComments', 'innerComments', 'range', 'typeAnnotation', 'returnType', 'typeParameters', 'superTypeParameters', 'decorators']);

export interface CallSite {
  node: CallExpression | NewExpression;
  name: string;
  /** The statement the call is part of (for fixes that insert a statement before it). */
  statement: Statement | undefined;
  /** The call is awaited directly (`await x.createIndex(...)`). */
  awaited: boolean;
}

export interface TypedDeclaration {
  declarator: VariableDeclarator;
  typeName: 'IndexOptions' | 'CreateIndexesOptions' | 'IndexDescription';
  isArray: boolean;
}

export interface ScanResult {
  calls: CallSite[];
  typed: TypedDeclaration[];
  /** How many times each name is bound anywhere in the unit. */
  bindingCounts: Map<string, number>;
  /** `const name = init` declarations (by name; resolvable only when bound once). */
  constInits: Map<string, Expression>;
}

function calleeName(node: CallExpression | NewExpression): string | undefined {
  const c = node.callee;
  if (c.type === 'Identifier') return c.name;
  if (c.type === 'MemberExpression' || c.type === 'OptionalMemberExpression') {
    if (!c.computed && c.property.type === 'Identifier') return c.property.name;
    if (c.property.type === 'StringLiteral') return c.property.value;
  }
  return undefined;
}

function typeRef(node: Node | null | undefined): { name: string; isArray: boolean } | undefined {
  if (!node) return undefined;
  if (node.type === 'TSTypeAnnotation') return typeRef(node.typeAnnotation);
  if (node.type === 'TSArrayType') {
    const inner = typeRef(node.elementType);
    return inner && { name: inner.name, isArray: true };
  }
  if (node.type === 'TSTypeReference') {
    const n = node.typeName;
    const name = n.type === 'Identifier' ? n.name : n.type === 'TSQualifiedName' ? n.right.name : undefined;
    if (!name) return undefined;
    if ((name === 'Array' || name === 'ReadonlyArray') && node.typeParameters?.params.length === 1) {
      const inner = typeRef(node.typeParameters.params[0]);
      return inner && { name: inner.name, isArray: true };
    }
    return { name, isArray: false };
  }
  return undefined;
}

function addBinding(counts: Map<string, number>, pattern: Node | null | undefined): void {
  if (!pattern) return;
  switch (pattern.type) {
    case 'Identifier':
      counts.set(pattern.name, (counts.get(pattern.name) ?? 0) + 1);
      return;
    case 'ObjectPattern':
      for (const p of pattern.properties) addBinding(counts, p.type === 'RestElement' ? p.argument : (p.value as Node));
      return;
    case 'ArrayPattern':
      for (const e of pattern.elements) addBinding(counts, e);
      return;
    case 'AssignmentPattern':
      addBinding(counts, pattern.left);
      return;
    case 'RestElement':
      addBinding(counts, pattern.argument);
      return;
    case 'TSParameterProperty':
      addBinding(counts, pattern.parameter);
      return;
  }
}

export function scanUnit(program: Node): ScanResult {
  const result: ScanResult = { calls: [], typed: [], bindingCounts: new Map(), constInits: new Map() };
  const { bindingCounts, constInits } = result;

  const visit = (node: Node, parent: Node | undefined, statement: Statement | undefined): void => {
    switch (node.type) {
      case 'VariableDeclaration':
        for (const d of node.declarations) {
          addBinding(bindingCounts, d.id);
          if (node.kind === 'const' && d.id.type === 'Identifier' && d.init) {
            constInits.set(d.id.name, d.init);
            const t = typeRef(d.id.typeAnnotation);
            if (t && (t.name === 'IndexOptions' || t.name === 'CreateIndexesOptions' || t.name === 'IndexDescription')) {
              result.typed.push({ declarator: d, typeName: t.name, isArray: t.isArray });
            }
          }
        }
        break;
      case 'FunctionDeclaration':
      case 'FunctionExpression':
      case 'ArrowFunctionExpression':
      case 'ObjectMethod':
      case 'ClassMethod':
      case 'ClassPrivateMethod':
        if ((node.type === 'FunctionDeclaration' || node.type === 'FunctionExpression') && node.id) addBinding(bindingCounts, node.id);
        for (const p of node.params) addBinding(bindingCounts, p);
        break;
      case 'ClassDeclaration':
      case 'ClassExpression':
        if (node.id) addBinding(bindingCounts, node.id);
        break;
      case 'CatchClause':
        addBinding(bindingCounts, node.param);
        break;
      case 'ImportSpecifier':
      case 'ImportDefaultSpecifier':
      case 'ImportNamespaceSpecifier':
        addBinding(bindingCounts, node.local);
        break;
      case 'CallExpression':
      case 'NewExpression': {
        const name = calleeName(node);
        if (name && INTERESTING.has(name)) {
          result.calls.push({ node, name, statement, awaited: parent?.type === 'AwaitExpression' });
        }
        break;
      }
    }
    const record = node as unknown as Record<string, unknown>;
    for (const key in record) {
      if (SKIP_KEYS.has(key)) continue;
      const value = record[key];
      if (Array.isArray(value)) {
        const holdsStatements = key === 'body' || key === 'consequent';
        for (const child of value) {
          if (child && typeof child === 'object' && typeof (child as Node).type === 'string') {
            visit(child as Node, node, holdsStatements ? (child as Statement) : statement);
          }
        }
      } else if (value && typeof value === 'object' && typeof (value as Node).type === 'string') {
        visit(value as Node, node, statement);
      }
    }
  };
  visit(program, undefined, undefined);
  return result;
}
