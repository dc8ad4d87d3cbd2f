/**
 * Mongoose TTL paths whose documents do not expire when the code means them to (rule 7.8: a
 * document expires `expireAfterSeconds` after the date its indexed field holds):
 * TTL019 a `default` computed once when the schema is built (`Date.now()`, `new Date()`),
 * TTL020 a `default` that is already the expiry time plus a non-zero delay (counted twice),
 * TTL021 an index on a path the schema never stores.
 */
import type { IndexDef } from '../definitions';
import { nodeText, replace } from '../edits';
import { editDistance } from '../mongoose-schema';
import type { Fix } from '../types';
import { durationWords } from '../words';
import type { CheckContext } from './context';

export function checkSchemaDefinition(ctx: CheckContext, def: IndexDef, seconds: number | undefined): void {
  checkStoredPath(ctx, def);
  if (seconds === undefined || !def.defaultTime || !def.ttl) return;
  checkDefaultOnce(ctx, def, seconds);
  checkCountedTwice(ctx, def, seconds);
}

function fieldOf(def: IndexDef): string | undefined {
  const fields = def.keyValue ? Object.keys(def.keyValue) : [];
  return fields.length === 1 ? fields[0] : undefined;
}

function checkDefaultOnce(ctx: CheckContext, def: IndexDef, seconds: number): void {
  const time = def.defaultTime!;
  if (!time.once) return;
  const { unit } = def;
  const written = nodeText(unit, time.lit.at);
  const at = time.lit.at;
  const fixes: Fix[] = [];
  if (/^(Date\.now\(\)|newDate\(\)|now\(\))$/.test(written.replace(/\s+/g, '')))
    fixes.push({
      title: 'Use default: Date.now (called for each document)',
      edits: [replace(unit, at, 'Date.now')],
      preferred: true,
    });
  else if (time.lit.node === at)
    fixes.push({
      title: `Use default: () => ${written} (computed for each document)`,
      edits: [replace(unit, at, `() => ${written}`)],
      preferred: true,
    });
  const field = fieldOf(def);
  const lifetime = seconds + Math.max(0, Math.round((time.aheadMs ?? 0) / 1000));
  ctx.report(
    'TTL019',
    unit,
    at,
    `default: ${written} is computed once, when the schema is built, so every document gets that same time${field ? ` in '${field}'` : ''}, taken when the process started: documents written later expire early, and once the process has run ${durationWords(lifetime)} they expire as soon as they are written. Give Mongoose a function, called for each document: default: Date.now.`,
    fixes,
  );
}

function checkCountedTwice(ctx: CheckContext, def: IndexDef, seconds: number): void {
  const time = def.defaultTime!;
  if (seconds === 0 || time.aheadMs === undefined || time.aheadMs <= 0) return;
  const { unit, ttl } = def;
  const ahead = Math.round(time.aheadMs / 1000);
  const field = fieldOf(def);
  ctx.report(
    'TTL020',
    unit,
    ttl!.value.at,
    `${field ? `'${field}'` : 'This path'} defaults to ${durationWords(ahead)} from now, already the expiry time, and ${ttl!.key}: ${nodeText(unit, ttl!.value.node)} adds ${durationWords(seconds)} on top: documents live ${durationWords(ahead + seconds)}. Use ${ttl!.key}: 0 to expire at the stored time (or store the creation time and keep the delay).`,
    [
      {
        title: `Use ${ttl!.key}: 0 (expire at the stored time)`,
        edits: [replace(unit, ttl!.value.node, '0')],
        preferred: true,
      },
    ],
  );
}

function checkStoredPath(ctx: CheckContext, def: IndexDef): void {
  const schema = def.schema;
  const field = fieldOf(def);
  if (!schema || !field) return;
  const head = field.split('.')[0];
  if (head === '_id' || schema.paths.has(head) || schema.timestamps.includes(head)) return;
  const known = [...schema.paths.keys(), ...schema.timestamps];
  const near = known.find((p) => editDistance(p.toLowerCase(), head.toLowerCase(), 2) <= 2);
  if (!schema.complete && !near) return;
  const keyProp = def.key?.kind === 'object' ? def.key.props.find((p) => p.key === field) : undefined;
  const fixes: Fix[] =
    near && keyProp
      ? [{ title: `Index '${near}' instead`, edits: [replace(def.unit, keyProp.keyNode, near)], preferred: true }]
      : [];
  const stores = known.length ? `it stores ${known.map((p) => `'${p}'`).join(', ')}` : 'it stores no date';
  const message = schema.complete
    ? `The TTL index is on '${field}', but the schema never stores '${head}' (${stores}; Mongoose drops undeclared paths): no document has the field, so nothing ever expires.${near ? ` Did you mean '${near}'?` : ''}`
    : `The TTL index is on '${field}', which this schema does not declare (unless a base class or plugin adds it), while it declares '${near}': documents without '${head}' never expire. Did you mean '${near}'?`;
  ctx.report('TTL021', def.unit, keyProp?.node ?? def.key?.at ?? def.site, message, fixes);
}
