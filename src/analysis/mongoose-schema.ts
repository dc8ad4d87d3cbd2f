/**
 * What a Mongoose schema stores, as far as the source says it: the paths a `new Schema({...})`
 * declares, or the `@Prop()` / `@prop()` members of a NestJS `@Schema()` or Typegoose class, and
 * the fields Mongoose writes itself (`timestamps`). A schema is `complete` only when nothing else
 * can add paths: no spread, no `strict: false`, no base class, no plugin or `schema.add`.
 */
import type { ClassDeclaration, ClassExpression, Node } from '@babel/types';
import { lastProp, type Evaluator, type Lit } from './literals';

export type ObjectLit = Lit & { kind: 'object' };

export interface SchemaInfo {
  /** Declared top-level paths, with their spec object when written as one. */
  paths: Map<string, ObjectLit | undefined>;
  /** Paths Mongoose fills itself (`timestamps`). */
  timestamps: string[];
  complete: boolean;
  /** Where the schema is declared (for "declared here" notes). */
  site: Node;
}

function propOf(lit: Lit | undefined, key: string): Lit | undefined {
  return lit?.kind === 'object' ? lastProp(lit.props, key)?.value : undefined;
}

/** Timestamp paths of a `timestamps` option; undefined when it is not literal. */
function timestampPaths(option: Lit | undefined): string[] | undefined {
  if (!option) return [];
  if (option.kind === 'value') return option.value === true ? ['createdAt', 'updatedAt'] : [];
  if (option.kind !== 'object' || !option.complete) return undefined;
  const out: string[] = [];
  for (const [key, fallback] of [
    ['createdAt', 'createdAt'],
    ['updatedAt', 'updatedAt'],
  ] as const) {
    const v = propOf(option, key);
    if (v === undefined || (v.kind === 'value' && v.value === true)) out.push(fallback);
    else if (v.kind === 'value' && typeof v.value === 'string') out.push(v.value);
    else if (!(v.kind === 'value' && v.value === false)) return undefined;
  }
  return out;
}

/** Whether the schema options let Mongoose store only the declared paths. */
function optionsAllowOnlyDeclared(options: Lit | undefined): { timestamps: string[]; closed: boolean } {
  if (options && options.kind !== 'object') return { timestamps: [], closed: false };
  const strict = propOf(options, 'strict');
  const timestamps = timestampPaths(propOf(options, 'timestamps'));
  const closed =
    (options === undefined || options.complete) &&
    (strict === undefined || (strict.kind === 'value' && strict.value !== false)) &&
    timestamps !== undefined;
  return { timestamps: timestamps ?? [], closed };
}

/** Whether the text extends a schema bound to `name` later (`name.plugin(...)`, `name.add(...)`). */
function extendedLater(text: string, name: string | undefined): boolean {
  if (!name) return true;
  return text.includes(`${name}.plugin(`) || text.includes(`${name}.add(`) || text.includes(`${name}.loadClass(`);
}

/** The schema of `new Schema(fields, options)`; `boundTo` is the name it is kept under, if any. */
export function schemaOfFields(
  fields: Lit,
  options: Lit | undefined,
  site: Node,
  text: string,
  boundTo?: string,
): SchemaInfo {
  const paths = new Map<string, ObjectLit | undefined>();
  if (fields.kind === 'object')
    for (const p of fields.props) paths.set(p.key, p.value.kind === 'object' ? p.value : undefined);
  const { timestamps, closed } = optionsAllowOnlyDeclared(options);
  return {
    paths,
    timestamps,
    complete: fields.kind === 'object' && fields.complete && closed && !extendedLater(text, boundTo),
    site,
  };
}

/** The callee name of a decorator (`Prop`, `prop`, `typegoose.prop`, `Schema`), and its call arguments. */
export function decoratorCall(expr: Node): { name: string; args: Node[] } | undefined {
  const call = expr.type === 'CallExpression' ? expr : undefined;
  const callee = call ? call.callee : expr;
  const name =
    callee.type === 'Identifier'
      ? callee.name
      : callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier'
        ? callee.property.name
        : undefined;
  if (!name) return undefined;
  return { name, args: call ? call.arguments : [] };
}

const PROP_DECORATORS = new Set(['Prop', 'prop']);
const NEUTRAL_BASES = new Set(['Document']);

/** The member's name and its `@Prop({...})` / `@prop({...})` options, when it is a schema path. */
export function schemaMember(member: Node, ev: Evaluator): { name: string; options: Lit | undefined } | undefined {
  if (member.type !== 'ClassProperty' || member.computed || !member.decorators) return undefined;
  const key = member.key;
  const name = key.type === 'Identifier' ? key.name : key.type === 'StringLiteral' ? key.value : undefined;
  if (!name) return undefined;
  for (const d of member.decorators) {
    const call = decoratorCall(d.expression);
    if (call && PROP_DECORATORS.has(call.name))
      return { name, options: call.args[0] ? ev.eval(call.args[0]) : undefined };
  }
  return undefined;
}

/** The schema options a NestJS `@Schema({...})` or Typegoose `@modelOptions({schemaOptions})` gives a class. */
export function classSchemaOptions(
  klass: ClassDeclaration | ClassExpression,
  ev: Evaluator,
): { options: Lit | undefined; at: Node | undefined; known: boolean } {
  for (const d of klass.decorators ?? []) {
    const call = decoratorCall(d.expression);
    if (!call) continue;
    if (call.name === 'Schema') {
      const options = call.args[0] ? ev.eval(call.args[0]) : undefined;
      return { options, at: call.args[0], known: true };
    }
    if (call.name === 'modelOptions') {
      const arg = call.args[0] ? ev.eval(call.args[0]) : undefined;
      const options = propOf(arg, 'schemaOptions');
      return { options, at: options?.at, known: arg?.kind === 'object' && arg.complete };
    }
  }
  return { options: undefined, at: undefined, known: true };
}

/** The schema a NestJS or Typegoose class declares. */
export function schemaOfClass(klass: ClassDeclaration | ClassExpression, ev: Evaluator, text: string): SchemaInfo {
  const paths = new Map<string, ObjectLit | undefined>();
  let complete = true;
  for (const member of klass.body.body) {
    const path = schemaMember(member, ev);
    if (path) paths.set(path.name, path.options?.kind === 'object' ? path.options : undefined);
  }
  const base = klass.superClass;
  if (base) {
    const baseName =
      base.type === 'Identifier'
        ? base.name
        : base.type === 'MemberExpression' && base.property.type === 'Identifier'
          ? base.property.name
          : undefined;
    if (!baseName || !NEUTRAL_BASES.has(baseName)) complete = false;
  }
  const { options, known } = classSchemaOptions(klass, ev);
  const { timestamps, closed } = optionsAllowOnlyDeclared(options);
  const name = klass.id?.name;
  // Plugins and options given where the model is made (`@plugin`, `getModelForClass(C, {...})`) add paths.
  const plugged =
    (klass.decorators ?? []).some((d) => decoratorCall(d.expression)?.name === 'plugin') ||
    (name !== undefined && new RegExp(`getModelForClass\\(\\s*${name}\\s*,`).test(text));
  return { paths, timestamps, complete: complete && known && closed && !plugged, site: klass.id ?? klass };
}

/** Edit distance up to `max` (larger distances are reported as max + 1). */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      row.push(v);
      if (v < best) best = v;
    }
    if (best > max) return max + 1;
    prev = row;
  }
  return prev[b.length];
}
