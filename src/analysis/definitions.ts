/**
 * Index and collection definitions found in one unit, in the shapes people write them: mongosh
 * and Node driver `createIndex` / `ensureIndex` / `createIndexes`, `runCommand` / `command` with
 * `createIndexes`, `collMod` or `create`, `createCollection`, Mongoose `schema.index(...)` and
 * `{ type: Date, expires }` schema fields, and TypeScript declarations typed as the driver's
 * `IndexOptions` / `IndexDescription`. Inserts are collected too: what a TTL field holds decides
 * whether documents ever expire.
 *
 * Beyond calls: NestJS `@Prop({expires})` and Typegoose `@prop` / `@index` decorators, Mongoose
 * path specs and index specs wherever their object literals are (constants, exported "collection
 * spec" modules, wrapper functions), and TTL options written where nothing reads them (slips).
 */
import type { CallExpression, ClassDeclaration, ClassExpression, NewExpression, Node } from '@babel/types';
import type { Document } from '../engine';
import { defaultIndexName } from '../engine/indexes/key-pattern';
import { defaultTimeOf, type DefaultTime } from './default-time';
import { parseDuration } from '../formats/duration';
import { nodeText, textOffset } from './edits';
import { Evaluator, lastProp, plainValue, UNKNOWN, type ImportedValue, type Lit, type Prop } from './literals';
import {
  classSchemaOptions,
  decoratorCall,
  editDistance,
  schemaMember,
  schemaOfClass,
  schemaOfFields,
  type ObjectLit,
  type SchemaInfo,
} from './mongoose-schema';
import type { BindingEnv, CallSite, ScanFacts } from './scan';
import type { Unit } from './source';
import type { Namespace } from './types';

export type IndexVia =
  | 'createIndex'
  | 'ensureIndex'
  | 'createIndexes'
  | 'createIndexesCommand'
  | 'mongooseIndex'
  | 'mongooseField'
  | 'indexDescription'
  | 'indexOptions';

export interface DbRef {
  db?: string;
  /** Source text of the database expression (`db`, `client.db("app")`), for rewrites. */
  text: string;
  /** Node driver style (`db.command`, `db.collection("x")`) rather than mongosh's. */
  driver: boolean;
}

export interface IndexDef {
  via: IndexVia;
  unit: Unit;
  call?: CallSite;
  ns?: Namespace;
  dbRef?: DbRef;
  /** The key pattern literal (absent for a bare IndexOptions object). */
  key?: Lit;
  /** The key pattern's value when every part is literal. */
  keyValue?: Document;
  /** The object holding the options (createIndex's 2nd argument, a spec, Mongoose's options). */
  options?: Lit;
  ttl?: Prop;
  /** expireAfterSeconds as the server would get it (Mongoose `expires` strings converted). */
  ttlValue: unknown;
  /** The whole createIndexes spec when every part is literal: `{key, name, ...options}`. */
  spec?: Document;
  /** Where whole-definition problems go. */
  site: Node;
  /** The Mongoose schema the index belongs to, when the source shows it. */
  schema?: SchemaInfo;
  /** The spec object of the indexed Mongoose path (`{type: Date, default, expires}`), when known. */
  pathSpec?: ObjectLit;
  /** What that path's `default` gives, when it is a time of now. */
  defaultTime?: DefaultTime;
  /** Made by a decorator named as a TTL index (`@ExpiryIndex({...})`) whose options are elsewhere. */
  ttlByName?: boolean;
}

/** Who reads an object that holds a TTL option or a slip of one. */
export type OptionReader = 'driver' | 'mongooseIndex' | 'mongoosePath' | 'schemaOptions';

/** A TTL option written where it does nothing (key pattern, schema options) or misspelled. */
export interface OptionSlip {
  unit: Unit;
  prop: Prop;
  kind: 'inKey' | 'schemaOption' | 'misspelled';
  intended: 'expireAfterSeconds' | 'expires';
  reader: OptionReader;
  /** The key pattern, when literal (for the engine's verdict on the spec). */
  key?: Document;
  /** The key pattern object and the options object of the call (for fixes). */
  keyLit?: Lit;
  options?: Lit;
  call?: CallSite;
}

