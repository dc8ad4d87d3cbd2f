/** explain for find, count, distinct, update, delete and aggregate: which plan, and what it examined. */
import { currentCollator } from '../collation/active';
import { collationDocument, parseCollation, sameCollation } from '../collation/spec';
import { EMULATED_VERSIONS } from './server-identity';
import { fail } from '../errors';
import { executeQuery, type QueryRequest, type QueryResult } from '../query/executor';
import { compileFilter } from '../query/matcher';
import { setField } from '../values/fields';
import { isPlainObject, type Document } from '../values/types';
import { crudCommands, findAndModifyMode } from './crud';
import { explainDistinctScan } from './explain-distinct';
import { explainIdLookup, idLookupStage } from './explain-id-lookup';
import { explainFind, filterIsCoveredBy, isCoveredPlan, projectionStage } from './explain-plan';
import { needsNoFields } from './explain-no-fields';
import { pushedDown, sortProvidingHint } from './explain-pushdown';
import { countScanStage, withRootStage } from './explain-root';
import { plannerInfo } from './explain-planner-info';
import { shapeCollation } from '../query/query-shape';
import { explainedStage, refuseExecutedWrite } from './explain-stages';
import { viewAsAggregate } from './explain-view';
import { optionalDocument, optionalNumber, type CommandContext, type CommandHandler } from './context';

function requestOf(inner: Document): { collection: string; request: QueryRequest } {
  const op = Object.keys(inner)[0];
  const collection = inner[op];
  if (typeof collection !== 'string') {
    // Each command parses its namespace field its own way, and so fails with its own code (mongod's).
    if (op === 'aggregate')
      fail('TypeMismatch', "explain: 'aggregate' takes a collection name (or 1 for a collection-less pipeline).");
    if (op === 'update' || op === 'delete')
      fail('BadValue', `explain: '${op}' needs a collection name, not ${typeof collection}.`);
    fail('InvalidNamespace', `explain: '${op}' needs a collection name.`);
  }
  switch (op) {
    case 'find':
      return {
        collection,
        request: {
          filter: optionalDocument(inner, 'filter'),
          sort: optionalDocument(inner, 'sort'),
          skip: optionalNumber(inner, 'skip'),
          limit: Math.abs(optionalNumber(inner, 'limit') ?? 0),
          hint: inner.hint,
          min: optionalDocument(inner, 'min'),
          max: optionalDocument(inner, 'max'),
          projection: optionalDocument(inner, 'projection'),
          collation: shapeCollation(inner.collation),
        },
      };
    case 'count':
      return {
        collection,
        request: {
          filter: optionalDocument(inner, 'query'),
          skip: optionalNumber(inner, 'skip'),
          // count reads a negative limit as its absolute value.
          limit: Math.abs(optionalNumber(inner, 'limit') ?? 0),
          hint: inner.hint,
        },
      };
    case 'distinct':
      // The same checks as the command itself: explain parses what it would run.
      if (typeof inner.key !== 'string')
        fail('TypeMismatch', 'distinct needs a field name: {distinct: "c", key: "field"}.');
      return { collection, request: { filter: optionalDocument(inner, 'query') } };
    case 'delete':
    case 'update': {
      const statements = inner[op === 'delete' ? 'deletes' : 'updates'];
      const first = Array.isArray(statements) && isPlainObject(statements[0]) ? statements[0] : {};
      return {
        collection,
        request: {
          filter: optionalDocument(first, 'q'),
          hint: first.hint,
          limit: op === 'delete' ? optionalNumber(first, 'limit') : first.multi ? 0 : 1,
        },
      };
    }
    case 'findAndModify':
      findAndModifyMode(inner);
      return {
        collection,
        request: {
          filter: optionalDocument(inner, 'query'),
          sort: optionalDocument(inner, 'sort'),
          limit: 1,
          hint: inner.hint,
        },
      };
    case 'aggregate': {
      const { filter, sort, limit } = pushedDown(inner.pipeline);
      // The pipeline's hint picks the index of the query it pushes down, as for find.
      return {
        collection,
        request: { filter, ...(sort ? { sort } : {}), ...(limit ? { limit } : {}), hint: inner.hint },
      };
    }
  }
  fail(
    'CommandNotFound',
    `explain does not support '${op}': use find, count, distinct, update, delete, findAndModify or aggregate.`,
  );
}

