/**
 * TTL options written where nothing makes a TTL index of them:
 * TTL017 in the key pattern (`schema.index({expireAfterSeconds: 3600})` indexes a field of that
 * name) or in Mongoose schema options (`@Schema({expires: 3600})`, which Mongoose ignores), and
 * TTL018 misspelled (`expiresAfterSeconds`, `expireAfterSecond`, the driver's `ttl`, `exexpires`).
 * Whether mongod refuses the spec is the engine's `normalizeIndexSpec` to say (197).
 */
import type { Document } from '../../engine';
import { EngineError } from '../../engine/errors';
import { normalizeIndexSpec } from '../../engine/indexes/index-spec';
import { defaultIndexName } from '../../engine/indexes/key-pattern';
import type { OptionSlip } from '../definitions';
import { insertAt, nodeText, removeProperty, replace } from '../edits';
import { plainValue, UNKNOWN } from '../literals';
import type { Fix } from '../types';
import type { CheckContext } from './context';

export function checkOptionSlips(ctx: CheckContext): void {
  for (const slip of ctx.defs.slips) {
    if (slip.kind === 'inKey') reportInKey(ctx, slip);
    else if (slip.kind === 'schemaOption') reportSchemaOption(ctx, slip);
    else reportMisspelled(ctx, slip);
  }
}

function engineRefusal(spec: Document): EngineError | undefined {
  try {
    normalizeIndexSpec(spec);
    return undefined;
  } catch (err) {
    if (err instanceof EngineError) return err;
    throw err;
  }
}

function reportInKey(ctx: CheckContext, slip: OptionSlip): void {
  const { unit, prop, keyLit, options } = slip;
  const others = keyLit?.kind === 'object' ? keyLit.props.filter((p) => p !== prop) : [];
  const value = nodeText(unit, prop.value.node);
  const option = slip.reader === 'driver' ? 'expireAfterSeconds' : prop.key;
  const example = others.length ? `{ ${nodeText(unit, others[0].node)} }` : '{ createdAt: 1 }';
  const fixes: Fix[] = [];
  const removal = keyLit ? removeProperty(unit, keyLit.node, prop.node) : undefined;
  if (removal && others.length > 0 && keyLit!.node === keyLit!.at) {
    const moved = `${option}: ${value}`;
    let insert;
    if (options?.kind === 'object' && options.node === options.at && options.node.type === 'ObjectExpression') {
      const props = options.node.properties;
      insert = props.length
        ? insertAt(unit, props[props.length - 1].end ?? 0, `, ${moved}`)
        : insertAt(unit, (options.node.end ?? 1) - 1, ` ${moved} `);
    } else if (!options) {
      insert = insertAt(unit, keyLit!.node.end ?? 0, `, { ${moved} }`);
    }
    if (insert)
      fixes.push({
        title: `Move ${prop.key} from the key pattern to the index options`,
        edits: [removal, insert],
        preferred: true,
      });
  }
  ctx.report(
    'TTL017',
    unit,
    prop.node,
    `${prop.key} is in the key pattern, so this builds an ordinary index on a field named '${prop.key}', not a TTL index: nothing ever expires. The key names the date field and the options carry the TTL: ${example}, { ${option}: ${value} }.`,
    fixes,
  );
}

function reportSchemaOption(ctx: CheckContext, slip: OptionSlip): void {
  const { unit, prop } = slip;
  const value = nodeText(unit, prop.value.node);
  const message =
    prop.key === 'expires'
      ? `Mongoose has no schema-level expires option: no TTL index is made and nothing expires. Put it on the date path ({ type: Date, expires: ${value} } or @Prop({ expires: ${value} })), or index the date: schema.index({ createdAt: 1 }, { expireAfterSeconds: ${value} }).`
      : `A schema-level expireAfterSeconds is a collection-level TTL, which only a time-series or clustered collection takes (the schema declares neither): no TTL index is made. Index the date path instead: schema.index({ createdAt: 1 }, { expireAfterSeconds: ${value} }).`;
  ctx.report('TTL017', unit, prop.node, message);
}

function reportMisspelled(ctx: CheckContext, slip: OptionSlip): void {
  const { unit, prop, intended, reader } = slip;
  const fix: Fix = {
    title: `Rename ${prop.key} to ${intended}`,
    edits: [replace(unit, prop.keyNode, intended)],
    preferred: true,
  };
  if (reader === 'mongoosePath') {
    ctx.report(
      'TTL018',
      unit,
      prop.keyNode,
      `Mongoose does not know the path option '${prop.key}' and ignores it: no TTL index is made and nothing expires. Did you mean ${intended}?`,
      [fix],
      { severity: 'warning' },
    );
    return;
  }
  const value = plainValue(prop.value);
  const key = slip.key ?? { createdAt: 1 };
  const spec: Document = { key, name: defaultIndexName(key) };
  spec[prop.key] = value === UNKNOWN ? 0 : value;
  const err = engineRefusal(spec);
  const refusal = err
    ? `mongod refuses the whole index with ${err.codeName} (${err.code}): ${err.message}`
    : `'${prop.key}' is not a TTL option: the index is made without a TTL.`;
  const where =
    reader === 'mongooseIndex'
      ? ' Mongoose builds indexes in the background and reports the failure only in the model\'s "index" event: the app runs without the index and nothing expires.'
      : '';
  ctx.report('TTL018', unit, prop.keyNode, `${refusal}${where} Did you mean ${intended}?`, [fix]);
}
