/**
 * The five agent tools as data: name, title, the description a model reads to decide when to use
 * a tool, and the JSON schema of its input. VS Code reads the same facts from package.json
 * (`contributes.languageModelTools`, which a unit test keeps equal to this table); the MCP server
 * lists them from here. No `vscode` in this folder: both doors share it.
 */

export type JsonSchema = {
  type?: 'object' | 'string' | 'number' | 'integer' | 'boolean' | 'array';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  enum?: string[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  maxItems?: number;
  pattern?: string;
  /** More than one type allowed (e.g. a number or a duration text). */
  anyOf?: JsonSchema[];
};

export type ToolName =
  'ttl_check_definitions' | 'ttl_explain_index' | 'ttl_simulate' | 'ttl_engine_state' | 'ttl_apply';

export interface ToolDefinition {
  name: ToolName;
  /** Short human title (VS Code's displayName, MCP's title). */
  title: string;
  /** What a model reads: what the tool does and when to use it. */
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  /** Changes nothing anywhere (MCP readOnlyHint; no confirmation in VS Code). */
  readOnly: boolean;
  /** Works on the window's engine (VS Code starts the engine for it). */
  usesWindowEngine: boolean;
}

const serverVersion: JsonSchema = {
  type: 'string',
  enum: ['8.0', '7.0'],
  description: "Whose rules apply where MongoDB 8.0 and 7.0 differ (default '8.0').",
};
const now: JsonSchema = {
  type: 'string',
  maxLength: 40,
  description:
    "Where the virtual clock starts, an ISO date such as '2026-01-01T00:00:00Z' (default: the current time).",
};
const seconds: JsonSchema = {
  anyOf: [
    { type: 'number', description: 'Seconds, e.g. 3600.' },
    { type: 'string', maxLength: 40, description: "A duration such as '90s', '1h', '30d'." },
  ],
  description:
    "expireAfterSeconds: seconds (3600) or a duration ('1h', '30d'); 0 expires at the date stored in the field.",
};

export const TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  {
    name: 'ttl_check_definitions',
    title: 'Check TTL index definitions',
    description:
      "Finds TTL mistakes in MongoDB index definitions in source code (mongosh, Node driver, Mongoose, db.runCommand): expireAfterSeconds that is not a number, NaN, negative, in milliseconds, fractional, on a compound key or _id, options lost in a third argument, TTL fields filled with non-dates, misspelled or misplaced TTL options, Mongoose defaults computed once, and more (rules TTL001-TTL022). Use it after writing or editing code that creates or changes indexes, or when asked whether a TTL index is right. Give 'code' (a snippet) or 'path' (a file; optionally 'startLine'/'endLine' for a selection). Returns each problem's code, severity, message, 1-based line and column, and suggested fixes as text replacements. Read-only; needs no database.",
    inputSchema: {
      type: 'object',
      properties: {
        code: {
          type: 'string',
          maxLength: 2_000_000,
          description: 'Source text to check (a snippet or a whole file).',
        },
        path: {
          type: 'string',
          maxLength: 4096,
          description:
            'A file to check instead of code: absolute, or relative to the workspace (MCP: the working directory).',
        },
        language: {
          type: 'string',
          enum: ['javascript', 'typescript', 'javascriptreact', 'typescriptreact', 'ttlbook'],
          description: "The language of 'code' (default javascript; a path's extension decides for a file).",
        },
        startLine: { type: 'integer', minimum: 1, description: 'Only report problems from this 1-based line on.' },
        endLine: { type: 'integer', minimum: 1, description: 'Only report problems up to this 1-based line.' },
        serverVersion,
        disabledRules: {
          type: 'array',
          maxItems: 50,
          items: { type: 'string', pattern: '^TTL\\d{3}$' },
          description: "Rule codes to leave out, e.g. ['TTL013'].",
        },
      },
      additionalProperties: false,
    },
    readOnly: true,
    usesWindowEngine: false,
  },
  {
    name: 'ttl_explain_index',
    title: 'Explain a TTL index',
    description:
      "Explains one index specification on a scratch engine (never the user's data): what it does in words, whether mongod would accept it (and otherwise the error code and codeName it fails with), warnings from the TTL rules, and - given sample documents - which of them the TTL monitor deletes now and which within the next 'afterHours' hours. Use it before proposing or creating a TTL index, to check a value, or to answer 'which documents would this delete?'. Dates in samples must be Extended JSON {\"$date\": \"2026-01-01T00:00:00Z\"}: plain strings are not dates and never expire (as on a server).",
    inputSchema: {
      type: 'object',
      properties: {
        key: { type: 'object', description: 'The index key pattern, e.g. {"createdAt": 1}.' },
        options: {
          type: 'object',
          description:
            'createIndex options as given to mongod, e.g. {"expireAfterSeconds": 3600, "partialFilterExpression": {...}, "name": "..."} (Extended JSON allowed: {"$numberDouble": "NaN"}).',
        },
        collectionOptions: {
          type: 'object',
          description:
            'Options of the collection the index is on, as for createCollection: {"capped": true, "size": 4096}, {"timeseries": {"timeField": "t", "metaField": "m"}}, {"clusteredIndex": {"key": {"_id": 1}, "unique": true}, "expireAfterSeconds": 60}. Default: a plain collection.',
        },
        samples: {
          type: 'array',
          maxItems: 1000,
          items: { type: 'object' },
          description: 'Up to 1000 sample documents in Extended JSON (dates as {"$date": "..."}).',
        },
        afterHours: {
          type: 'number',
          minimum: 0,
          maximum: 876_000,
          description: 'Also say what the monitor deletes when this many hours have passed (default 1).',
        },
        now,
        serverVersion,
      },
      required: ['key'],
      additionalProperties: false,
    },
    readOnly: true,
    usesWindowEngine: false,
  },
  {
    name: 'ttl_simulate',
    title: 'Simulate TTL expiry',
    description:
      "Runs a mongosh snippet on a fresh, empty, isolated engine with a virtual clock (never the user's engine) and returns each statement's output. Time moves only when the snippet says so: sleep(ms) or clock.advance('2h') move the clock at once and run every TTL pass that falls due, and the result shows each clock move with the passes and deletions it caused. Use it to answer 'insert these, advance 2 hours, what is left?', to try an index or collMod before applying it, or to show expiry step by step. Globals: db, ISODate, NumberLong, print, EJSON, sleep, clock.now()/advance()/set(), ttl.runPass()/status(). Each statement has a time limit (as in a notebook cell); a loop that never ends stops there with MaxTimeMSExpired.",
    inputSchema: {
      type: 'object',
      properties: {
        code: { type: 'string', maxLength: 200_000, description: 'The mongosh snippet.' },
        now,
        flavor: {
          type: 'string',
          enum: ['mongodb', 'cosmos'],
          description: "'mongodb' (default) or 'cosmos' (Azure Cosmos DB's _ts TTL and per-document ttl).",
        },
        serverVersion,
        timeLimitMs: {
          type: 'integer',
          minimum: 100,
          maximum: 60_000,
          description:
            'Time limit of one top-level statement in milliseconds (default: the playground setting, 10000).',
        },
      },
      required: ['code'],
      additionalProperties: false,
    },
    readOnly: true,
    usesWindowEngine: false,
  },
  {
    name: 'ttl_engine_state',
    title: 'TTL engine state',
    description:
      "Describes the user's TTL Workbench engine (the one the Databases view shows; over MCP, the server's engine): its clock, databases, collections with document counts, every index in words ('TTL 1 h after lastModifiedDate', 'NaN - ignored by the monitor') with how many documents are expired now and due within the next hour, and the TTL monitor's metrics. Use it before changing a TTL index, or to answer what the engine holds and what will expire. Narrow it with 'db' and 'collection'. Read-only.",
    inputSchema: {
      type: 'object',
      properties: {
        db: { type: 'string', maxLength: 200, description: 'Only this database.' },
        collection: { type: 'string', maxLength: 400, description: "Only this collection (needs 'db')." },
      },
      additionalProperties: false,
    },
    readOnly: true,
    usesWindowEngine: true,
  },
  {
    name: 'ttl_apply',
    title: 'Apply a TTL change',
    description:
      "Changes a TTL index on the user's TTL Workbench engine: 'createTTLIndex' (a new single-field TTL index on 'field'), 'convertToTTLIndex' (collMod an existing non-TTL index 'index' into a TTL index) or 'changeExpireAfterSeconds' (collMod the expireAfterSeconds of TTL index 'index'). The user is shown what the change does and how many existing documents become eligible for deletion at once before it runs, and must confirm; above the user's limit (ttlWorkbench.confirmExpiryAbove) that count is called out. Use ttl_engine_state first to find names, and ttl_explain_index or ttl_simulate to try a value. Returns the command's reply and the equivalent mongosh.",
    inputSchema: {
      type: 'object',
      properties: {
        operation: {
          type: 'string',
          enum: ['createTTLIndex', 'convertToTTLIndex', 'changeExpireAfterSeconds'],
          description: 'What to do.',
        },
        db: { type: 'string', maxLength: 200, description: 'The database.' },
        collection: { type: 'string', maxLength: 400, description: 'The collection.' },
        field: { type: 'string', maxLength: 400, description: 'createTTLIndex: the date field to index.' },
        name: { type: 'string', maxLength: 400, description: 'createTTLIndex: the index name (default field_1).' },
        partialFilterExpression: {
          type: 'object',
          description: 'createTTLIndex: only documents matching this filter expire.',
        },
        index: {
          type: 'string',
          maxLength: 400,
          description: 'convertToTTLIndex / changeExpireAfterSeconds: the name of the existing index.',
        },
        expireAfterSeconds: seconds,
      },
      required: ['operation', 'db', 'collection', 'expireAfterSeconds'],
      additionalProperties: false,
    },
    readOnly: false,
    usesWindowEngine: true,
  },
];

export function toolDefinition(name: string): ToolDefinition | undefined {
  return TOOL_DEFINITIONS.find((t) => t.name === name);
}