export interface CollectionDef {
  unit: Unit;
  ns: Namespace;
  site: Node;
  options?: Lit;
  capped: boolean;
  clustered: boolean;
  timeseries?: { timeField: string; metaField?: string };
  ttl?: Prop;
}

export interface CollModDef {
  unit: Unit;
  ns?: Namespace;
  site: Node;
  /** `index.expireAfterSeconds` of collMod. */
  indexTtl?: Prop;
  indexKey?: Document;
  indexName?: string;
  /** Top-level `expireAfterSeconds` (clustered / time-series collections). */
  collectionTtl?: Prop;
}

export interface InsertDef {
  unit: Unit;
  ns: Namespace;
  docs: Lit[];
}

export interface Definitions {
  indexes: IndexDef[];
  collections: CollectionDef[];
  collMods: CollModDef[];
  inserts: InsertDef[];
  /** createIndex calls with more than two arguments: the third is not index options. */
  splitOptions: Array<{ def: IndexDef; extra: Lit }>;
  slips: OptionSlip[];
}

/** Methods of a mongosh `db` that are not collection names (`db.getName`, `db.runCommand`...). */
const DB_METHODS = new Set([
  'getCollection',
  'collection',
  'getSiblingDB',
  'getDB',
  'runCommand',
  'command',
  'adminCommand',
  'createCollection',
  'getName',
  'aggregate',
  'admin',
]);

function text(unit: Unit, node: Node): string {
  return nodeText(unit, node);
}

function stringValue(lit: Lit | undefined): string | undefined {
  return lit?.kind === 'value' && typeof lit.value === 'string' ? lit.value : undefined;
}

function prop(lit: Lit | undefined, key: string): Prop | undefined {
  return lit?.kind === 'object' ? lastProp(lit.props, key) : undefined;
}

function plainDoc(lit: Lit | undefined): Document | undefined {
  if (!lit) return undefined;
  const v = plainValue(lit);
  return v !== UNKNOWN && v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date)
    ? (v as Document)
    : undefined;
}

export class DefinitionFinder {
  private readonly ev: Evaluator;
  readonly out: Definitions = { indexes: [], collections: [], collMods: [], inserts: [], splitOptions: [], slips: [] };
  /** Object literals already read as options or specs (the loose pass leaves them alone). */
  private readonly consumed = new Set<Node>();
  private readonly slipped = new Set<Node>();

  constructor(
    private readonly unit: Unit,
    private readonly scan: ScanFacts,
    private readonly env: BindingEnv,
    imported?: ImportedValue,
  ) {
    this.ev = new Evaluator(env, imported);
  }

  /** All definitions, in this order: calls, decorated classes, loose option objects, typed declarations. */
  find(): Definitions {
    this.findInCalls();
    this.findInClasses();
    this.findLoose();
    this.findInTyped();
    return this.out;
  }

  /** Definitions made by the interesting calls. */
  findInCalls(): void {
    for (const call of this.scan.calls) this.onCall(call);
  }

  /** NestJS and Typegoose classes. */
  findInClasses(): void {
    for (const klass of this.scan.classes) this.onClass(klass);
  }

  /** Definitions in declarations typed `IndexOptions` / `IndexDescription` (indexes only). */
  findInTyped(): void {
    for (const t of this.scan.typed) {
      const init = t.declarator.init;
      if (!init) continue;
      const lit = this.ev.eval(init);
      if (t.typeName === 'IndexDescription') {
        const items = t.isArray && lit.kind === 'array' ? lit.items : [lit];
        for (const item of items) this.addSpec(item, 'indexDescription', undefined, undefined, undefined);
      } else if (!t.isArray && lit.kind === 'object') {
        this.addIndex({ via: 'indexOptions', options: lit, site: lit.at });
      }
    }
  }