/** Whether a pipeline ends in a stage that writes a collection ($out, $merge). */
function writesOut(pipeline: unknown): boolean {
  if (!Array.isArray(pipeline) || pipeline.length === 0) return false;
  const last = pipeline[pipeline.length - 1];
  return isPlainObject(last) && ('$out' in last || '$merge' in last);
}

/**
 * The projection explain shows for the command: find's own; distinct keeps its one field, which an
 * index answering the filter covers (no document read).
 */
function projectionOf(op: string, inner: Document, result: QueryResult, request: QueryRequest): Document | undefined {
  if (op === 'find') return optionalDocument(inner, 'projection');
  if (op === 'aggregate') return pushedDown(inner.pipeline).projection;
  if (op !== 'distinct' || result.plan.kind !== 'IXSCAN') return undefined;
  const projection: Document = { _id: 0 };
  setField(projection, inner.key as string, 1);
  return isCoveredPlan(result.plan, request, projection) ? projection : undefined;
}

function storedCollation(collation: unknown) {
  return collation === undefined ? null : parseCollation(collation);
}

/** What IDHACK returns through: RETURN_KEY, or the find's projection stage. */
function idLookupParent(inner: Document): Document | undefined {
  if (inner.returnKey === true) return { stage: 'RETURN_KEY' };
  const projection = optionalDocument(inner, 'projection');
  const name = projectionStage(projection, false);
  return name ? { stage: name, transformBy: projection } : undefined;
}

const VERBOSITIES = new Set(['queryPlanner', 'executionStats', 'allPlansExecution']);

