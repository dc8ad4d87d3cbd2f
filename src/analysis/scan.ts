/**
 * One walk over a unit's syntax tree that collects what the checks need: every binding name (to
 * know which `const`s are safe to resolve), the calls and `new` expressions whose callee names an
 * index or collection operation, and declarations typed as the driver's `IndexOptions` /
 * `IndexDescription`. Positions stay babel's; the unit's base offset is added later.
 *
 * The walk is most of the analysis after the parse, so it knows the child properties of the
 * frequent node types (a direct property read per child) and falls back to enumerating the
 * properties of any other node. Both visit the same children in the same order (for...in order,
 * which is the order babel creates them); a unit test holds the two to that.
 */
import type {
  CallExpression,
  ClassDeclaration,
  ClassExpression,
  Expression,
  NewExpression,
  Node,
  ObjectExpression,
  ObjectProperty,
  Statement,
  VariableDeclarator,
} from '@babel/types';

/** Callee names worth a closer look (member property or plain identifier). */
const INTERESTING = new Set([
  'createIndex',
  'ensureIndex',
  'createIndexes',
  'runCommand',
  'command',
  'adminCommand',
  'createCollection',
  'index',
  'Schema',
  'insertOne',
  'insertMany',
  'insert',
  'create',
  'save',
  'updateOne',
  'updateMany',
  'replaceOne',
]);

const SKIP_KEYS = new Set([
  'loc',
  'start',
  'end',
  'extra',
  'leadingComments',
  'trailingComments',
  'innerComments',
  'range',
  'typeAnnotation',
  'returnType',
  'typeParameters',
  'superTypeParameters',
]);

/**
 * Property keys that may be a TTL option, or a slip of one (`expiresAfterSeconds`, `exexpires`,
 * the driver's unknown `ttl`), and Mongoose's path-level `index`: their objects are looked at
 * wherever they are, so that option objects held in constants, exported spec modules and
 * decorator arguments are found too.
 */
function mayBeTtlKey(name: string): boolean {
  return name === 'ttl' || name === 'index' || /expir/i.test(name);
}

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

/** An object literal with a property that may be a TTL option. */
export interface TtlObject {
  object: ObjectExpression;
  prop: ObjectProperty;
}

/** Where a name comes from when another file of the workspace binds it. */
export interface ImportBinding {
  local: string;
  /** The exported name (`default` for a default import). */
  imported: string;
  source: string;
}

/** What the definitions are read from: the interesting calls and typed declarations, in tree order. */
export interface ScanFacts {
  calls: CallSite[];
  typed: TypedDeclaration[];
  /** Objects with a TTL-like key, each once per such key. */
  ttlObjects: TtlObject[];
  /** Classes (NestJS `@Schema()` and Typegoose models carry their schema in decorators). */
  classes: Array<ClassDeclaration | ClassExpression>;
}

/** Which names may be followed to their `const` initializer. */
export interface BindingEnv {
  /** How many times the name is bound anywhere in the unit (undefined: never). */
  bindingCount(name: string): number | undefined;
  /** The initializer of a `const name = init` of the unit (the one that counts when the name is bound once). */
  constInit(name: string): Expression | undefined;
  /** The class declared under this name in the unit (the last one). */
  classDeclaration?(name: string): ClassDeclaration | undefined;
  /** Where an imported name comes from (`import { X } from './config'`, `const { X } = require(...)`). */
  importOf?(name: string): ImportBinding | undefined;
}

/** The facts of one piece of tree (a top-level statement, or the whole program). */
export interface TreeScan extends ScanFacts {
  /** Every bound name, once per binding (an assignment to a name counts as one more). */
  bindings: string[];
  /** `const` / `let` / `var` declarations with an initializer, in tree order (followed only when bound once). */
  consts: Array<{ name: string; init: Expression }>;
  /** Imported names. */
  imports: ImportBinding[];
}

export interface ScanResult extends ScanFacts, BindingEnv {
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

/** The names a binding pattern declares (`a`, `{ b, c: [d] }`, `...e`, defaults), pushed onto `names`. */
export function addBinding(names: string[], pattern: Node | null | undefined): void {
  if (!pattern) return;
  switch (pattern.type) {
    case 'Identifier':
      names.push(pattern.name);
      return;
    case 'ObjectPattern':
      for (const p of pattern.properties) addBinding(names, p.type === 'RestElement' ? p.argument : p.value);
      return;
    case 'ArrayPattern':
      for (const e of pattern.elements) addBinding(names, e);
      return;
    case 'AssignmentPattern':
      addBinding(names, pattern.left);
      return;
    case 'RestElement':
      addBinding(names, pattern.argument);
      return;
    case 'TSParameterProperty':
      addBinding(names, pattern.parameter);
      return;
  }
}

type AnyNode = Node & Record<string, unknown>;

/** Walks a tree into a TreeScan; `generic` enumerates properties for every node (the reference walk). */
class Walker {
  readonly out: TreeScan = { calls: [], typed: [], bindings: [], consts: [], ttlObjects: [], classes: [], imports: [] };

