/**
 * The expiry forecast on a real server: the same figures as the embedded engine's
 * (`engine/ttl/forecast.ts`, docs/ttl-rules.md §7) from one aggregation the server runs, bounded by
 * maxTimeMS. The pipeline keeps the documents the rule covers (the partial filter, or the what-if
 * one), reduces the TTL field to the date the monitor would use (an array's earliest date, rule
 * 7.8; anything else never expires, 7.9; a clustered `_id` only from 1970 on, 5.4), adds
 * expireAfterSeconds and groups by bucket. The buckets are measured from the forecast's `now`
 * (not cut at whole hours or days) so they are the embedded chart's buckets, bound for bound: a
 * bucket holds the expiry times in (from, to]. Only counts leave the server, never documents.
 * Pure: no driver, no `vscode`.
 */
import type { Document, Forecast, ForecastRequest } from '../../engine';
import { forecastShape } from '../../engine/ttl/forecast';
import {
  checkIndexExpireAfterSeconds,
  effectiveExpireAfterSeconds,
  isTTLIndexSpec,
  ttlKeyIsUsable,
} from '../../engine/ttl/validation';
import { RemoteError } from './driver-errors';

/** What a forecast counts on the server: which field, how long, over which documents. */
export interface ServerForecastRule {
  /** The index name, `collection` for a clustered collection's own TTL. */
  index: string;
  kind: 'index' | 'clustered';
  field: string;
  /** undefined: the monitor skips the rule (a stored NaN or out-of-range value), nothing expires. */
  seconds: number | undefined;
  /** The stored value, for the note when the monitor skips it. */
  stored?: unknown;
  /** The documents the rule covers: the index's partial filter, or the what-if one. */
  filter?: Document;
  /** A sparse index holds only documents that have the field. */
  sparse: boolean;
  /** Clustered `_id` dates count from 1970 on (rule 5.4). */
  fromEpoch: boolean;
  whatIf: boolean;
  notes: string[];
}

/** A collection as listCollections and listIndexes describe it. */
export interface ServerCollection {
  db: string;
  name: string;
  type: string;
  options: Document;
  indexes: Document[];
}

function badValue(message: string): RemoteError {
  return new RemoteError(2, 'BadValue', message);
}

function isPlainDocument(v: unknown): v is Document {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);
}

function keyText(key: unknown): string {
  return isPlainDocument(key)
    ? Object.entries(key)
        .map(([k, v]) => `${k}:${Number(v)}`)
        .join(',')
    : '';
}

/** The rule a forecast request names on a collection, refused as the embedded engine refuses it. */
export function serverForecastRule(c: ServerCollection, request: ForecastRequest): ServerForecastRule {
  const ns = `${c.db}.${c.name}`;
  const whatIfSeconds =
    request.expireAfterSeconds !== undefined
      ? checkIndexExpireAfterSeconds(request.expireAfterSeconds, '8.0').seconds
      : undefined;
  if (request.partialFilterExpression !== undefined && !isPlainDocument(request.partialFilterExpression))
    throw badValue('partialFilterExpression must be a query document, e.g. { status: "done" }.');
  if (c.type === 'timeseries' || c.options.timeseries !== undefined)
    throw new RemoteError(
      20,
      'IllegalOperation',
      `${ns} is a time-series collection: the monitor deletes whole buckets, and a client cannot see their bounds, so a forecast computed from here would misstate when measurements go. Forecast a copy in the embedded engine (Export, then Import there).`,
    );
  const whatIf = whatIfSeconds !== undefined || request.partialFilterExpression !== undefined;
  const byIndex = (spec: Document, notes: string[] = []): ServerForecastRule => {
    const key = isPlainDocument(spec.key) ? spec.key : {};
    const usable = ttlKeyIsUsable(key);
    if (!usable.usable)
      throw new RemoteError(
        67,
        'CannotCreateIndex',
        `${String(spec.name)} on ${JSON.stringify(key)} cannot be a TTL index: TTL indexes are single-field indexes on a date field (${usable.reason}). Forecast a single-field index instead.`,
      );
    if (whatIfSeconds === undefined && !isTTLIndexSpec(spec))
      throw badValue(
        `${String(spec.name)} is not a TTL index: give expireAfterSeconds to see what it would delete as one.`,
      );
    const own = isPlainDocument(spec.partialFilterExpression) ? spec.partialFilterExpression : undefined;
    const filter = request.partialFilterExpression ?? own;
    return {
      index: String(spec.name),
      kind: 'index',
      field: Object.keys(key)[0],
      seconds: whatIfSeconds ?? effectiveExpireAfterSeconds(spec.expireAfterSeconds),
      stored: spec.expireAfterSeconds,
      ...(filter ? { filter } : {}),
      sparse: spec.sparse === true,
      fromEpoch: false,
      whatIf,
      notes,
    };
  };
  if (request.index === undefined) {
    if (c.options.clusteredIndex !== undefined && c.options.expireAfterSeconds !== undefined)
      return {
        index: 'collection',
        kind: 'clustered',
        field: '_id',
        seconds: whatIfSeconds ?? Number(c.options.expireAfterSeconds),
        sparse: false,
        fromEpoch: true,
        whatIf: whatIfSeconds !== undefined,
        notes: ['_id values that are not dates, or dates before 1970, never expire (rule 5.4)'],
      };
    const ttl = c.indexes.filter(isTTLIndexSpec);
    if (ttl.length !== 1)
      throw ttl.length
        ? badValue(
            `${ns} has ${ttl.length} TTL indexes (${ttl.map((i) => String(i.name)).join(', ')}): name one with { index: "<name>" }.`,
          )
        : new RemoteError(
            27,
            'IndexNotFound',
            `${ns} has no TTL index: name an index or a key ({ index: { createdAt: 1 } }) and give expireAfterSeconds to see what it would delete.`,
          );
    return byIndex(ttl[0]);
  }
  const wanted = request.index;
  if (!isPlainDocument(wanted) && typeof wanted !== 'string')
    throw badValue('index must be an index name or a key pattern, e.g. { createdAt: 1 }.');
  const found =
    typeof wanted === 'string'
      ? c.indexes.find((i) => i.name === wanted)
      : c.indexes.find((i) => keyText(i.key) === keyText(wanted));
  if (found) return byIndex(found);
  if (typeof wanted === 'string')
    throw new RemoteError(
      27,
      'IndexNotFound',
      `${ns} has no index named "${wanted}" (it has ${c.indexes.map((i) => String(i.name)).join(', ') || 'none'}). Name one of these, or give a key pattern and expireAfterSeconds for an index not created yet.`,
    );
  if (whatIfSeconds === undefined)
    throw badValue(
      `${ns} has no index on ${JSON.stringify(wanted)}: give expireAfterSeconds to forecast the TTL index it would be.`,
    );
  return byIndex({ v: 2, key: wanted, name: 'proposed', expireAfterSeconds: whatIfSeconds }, [
    'no index holds this key yet: the server read the documents it would hold',
  ]);
}

