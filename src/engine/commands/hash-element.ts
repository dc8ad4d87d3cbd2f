/**
 * _hashBSONElement: the hash mongod gives a value in a hashed index or hashed shard key
 * (values/element-hash.ts). mongod registers it among its test commands; the engine answers it
 * always, for it reveals nothing but the hash function, which tools need to place documents.
 */
import { Int32 } from 'bson';
import { fail } from '../errors';
import { toDouble } from '../values/numbers';
import { hashBsonValue } from '../values/element-hash';
import { bsonTypeOf, isNumeric, type Document } from '../values/types';
import type { CommandHandler } from './context';

function hashBSONElement(_ctx: unknown, cmd: Document): Document {
  const key = cmd._hashBSONElement;
  let seed = 0;
  if (cmd.seed !== undefined) {
    if (!isNumeric(cmd.seed))
      fail(
        'TypeMismatch',
        `BSON field 'seed' is the wrong type '${bsonTypeOf(cmd.seed)}', expected a number: e.g. {_hashBSONElement: "a", seed: 0}.`,
      );
    // A seed is an int, as mongod reads it (numberInt: the fraction dropped).
    seed = Math.trunc(toDouble(cmd.seed)) | 0;
  }
  return { key, seed: new Int32(seed), out: hashBsonValue(key, seed), ok: 1 };
}

export const hashElementCommands: Record<string, CommandHandler> = { _hashBSONElement: hashBSONElement };