  /** What a database expression is: `db`, `client.db("x")`, `db.getSiblingDB("x")`, or a const of one. */
  dbRef(node: Node, depth = 0): DbRef | undefined {
    const n = Evaluator.unwrap(node);
    const shown = text(this.unit, n);
    if (n.type === 'Identifier') {
      const init = depth < 10 ? this.ev.constInit(n.name) : undefined;
      if (init) {
        const inner = this.dbRef(init, depth + 1);
        return inner ? { ...inner, text: shown } : undefined;
      }
      if (/^(db|database|.*Db|.*DB)$/.test(n.name)) return { text: shown, driver: n.name !== 'db' };
      return undefined;
    }
    if (
      n.type === 'CallExpression' &&
      n.callee.type === 'MemberExpression' &&
      !n.callee.computed &&
      n.callee.property.type === 'Identifier'
    ) {
      const m = n.callee.property.name;
      const arg = n.arguments[0] ? this.ev.eval(n.arguments[0]) : undefined;
      if (m === 'getSiblingDB' || m === 'getDB') return { db: stringValue(arg), text: shown, driver: false };
      if (m === 'db') return { db: stringValue(arg), text: shown, driver: true };
    }
    return undefined;
  }

  /** What a collection expression is: `db.events`, `db.getCollection("events")`, `db.collection("events")`. */
  collectionRef(node: Node, depth = 0): { ns: Namespace; dbRef: DbRef } | undefined {
    const n = Evaluator.unwrap(node);
    if (n.type === 'Identifier') {
      const init = depth < 10 ? this.ev.constInit(n.name) : undefined;
      return init ? this.collectionRef(init, depth + 1) : undefined;
    }
    if (n.type === 'MemberExpression') {
      const name =
        !n.computed && n.property.type === 'Identifier' ? n.property.name : stringValue(this.ev.eval(n.property));
      if (!name || DB_METHODS.has(name)) return undefined;
      const dbRef = this.dbRef(n.object);
      return dbRef
        ? { ns: { collection: name, ...(dbRef.db ? { db: dbRef.db } : {}) }, dbRef: { ...dbRef, driver: false } }
        : undefined;
    }
    if (
      n.type === 'CallExpression' &&
      n.callee.type === 'MemberExpression' &&
      !n.callee.computed &&
      n.callee.property.type === 'Identifier'
    ) {
      const m = n.callee.property.name;
      if (m !== 'getCollection' && m !== 'collection') return undefined;
      const name = n.arguments[0] ? stringValue(this.ev.eval(n.arguments[0])) : undefined;
      const dbRef = this.dbRef(n.callee.object);
      if (!name || !dbRef) return undefined;
      return {
        ns: { collection: name, ...(dbRef.db ? { db: dbRef.db } : {}) },
        dbRef: { ...dbRef, driver: m === 'collection' || dbRef.driver },
      };
    }
    return undefined;
  }

  private args(node: CallExpression | NewExpression): Lit[] {
    // Half-typed calls (`f(, x)`) leave holes in the recovered tree.
    return node.arguments.map((a) => (a ? this.ev.eval(a as Node) : { kind: 'unknown', at: node, node }));
  }

  private receiver(node: CallExpression | NewExpression): Node | undefined {
    const c = node.callee;
    return c.type === 'MemberExpression' || c.type === 'OptionalMemberExpression' ? c.object : undefined;
  }

