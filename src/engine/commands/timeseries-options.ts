/**
 * The `timeseries` option of create (and of $out to a new time-series collection), checked as
 * mongod checks it. Its own module so the catalog commands and the pipeline's catalog share it
 * without importing each other.
 */
import type { TimeseriesOptions } from '../catalog/collection';
import { fail } from '../errors';
import { formatValue } from '../values/format';
import { toDouble } from '../values/numbers';
import { isNumeric, isPlainObject } from '../values/types';

const GRANULARITY_SPAN: Record<string, number> = { seconds: 3600, minutes: 86400, hours: 2592000 };

export function parseTimeseries(value: unknown, capped: boolean): TimeseriesOptions {
  if (!isPlainObject(value))
    fail(
      'TypeMismatch',
      `'timeseries' must be an object such as {timeField: "t", metaField: "m"}, got ${formatValue(value)}.`,
    );
  if (capped) fail('InvalidOptions', 'Time-series collections cannot be capped.');
  const allowed = new Set(['timeField', 'metaField', 'granularity', 'bucketMaxSpanSeconds', 'bucketRoundingSeconds']);
  for (const k of Object.keys(value))
    if (!allowed.has(k)) fail(40415, `BSON field 'timeseries.${k}' is an unknown field.`);
  if (typeof value.timeField !== 'string' || value.timeField.length === 0) {
    fail(
      40414,
      "BSON field 'timeseries.timeField' is missing but a required field: name the field that holds each measurement's date.",
    );
  }
  if (value.timeField.includes('.'))
    fail('BadValue', "The 'timeField' for a time-series collection must not contain a '.'");
  const ts: TimeseriesOptions = { timeField: value.timeField };
  if (value.metaField !== undefined) {
    if (
      typeof value.metaField !== 'string' ||
      value.metaField.includes('.') ||
      value.metaField === value.timeField ||
      value.metaField === '_id'
    ) {
      fail(
        'BadValue',
        "The 'metaField' for a time-series collection must be a top-level field name other than the timeField and '_id'.",
      );
    }
    ts.metaField = value.metaField;
  }
  const hasSpan = value.bucketMaxSpanSeconds !== undefined || value.bucketRoundingSeconds !== undefined;
  if (hasSpan) {
    if (value.granularity !== undefined)
      fail('InvalidOptions', "Time-series 'bucketMaxSpanSeconds' and 'granularity' cannot both be set.");
    const span = isNumeric(value.bucketMaxSpanSeconds) ? Math.trunc(toDouble(value.bucketMaxSpanSeconds)) : NaN;
    const rounding = isNumeric(value.bucketRoundingSeconds) ? Math.trunc(toDouble(value.bucketRoundingSeconds)) : NaN;
    if (!(span >= 1 && span <= 31536000) || span !== rounding) {
      fail(
        'InvalidOptions',
        "Time-series 'bucketMaxSpanSeconds' and 'bucketRoundingSeconds' must be set together, equal, and between 1 and 31536000.",
      );
    }
    ts.bucketMaxSpanSeconds = span;
    ts.bucketRoundingSeconds = rounding;
    return ts;
  }
  const granularity = value.granularity ?? 'seconds';
  if (typeof granularity !== 'string' || !(granularity in GRANULARITY_SPAN)) {
    fail(
      'BadValue',
      `Enumeration value '${String(granularity)}' for field 'timeseries.granularity' is not a valid value: use "seconds", "minutes" or "hours".`,
    );
  }
  ts.granularity = granularity as TimeseriesOptions['granularity'];
  ts.bucketMaxSpanSeconds = GRANULARITY_SPAN[granularity];
  return ts;
}
