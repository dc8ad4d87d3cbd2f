/**
 * Index and collection definitions found in one unit, in the shapes people write them: mongosh
 * and Node driver `createIndex` / `ensureIndex` / `createIndexes`, `runCommand` / `command` with
 * `createIndexes`, `collMod` or `create`, `createCollection`, Mongoose `schema.index(...)` and
 * `{ type: Date, expires }` schema fields, and TypeScript declarations typed as the driver's
 * `IndexOptions` / `IndexDescription`. Inserts are collected too: what a TTL field holds decides
 * whether documents ever expire.
 */
import type { CallExpression, NewExpression, Node } from '@babel/types';
import type { Document } from '../engine';
import { defaultIndexName } from '../engine/indexes/key-pattern';
import { parseDuration } from '../formats/duration';
import { nodeText } from './edits';
import { Evaluator, lastProp, plainValue, UNKNOWN, type Lit, type Prop } from './literals';
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
  readonly out: Definitions = { indexes: [], collections: [], collMods: [], inserts: [], splitOptions: [] };

  constructor(
    private readonly unit: Unit,
    private readonly scan: ScanFacts,
    env: BindingEnv,
  ) {
    this.ev = new Evaluator(env);
  }

  find(): Definitions {
    this.findInCalls();
    this.findInTyped();
    return this.out;
  }

  /** Definitions made by the interesting calls. */
  findInCalls(): void {
    for (const call of this.scan.calls) this.onCall(call);
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
        this.addCollection({ collection, ...(dbRef?.db ? { db: dbRef.db } : {}) }, args[1], node);
        return;
      }
      case 'index': {
        // Mongoose: schema.index(fields, options). Only with TTL options, so that other `.index()`
        // methods (search clients, arrays) are left alone.
        if (!recv || node.type !== 'CallExpression' || node.arguments.length < 2) return;
        const args = this.args(node);
        if (args[0].kind !== 'object' || args[1].kind !== 'object') return;
        if (!prop(args[1], 'expires') && !prop(args[1], 'expireAfterSeconds')) return;
        this.addIndex({ via: 'mongooseIndex', call, key: args[0], options: args[1], site: node });
        return;
      }
      case 'Schema': {
        const first = node.arguments[0];
        if (!first) return;
        const fields = this.ev.eval(first);
        if (fields.kind === 'object') this.schemaFields(fields, '', call);
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

  private schemaFields(fields: Lit & { kind: 'object' }, prefix: string, call: CallSite): void {
    for (const p of fields.props) {
      const path = `${prefix}${p.key}`;
      if (p.value.kind !== 'object') continue;
      if (prop(p.value, 'expires') || (prop(p.value, 'type') && prop(p.value, 'expireAfterSeconds'))) {
        const keyValue = { [path]: 1 };
        this.addIndex({ via: 'mongooseField', call, options: p.value, site: p.keyNode, keyValue, keySite: p.keyNode });
      } else if (!prop(p.value, 'type')) {
        this.schemaFields(p.value, `${path}.`, call);
      }
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
    const key = prop(item, 'key')?.value;
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