  constructor(private readonly generic: boolean) {}

  visit(node: Node, parent: Node | undefined, statement: Statement | undefined): void {
    if (this.generic) {
      this.facts(node, parent, statement);
      this.anyChildren(node as AnyNode, statement);
      return;
    }
    this.fast(node as AnyNode, parent as AnyNode | undefined, statement);
  }

  private one(child: unknown, parent: AnyNode, statement: Statement | undefined): void {
    if (child !== null && child !== undefined) this.fast(child as AnyNode, parent, statement);
  }

  private all(list: unknown, parent: AnyNode, statement: Statement | undefined): void {
    const items = list as Array<AnyNode | null>;
    for (let i = 0; i < items.length; i++) {
      const child = items[i];
      if (child !== null && child !== undefined) this.fast(child, parent, statement);
    }
  }

  /** Statements of a body: each is the statement of what it holds. */
  private statements(list: unknown, parent: AnyNode): void {
    const items = list as Array<AnyNode | null>;
    for (let i = 0; i < items.length; i++) {
      const child = items[i];
      if (child !== null && child !== undefined) this.fast(child, parent, child as unknown as Statement);
    }
  }

  /**
   * The frequent node types: their facts and their children in babel's property order. Keys in
   * SKIP_KEYS (type annotations, decorators) are left out, as in the generic walk. Any other
   * type goes the generic way.
   */
  private fast(n: AnyNode, parent: AnyNode | undefined, st: Statement | undefined): void {
    switch (n.type) {
      case 'Identifier':
        // Parameter decorators (`constructor(@Inject() x)`) are the only children an identifier has.
        if (n.decorators) this.all(n.decorators, n, st);
        return;
      case 'NumericLiteral':
      case 'StringLiteral':
      case 'BooleanLiteral':
      case 'NullLiteral':
      case 'TemplateElement':
      case 'ThisExpression':
        return;
      case 'MemberExpression':
      case 'OptionalMemberExpression':
        this.one(n.object, n, st);
        this.one(n.property, n, st);
        return;
      case 'ObjectProperty':
        this.ttlKey(n, parent);
        this.one(n.key, n, st);
        this.one(n.value, n, st);
        return;
      case 'ClassProperty':
        if (n.decorators) this.all(n.decorators, n, st);
        this.one(n.key, n, st);
        this.one(n.value, n, st);
        return;
      case 'CallExpression':
      case 'NewExpression':
        this.facts(n, parent, st);
        this.one(n.callee, n, st);
        this.all(n.arguments, n, st);
        return;
      case 'OptionalCallExpression':
        this.one(n.callee, n, st);
        this.all(n.arguments, n, st);
        return;
      case 'ObjectExpression':
      case 'ObjectPattern':
        this.all(n.properties, n, st);
        return;
      case 'ExpressionStatement':
      case 'TSAsExpression':
      case 'TSNonNullExpression':
      case 'TSSatisfiesExpression':
      case 'ParenthesizedExpression':
        this.one(n.expression, n, st);
        return;
      case 'AssignmentExpression':
        this.facts(n, parent, st);
        this.one(n.left, n, st);
        this.one(n.right, n, st);
        return;
      case 'BinaryExpression':
      case 'LogicalExpression':
      case 'AssignmentPattern':
        this.one(n.left, n, st);
        this.one(n.right, n, st);
        return;
      case 'BlockStatement':
        this.statements(n.body, n);
        this.all(n.directives, n, st);
        return;
      case 'VariableDeclarator':
        this.one(n.id, n, st);
        this.one(n.init, n, st);
        return;
      case 'VariableDeclaration':
        this.facts(n, parent, st);
        this.all(n.declarations, n, st);
        return;
      case 'UpdateExpression':
        this.facts(n, parent, st);
        this.one(n.argument, n, st);
        return;
      case 'ReturnStatement':
      case 'AwaitExpression':
      case 'UnaryExpression':
      case 'SpreadElement':
      case 'RestElement':
      case 'ThrowStatement':
        this.one(n.argument, n, st);
        return;
      case 'FunctionDeclaration':
      case 'FunctionExpression':
      case 'ArrowFunctionExpression':
        this.facts(n, parent, st);
        this.one(n.id, n, st);
        this.all(n.params, n, st);
        this.one(n.body, n, st);
        return;
      case 'ClassMethod':
      case 'ObjectMethod':
        this.facts(n, parent, st);
        if (n.decorators) this.all(n.decorators, n, st);
        this.one(n.key, n, st);
        this.one(n.id, n, st);
        this.all(n.params, n, st);
        this.one(n.body, n, st);
        return;
      case 'IfStatement':
      case 'ConditionalExpression':
        this.one(n.test, n, st);
        this.one(n.consequent, n, st);
        this.one(n.alternate, n, st);
        return;
      case 'TemplateLiteral':
        this.all(n.expressions, n, st);
        this.all(n.quasis, n, st);
        return;
      case 'ArrayExpression':
      case 'ArrayPattern':
        this.all(n.elements, n, st);
        return;
      case 'SequenceExpression':
        this.all(n.expressions, n, st);
        return;
      case 'ForOfStatement':
      case 'ForInStatement':
        this.one(n.left, n, st);
        this.one(n.right, n, st);
        this.one(n.body, n, st);
        return;
      case 'ForStatement':
        this.one(n.init, n, st);
        this.one(n.test, n, st);
        this.one(n.update, n, st);
        this.one(n.body, n, st);
        return;
      case 'WhileStatement':
        this.one(n.test, n, st);
        this.one(n.body, n, st);
        return;
      case 'TryStatement':
        this.one(n.block, n, st);
        this.one(n.handler, n, st);
        this.one(n.finalizer, n, st);
        return;
      case 'CatchClause':
        this.facts(n, parent, st);
        this.one(n.param, n, st);
        this.one(n.body, n, st);
        return;
      case 'SwitchStatement':
        this.one(n.discriminant, n, st);
        this.all(n.cases, n, st);
        return;
      case 'SwitchCase':
        this.statements(n.consequent, n);
        this.one(n.test, n, st);
        return;
    }
    this.facts(n, parent, st);
    this.anyChildren(n, st);
  }

