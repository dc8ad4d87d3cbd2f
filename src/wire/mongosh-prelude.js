// TTL Workbench prelude for mongosh: the playground's `clock`, `ttl` and clock-moving `sleep`,
// over the wire, through the admin command {ttlWorkbench: ...} of `ttl-workbench serve` and
// startServer(). Load it before your script:
//
//   mongosh "mongodb://127.0.0.1:PORT/" --quiet --file dist/mongosh-prelude.js --file script.js
//
// Against a real mongod the control command answers CommandNotFound (59): the prelude then
// defines nothing and leaves mongosh's own sleep, Date and ISODate alone.
//
// On the server's virtual clock:
//   sleep(ms)                  moves the clock forward by ms, running every TTL pass due on the way
//   clock.now()                the server's clock, as a Date
//   clock.advance('2h')        forward by a duration ("90s", "30m", "1d") or milliseconds;
//                              returns {now, ttlPasses, deletedDocuments}
//   clock.set(date)            forward to a date (time never runs backwards)
//   Date, Date.now(), Date(), ISODate()
//                              read the server's clock as the last clock call left it (time on
//                              it moves only when someone moves it; clock.now() reads it anew,
//                              after another client has moved it)
// On the system clock, sleep, Date and ISODate stay mongosh's (time passes by itself).
// Either way:
//   ttl.runPass()              one TTL pass now: {startedAt, subPasses, deleted, visits}
//   ttl.status()               the TTL monitor: enabled, sleepSecs, last and next pass, metrics
//   ttl.nanIndexes()           TTL indexes whose stored expireAfterSeconds is NaN, in every
//                              database (listIndexes shows them as 2147483647 on 7.0 and 8.0)
//   ttl.invalidIndexes()       every TTL index with an invalid stored value (NaN, out of range...)
//   ttl.loadLegacyIndex(collection, spec)
//                              an index put into the current database as an older server left
//                              it, e.g. ('events', {key: {t: 1}, name: 't_1', expireAfterSeconds: NaN})
//   ttl.forecast(collection, {index, expireAfterSeconds, horizon, buckets, partialFilterExpression})
//                              what a TTL rule will delete per time bucket, e.g. ('sessions',
//                              {horizon: '7d', buckets: 7}); expireAfterSeconds asks "what if"
(function ttlWorkbenchPrelude() {
  // mongosh's own globals, kept once: loading the prelude again (after connect() to another
  // server) starts from them, not from what an earlier load put in their place.
  const own = (globalThis.__ttlWorkbenchMongoshGlobals ??= { Date, ISODate, sleep });
  globalThis.Date = own.Date;
  globalThis.ISODate = own.ISODate;
  globalThis.sleep = own.sleep;
  delete globalThis.clock;
  delete globalThis.ttl;

  function control(command) {
    return db.getSiblingDB('admin').runCommand(command);
  }

  let status;
  try {
    status = control({ ttlWorkbench: 'status' });
  } catch (e) {
    // Not TTL Workbench (CommandNotFound on mongod; or not allowed to ask): change nothing.
    return;
  }
  if (!status || status.ok !== 1) return;

  const virtual = status.clock === 'virtual';
  const RealDate = own.Date;
  const RealISODate = own.ISODate;
  // The server's virtual clock stands still between moves: its last known reading is its time.
  let knownNow = status.now.getTime();

  function noted(reply) {
    if (reply.now) knownNow = reply.now.getTime();
    return reply;
  }

  function moved(reply) {
    noted(reply);
    return { now: reply.now, ttlPasses: reply.ttlPasses, deletedDocuments: reply.deletedDocuments };
  }

  globalThis.clock = {
    kind: status.clock,
    now() {
      return noted(control({ ttlWorkbench: 'status' })).now;
    },
    advance(duration) {
      return moved(control({ ttlWorkbench: 'advanceClock', by: duration }));
    },
    set(date) {
      return moved(control({ ttlWorkbench: 'setClock', to: date instanceof RealDate ? date : new RealDate(date) }));
    },
  };

  globalThis.ttl = {
    runPass() {
      const r = noted(control({ ttlWorkbench: 'runTTLPass' }));
      const report = { startedAt: r.startedAt, subPasses: r.subPasses, deleted: r.deleted, visits: r.visits };
      if (r.skipped !== undefined) report.skipped = r.skipped;
      return report;
    },
    status() {
      return noted(control({ ttlWorkbench: 'status' })).ttl;
    },
    nanIndexes() {
      return control({ ttlWorkbench: 'invalidTTLIndexes' }).indexes.filter((i) => i.problem === 'NaN');
    },
    invalidIndexes() {
      return control({ ttlWorkbench: 'invalidTTLIndexes' }).indexes;
    },
    loadLegacyIndex(collection, spec) {
      if (typeof collection !== 'string' || spec === null || typeof spec !== 'object' || Array.isArray(spec))
        throw new TypeError(
          'ttl.loadLegacyIndex(collection, spec) needs a collection name and an index spec, e.g. ("events", { key: { t: 1 }, name: "t_1", expireAfterSeconds: NaN }).',
        );
      return control({ ttlWorkbench: 'loadLegacyIndex', db: db.getName(), collection, spec }).name;
    },
    forecast(collection, options) {
      const name =
        typeof collection === 'string' ? collection : collection && collection.getName && collection.getName();
      if (typeof name !== 'string')
        throw new TypeError(
          'ttl.forecast(collection, options) needs a collection name or db.<collection>, e.g. ttl.forecast("sessions", { horizon: "24h", buckets: 24 }).',
        );
      const reply = control({ ttlWorkbench: 'forecast', ...(options || {}), db: db.getName(), collection: name });
      delete reply.ok;
      return reply;
    },
  };

  if (!virtual) return;

  // mongosh's sleep(ms) blocks for real; here it moves the virtual clock by ms at once.
  globalThis.sleep = function sleep(ms) {
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)
      throw new TypeError(
        `sleep() needs a number of milliseconds >= 0, got ${typeof ms === 'number' ? ms : typeof ms}.`,
      );
    noted(control({ ttlWorkbench: 'advanceClock', by: ms }));
  };

  // Dates made without a value read the server's clock, so documents are stamped in its time.
  function ClockDate(...args) {
    if (new.target === undefined) return new RealDate(knownNow).toString();
    return Reflect.construct(RealDate, args.length === 0 ? [knownNow] : args, new.target);
  }
  ClockDate.prototype = RealDate.prototype;
  ClockDate.now = () => knownNow;
  ClockDate.parse = RealDate.parse;
  ClockDate.UTC = RealDate.UTC;
  globalThis.Date = ClockDate;
  globalThis.ISODate = function ISODate(...args) {
    return args.length === 0 || args[0] === undefined ? new ClockDate() : RealISODate(...args);
  };
})();
