/**
 * $_internalSplitPipeline: tells a sharded cluster where the rest of the pipeline merges. On one
 * server there is nothing to split, so mongod checks the spec and passes documents through; tests
 * and tools that pin a merge host send it to a standalone too.
 */
import { isPlainObject } from '../../values/types';
import { fail, typeName } from './shared';
import type { StageParser } from './types';

const MERGE_TYPES = new Set(['localOnly', 'anyShard', 'mongos']);

export const parseInternalSplitPipeline: StageParser = (spec) => {
  if (!isPlainObject(spec)) fail(14, `$_internalSplitPipeline must take a nested object but found: ${typeName(spec)}`);
  for (const [field, value] of Object.entries(spec)) {
    if (field !== 'mergeType') fail(2, `unrecognized field while parsing $_internalSplitPipeline: '${field}'`);
    if (typeof value === 'string') {
      if (!MERGE_TYPES.has(value))
        fail(2, `unrecognized field while parsing mergeType: '${value}': use "localOnly", "anyShard" or "mongos"`);
    } else if (isPlainObject(value)) {
      const keys = Object.keys(value);
      if (keys.length !== 1 || keys[0] !== 'specificShard' || typeof value.specificShard !== 'string')
        fail(
          7958300,
          "Object argument to $_internalSplitPipeline must contain a single string field named 'specificShard'",
        );
      fail(7958301, "Cannot specify 'mergeType' of 'specificShard' and not have sharding enabled");
    } else {
      fail(2, `'mergeType' must be a string value or an object but found: ${typeName(value)}`);
    }
  }
  return (input) => input;
};
