/**
 * create's `storageEngine` and `indexOptionDefaults` options: per-storage-engine settings keyed by
 * a registered engine's name. The engine has one storage engine, which takes no settings, so an
 * empty document under its name is all that validates; the options are kept and listed as given,
 * as mongod keeps them.
 */
import { fail } from '../errors';
import { cloneDocument } from '../values/clone';
import { bsonTypeOf, isPlainObject, type Document } from '../values/types';
import { STORAGE_ENGINE } from './server-identity';

/** `{<engine name>: {<its settings>}}`, checked as mongod's storage engine factory checks it. */
export function parseStorageEngineOptions(where: string, value: unknown): Document {
  if (!isPlainObject(value))
    fail('TypeMismatch', `BSON field '${where}' is the wrong type '${bsonTypeOf(value)}', expected type 'object'`);
  for (const name of Object.keys(value)) {
    if (name !== STORAGE_ENGINE)
      fail('InvalidOptions', `unknown storage engine: ${name}. The registered one is ${STORAGE_ENGINE}.`);
    const settings = value[name];
    if (!isPlainObject(settings)) fail('BadValue', `'${where}.${name}' has to be an embedded document.`);
    const first = Object.keys(settings)[0];
    if (first !== undefined)
      fail('InvalidOptions', `${STORAGE_ENGINE} takes no storage engine settings: remove '${where}.${name}.${first}'.`);
  }
  return cloneDocument(value);
}

/** `indexOptionDefaults`: only `storageEngine`, the settings each new index of the collection gets. */
export function parseIndexOptionDefaults(value: unknown): Document {
  if (!isPlainObject(value))
    fail(
      'TypeMismatch',
      `BSON field 'create.indexOptionDefaults' is the wrong type '${bsonTypeOf(value)}', expected type 'object'`,
    );
  for (const key of Object.keys(value)) {
    if (key !== 'storageEngine')
      fail(40415, `BSON field 'create.indexOptionDefaults.${key}' is an unknown field. It takes only storageEngine.`);
  }
  if (value.storageEngine === undefined) return {};
  return { storageEngine: parseStorageEngineOptions('create.indexOptionDefaults.storageEngine', value.storageEngine) };
}
