/** Cosmos DB (RU) TTL in words and its refusals (ttl-semantics.md §10). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Double, Int32, Long } from 'bson';
import {
  cosmosRefusal,
  describeDocumentTTL,
  describeTimestampIndex,
  validCosmosTTL,
} from '../../../src/extension/backend/cosmos-rules';

describe('Cosmos DB TTL in words', () => {
  test('rule 10.1: the _ts index reads as a TTL after the last write', () => {
    assert.equal(describeTimestampIndex(3600), 'TTL 1 h after the last write (_ts)');
  });

  test('rule 10.3: valid ttl values are whole int32 numbers of any numeric type', () => {
    assert.equal(validCosmosTTL(20), 20);
    assert.equal(validCosmosTTL(new Double(20)), 20);
    assert.equal(validCosmosTTL(new Int32(20)), 20);
    assert.equal(validCosmosTTL(Long.fromNumber(20)), 20);
    assert.equal(validCosmosTTL(20.5), undefined);
    assert.equal(validCosmosTTL(Long.fromString('2147483649')), undefined);
    assert.equal(validCosmosTTL('20'), undefined);
  });

  test('rule 10.2: a valid per-document ttl overrides the collection value', () => {
    assert.match(
      describeDocumentTTL({ ttl: 60 }, 3600),
      /^expires 1 min after its last write \(its own ttl overrides the collection's 1 h/,
    );
  });

  test('rule 10.3: an invalid ttl is ignored and the collection value applies', () => {
    assert.match(
      describeDocumentTTL({ ttl: 20.5 }, 3600),
      /^expires 1 h after .*ttl 20\.5 is not a whole int32 and is ignored \(rule 10\.3\)/,
    );
  });

  test('rule 10.4: ttl -1 never expires; no ttl uses the collection value', () => {
    assert.equal(describeDocumentTTL({ ttl: -1 }, 3600), 'never expires (ttl: -1, rule 10.4)');
    assert.match(describeDocumentTTL({}, 3600), /^expires 1 h after its last write/);
  });

  test('rule 10.2: without a _ts TTL index a per-document ttl means nothing', () => {
    assert.match(describeDocumentTTL({ ttl: 60 }, undefined), /ignored because the collection has no TTL index on _ts/);
  });
});

describe("Cosmos DB's refusals", () => {
  test('rule 10.1: a TTL index on a field other than _ts is refused, _ts is not', () => {
    assert.match(
      cosmosRefusal({ kind: 'createTTLIndex', field: 'expireAt' }) ?? '',
      /on _ts only \(rule 10\.1\).*expireAt/,
    );
    assert.equal(cosmosRefusal({ kind: 'createTTLIndex', field: '_ts' }), undefined);
  });

  test("rule 10.5: monitor parameters are the service's; the preview cannot count _ts", () => {
    assert.match(cosmosRefusal({ kind: 'setMonitorParameters' }) ?? '', /rule 10\.5/);
    assert.match(cosmosRefusal({ kind: 'preview' }) ?? '', /rule 10\.1/);
  });
});
