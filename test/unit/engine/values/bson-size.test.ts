/**
 * bsonDocumentSize: the size of a document as it is written out (numbers as doubles), the number
 * calculateObjectSize gives for its storable form, over random documents of every BSON type.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { calculateObjectSize } from 'bson';
import { storableDocument } from '../../../../src/engine/storage/values';
import { bsonDocumentSize } from '../../../../src/engine/values/bson-size';
import { randomDocuments } from '../../helpers/random-documents';

describe('bsonDocumentSize', () => {
  it('equals calculateObjectSize of the written form, for 2,000 random documents', () => {
    const doc = randomDocuments(424242);
    for (let i = 0; i < 2000; i++) {
      const d = doc();
      assert.equal(bsonDocumentSize(d), calculateObjectSize(storableDocument(d)), JSON.stringify(Object.keys(d)));
    }
  });

  it('an array of 12,000 elements (index names of 1 to 5 digits)', () => {
    const d = { a: Array.from({ length: 12_000 }, (_, i) => i) };
    assert.equal(bsonDocumentSize(d), calculateObjectSize(storableDocument(d)));
  });
});