  private onCall(call: CallSite): void {
    const { node, name } = call;
    const recv = this.receiver(node);
    switch (name) {
      case 'createIndex':
      case 'ensureIndex': {
        if (!recv || node.type !== 'CallExpression') return;
        const args = this.args(node);
        if (args.length === 0) return;
        const ref = this.collectionRef(recv);
        const key = keyLit(args[0]);
        if (key.kind === 'object') this.keySlips(key, args[1], 'driver', call);
        if (args[1]?.kind === 'object') {
          this.consumed.add(args[1].node);
          this.optionSlips(args[1], 'driver', plainDoc(key), call);
        }
        const def = this.addIndex({
          via: name,
          call,
          ns: ref?.ns,
          dbRef: ref?.dbRef,
          key,
          options: args[1],
          site: node,
        });
        if (args.length > 2 && def) this.out.splitOptions.push({ def, extra: args[2] });
        return;
      }
      case 'createIndexes': {
        if (!recv || node.type !== 'CallExpression') return;
        const args = this.args(node);
        const list = args[0];
        if (list?.kind !== 'array') return;
        const ref = this.collectionRef(recv);
        for (const item of list.items) {
          if (isDescription(item)) this.addSpec(item, 'indexDescription', call, ref?.ns, ref?.dbRef);
          else {
            const def = this.addIndex({
              via: 'createIndexes',
              call,
              ns: ref?.ns,
              dbRef: ref?.dbRef,
              key: item,
              options: args[1],
              site: item.at,
            });
            if (args.length > 2 && def) this.out.splitOptions.push({ def, extra: args[2] });
          }
        }
        return;
      }
      case 'runCommand':
      case 'command':
      case 'adminCommand': {
        if (!recv || node.type !== 'CallExpression' || !node.arguments[0]) return;
        const cmd = this.ev.eval(node.arguments[0]);
        if (cmd.kind !== 'object' || cmd.props.length === 0) return;
        const dbRef = this.dbRef(recv) ?? { text: text(this.unit, recv), driver: name === 'command' };
        const verb = cmd.props[0].key;
        const collection = stringValue(cmd.props[0].value);
        const ns = collection ? { collection, ...(dbRef.db ? { db: dbRef.db } : {}) } : undefined;
        if (verb === 'createIndexes') {
          const indexes = prop(cmd, 'indexes')?.value;
          if (indexes?.kind === 'array')
            for (const item of indexes.items) this.addSpec(item, 'createIndexesCommand', call, ns, dbRef);
        } else if (verb === 'collMod') {
          const index = prop(cmd, 'index')?.value;
          this.consumed.add(cmd.node);
          if (index?.kind === 'object') this.consumed.add(index.node);
          this.out.collMods.push({
            unit: this.unit,
            ns,
            site: node,
            indexTtl: prop(index, 'expireAfterSeconds'),
            indexKey: plainDoc(prop(index, 'keyPattern')?.value),
            indexName: stringValue(prop(index, 'name')?.value),
            collectionTtl: prop(cmd, 'expireAfterSeconds'),
          });
        } else if (verb === 'create' && ns) {
          this.consumed.add(cmd.node);
          this.addCollection(ns, cmd, node);
        }
        return;
      }
      case 'createCollection': {
        if (!recv || node.type !== 'CallExpression') return;
        const args = this.args(node);
        const collection = stringValue(args[0]);
        const dbRef = this.dbRef(recv);
        if (!collection) return;
        if (args[1]?.kind === 'object') this.consumed.add(args[1].node);
        this.addCollection({ collection, ...(dbRef?.db ? { db: dbRef.db } : {}) }, args[1], node);
        return;
      }
      case 'index': {
        // Mongoose schema.index(fields, options), Typegoose @index(fields, options) and wrappers that
        // pass options on (`index(fields, {...options, expireAfterSeconds: 0})`). Only with TTL
        // options or slips of them, so that other `.index()` methods are left alone.
        if (node.type !== 'CallExpression' || node.arguments.length < 1) return;
        const args = this.args(node);
        const schema = recv ? this.schemaOf(recv) : this.schemaOfDecorated(node);
        if (args[0].kind === 'object') this.keySlips(args[0], args[1], 'mongooseIndex', call);
        if (args.length < 2 || args[1].kind !== 'object') return;
        this.consumed.add(args[1].node);
        this.optionSlips(args[1], 'mongooseIndex', plainDoc(args[0]), call);
        if (!prop(args[1], 'expires') && !prop(args[1], 'expireAfterSeconds')) return;
        if (args[0].kind !== 'object' && !(args[0].kind === 'unknown' && args[1].kind === 'object')) return;
        const def = this.addIndex({
          via: 'mongooseIndex',
          call,
          key: args[0].kind === 'object' ? args[0] : undefined,
          options: args[1],
          site: node,
        });
        if (def && schema) this.attachSchema(def, schema);
        return;
      }
      case 'Schema': {
        const first = node.arguments[0];
        if (!first) return;
        const fields = this.ev.eval(first);
        const options = node.arguments[1] ? this.ev.eval(node.arguments[1]) : undefined;
        if (options?.kind === 'object') {
          this.consumed.add(options.node);
          this.schemaOptionSlips(options);
        }
        if (fields.kind !== 'object') return;
        const schema = schemaOfFields(fields, options, node, this.unit.text, this.boundName(node));
        this.schemaFields(fields, '', call, schema);
        return;
      }
      case 'insertOne':
      case 'insertMany':
      case 'insert':
      case 'save': {
        if (!recv || node.type !== 'CallExpression' || !node.arguments[0]) return;
        const ref = this.collectionRef(recv);
        if (!ref) return;
        const first = this.ev.eval(node.arguments[0]);
        const docs = first.kind === 'array' ? first.items : [first];
        this.out.inserts.push({ unit: this.unit, ns: ref.ns, docs });
        return;
      }
    }
  }