  /** Any node: its properties that hold nodes, in for...in order. */
  private anyChildren(node: AnyNode, statement: Statement | undefined): void {
    for (const key in node) {
      if (SKIP_KEYS.has(key)) continue;
      const value = node[key];
      if (Array.isArray(value)) {
        const holdsStatements = key === 'body' || key === 'consequent';
        for (const child of value) {
          if (child && typeof child === 'object' && typeof (child as Node).type === 'string') {
            this.visit(child as Node, node, holdsStatements ? (child as Statement) : statement);
          }
        }
      } else if (value && typeof value === 'object' && typeof (value as Node).type === 'string') {
        this.visit(value as Node, node, statement);
      }
    }
  }

  private requireImports(d: VariableDeclarator): void {
    const source = requireSource(d.init);
    if (source === undefined || d.id.type !== 'ObjectPattern') return;
    for (const p of d.id.properties) {
      if (p.type !== 'ObjectProperty' || p.computed || p.key.type !== 'Identifier' || p.value.type !== 'Identifier')
        continue;
      this.out.imports.push({ local: p.value.name, imported: p.key.name, source });
    }
  }

  private ttlKey(prop: AnyNode, parent: AnyNode | undefined): void {
    const key = prop.key as Node;
    const name = key.type === 'Identifier' ? key.name : key.type === 'StringLiteral' ? key.value : undefined;
    if (name !== undefined && parent?.type === 'ObjectExpression' && mayBeTtlKey(name))
      this.out.ttlObjects.push({
        object: parent,
        prop: prop as unknown as ObjectProperty,
      });
  }

