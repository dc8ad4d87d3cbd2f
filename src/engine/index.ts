/** Public surface of the engine package. */
export { Engine, type EngineOptions } from './engine';
export type { ServerVersion, Flavor, ReplicationRole } from './engine-context';
export { CollectionHandle, DatabaseHandle, type FindOptions, type UpdateResult } from './api/handles';
export { EngineError, ErrorCode, codeNameOf } from './errors';
export type { EngineEvent, EngineListener } from './catalog/events';
export { SystemClock, VirtualClock, type Clock } from './clock';
export { compareValues, valuesEqual } from './values/compare';
export { objectIdAt, type Document } from './values/types';
export { endLocalSessions, touchLocalSession } from './catalog/local-sessions';
export { carriesClientMetadata, refuseClientMetadata } from './commands/client-metadata';
export { BSON_UNDEFINED, isBsonUndefined } from './values/bson-undefined';
export { MAX_BSON_DEPTH, MAX_STORAGE_DEPTH, checkEjsonDepth, parseEjson } from './values/depth';
export type { MonitorStatus, PassRecord, PassReport, VisitReport } from './ttl/monitor';
export {
  findInvalidTTLIndexes,
  findNaNTTLIndexes,
  loadLegacyIndexSpec,
  repairInvalidTTLSpecs,
  type TTLIndexProblem,
} from './ttl/legacy';
export * as ttlRules from './ttl/validation';
export { forecastExpiry, type Forecast, type ForecastBucket, type ForecastRequest } from './ttl/forecast';
export { timeseriesExpiryCounts, type TimeseriesExpiryCounts } from './ttl/timeseries-target';
