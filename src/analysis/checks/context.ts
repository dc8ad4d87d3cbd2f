/** What every check gets: the definitions of the whole input, the options, and a problem sink. */
import type { Node } from '@babel/types';
import type { Definitions, IndexDef, InsertDef } from '../definitions';
import { spanOf } from '../edits';
import { RULES, type RuleCode } from '../rules';
import type { Unit } from '../source';
import type {
  AnalysisOptions,
  EngineCollectionFacts,
  Fix,
  Namespace,
  Problem,
  RelatedSpan,
  Severity,
  Span,
} from '../types';

export interface CollectionFacts {
  capped: boolean;
  clustered: boolean;
  timeseries?: { timeField: string; metaField?: string };
  expireAfterSeconds?: unknown;
  /** Where the facts come from, for messages: "created on line 3" or "in the engine". */
  source: 'file' | 'engine';
}

export class CheckContext {
  readonly problems: Problem[] = [];
  /** Definitions with an error: they create nothing at runtime. */
  readonly failed = new Set<IndexDef>();
  readonly serverVersion: '8.0' | '7.0';
  readonly nowMs: number;

  private insertsByCollection: Map<string, InsertDef[]> | undefined;

  constructor(
    readonly defs: Definitions,
    readonly options: AnalysisOptions,
  ) {
    this.serverVersion = options.serverVersion ?? '8.0';
    this.nowMs = options.nowMs ?? Date.now();
  }

  report(
    code: RuleCode,
    unit: Unit,
    node: Node,
    message: string,
    fixes: Fix[] = [],
    extra: { severity?: Severity; related?: RelatedSpan[] } = {},
  ): void {
    const rule = RULES[code];
    // Built property by property (no spreads): a file can have thousands of problems.
    const problem = spanOf(unit, node) as Problem;
    problem.code = code;
    problem.severity = extra.severity ?? rule.severity;
    problem.message = message;
    problem.docs = rule.docs;
    problem.specRule = rule.specRule;
    problem.fixes = fixes;
    if (extra.related) problem.related = extra.related;
    this.problems.push(problem);
  }

  /** A problem at a span rather than a node (where reading stopped). */
  reportSpan(code: RuleCode, span: Span, message: string): void {
    const rule = RULES[code];
    this.problems.push({
      ...span,
      code,
      severity: rule.severity,
      message,
      docs: rule.docs,
      specRule: rule.specRule,
      fixes: [],
    });
  }

  /** The inserts into collections of this name (any database). */
  insertsInto(collection: string): InsertDef[] {
    if (!this.insertsByCollection) {
      this.insertsByCollection = new Map();
      for (const i of this.defs.inserts) {
        const list = this.insertsByCollection.get(i.ns.collection) ?? [];
        list.push(i);
        this.insertsByCollection.set(i.ns.collection, list);
      }
    }
    return this.insertsByCollection.get(collection) ?? [];
  }

  /** The collection a definition is for, as created in this input or as the engine has it. */
  collectionFacts(ns: Namespace | undefined): CollectionFacts | undefined {
    if (!ns) return undefined;
    let created: Definitions['collections'][number] | undefined;
    // The last creation in the input wins, as at runtime after a drop and re-create.
    for (let i = this.defs.collections.length - 1; i >= 0 && !created; i--)
      if (sameNamespace(this.defs.collections[i].ns, ns)) created = this.defs.collections[i];
    if (created) {
      const ttl = created.ttl?.value;
      return {
        capped: created.capped,
        clustered: created.clustered,
        ...(created.timeseries ? { timeseries: created.timeseries } : {}),
        ...(ttl && ttl.kind === 'value' ? { expireAfterSeconds: ttl.value } : {}),
        source: 'file',
      };
    }
    const known: EngineCollectionFacts | undefined = this.options.engine?.collection(ns);
    if (!known) return undefined;
    return {
      capped: known.capped,
      clustered: known.clustered,
      ...(known.timeseries ? { timeseries: known.timeseries } : {}),
      ...(known.expireAfterSeconds !== undefined ? { expireAfterSeconds: known.expireAfterSeconds } : {}),
      source: 'engine',
    };
  }
}

/** Same collection; the databases must agree only when both are named. */
export function sameNamespace(a: Namespace, b: Namespace): boolean {
  return a.collection === b.collection && (a.db === undefined || b.db === undefined || a.db === b.db);
}

export function nsText(ns: Namespace): string {
  return ns.db ? `${ns.db}.${ns.collection}` : ns.collection;
}
