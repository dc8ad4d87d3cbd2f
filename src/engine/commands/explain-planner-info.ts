/**
 * What explain's queryPlanner says about planning itself, beside the winning plan: whether an
 * index filter applied (`indexFilterSet`), the query's shape hash (`queryHash`, the same for every
 * query of one shape whatever the indexes), the plan cache key (`planCacheKey`, which changes with
 * the indexes that can answer the query), and the plans the planner weighed and did not pick.
 */
import type { Collection } from '../catalog/collection';
import type { QueryRequest, QueryResult } from '../query/executor';
import { indexFilterFor } from '../query/index-filters';
import { weighedPlans, type PlanRequest } from '../query/planner';
import { queryShapeKey, shapeHash } from '../query/query-shape';
import type { Document } from '../values/types';
import { explainFind } from './explain-plan';

export interface PlannerInfo {
  indexFilterSet: boolean;
  queryHash: string;
  planCacheKey: string;
  rejectedPlans: Document[];
}

export function plannerInfo(
  coll: Collection | undefined,
  request: QueryRequest,
  result: QueryResult | undefined,
  projection: Document | undefined,
): PlannerInfo {
  const shape = queryShapeKey({
    filter: request.filter,
    sort: request.sort,
    projection: request.projection,
    collation: request.collation,
  });
  const queryHash = shapeHash(shape);
  if (!coll || !result)
    return { indexFilterSet: false, queryHash, planCacheKey: shapeHash(`${shape}|`), rejectedPlans: [] };
  const planRequest: PlanRequest = {
    filter: request.filter ?? {},
    sort: request.sort,
    hint: request.hint,
    projection: request.projection,
    collation: request.collation,
  };
  const indexFilterSet =
    indexFilterFor(coll, {
      filter: planRequest.filter,
      sort: request.sort,
      projection: request.projection,
      collation: request.collation,
    }) !== undefined;
  // min/max pin the scan to the hinted index: nothing else was weighed.
  const weighed = request.min || request.max ? undefined : weighedPlans(coll, planRequest, result.plan);
  const planCacheKey = shapeHash(`${shape}|${(weighed?.usableIndexNames ?? []).join(',')}`);
  const rejected = weighed?.rejected ?? [];
  const rejectedPlans = rejected.map(
    (plan) =>
      explainFind(
        { records: [], plan, keysExamined: 0, docsExamined: 0, sorted: sortIsBlocking(request, plan.providesSort) },
        request,
        projection,
      ).winningPlan,
  );
  return { indexFilterSet, queryHash, planCacheKey, rejectedPlans };
}

function sortIsBlocking(request: QueryRequest, providesSort: boolean): boolean {
  return request.sort !== undefined && Object.keys(request.sort).length > 0 && !providesSort;
}