  private schemaFields(
    fields: Lit & { kind: 'object' },
    prefix: string,
    call: CallSite | undefined,
    schema?: SchemaInfo,
  ): void {
    this.consumed.add(fields.node);
    for (const p of fields.props) {
      const path = `${prefix}${p.key}`;
      if (p.value.kind !== 'object') continue;
      if (isPathSpec(p.value)) this.pathSpec(p.value, path, p.keyNode, call, prefix === '' ? schema : undefined);
      else this.schemaFields(p.value, `${path}.`, call);
    }
  }

  /**
   * One Mongoose path spec: `{type: Date, expires}`, `{type: Date, index: {expires}}` or
   * `{index: {expireAfterSeconds}}`; a TTL index on `path` when it has one. `path` is undefined
   * when the spec is held apart from its schema (a constant): the key is then not known.
   */
  private pathSpec(
    spec: ObjectLit,
    path: string | undefined,
    site: Node,
    call: CallSite | undefined,
    schema?: SchemaInfo,
  ): void {
    this.consumed.add(spec.node);
    this.optionSlips(spec, 'mongoosePath', undefined, call);
    const index = prop(spec, 'index')?.value;
    let options: Lit | undefined;
    if (prop(spec, 'expires') || (prop(spec, 'type') && prop(spec, 'expireAfterSeconds'))) options = spec;
    if (index?.kind === 'object') {
      this.consumed.add(index.node);
      this.optionSlips(index, 'mongooseIndex', path ? { [path]: 1 } : undefined, call);
      if (!options && (prop(index, 'expires') || prop(index, 'expireAfterSeconds'))) options = index;
    }
    if (!options) return;
    const def = this.addIndex({
      via: 'mongooseField',
      call,
      options,
      site,
      ...(path !== undefined ? { keyValue: { [path]: 1 }, keySite: site } : {}),
    });
    if (!def) return;
    this.setPathSpec(def, spec);
    if (schema) def.schema = schema;
  }

  private setPathSpec(def: IndexDef, spec: ObjectLit): void {
    def.pathSpec = spec;
    const time = defaultTimeOf(spec, this.ev);
    if (time) def.defaultTime = time;
  }

