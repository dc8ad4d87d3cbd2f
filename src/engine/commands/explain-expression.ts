/**
 * A $project's computed fields as explain prints them after mongod optimized them: a constant is
 * `{$const: value}`, an operator's arguments are a list, and $and / $or whose constant arguments
 * already decide the result fold to that boolean (`{$and: [0, '$x']}` is `{$const: false}`). The
 * fields a projection keeps or drops (1, 0, true, false) are printed as given.
 */
import { isTruthy } from '../query/expressions';
import { isPlainObject, type Document } from '../values/types';

function isConstant(v: unknown): v is { $const: unknown } {
  return isPlainObject(v) && Object.keys(v).length === 1 && '$const' in v;
}

/** $and and $or fold when a constant argument decides them, or when every argument is constant. */
function fold(op: string, args: unknown[]): unknown {
  if (op !== '$and' && op !== '$or') return undefined;
  const decider = op === '$or';
  if (args.some((a) => isConstant(a) && isTruthy(a.$const) === decider)) return { $const: decider };
  if (args.every(isConstant)) return { $const: !decider };
  return undefined;
}

export function serializedExpression(expr: unknown): unknown {
  if (typeof expr === 'string') return expr.startsWith('$') ? expr : { $const: expr };
  if (Array.isArray(expr)) return expr.map(serializedExpression);
  if (!isPlainObject(expr)) return { $const: expr };
  const keys = Object.keys(expr);
  if (keys.length === 1 && keys[0].startsWith('$')) {
    const op = keys[0];
    if (op === '$literal' || op === '$const') return { $const: expr[op] };
    const raw = expr[op];
    // An operator's arguments are a list: one argument that is not an array is a list of one.
    if (op === '$and' || op === '$or') {
      const args = (Array.isArray(raw) ? raw : [raw]).map(serializedExpression);
      return fold(op, args) ?? { [op]: args };
    }
    return { [op]: serializedExpression(raw) };
  }
  const out: Document = {};
  for (const [k, v] of Object.entries(expr)) out[k] = serializedExpression(v);
  return out;
}

function isFlag(v: unknown): boolean {
  return typeof v === 'boolean' || (typeof v === 'number' && (v === 0 || v === 1));
}

/** A $project spec with its computed fields serialized; nested specs of flags stay as they are. */
export function serializedProjection(spec: Document): Document {
  const out: Document = {};
  for (const [k, v] of Object.entries(spec)) {
    if (isFlag(v)) out[k] = v;
    else if (isPlainObject(v) && !Object.keys(v).some((f) => f.startsWith('$'))) out[k] = serializedProjection(v);
    else out[k] = serializedExpression(v);
  }
  return out;
}
