/**
 * `{ttlWorkbench: <action>}`, the admin command that lets a test move time over the wire. A real
 * mongod answers it with CommandNotFound (59), so test code can tell where it runs:
 *
 *   {ttlWorkbench: "status"}                          clock and TTL monitor
 *   {ttlWorkbench: "advanceClock", by: "2h" | <ms>}   virtual clock forward, due TTL passes run
 *   {ttlWorkbench: "setClock", to: <date>}            virtual clock forward to a date
 *   {ttlWorkbench: "runTTLPass"}                      one TTL pass now, with what each visit did
 *   {ttlWorkbench: "invalidTTLIndexes"}               TTL indexes whose stored expireAfterSeconds
 *                                                     is invalid (NaN, ...), in every database
 *   {ttlWorkbench: "loadLegacyIndex", db, collection, spec}
 *                                                     an index spec put into the catalog as an
 *                                                     older server left it (NaN and all)
 *   {ttlWorkbench: "forecast", db, collection, index?, expireAfterSeconds?, horizon?, buckets?,
 *    partialFilterExpression?}                        what TTL will delete, per time bucket
 *
 * invalidTTLIndexes and loadLegacyIndex exist because listIndexes cannot show a NaN (7.0 and 8.0 list it as 2147483647)
 * and createIndex refuses one: a test of an application's NaN audit needs both over the wire.
 */
import { findInvalidTTLIndexes, forecastExpiry, loadLegacyIndexSpec, type Engine, type VirtualClock } from '../engine';
import { fail } from '../engine/errors';
import { toDouble } from '../engine/values/numbers';
import { isNumeric, isPlainObject, type Document } from '../engine/values/types';
import { parseDuration } from '../formats/duration';
import { readForecastOptions } from '../formats/forecast-options';

export const CONTROL_COMMAND = 'ttlWorkbench';

const ACTIONS = 'status, advanceClock, setClock, runTTLPass, invalidTTLIndexes, loadLegacyIndex, forecast';

export function runControlCommand(engine: Engine, dbName: string, cmd: Document): Document {
  if (dbName !== 'admin')
    fail('Unauthorized', `${CONTROL_COMMAND} may only be run against the admin database: db.adminCommand({...}).`);
  switch (cmd[CONTROL_COMMAND]) {
    case 'status':
      return { ...clockOf(engine), ttl: engine.ttl.status(), ok: 1 };
    case 'advanceClock': {
      const clock = virtualClock(engine, 'advanceClock');
      // Over the wire a number arrives as a BSON Int32, Double or Long.
      const ms = parseDuration(isNumeric(cmd.by) ? toDouble(cmd.by) : cmd.by);
      if (typeof ms !== 'number')
        fail('BadValue', `advanceClock needs by: a duration such as "90s", "2h", "1d" or milliseconds (${ms.error}).`);
      return moved(engine, () => clock.advance(ms));
    }
    case 'setClock': {
      const clock = virtualClock(engine, 'setClock');
      const to = cmd.to instanceof Date ? cmd.to.getTime() : typeof cmd.to === 'string' ? Date.parse(cmd.to) : NaN;
      if (!Number.isFinite(to))
        fail('BadValue', 'setClock needs to: a date, e.g. {to: ISODate("2026-01-01T00:00:00Z")}.');
      if (to < clock.now())
        fail(
          'BadValue',
          `setClock only moves forward: the clock reads ${new Date(clock.now()).toISOString()}. Time never runs backwards on the engine.`,
        );
      return moved(engine, () => clock.set(to));
    }
    case 'runTTLPass': {
      const report = engine.ttl.runPass();
      return {
        startedAt: report.startedAt,
        deleted: report.deleted,
        subPasses: report.subPasses,
        visits: report.visits.map((v) => ({ ...v })),
        ...(report.skipped ? { skipped: report.skipped } : {}),
        ...clockOf(engine),
        ok: 1,
      };
    }
    case 'invalidTTLIndexes':
      return { indexes: findInvalidTTLIndexes(engine), ok: 1 };
    case 'loadLegacyIndex': {
      const { db, collection, spec } = cmd;
      if (typeof db !== 'string' || typeof collection !== 'string' || !isPlainObject(spec))
        fail(
          'BadValue',
          'loadLegacyIndex needs db, collection and spec, e.g. {ttlWorkbench: "loadLegacyIndex", db: "app", collection: "events", spec: {key: {t: 1}, name: "t_1", expireAfterSeconds: NaN}}.',
        );
      loadLegacyIndexSpec(engine, db, collection, spec);
      return { name: spec.name, ok: 1 };
    }
    case 'forecast': {
      const { db, collection } = cmd;
      if (typeof db !== 'string' || typeof collection !== 'string')
        fail(
          'BadValue',
          'forecast needs db and collection, e.g. {ttlWorkbench: "forecast", db: "app", collection: "sessions", horizon: "24h", buckets: 24}.',
        );
      const request = readForecastOptions(cmd, (v) => (isNumeric(v) ? toDouble(v) : v), [
        CONTROL_COMMAND,
        'db',
        'collection',
        '$db',
        'lsid',
        '$readPreference',
        '$clusterTime',
      ]);
      if ('error' in request) fail('BadValue', `forecast: ${request.error}.`);
      const forecast = forecastExpiry(
        engine.requireCollection(db, collection),
        request,
        engine.clock.now(),
        engine.flavor,
      );
      return { ...forecast, buckets: forecast.buckets.map((b) => ({ ...b })), ok: 1 };
    }
    default:
      fail(
        'BadValue',
        `${CONTROL_COMMAND} needs one of: ${ACTIONS}; e.g. {${CONTROL_COMMAND}: "advanceClock", by: "2h"}.`,
      );
  }
}

function clockOf(engine: Engine): Document {
  return { clock: engine.clock.kind, now: new Date(engine.clock.now()) };
}

function virtualClock(engine: Engine, action: string): VirtualClock {
  if (engine.clock.kind !== 'virtual')
    fail(
      'IllegalOperation',
      `${action} needs the virtual clock, but this server runs on the system clock, where time passes by itself. Start it with --clock virtual.`,
    );
  return engine.clock as VirtualClock;
}

function moved(engine: Engine, step: () => number): Document {
  const before = { passes: engine.ttlMetrics.passes, deleted: engine.ttlMetrics.deletedDocuments };
  step();
  engine.persistClock();
  return {
    ...clockOf(engine),
    ttlPasses: engine.ttlMetrics.passes - before.passes,
    deletedDocuments: engine.ttlMetrics.deletedDocuments - before.deleted,
    ok: 1,
  };
}