  /** The name a schema-making expression is kept under (`const s = new Schema(...)`), if any. */
  private boundName(node: Node): string | undefined {
    const text = this.unit.text;
    // Cheap and local: the declaration just before the expression.
    const start = textOffset(this.unit, node.start ?? 0);
    const before = text.slice(Math.max(0, start - 120), start);
    const m = /(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*$/.exec(before);
    return m?.[1];
  }

  /** The schema behind an `.index()` receiver: a `new Schema(...)`, or `SchemaFactory.createForClass(C)`. */
  private schemaOf(recv: Node, depth = 0, boundTo?: string): SchemaInfo | undefined {
    const n = Evaluator.unwrap(recv);
    if (n.type === 'Identifier' && depth < 5) {
      const init = this.ev.constInit(n.name);
      if (!init) return undefined;
      return this.schemaOf(init, depth + 1, n.name);
    }
    if (n.type !== 'CallExpression' && n.type !== 'NewExpression') return undefined;
    const callee = n.callee;
    const calleeName =
      callee.type === 'Identifier'
        ? callee.name
        : callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier'
          ? callee.property.name
          : undefined;
    if (calleeName === 'Schema' && n.arguments[0]) {
      const fields = this.ev.eval(n.arguments[0]);
      const options = n.arguments[1] ? this.ev.eval(n.arguments[1]) : undefined;
      return schemaOfFields(fields, options, n, this.unit.text, boundTo);
    }
    if (calleeName === 'createForClass' && n.arguments[0]?.type === 'Identifier') {
      const klass = this.env.classDeclaration?.(n.arguments[0].name);
      return klass ? schemaOfClass(klass, this.ev, this.unit.text) : undefined;
    }
    if (calleeName === 'index' && callee.type === 'MemberExpression')
      return this.schemaOf(callee.object, depth + 1, boundTo);
    return undefined;
  }

  /** The class a decorator call (`@index(...)`) is written on, as a schema. */
  private schemaOfDecorated(node: CallExpression): SchemaInfo | undefined {
    for (const klass of this.scan.classes)
      if ((klass.decorators ?? []).some((d) => d.expression === node))
        return schemaOfClass(klass, this.ev, this.unit.text);
    return undefined;
  }

  /** The schema's own spec of the def's path, for the rules about its default. */
  private attachSchema(def: IndexDef, schema: SchemaInfo): void {
    def.schema = schema;
    const fields = def.keyValue ? Object.keys(def.keyValue) : [];
    if (fields.length === 1) {
      const spec = schema.paths.get(fields[0]);
      if (spec) this.setPathSpec(def, spec);
    }
  }

  /** NestJS and Typegoose classes: `@Prop({expires})` paths, `@Schema({...})` options, TTL-named decorators. */
  private onClass(klass: ClassDeclaration | ClassExpression): void {
    const decorated =
      (klass.decorators?.length ?? 0) > 0 || klass.body.body.some((m) => 'decorators' in m && m.decorators?.length);
    if (!decorated) return;
    let schema: SchemaInfo | undefined;
    const schemaInfo = () => (schema ??= schemaOfClass(klass, this.ev, this.unit.text));
    const { options } = classSchemaOptions(klass, this.ev);
    if (options?.kind === 'object') {
      this.consumed.add(options.node);
      this.schemaOptionSlips(options);
    }
    for (const member of klass.body.body) {
      const path = schemaMember(member, this.ev);
      if (!path || path.options?.kind !== 'object') continue;
      this.pathSpec(
        path.options,
        path.name,
        member.type === 'ClassProperty' ? member.key : member,
        undefined,
        schemaInfo(),
      );
    }
    for (const d of klass.decorators ?? []) {
      const call = decoratorCall(d.expression);
      if (!call || !/^(ttl|expir)|(ttl|expir\w*)index$/i.test(call.name) || d.expression.type !== 'CallExpression')
        continue;
      const key = call.args[0] ? this.ev.eval(call.args[0]) : undefined;
      if (key?.kind !== 'object') continue;
      const def = this.addIndex({ via: 'mongooseIndex', key, site: d.expression });
      if (def) {
        def.ttlByName = true;
        this.attachSchema(def, schemaInfo());
      }
    }
  }

  /** Option objects no call or class claimed: index specs and path specs held in constants or modules. */
  findLoose(): void {
    const seen = new Set<Node>();
    for (const { object } of this.scan.ttlObjects) {
      if (seen.has(object) || this.consumed.has(object)) continue;
      seen.add(object);
      const lit = this.ev.eval(object);
      if (lit.kind !== 'object') continue;
      const key = prop(lit, 'key')?.value;
      if (key?.kind === 'object') {
        this.optionSlips(lit, 'driver', plainDoc(key), undefined, ['key']);
        if (prop(lit, 'expireAfterSeconds')) this.addSpec(lit, 'indexDescription', undefined, undefined, undefined);
        continue;
      }
      if (isPathSpec(lit) && (prop(lit, 'type') || prop(lit, 'default'))) {
        this.pathSpec(lit, undefined, lit.at, undefined);
        continue;
      }
      // Index options handed inline to code the finder does not know (TypeORM / MikroORM `@Index`,
      // a project's own `defineIndex(schema, {key, options})`): the value is still checked. One
      // held in a variable is left to the call that uses it, which may be in another statement.
      // `expireAfterSeconds: undefined` (or null) there usually means "no TTL" to that code.
      const ttl = prop(lit, 'expireAfterSeconds')?.value;
      const unset = ttl?.kind === 'value' && (ttl.value === undefined || ttl.value === null);
      if (ttl && !unset && this.boundName(object) === undefined) {
        this.consumed.add(object);
        this.addIndex({ via: 'indexOptions', options: lit, site: lit.at });
      }
    }
  }

  /** TTL options written in the key pattern: an ordinary index on a field of that name (TTL017). */
  private keySlips(key: Lit, options: Lit | undefined, reader: OptionReader, call: CallSite): void {
    if (key.kind !== 'object') return;
    for (const p of key.props) {
      // A field may well be named `expires` (`{ expires: 1 }` is a key); a duration there is not.
      const v = p.value.kind === 'value' ? p.value.value : undefined;
      const direction = v === 1 || v === -1 || (typeof v === 'string' && INDEX_TYPES.has(v));
      const intended = (p.key === 'expireAfterSeconds' || p.key === 'expires') && !direction ? p.key : undefined;
      if (!intended || this.slipped.has(p.node)) continue;
      this.slipped.add(p.node);
      this.out.slips.push({ unit: this.unit, prop: p, kind: 'inKey', intended, reader, keyLit: key, options, call });
    }
  }

  /** Schema options with a TTL option: Mongoose makes no index of them (TTL017). */
  private schemaOptionSlips(options: Lit): void {
    if (options.kind !== 'object') return;
    const collectionTtl = prop(options, 'timeseries') || prop(options, 'clusteredIndex');
    for (const p of options.props) {
      const wrong = p.key === 'expires' || (p.key === 'expireAfterSeconds' && !collectionTtl);
      if (!wrong || this.slipped.has(p.node)) continue;
      this.slipped.add(p.node);
      this.out.slips.push({
        unit: this.unit,
        prop: p,
        kind: 'schemaOption',
        intended: 'expires',
        reader: 'schemaOptions',
      });
    }
  }

  /** Misspelled TTL options of an options object (TTL018). */
  private optionSlips(
    options: Lit,
    reader: OptionReader,
    key: Document | undefined,
    call: CallSite | undefined,
    skip: string[] = [],
  ): void {
    if (options.kind !== 'object') return;
    for (const p of options.props) {
      if (skip.includes(p.key) || this.slipped.has(p.node)) continue;
      const intended = misspelledOption(p.key, reader);
      if (!intended) continue;
      this.slipped.add(p.node);
      this.out.slips.push({
        unit: this.unit,
        prop: p,
        kind: 'misspelled',
        intended,
        reader,
        ...(key ? { key } : {}),
        options,
        ...(call ? { call } : {}),
      });
    }
  }

  /** A full index spec (`{key, name, expireAfterSeconds, ...}`): driver IndexDescription or createIndexes command. */
  private addSpec(
    item: Lit,
    via: IndexVia,
    call: CallSite | undefined,
    ns: Namespace | undefined,
    dbRef: DbRef | undefined,
  ): void {
    if (item.kind !== 'object') return;
    this.consumed.add(item.node);
    const key = prop(item, 'key')?.value;
    if (via !== 'indexDescription' || call)
      this.optionSlips(item, 'driver', key ? plainDoc(keyLit(key)) : undefined, call, ['key']);
    this.addIndex({ via, call, ns, dbRef, key: key ? keyLit(key) : undefined, options: item, site: item.at });
  }

  private addIndex(d: {
    via: IndexVia;
    call?: CallSite;
    ns?: Namespace;
    dbRef?: DbRef;
    key?: Lit;
    options?: Lit;
    site: Node;
    keyValue?: Document;
    keySite?: Node;
  }): IndexDef | undefined {
    const mongoose = d.via === 'mongooseIndex' || d.via === 'mongooseField';
    const expires = mongoose ? prop(d.options, 'expires') : undefined;
    const ttl = prop(d.options, 'expireAfterSeconds') ?? expires;
    let ttlValue: unknown = ttl ? plainValue(ttl.value) : undefined;
    if (ttl && ttl === expires && typeof ttlValue === 'string') {
      // Mongoose reads a string `expires` as a duration ("1h", "7d"), then stores seconds.
      const ms = parseDuration(ttlValue);
      ttlValue = typeof ms === 'number' ? ms / 1000 : UNKNOWN;
    }
    const keyValue = d.keyValue ?? plainDoc(d.key);
    let spec: Document | undefined;
    const opts = d.options ? plainDoc(d.options) : {};
    if (keyValue && opts && ttlValue !== UNKNOWN) {
      const { key: _key, expires: _expires, type: _type, ...rest } = opts;
      const options = mongoose ? onlyIndexOptions(rest) : rest;
      if (ttl) options.expireAfterSeconds = ttlValue;
      spec = {
        key: keyValue,
        name: typeof options.name === 'string' ? options.name : defaultIndexName(keyValue),
        ...options,
      };
    }
    const def: IndexDef = {
      via: d.via,
      unit: this.unit,
      call: d.call,
      ns: d.ns,
      dbRef: d.dbRef,
      key: d.key ?? (d.keySite ? { kind: 'unknown', at: d.keySite, node: d.keySite } : undefined),
      keyValue,
      options: d.options,
      ttl,
      ttlValue,
      spec,
      site: d.site,
    };
    this.out.indexes.push(def);
    return def;
  }

  private addCollection(ns: Namespace, options: Lit | undefined, site: Node): void {
    const ts = plainDoc(prop(options, 'timeseries')?.value);
    const timeField = typeof ts?.timeField === 'string' ? ts.timeField : undefined;
    const capped = prop(options, 'capped')?.value;
    this.out.collections.push({
      unit: this.unit,
      ns,
      site,
      options,
      capped: capped?.kind === 'value' && capped.value === true,
      clustered: !!prop(options, 'clusteredIndex'),
      ...(timeField
        ? { timeseries: { timeField, ...(typeof ts?.metaField === 'string' ? { metaField: ts.metaField } : {}) } }
        : {}),
      ttl: prop(options, 'expireAfterSeconds'),
    });
  }
}

/** Key pattern values that name an index type rather than a duration. */
const INDEX_TYPES = new Set(['text', '2d', '2dsphere', 'hashed', 'geoHaystack']);

/** Whether an object is a Mongoose path spec (`{type: Date, ...}`) rather than nested fields. */
function isPathSpec(lit: ObjectLit): boolean {
  return !!(prop(lit, 'type') || prop(lit, 'expires') || prop(lit, 'index') || prop(lit, 'default'));
}

/** Legitimate Mongoose path options close to `expires` in spelling. */
const PATH_OPTIONS = new Set([
  'expires',
  'required',
  'enum',
  'select',
  'set',
  'get',
  'alias',
  'index',
  'sparse',
  'unique',
  'text',
  'type',
  'default',
  'ref',
  'validate',
  'immutable',
  'min',
  'max',
  'trim',
  'lowercase',
  'uppercase',
  'match',
  'minlength',
  'maxlength',
  'transform',
]);

/**
 * The option a key was probably meant to be, when it is a slip of one: `expiresAfterSeconds`,
 * `expireAfterSecond`, `expireAfter`, `expiresAfter`, `expire_after_seconds`, the driver's `ttl`,
 * and on Mongoose paths near misses of `expires` (`exexpires`, `expire`).
 */
export function misspelledOption(key: string, reader: OptionReader): 'expireAfterSeconds' | 'expires' | undefined {
  if (key === 'expireAfterSeconds') return undefined;
  const mongoose = reader === 'mongooseIndex' || reader === 'mongoosePath';
  if (key === 'expires') return mongoose ? undefined : 'expireAfterSeconds';
  const n = key.toLowerCase().replace(/[_\-\s]/g, '');
  if (n === 'ttl') return reader === 'driver' ? 'expireAfterSeconds' : undefined;
  if (n === 'expireafter' || n === 'expiresafter' || n === 'expireafterseconds') return 'expireAfterSeconds';
  if (n.startsWith('expire') && editDistance(n, 'expireafterseconds', 3) <= 3) return 'expireAfterSeconds';
  if (mongoose && !PATH_OPTIONS.has(key) && editDistance(n, 'expires', 2) <= 2 && /xp/.test(n)) return 'expires';
  return undefined;
}

/** Mongoose options that become index options (others are Mongoose's own). */
function onlyIndexOptions(opts: Document): Document {
  const out: Document = {};
  for (const k of ['name', 'unique', 'sparse', 'partialFilterExpression', 'background', 'collation', 'hidden'])
    if (opts[k] !== undefined) out[k] = opts[k];
  return out;
}

/** A key given as a field name string (driver: `createIndex("createdAt")`) is `{createdAt: 1}`. */
function keyLit(lit: Lit): Lit {
  if (lit.kind === 'value' && typeof lit.value === 'string')
    return {
      ...lit,
      kind: 'object',
      complete: true,
      props: [
        { key: lit.value, keyNode: lit.at, node: lit.at, value: { kind: 'value', value: 1, at: lit.at, node: lit.at } },
      ],
    };
  return lit;
}

/** A createIndexes element is a driver IndexDescription when its `key` is itself an object. */
function isDescription(item: Lit): boolean {
  const key = prop(item, 'key')?.value;
  return key?.kind === 'object';
}
