/**
 * A $match as explain prints it after mongod optimized its expression: every predicate is one
 * path with one operator (an equality shows as $eq), nested $and lists are flattened into one, an
 * $and or $or of a single clause is that clause, and several clauses at the top are one $and.
 * Anything this does not recognise ($expr, $where, a malformed clause) is printed as it was given.
 */
import { isPlainObject, type Document } from '../values/types';

function isOperatorObject(v: unknown): v is Document {
  return isPlainObject(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => k.startsWith('$'));
}

/** The clauses `filter` means together, each one path and one operator (or one logical node). */
function clauses(filter: Document): Document[] {
  const out: Document[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value) && value.every(isPlainObject)) {
      for (const child of value) out.push(...clauses(child));
    } else if ((key === '$or' || key === '$nor') && Array.isArray(value) && value.every(isPlainObject)) {
      const children = value.map(optimizedMatch);
      out.push(key === '$or' && children.length === 1 ? children[0] : { [key]: children });
    } else if (key.startsWith('$')) {
      out.push({ [key]: value });
    } else if (isOperatorObject(value) && !('$options' in value)) {
      for (const [op, operand] of Object.entries(value)) out.push({ [key]: { [op]: operand } });
    } else if (isOperatorObject(value) || value instanceof RegExp) {
      out.push({ [key]: value });
    } else {
      out.push({ [key]: { $eq: value } });
    }
  }
  return out;
}

export function optimizedMatch(filter: Document): Document {
  const all = clauses(filter);
  if (all.length === 0) return {};
  return all.length === 1 ? all[0] : { $and: all };
}