  private facts(node: Node, parent: Node | undefined, statement: Statement | undefined): void {
    const { bindings } = this.out;
    switch (node.type) {
      case 'ObjectProperty':
        this.ttlKey(node as AnyNode, parent as AnyNode | undefined);
        break;
      case 'ImportDeclaration':
        for (const spec of node.specifiers) {
          if (spec.type === 'ImportSpecifier')
            this.out.imports.push({
              local: spec.local.name,
              imported: spec.imported.type === 'Identifier' ? spec.imported.name : spec.imported.value,
              source: node.source.value,
            });
          else if (spec.type === 'ImportDefaultSpecifier')
            this.out.imports.push({ local: spec.local.name, imported: 'default', source: node.source.value });
        }
        break;
      case 'VariableDeclaration':
        for (const d of node.declarations) {
          addBinding(bindings, d.id);
          this.requireImports(d);
          if (d.id.type === 'Identifier' && d.init) {
            // `let` and `var` too (older CommonJS models use `var schema = ...`): an assignment
            // elsewhere counts as one more binding, so a reassigned name is never followed.
            this.out.consts.push({ name: d.id.name, init: d.init });
            const t = typeRef(d.id.typeAnnotation);
            if (
              node.kind === 'const' &&
              t &&
              (t.name === 'IndexOptions' || t.name === 'CreateIndexesOptions' || t.name === 'IndexDescription')
            ) {
              this.out.typed.push({ declarator: d, typeName: t.name, isArray: t.isArray });
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
        if ((node.type === 'FunctionDeclaration' || node.type === 'FunctionExpression') && node.id)
          addBinding(bindings, node.id);
        for (const p of node.params) addBinding(bindings, p);
        break;
      case 'ClassDeclaration':
      case 'ClassExpression':
        if (node.id) addBinding(bindings, node.id);
        this.out.classes.push(node);
        break;
      case 'CatchClause':
        addBinding(bindings, node.param);
        break;
      case 'AssignmentExpression':
        // A name assigned again is bound more than once: its declaration's value is not the only one.
        if (node.left.type === 'Identifier') bindings.push(node.left.name);
        break;
      case 'UpdateExpression':
        if (node.argument.type === 'Identifier') bindings.push(node.argument.name);
        break;
      case 'ImportSpecifier':
      case 'ImportDefaultSpecifier':
      case 'ImportNamespaceSpecifier':
        addBinding(bindings, node.local);
        break;
      case 'CallExpression':
      case 'NewExpression': {
        const name = calleeName(node);
        if (name && INTERESTING.has(name)) {
          this.out.calls.push({ node, name, statement, awaited: parent?.type === 'AwaitExpression' });
        }
        break;
      }
    }
  }
}

/** `const { A, B: b } = require('./x')`: A and b come from './x'. */
function requireSource(init: Node | null | undefined): string | undefined {
  if (
    init?.type === 'CallExpression' &&
    init.callee.type === 'Identifier' &&
    init.callee.name === 'require' &&
    init.arguments.length === 1 &&
    init.arguments[0].type === 'StringLiteral'
  )
    return init.arguments[0].value;
  return undefined;
}

/** The facts of one top-level statement of `program` (its calls get it as their statement). */
export function scanStatement(statement: Statement, program: Node, generic = false): TreeScan {
  const w = new Walker(generic);
  w.visit(statement, program, statement);
  return w.out;
}

/** Bindings of a whole unit as the Evaluator reads them. */
export class Bindings implements BindingEnv {
  readonly bindingCounts = new Map<string, number>();
  readonly constInits = new Map<string, Expression>();
  readonly classes = new Map<string, ClassDeclaration>();
  readonly imports = new Map<string, ImportBinding>();

  add(scan: TreeScan): void {
    for (const name of scan.bindings) this.bindingCounts.set(name, (this.bindingCounts.get(name) ?? 0) + 1);
    for (const c of scan.consts) this.constInits.set(c.name, c.init);
    for (const c of scan.classes) if (c.type === 'ClassDeclaration' && c.id) this.classes.set(c.id.name, c);
    for (const i of scan.imports) this.imports.set(i.local, i);
  }

  classDeclaration(name: string): ClassDeclaration | undefined {
    return this.classes.get(name);
  }

  importOf(name: string): ImportBinding | undefined {
    return this.imports.get(name);
  }

  bindingCount(name: string): number | undefined {
    return this.bindingCounts.get(name);
  }

  constInit(name: string): Expression | undefined {
    return this.constInits.get(name);
  }
}

/** Scan a whole program. `generic` walks every node by enumerating its properties (the reference walk). */
export function scanUnit(program: Node, generic = false): ScanResult {
  const w = new Walker(generic);
  w.visit(program, undefined, undefined);
  const bindings = new Bindings();
  bindings.add(w.out);
  return {
    calls: w.out.calls,
    typed: w.out.typed,
    ttlObjects: w.out.ttlObjects,
    classes: w.out.classes,
    bindingCounts: bindings.bindingCounts,
    constInits: bindings.constInits,
    bindingCount: (name) => bindings.bindingCount(name),
    constInit: (name) => bindings.constInit(name),
    classDeclaration: (name) => bindings.classDeclaration(name),
    importOf: (name) => bindings.importOf(name),
  };
}
