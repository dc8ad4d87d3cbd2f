/**
 * $documents: the pipeline's input is the given documents (an expression evaluated once, with the
 * pipeline's variables), whatever the collection holds. It must be the first stage.
 */
import { isPlainObject } from '../../values/types';
import { compileExpression } from '../expressions';
import { fail, typeName } from './shared';
import type { StageParser } from './types';

export const parseDocuments: StageParser = (spec, env) => {
  const expr = compileExpression(spec);
  return function* () {
    const value = expr({}, env.vars);
    if (!Array.isArray(value))
      fail(5858203, `error during evaluation of $documents: an array is expected, got ${typeName(value)}`);
    for (const doc of value) {
      if (!isPlainObject(doc))
        fail(5858204, `error during evaluation of $documents: an array of objects is expected, got ${typeName(doc)}`);
      yield doc;
    }
  };
};
