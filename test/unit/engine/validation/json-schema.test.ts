/**
 * $jsonSchema: matching, and the error details mongod reports for a document that fails (compared
 * with the cases of mongod's jstests/core/doc_validation/doc_validation_error.js and the schema
 * validation pages of the MongoDB manual), and the parse errors of bad schemas.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Binary, Int32, Long } from 'bson';
import { Engine, type Document } from '../../../../src/engine';
import { compileJsonSchema } from '../../../../src/engine/validation/json-schema';
import { JSON_SCHEMA_KEYWORDS } from '../../../../src/engine/validation/supported';
import { expectError } from '../../helpers/expect-error';

/** The details of a failing document, asserted to fail first. */
function details(schema: Document, doc: Document): Document {
  const s = compileJsonSchema(schema);
  assert.equal(s.matches(doc), false, 'the document should fail the schema');
  return s.explain(doc);
}

function passes(schema: Document, doc: Document): boolean {
  return compileJsonSchema(schema).matches(doc);
}

describe('$jsonSchema error details (mongod doc_validation_error cases)', () => {
  it('students: properties before required, nested properties, enum and bsonType with int values', () => {
    const schema = {
      bsonType: 'object',
      required: ['name', 'year', 'major', 'address'],
      properties: {
        name: { bsonType: 'string', description: 'must be a string and is required' },
        year: {
          bsonType: 'int',
          minimum: 2017,
          maximum: 3017,
          description: 'must be an integer in [ 2017, 3017 ] and is required',
        },
        major: {
          enum: ['Math', 'English', 'Computer Science', 'History', null],
          description: 'can only be one of the enum values and is required',
        },
        gpa: { bsonType: ['double'], description: 'must be a double if the field exists' },
        address: {
          bsonType: 'object',
          required: ['city'],
          properties: {
            street: { bsonType: 'string', description: 'must be a string if the field exists' },
            city: { bsonType: 'string', description: 'must be a string and is required' },
          },
        },
      },
    };
    const doc = {
      year: new Int32(2020),
      major: 'Software Engineering',
      gpa: 5,
      address: { city: 'NYC', street: new Int32(5) },
    };
    assert.deepEqual(details(schema, doc), {
      operatorName: '$jsonSchema',
      schemaRulesNotSatisfied: [
        {
          operatorName: 'properties',
          propertiesNotSatisfied: [
            {
              propertyName: 'major',
              description: 'can only be one of the enum values and is required',
              details: [
                {
                  operatorName: 'enum',
                  specifiedAs: { enum: ['Math', 'English', 'Computer Science', 'History', null] },
                  reason: 'value was not found in enum',
                  consideredValue: 'Software Engineering',
                },
              ],
            },
            {
              propertyName: 'address',
              details: [
                {
                  operatorName: 'properties',
                  propertiesNotSatisfied: [
                    {
                      propertyName: 'street',
                      description: 'must be a string if the field exists',
                      details: [
                        {
                          operatorName: 'bsonType',
                          specifiedAs: { bsonType: 'string' },
                          reason: 'type did not match',
                          consideredValue: new Int32(5),
                          consideredType: 'int',
                        },
                      ],
                    },
                  ],
                },
              ],
            },
          ],
        },
        {
          operatorName: 'required',
          specifiedAs: { required: ['name', 'year', 'major', 'address'] },
          missingProperties: ['name'],
        },
      ],
    });
  });

  it('node structure: a type mismatch reports the type alone, not the array keywords it makes moot', () => {
    const schema = {
      bsonType: 'object',
      required: ['_id'],
      properties: {
        parent: { bsonType: ['string', 'null'], description: 'must be a string' },
        children: {
          bsonType: ['array'],
          items: { bsonType: ['string'] },
          minItems: 0,
          maxItems: 2,
          description: 'must be an array of string and max is 2',
        },
      },
    };
    assert.deepEqual(details(schema, { _id: 'Languages', children: 2, parent: 'Programming' }), {
      operatorName: '$jsonSchema',
      schemaRulesNotSatisfied: [
        {
          operatorName: 'properties',
          propertiesNotSatisfied: [
            {
              propertyName: 'children',
              description: 'must be an array of string and max is 2',
              details: [
                {
                  operatorName: 'bsonType',
                  specifiedAs: { bsonType: ['array'] },
                  reason: 'type did not match',
                  consideredValue: 2,
                  consideredType: 'double',
                },
              ],
            },
          ],
        },
      ],
    });
  });

  it('uniqueItems reports the first repeated value; items report the first failing index with its details', () => {
    const schema = {
      properties: {
        values: { bsonType: 'array', items: { bsonType: 'string', enum: ['one', 'two', 'three'] }, uniqueItems: true },
        scripts: { type: 'array', items: { type: 'string' } },
      },
    };
    assert.deepEqual(details(schema, { values: ['two', 'two'], scripts: ['a', 1, 2] }), {
      operatorName: '$jsonSchema',
      schemaRulesNotSatisfied: [
        {
          operatorName: 'properties',
          propertiesNotSatisfied: [
            {
              propertyName: 'values',
              details: [
                {
                  operatorName: 'uniqueItems',
                  specifiedAs: { uniqueItems: true },
                  reason: 'found a duplicate item',
                  consideredValue: ['two', 'two'],
                  duplicatedValue: 'two',
                },
              ],
            },
            {
              propertyName: 'scripts',
              details: [
                {
                  operatorName: 'items',
                  reason: 'At least one item did not match the sub-schema',
                  itemIndex: new Int32(1),
                  details: [
                    {
                      operatorName: 'type',
                      specifiedAs: { type: 'string' },
                      reason: 'type did not match',
                      consideredValue: 1,
                      consideredType: 'double',
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    });
  });

  it('anyOf inside items lists every subschema with its index; oneOf lists the matching ones when several match', () => {
    const anyOf = {
      properties: {
        commands: {
          type: 'array',
          items: {
            anyOf: [{ required: ['directory', 'file', 'command'] }, { required: ['directory', 'file', 'arguments'] }],
          },
        },
      },
    };
    const d = details(anyOf, { commands: [{ directory: '/etc', file: 'hosts' }] });
    const items = ((d.schemaRulesNotSatisfied as Document[])[0].propertiesNotSatisfied as Document[])[0]
      .details as Document[];
    assert.deepEqual(items[0].details, [
      {
        operatorName: 'anyOf',
        schemasNotSatisfied: [
          {
            index: new Int32(0),
            details: [
              {
                operatorName: 'required',
                specifiedAs: { required: ['directory', 'file', 'command'] },
                missingProperties: ['command'],
              },
            ],
          },
          {
            index: new Int32(1),
            details: [
              {
                operatorName: 'required',
                specifiedAs: { required: ['directory', 'file', 'arguments'] },
                missingProperties: ['arguments'],
              },
            ],
          },
        ],
      },
    ]);
    const oneOf = { properties: { n: { oneOf: [{ minimum: 1 }, { minimum: 2 }, { maximum: 0 }] } } };
    assert.equal(passes(oneOf, { n: 1 }), true);
    const many = details(oneOf, { n: 5 });
    assert.deepEqual(
      ((many.schemaRulesNotSatisfied as Document[])[0].propertiesNotSatisfied as Document[])[0].details,
      [
        {
          operatorName: 'oneOf',
          reason: 'more than one subschema matched',
          matchingSchemaIndexes: [new Int32(0), new Int32(1)],
        },
      ],
    );
  });

  it('additionalProperties: false lists the extra fields (_id too unless declared); patternProperties names the regex', () => {
    const schema = {
      properties: { a: {} },
      patternProperties: { '^x_': { bsonType: 'int' } },
      additionalProperties: false,
    };
    assert.equal(passes(schema, { a: 1, x_n: new Int32(2) }), true);
    assert.deepEqual(details(schema, { _id: 1, a: 1, x_n: 'no', b: 2 }), {
      operatorName: '$jsonSchema',
      schemaRulesNotSatisfied: [
        {
          operatorName: 'additionalProperties',
          specifiedAs: { additionalProperties: false },
          additionalProperties: ['_id', 'b'],
        },
        {
          operatorName: 'patternProperties',
          details: [
            {
              propertyName: 'x_n',
              regexMatched: '^x_',
              details: [
                {
                  operatorName: 'bsonType',
                  specifiedAs: { bsonType: 'int' },
                  reason: 'type did not match',
                  consideredValue: 'no',
                  consideredType: 'string',
                },
              ],
            },
          ],
        },
      ],
    });
    const bySchema = { additionalProperties: { type: 'number' } };
    assert.deepEqual(details(bySchema, { a: 1, b: 'x', c: 'y' }).schemaRulesNotSatisfied, [
      {
        operatorName: 'additionalProperties',
        reason: 'at least one additional property did not match the subschema',
        failingProperty: 'b',
        details: [
          {
            operatorName: 'type',
            specifiedAs: { type: 'number' },
            reason: 'type did not match',
            consideredValue: 'x',
            consideredType: 'string',
          },
        ],
      },
    ]);
  });

  it('dependencies: a property dependency lists what is missing, a schema dependency its details', () => {
    const schema = {
      dependencies: { card: ['billing', 'cvv'], name: { required: ['surname'] } },
    };
    assert.equal(passes(schema, { other: 1 }), true);
    assert.deepEqual(details(schema, { card: 1, cvv: 2, name: 'x' }).schemaRulesNotSatisfied, [
      {
        operatorName: 'dependencies',
        failingDependencies: [
          { conditionalProperty: 'card', missingProperties: ['billing'] },
          {
            conditionalProperty: 'name',
            details: [
              { operatorName: 'required', specifiedAs: { required: ['surname'] }, missingProperties: ['surname'] },
            ],
          },
        ],
      },
    ]);
  });

  it('string, number, array and object bounds: each reports its reason and what it considered', () => {
    const schema = {
      properties: {
        s: { minLength: 3, maxLength: 4, pattern: '^a' },
        n: { minimum: 0, maximum: 10, exclusiveMaximum: true, multipleOf: 2 },
        arr: { minItems: 2 },
        o: { minProperties: 2 },
      },
    };
    assert.equal(passes(schema, { s: 'abc', n: 8, arr: [1, 2], o: { a: 1, b: 2 } }), true);
    // Length counts code points, as mongod does: one emoji is one character.
    assert.equal(passes(schema, { s: 'a😀😀' }), true);
    const failed = (
      details(schema, { s: 'bcdef', n: 10, arr: [1], o: { a: 1 } }).schemaRulesNotSatisfied as Document[]
    )[0].propertiesNotSatisfied as Document[];
    assert.deepEqual(failed[0].details, [
      {
        operatorName: 'pattern',
        specifiedAs: { pattern: '^a' },
        reason: 'regular expression did not match',
        consideredValue: 'bcdef',
      },
      {
        operatorName: 'maxLength',
        specifiedAs: { maxLength: 4 },
        reason: 'specified string length was not satisfied',
        consideredValue: 'bcdef',
      },
    ]);
    assert.deepEqual(failed[1].details, [
      {
        operatorName: 'maximum',
        specifiedAs: { maximum: 10, exclusiveMaximum: true },
        reason: 'comparison failed',
        consideredValue: 10,
      },
    ]);
    assert.deepEqual(failed[2].details, [
      {
        operatorName: 'minItems',
        specifiedAs: { minItems: 2 },
        reason: 'array did not match specified length',
        consideredValue: [1],
        numberOfItems: new Int32(1),
      },
    ]);
    assert.deepEqual(failed[3].details, [
      {
        operatorName: 'minProperties',
        specifiedAs: { minProperties: 2 },
        reason: 'specified number of properties was not satisfied',
        numberOfProperties: new Int32(1),
      },
    ]);
    assert.equal(passes(schema, { n: 3 }), false, 'multipleOf: 2');
    assert.equal(passes(schema, { n: new Long(4) }), true, 'numbers of every BSON type compare by value');
  });

  it('keywords for one type let other types through; only the type keyword rejects them', () => {
    assert.equal(passes({ properties: { a: { minLength: 5, minimum: 3, minItems: 2 } } }, { a: true }), true);
    assert.equal(passes({ properties: { a: { type: 'string', minLength: 5 } } }, { a: 1 }), false);
  });

  it('not, allOf, title and description: annotations travel with the subschema that failed', () => {
    const schema = {
      title: 'Orders',
      description: 'an order',
      allOf: [{ title: 'has an id', required: ['orderId'] }],
      not: { required: ['deleted'] },
    };
    assert.deepEqual(details(schema, { deleted: true }), {
      operatorName: '$jsonSchema',
      title: 'Orders',
      description: 'an order',
      schemaRulesNotSatisfied: [
        {
          operatorName: 'allOf',
          schemasNotSatisfied: [
            {
              index: new Int32(0),
              title: 'has an id',
              details: [
                { operatorName: 'required', specifiedAs: { required: ['orderId'] }, missingProperties: ['orderId'] },
              ],
            },
          ],
        },
        { operatorName: 'not', reason: 'child expression matched' },
      ],
    });
  });

  it('a top-level schema whose type excludes objects matches no document; enum and required read the document itself', () => {
    assert.equal(passes({ bsonType: 'string' }, { a: 1 }), false);
    assert.equal(passes({ bsonType: ['object', 'string'] }, { a: 1 }), true);
    assert.equal(passes({ enum: [{ a: 1, b: 2 }, 3] }, { b: 2, a: 1 }), true, 'fields in any order');
    assert.equal(passes({ enum: [{ a: 1 }] }, { a: 2 }), false);
    // String and array keywords constrain nothing at the top: a document is neither.
    assert.equal(passes({ minLength: 100, minItems: 5 }, { a: 1 }), true);
  });

  it('items as an array checks positions; additionalItems: false refuses the rest', () => {
    const schema = { properties: { p: { items: [{ type: 'number' }, { type: 'string' }], additionalItems: false } } };
    assert.equal(passes(schema, { p: [1, 'a'] }), true);
    assert.equal(passes(schema, { p: [1] }), true);
    const d = (details(schema, { p: ['x', 'a', 3] }).schemaRulesNotSatisfied as Document[])[0]
      .propertiesNotSatisfied as Document[];
    assert.deepEqual(d[0].details, [
      {
        operatorName: 'items',
        details: [
          {
            itemIndex: new Int32(0),
            details: [
              {
                operatorName: 'type',
                specifiedAs: { type: 'number' },
                reason: 'type did not match',
                consideredValue: 'x',
                consideredType: 'string',
              },
            ],
          },
        ],
      },
      {
        operatorName: 'additionalItems',
        specifiedAs: { additionalItems: false },
        reason: 'found additional items',
        additionalItems: [3],
      },
    ]);
  });
});

describe('$jsonSchema parse errors (mongod json_schema_parser)', () => {
  const cases: Array<[string, Document, number, RegExp]> = [
    ['an unknown keyword', { invalid: 1 }, 9, /^Unknown \$jsonSchema keyword: invalid$/],
    ['$ref (refused by mongod)', { $ref: '#/a' }, 9, /'\$ref' is not currently supported/],
    [
      'format (refused by mongod)',
      { properties: { a: { format: 'email' } } },
      9,
      /'format' is not currently supported/,
    ],
    [
      'type and bsonType together',
      { type: 'object', bsonType: 'object' },
      9,
      /both \$jsonSchema keywords 'type' and 'bsonType'/,
    ],
    ["type 'integer'", { properties: { a: { type: 'integer' } } }, 9, /type 'integer' is not currently supported/],
    ['an unknown bsonType', { bsonType: 'integr' }, 2, /Unknown type name alias: integr/],
    ['an empty enum', { enum: [] }, 9, /'enum' cannot be an empty array/],
    [
      'a repeated enum value',
      {
        enum: [
          { a: 1, b: 2 },
          { b: 2, a: 1 },
        ],
      },
      9,
      /cannot contain duplicate values/,
    ],
    ['an empty required', { required: [] }, 9, /'required' cannot be an empty array/],
    ['a required name that is not a string', { required: [1] }, 14, /array of strings/],
    ['a maximum that is not a number', { properties: { a: { maximum: 'x' } } }, 14, /'maximum' must be a number/],
    [
      'exclusiveMinimum without minimum',
      { properties: { a: { exclusiveMinimum: true } } },
      9,
      /'minimum' must be a present/,
    ],
    ['a non-positive multipleOf', { properties: { a: { multipleOf: 0 } } }, 9, /positive value/],
    ['an empty anyOf', { anyOf: [] }, 2, /non-empty array/],
    ['a property schema that is not an object', { properties: { a: 1 } }, 14, /property 'a' must be an object/],
    ['a description that is not a string', { description: 5 }, 14, /'description' must be of type string/],
    ['a negative minLength', { properties: { a: { minLength: -1 } } }, 9, /non-negative/],
  ];
  for (const [what, schema, code, message] of cases) {
    it(`refuses ${what} with code ${code}`, () => {
      expectError(() => compileJsonSchema(schema), code, message);
    });
  }

  it('the listed keywords are exactly the ones accepted', () => {
    for (const keyword of JSON_SCHEMA_KEYWORDS) {
      // Each listed keyword is known to the parser: it may reject the value, never the name.
      try {
        compileJsonSchema({ [keyword]: null });
      } catch (err) {
        assert.doesNotMatch((err as Error).message, /Unknown \$jsonSchema keyword/, keyword);
      }
    }
  });
});

describe('$jsonSchema as a query operator', () => {
  it('find with $jsonSchema returns the documents that satisfy the schema', () => {
    const engine = new Engine();
    engine.runCommand('db', {
      insert: 'c',
      documents: [
        { _id: 1, name: 'a', age: 3 },
        { _id: 2, name: 5 },
        { _id: 3, age: 1 },
      ],
    });
    const r = engine.runCommand('db', {
      find: 'c',
      filter: { $jsonSchema: { required: ['name'], properties: { name: { bsonType: 'string' } } } },
    });
    assert.deepEqual(
      ((r.cursor as Document).firstBatch as Document[]).map((d) => d._id),
      [1],
    );
    engine.close();
  });
});

describe('$jsonSchema encrypt and encryptMetadata (client-side field level encryption)', () => {
  const key = new Binary(Buffer.alloc(16, 7), 4);
  /** An encrypted value: blob subtype, key id, then the original's BSON type, then ciphertext. */
  function encrypted(blobSubtype: number, originalType: number): Binary {
    return new Binary(
      Buffer.concat([Buffer.from([blobSubtype]), Buffer.alloc(16, 7), Buffer.from([originalType, 1, 2, 3])]),
      6,
    );
  }

  it('encrypt holds for BinData of subtype 6 only, at any depth, and never traverses arrays by itself', () => {
    const schema = { properties: { bin: { encrypt: {} } } };
    assert.equal(passes(schema, { bin: new Binary(Buffer.alloc(4), 6) }), true);
    assert.equal(passes(schema, { bin: new Binary(Buffer.alloc(4), 0) }), false);
    assert.equal(passes(schema, { bin: {} }), false);
    assert.equal(passes(schema, { bin: [new Binary(Buffer.alloc(4), 6)] }), false);
    assert.equal(passes(schema, {}), true);
    const items = { properties: { arr: { type: 'array', items: { encrypt: {} } } } };
    assert.equal(passes(items, { arr: [new Binary(Buffer.alloc(4), 6)] }), true);
  });

  it('encrypt.bsonType reads the original type from the encryption header (deterministic or random blobs)', () => {
    const schema = {
      properties: {
        s: { encrypt: { bsonType: 'string', keyId: [key], algorithm: 'AEAD_AES_256_CBC_HMAC_SHA_512-Random' } },
      },
    };
    assert.equal(passes(schema, { s: encrypted(2, 2) }), true);
    assert.equal(passes(schema, { s: encrypted(1, 2) }), true);
    assert.equal(passes(schema, { s: encrypted(1, 16) }), false);
    assert.equal(passes(schema, { s: encrypted(3, 2) }), false);
  });

  it('encrypt with type or bsonType beside it, or an unknown field in it, fails to parse', () => {
    expectError(
      () => compileJsonSchema({ properties: { b: { encrypt: {}, type: 'object' } } }),
      9,
      /'encrypt' and 'type'/,
    );
    expectError(
      () => compileJsonSchema({ properties: { b: { encrypt: {}, bsonType: 'object' } } }),
      9,
      /'encrypt' and 'bsonType'/,
    );
    expectError(() => compileJsonSchema({ properties: { b: { encrypt: { foo: 1 } } } }), 40415);
    expectError(() => compileJsonSchema({ properties: { b: { encrypt: 1 } } }), 14);
    expectError(() => compileJsonSchema({ properties: { b: { encrypt: { algorithm: 'rot13' } } } }), 2);
  });

  it('encryptMetadata is checked for its shape and matches every document', () => {
    assert.equal(passes({ encryptMetadata: { keyId: [key] }, properties: { a: { bsonType: 'int' } } }, {}), true);
    expectError(() => compileJsonSchema({ encryptMetadata: {} }), 9);
    expectError(() => compileJsonSchema({ encryptMetadata: { keyId: '/ok', bsonType: 'string' } }), 40415);
  });
});
