/**
 * `$jsonSchema`'s client-side field level encryption keywords, as mongod 8.0 reads them without
 * decrypting anything: `encrypt` holds for a BinData of subtype 6 (an encrypted value), and, when it
 * names `bsonType`, for one whose encryption header (blob subtype 1 or 2, a 16-byte key id) records
 * one of those types as the original's; `encryptMetadata` only has to be well formed.
 */
import type { Binary } from 'bson';
import { EngineError, ErrorCode } from '../errors';
import { BSON_TYPE_NUMBERS, bsonClassOf, bsonTypeOf, isPlainObject, type BsonTypeName } from '../values/types';

/** The algorithms mongod's EncryptionInfo accepts. */
const ALGORITHMS = new Set(['AEAD_AES_256_CBC_HMAC_SHA_512-Deterministic', 'AEAD_AES_256_CBC_HMAC_SHA_512-Random']);
const ENCRYPTED_SUBTYPE = 6;
/** Blob subtype (1 byte), key UUID (16 bytes), then the original value's BSON type (1 byte). */
const HEADER_BYTES = 18;

function typeMismatch(message: string): EngineError {
  return new EngineError(ErrorCode.TypeMismatch, message);
}

function checkKeyId(where: string, keyId: unknown): void {
  if (typeof keyId === 'string') {
    if (!keyId.startsWith('/'))
      throw new EngineError(
        ErrorCode.FailedToParse,
        `${where}.keyId must be a JSON pointer starting with '/' or an array of UUIDs`,
      );
    return;
  }
  if (!Array.isArray(keyId)) throw typeMismatch(`${where}.keyId must be a JSON pointer string or an array of UUIDs`);
  for (const id of keyId) {
    if (bsonClassOf(id) !== 'Binary' || (id as Binary).sub_type !== 4)
      throw typeMismatch(`${where}.keyId array elements must be UUIDs (BinData subtype 4), found ${bsonTypeOf(id)}`);
  }
}

function checkFields(where: string, spec: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(spec)) {
    if (!allowed.includes(key))
      throw new EngineError(40415, `BSON field '${where}.${key}' is an unknown field. It takes ${allowed.join(', ')}.`);
  }
  if (spec.keyId !== undefined) checkKeyId(where, spec.keyId);
  if (spec.algorithm !== undefined) {
    if (typeof spec.algorithm !== 'string') throw typeMismatch(`${where}.algorithm must be a string`);
    if (!ALGORITHMS.has(spec.algorithm))
      throw new EngineError(
        ErrorCode.BadValue,
        `${where}.algorithm '${spec.algorithm}' is not one of: ${[...ALGORITHMS].join(', ')}`,
      );
  }
}

/** The type numbers `encrypt.bsonType` names (undefined: any). */
function encryptedTypes(spec: unknown, aliases: ReadonlySet<string>): Set<number> | undefined {
  if (spec === undefined) return undefined;
  const list = typeof spec === 'string' ? [spec] : Array.isArray(spec) ? spec : undefined;
  if (!list) throw typeMismatch('encrypt.bsonType must be a string or an array of strings');
  const out = new Set<number>();
  for (const name of list) {
    if (typeof name !== 'string' || !aliases.has(name) || name === 'number')
      throw new EngineError(ErrorCode.BadValue, `Unknown type name alias: ${String(name)}`);
    out.add(BSON_TYPE_NUMBERS[name as BsonTypeName]);
  }
  return out;
}

/** Parses `encrypt`; the test a value must pass. */
export function parseEncrypt(spec: unknown, bsonTypeAliases: ReadonlySet<string>): (value: unknown) => boolean {
  if (!isPlainObject(spec)) throw typeMismatch("$jsonSchema keyword 'encrypt' must be an object");
  checkFields('encrypt', spec, ['keyId', 'algorithm', 'bsonType']);
  const types = encryptedTypes(spec.bsonType, bsonTypeAliases);
  return (value) => {
    if (bsonClassOf(value) !== 'Binary') return false;
    const bin = value as Binary;
    if (bin.sub_type !== ENCRYPTED_SUBTYPE) return false;
    if (!types) return true;
    if (bin.position < HEADER_BYTES) return false;
    const blob = bin.buffer[0];
    return (blob === 1 || blob === 2) && types.has(bin.buffer[HEADER_BYTES - 1]);
  };
}

/** Parses `encryptMetadata`: it describes the encryption of the fields below and matches anything. */
export function parseEncryptMetadata(spec: unknown): void {
  if (!isPlainObject(spec)) throw typeMismatch("$jsonSchema keyword 'encryptMetadata' must be an object");
  if (Object.keys(spec).length === 0)
    throw new EngineError(
      ErrorCode.FailedToParse,
      "$jsonSchema keyword 'encryptMetadata' must name keyId or algorithm",
    );
  checkFields('encryptMetadata', spec, ['keyId', 'algorithm']);
}
