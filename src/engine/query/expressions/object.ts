/**
 * Object operators: $mergeObjects, and $getField / $setField / $unsetField, which reach field
 * names a path cannot spell ("a.b" as one name, "$price", "" …). Their `field` is a constant.
 */
import { setField } from '../../values/fields';
import { isPlainObject, type Document } from '../../values/types';
import { MergeObjectsAccumulator } from './accumulators';
import { compile, fail, hasOwn, isNullish, typeName, variadic, type Fn, type OperatorParser } from './core';

function opMergeObjects(vals: unknown[]): unknown {
  const acc = new MergeObjectsAccumulator();
  for (const v of vals) acc.add(v);
  return acc.result();
}

/** A constant field name: a plain string not starting with '$', or a $literal of a string. */
function constantField(v: unknown, name: string, codes: { notConstant: number; notString: number }): string {
  if (typeof v === 'string') {
    if (v.startsWith('$'))
      fail(
        codes.notConstant,
        `${name} requires 'field' to evaluate to a constant, but got a non-constant argument: use {$literal: "${v}"} for a field name that starts with '$'`,
      );
    return v;
  }
  if (isPlainObject(v) && Object.keys(v).length === 1 && hasOwn.call(v, '$literal')) {
    const lit = v.$literal;
    if (typeof lit !== 'string')
      fail(codes.notString, `${name} requires 'field' to evaluate to type String, but got ${typeName(lit)}`);
    return lit;
  }
  if (isPlainObject(v) && Object.keys(v)[0]?.startsWith('$'))
    fail(codes.notConstant, `${name} requires 'field' to evaluate to a constant, but got a non-constant argument`);
  fail(codes.notString, `${name} requires 'field' to evaluate to type String, but got ${typeName(v)}`);
}

const CURRENT: Fn = compile('$$CURRENT');

const parseGetField: OperatorParser = (arg, name) => {
  const codes = { notConstant: 5654601, notString: 5654602 };
  let field: string;
  let input = CURRENT;
  if (isPlainObject(arg) && !Object.keys(arg).some((k) => k.startsWith('$'))) {
    for (const k of Object.keys(arg))
      if (k !== 'field' && k !== 'input') fail(3041701, `${name} found an unknown argument: ${k}`);
    if (!hasOwn.call(arg, 'field')) fail(3041702, `${name} requires 'field' to be specified`);
    field = constantField(arg.field, name, codes);
    if (hasOwn.call(arg, 'input')) input = compile(arg.input);
  } else {
    field = constantField(arg, name, codes);
  }
  return (root, vars) => {
    const obj = input(root, vars);
    if (isNullish(obj)) return null;
    if (!isPlainObject(obj))
      fail(3041705, `${name} requires 'input' to evaluate to type Object, but got ${typeName(obj)}`);
    return hasOwn.call(obj, field) ? obj[field] : undefined;
  };
};

/** $setField, and $unsetField as $setField with $$REMOVE. */
function setFieldOperator(unset: boolean): OperatorParser {
  return (arg, name) => {
    if (!isPlainObject(arg)) fail(4161100, `${name} only supports an object as its argument`);
    const allowed = unset ? ['field', 'input'] : ['field', 'input', 'value'];
    for (const k of Object.keys(arg))
      if (!allowed.includes(k)) fail(4161101, `${name} found an unknown argument: ${k}`);
    if (!hasOwn.call(arg, 'field')) fail(4161102, `${name} requires 'field' to be specified`);
    if (!hasOwn.call(arg, 'input')) fail(4161103, `${name} requires 'input' to be specified`);
    if (!unset && !hasOwn.call(arg, 'value')) fail(4161104, `${name} requires 'value' to be specified`);
    const field = constantField(arg.field, name, { notConstant: 4161108, notString: 4161106 });
    const input = compile(arg.input);
    const value = unset ? undefined : compile(arg.value);
    return (root, vars) => {
      const obj = input(root, vars);
      if (isNullish(obj)) return null;
      if (!isPlainObject(obj))
        fail(4161105, `${name} requires 'input' to evaluate to type Object, but got ${typeName(obj)}`);
      const v = value ? value(root, vars) : undefined;
      const out: Document = {};
      let placed = false;
      for (const k of Object.keys(obj)) {
        if (k === field) {
          placed = true;
          if (v !== undefined) setField(out, k, v);
        } else setField(out, k, obj[k]);
      }
      if (!placed && v !== undefined) setField(out, field, v);
      return out;
    };
  };
}

export const OBJECT_OPERATORS: Readonly<Record<string, OperatorParser>> = {
  $mergeObjects: variadic(opMergeObjects),
  $getField: parseGetField,
  $setField: setFieldOperator(false),
  $unsetField: setFieldOperator(true),
};
