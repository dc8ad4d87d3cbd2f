/**
 * The rule table: code, default severity, the spec section it restates and the documentation page
 * a diagnostic links to. The checks themselves live in `checks/` and call the engine's
 * `ttl/validation.ts`; this table holds no logic.
 */
/** How a problem shows in the editor; each rule has one (the table below). */
export type Severity = 'error' | 'warning' | 'information' | 'hint';

const TTL_DOC = 'https://www.mongodb.com/docs/manual/core/index-ttl/';
const EXPIRE_DOC = 'https://www.mongodb.com/docs/manual/tutorial/expire-data/';
const TS_DOC = 'https://www.mongodb.com/docs/manual/core/timeseries/timeseries-index/';
const COLLMOD_DOC = 'https://www.mongodb.com/docs/manual/reference/command/collMod/';
const CREATE_INDEX_DOC = 'https://www.mongodb.com/docs/manual/reference/method/db.collection.createIndex/';

export interface RuleInfo {
  severity: Severity;
  title: string;
  specRule: string;
  docs: string;
}

export const RULES = {
  TTL001: { severity: 'error', title: 'expireAfterSeconds is not a number', specRule: '1.2', docs: TTL_DOC },
  TTL002: { severity: 'error', title: 'expireAfterSeconds is NaN', specRule: '1.3', docs: TTL_DOC },
  TTL003: { severity: 'error', title: 'expireAfterSeconds is negative', specRule: '1.4', docs: TTL_DOC },
  TTL004: { severity: 'error', title: 'expireAfterSeconds is out of range', specRule: '1.4', docs: TTL_DOC },
  TTL005: { severity: 'warning', title: 'expireAfterSeconds is fractional', specRule: '1.4', docs: TTL_DOC },
  TTL006: { severity: 'error', title: 'TTL on a compound or wildcard key', specRule: '1.6', docs: TTL_DOC },
  TTL007: { severity: 'error', title: 'TTL on _id', specRule: '1.7', docs: TTL_DOC },
  TTL008: { severity: 'warning', title: 'TTL index on a capped collection', specRule: '1.8', docs: TTL_DOC },
  TTL009: {
    severity: 'error',
    title: 'time-series TTL index not on the timeField / filter not on the metaField',
    specRule: '6.4',
    docs: TS_DOC,
  },
  TTL010: { severity: 'warning', title: 'partial TTL longer than the collection TTL', specRule: '6.4', docs: TS_DOC },
  TTL011: {
    severity: 'error',
    title: 'createIndex would change expireAfterSeconds of an existing index',
    specRule: '2.3',
    docs: COLLMOD_DOC,
  },
  TTL012: { severity: 'warning', title: 'TTL field filled with non-dates', specRule: '7.8', docs: EXPIRE_DOC },
  TTL013: {
    severity: 'hint',
    title: 'expireAfterSeconds: 0 on a creation-time field',
    specRule: '7.8',
    docs: EXPIRE_DOC,
  },
  TTL014: { severity: 'warning', title: 'expireAfterSeconds looks like milliseconds', specRule: '1.4', docs: TTL_DOC },
  TTL015: {
    severity: 'warning',
    title: 'same index defined twice with different options',
    specRule: '2.3',
    docs: CREATE_INDEX_DOC,
  },
  TTL016: { severity: 'error', title: 'index options split across arguments', specRule: '1.1', docs: CREATE_INDEX_DOC },
  TTL017: {
    severity: 'warning',
    title: 'TTL option where it is not an index option (key pattern, schema options)',
    specRule: '1.1',
    docs: CREATE_INDEX_DOC,
  },
  TTL018: { severity: 'error', title: 'misspelled TTL option', specRule: '1.1', docs: CREATE_INDEX_DOC },
  TTL019: {
    severity: 'warning',
    title: 'default date computed once, when the schema is built',
    specRule: '7.8',
    docs: EXPIRE_DOC,
  },
  TTL020: {
    severity: 'warning',
    title: 'expiry time stored and a delay added: counted twice',
    specRule: '7.8',
    docs: EXPIRE_DOC,
  },
  TTL021: {
    severity: 'warning',
    title: 'TTL index on a path the schema never stores',
    specRule: '7.8',
    docs: EXPIRE_DOC,
  },
  TTL022: { severity: 'information', title: 'file not fully read', specRule: '1.1', docs: TTL_DOC },
} as const satisfies Record<string, RuleInfo>;

export type RuleCode = keyof typeof RULES;

export const RULE_CODES = Object.keys(RULES) as RuleCode[];
