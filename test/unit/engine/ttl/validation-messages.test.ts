/**
 * The messages of src/engine/ttl/validation.ts that no rule test read in full: what a user sees
 * when collMod is given an expireAfterSeconds of the wrong type (rule 3.1). mongod's IDL parser
 * words it, quirk included (the closing quote sits inside the bracket).
 */
import { describe, it } from 'node:test';
import { Int32 } from 'bson';
import { checkCollModIndexExpireAfterSeconds } from '../../../../src/engine/ttl/validation';
import { expectError } from '../../helpers/expect-error';

const TYPE_MISMATCH = 14;

describe('rule 3.1: the collMod type refusal', () => {
  it("rule 3.1: a wrong type is mongod's IDL message, naming the field path and the BSON type, then what to do", () => {
    for (const [value, type] of [
      ['100', 'string'],
      [true, 'bool'],
      [null, 'null'],
      [{ s: new Int32(1) }, 'object'],
      [[100], 'array'],
    ] as Array<[unknown, string]>) {
      expectError(
        () => checkCollModIndexExpireAfterSeconds(value),
        TYPE_MISMATCH,
        `BSON field 'collMod.index.expireAfterSeconds' is the wrong type '${type}', expected types '[long, int, decimal, double']. Use a number of seconds.`,
        'TypeMismatch',
      );
    }
  });
});