/** The date the monitor would use for a document, or null: an array's earliest date, a date, nothing else. */
function ttlDateExpr(field: string, fromEpoch: boolean): Document {
  const isDate = (v: string) => ({
    $and: [{ $eq: [{ $type: v }, 'date'] }, ...(fromEpoch ? [{ $gte: [v, new Date(0)] }] : [])],
  });
  return {
    $let: {
      vars: { v: `$${field}` },
      in: {
        $cond: [
          { $isArray: '$$v' },
          { $min: { $filter: { input: '$$v', as: 'e', cond: isDate('$$e') } } },
          { $cond: [isDate('$$v'), '$$v', null] },
        ],
      },
    },
  };
}

/** The aggregation: one group per bucket (its index), plus `due`, `later` and `never`. */
export function serverForecastPipeline(rule: ServerForecastRule, nowMs: number, request: ForecastRequest): Document[] {
  const { horizonMs, buckets } = forecastShape(request);
  const bucketMs = horizonMs / buckets;
  const clauses: Document[] = [];
  if (rule.filter) clauses.push(rule.filter);
  if (rule.sparse) clauses.push({ [rule.field]: { $exists: true } });
  const match: Document = clauses.length === 0 ? {} : clauses.length === 1 ? clauses[0] : { $and: clauses };
  if (rule.seconds === undefined) return [{ $match: match }, { $group: { _id: 'never', n: { $sum: 1 } } }];
  const offsetMs = rule.seconds * 1000;
  return [
    { $match: match },
    { $project: { _id: 0, t: ttlDateExpr(rule.field, rule.fromEpoch) } },
    {
      $group: {
        _id: {
          $cond: [
            { $eq: [{ $ifNull: ['$t', null] }, null] },
            'never',
            {
              $let: {
                // Milliseconds from now to the expiry time.
                vars: { d: { $subtract: [{ $add: ['$t', offsetMs] }, new Date(nowMs)] } },
                in: {
                  $switch: {
                    branches: [
                      { case: { $lte: ['$$d', 0] }, then: 'due' },
                      { case: { $gt: ['$$d', horizonMs] }, then: 'later' },
                    ],
                    default: {
                      $min: [buckets - 1, { $max: [0, { $subtract: [{ $ceil: { $divide: ['$$d', bucketMs] } }, 1] }] }],
                    },
                  },
                },
              },
            },
          ],
        },
        n: { $sum: 1 },
      },
    },
  ];
}

/** The groups the server answered, as the forecast the panel draws. */
export function serverForecastOf(
  rule: ServerForecastRule,
  groups: readonly Document[],
  nowMs: number,
  request: ForecastRequest,
): Forecast {
  const { horizonMs, buckets } = forecastShape(request);
  const bucketMs = horizonMs / buckets;
  const counts = new Array<number>(buckets).fill(0);
  let dueNow = 0;
  let later = 0;
  let never = 0;
  for (const g of groups) {
    const n = Number(g.n);
    if (g._id === 'due') dueNow += n;
    else if (g._id === 'later') later += n;
    else if (g._id === 'never') never += n;
    else counts[Math.min(buckets - 1, Math.max(0, Number(g._id)))] += n;
  }
  const notes = [...rule.notes];
  if (rule.seconds === undefined)
    notes.push(
      `the monitor skips this index (its expireAfterSeconds ${String(rule.stored)} is NaN, negative or beyond int32): nothing expires until it is changed`,
    );
  return {
    index: rule.index,
    kind: rule.kind,
    expireAfterSeconds: rule.seconds ?? null,
    whatIf: rule.whatIf,
    now: new Date(nowMs),
    horizon: new Date(nowMs + horizonMs),
    bucketMs,
    dueNow,
    buckets: counts.map((count, i) => ({
      from: new Date(nowMs + i * bucketMs),
      to: new Date(i === buckets - 1 ? nowMs + horizonMs : nowMs + (i + 1) * bucketMs),
      count,
    })),
    later,
    never,
    total: dueNow + later + never + counts.reduce((a, b) => a + b, 0),
    notes,
  };
}