function explain({ engine, dbName }: CommandContext, cmd: Document): Document {
  const inner = cmd.explain;
  if (!isPlainObject(inner))
    fail('TypeMismatch', 'explain takes a command document: {explain: {find: "c", filter: {...}}}.');
  // The explained command runs on explain's own database: naming another is refused, as on mongod.
  if (inner.$db !== undefined && inner.$db !== dbName)
    fail(
      'InvalidNamespace',
      `Mismatched $db in explain command: expected ${dbName}, got ${String(inner.$db)}. Run explain on the database the command reads.`,
    );
  if (Object.keys(inner)[0] === 'aggregate' && inner.writeConcern !== undefined && writesOut(inner.pipeline))
    fail(
      'FailedToParse',
      'An explained aggregate writes nothing, so it takes no writeConcern: drop writeConcern, or run the $out/$merge pipeline without explain.',
    );
  // mongod's default verbosity is allPlansExecution.
  const verbosity = cmd.verbosity ?? 'allPlansExecution';
  if (!VERBOSITIES.has(verbosity as string))
    fail(
      'BadValue',
      `Enumeration value '${String(verbosity)}' for field 'verbosity' is not a valid value: use 'queryPlanner', 'executionStats' or 'allPlansExecution'.`,
    );
  const onView = viewAsAggregate(engine, dbName, inner);
  if (onView) return { ...explain({ engine, dbName }, { explain: onView, verbosity }), command: inner };
  if (Object.keys(inner)[0] === 'aggregate') refuseExecutedWrite(inner.pipeline, verbosity);
  const { collection, request } = requestOf(inner);
  // findAndModify's explain takes its collection for writing, which needs the database to exist:
  // mongod refuses rather than create it (the other commands explain an EOF plan).
  if (Object.keys(inner)[0] === 'findAndModify' && !engine.databaseIsOpen(dbName))
    fail(
      'NamespaceNotFound',
      `database ${dbName} does not exist: explain of findAndModify needs its database; create a collection in it first.`,
    );
  const coll = engine.getCollection(dbName, collection);
  const ns = `${dbName}.${collection}`;
  const op = Object.keys(inner)[0];
  if (op === 'aggregate' && coll && request.hint === undefined)
    request.hint = sortProvidingHint(coll, request.filter ?? {}, request.sort);
  const started = process.hrtime.bigint();
  // A bad filter is an error even when there is nothing to read, as in mongod (it parses first).
  if (!coll) compileFilter(request.filter ?? {});
  const result = coll ? executeQuery(coll, request) : undefined;
  const millis = Number((process.hrtime.bigint() - started) / 1000000n);
  // A missing collection (or database) is an EOF plan that returns nothing, with its stats.
  const distinctScan =
    coll && result && op === 'distinct' ? explainDistinctScan(coll, inner.key as string, request) : undefined;
  const idStage =
    coll?.idIndex && !coll.isClustered && op === 'find'
      ? idLookupStage(inner, sameCollation(currentCollator()?.spec ?? null, storedCollation(coll.options.collation)))
      : undefined;
  const scan = !result
    ? { winningPlan: { stage: 'EOF' }, executionStages: { stage: 'EOF', nReturned: 0 }, totalDocsExamined: 0 }
    : idStage
      ? explainIdLookup(idStage, result.records.length, idLookupParent(inner))
      : distinctScan
        ? { ...distinctScan, totalDocsExamined: 0 }
        : explainFind(
            result,
            request,
            op === 'find' && inner.returnKey === true ? undefined : projectionOf(op, inner, result, request),
            op === 'find' && inner.returnKey === true,
          );
  const explained = withRootStage(
    { op, inner, request, result, now: engine.now() },
    { ...scan, nReturned: distinctScan?.values ?? result?.records.length ?? 0 },
  );
  const pushed = op === 'aggregate' ? pushedDown(inner.pipeline) : undefined;
  const plan = result?.plan;
  // The stages after the query read no field: the index counts its keys, no document is fetched.
  if (
    pushed &&
    pushed.rest.length > 0 &&
    needsNoFields(pushed.rest) &&
    plan?.kind === 'IXSCAN' &&
    plan.fieldIntervals.every((ivs) => ivs.length <= 1) &&
    filterIsCoveredBy(plan, request)
  ) {
    const countScan = countScanStage(plan);
    explained.winningPlan = countScan;
    explained.executionStages = {
      ...countScan,
      nReturned: explained.nReturned,
      keysExamined: result?.keysExamined ?? 0,
    };
    explained.docsExamined = 0;
  }
  const winningPlan = explained.winningPlan;
  // Stages the query layer cannot run: mongod shows the query under $cursor, then the rest.
  const rest = op === 'aggregate' ? pushedDown(inner.pipeline).rest.map((s) => explainedStage(s, dbName)) : [];
  const collator = currentCollator();
  const planning = plannerInfo(
    coll,
    request,
    result,
    op === 'find' && inner.returnKey !== true ? optionalDocument(inner, 'projection') : undefined,
  );
  const queryPlanner = {
    namespace: ns,
    parsedQuery: request.filter ?? {},
    indexFilterSet: planning.indexFilterSet,
    queryHash: planning.queryHash,
    planCacheKey: planning.planCacheKey,
    // The collation the query ran under, as mongod shows it (none for "simple").
    ...(collator ? { collation: collationDocument(collator.spec) } : {}),
    // The whole pipeline ran as the query: mongod says so (the field appears only when true).
    ...(op === 'aggregate' && rest.length === 0 ? { optimizedPipeline: true } : {}),
    winningPlan,
    // A DISTINCT_SCAN is chosen apart from the index plans weighed for the filter.
    rejectedPlans: distinctScan ? [] : planning.rejectedPlans,
  };
  const cursorStage: Document = { queryPlanner };
  const reply: Document =
    rest.length > 0
      ? { explainVersion: '1', stages: [{ $cursor: cursorStage }, ...rest] }
      : { explainVersion: '1', queryPlanner };
  if (verbosity !== 'queryPlanner') {
    (rest.length > 0 ? cursorStage : reply).executionStats = {
      executionSuccess: true,
      nReturned: explained.nReturned,
      executionTimeMillis: millis,
      // An _id lookup reads one key for each document it finds.
      totalKeysExamined: idStage ? scan.totalDocsExamined : (distinctScan?.values ?? result?.keysExamined ?? 0),
      totalDocsExamined: explained.docsExamined ?? scan.totalDocsExamined,
      executionStages: explained.executionStages,
      ...(verbosity === 'allPlansExecution' ? { allPlansExecution: [] } : {}),
    };
  }
  reply.serverInfo = { host: 'localhost', version: EMULATED_VERSIONS[engine.serverVersion] };
  reply.command = inner;
  reply.ok = 1;
  return reply;
}

/**
 * aggregate with `explain: true` is the explain of its pipeline at queryPlanner verbosity, as on
 * mongod; every other aggregate goes to the CRUD handler.
 */
function aggregate(ctx: CommandContext, cmd: Document): Document {
  if (!cmd.explain) return crudCommands.aggregate(ctx, cmd);
  const inner: Document = {};
  for (const [k, v] of Object.entries(cmd)) if (k !== 'explain') inner[k] = v;
  return explain(ctx, { explain: inner, verbosity: 'queryPlanner' });
}

export const explainCommands: Record<string, CommandHandler> = { explain, aggregate };
