/** Database and collection name rules (InvalidNamespace 73), as mongod enforces them. */
import { fail } from '../errors';

const SYSTEM_DATABASES = new Set(['admin', 'local', 'config']);

export function validateDatabaseName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0) fail('InvalidNamespace', 'Database name cannot be empty.');
  if (name.length >= 64) fail('InvalidNamespace', `Database name '${name}' is too long: use fewer than 64 characters.`);
  const bad = /[/\\. "$\0*<>:|?]/.exec(name);
  if (bad)
    fail(
      'InvalidNamespace',
      `Invalid database name '${name}': it cannot contain ${JSON.stringify(bad[0])} (not allowed: / \\ . " $ * < > : | ? space).`,
    );
  return name;
}

export function validateCollectionName(db: string, name: unknown): string {
  if (typeof name !== 'string')
    fail('InvalidNamespace', `Collection name must be a string, got ${JSON.stringify(name)}.`);
  if (name.length === 0) fail('InvalidNamespace', 'Collection names cannot be empty.');
  if (name.includes('\0')) fail('InvalidNamespace', 'Collection names cannot contain the null character.');
  if (name.includes('$'))
    fail('InvalidNamespace', `Invalid collection name '${name}': collection names cannot contain '$'.`);
  if (name.startsWith('.') || name.endsWith('.'))
    fail('InvalidNamespace', `Invalid collection name '${name}': it cannot start or end with '.'.`);
  // system.views holds a database's view definitions: mongod lets clients read and write it.
  if (name.startsWith('system.') && name !== 'system.views' && !SYSTEM_DATABASES.has(db)) {
    fail(
      'InvalidNamespace',
      `Invalid system namespace: ${db}.${name}. Names starting with 'system.' are reserved; pick another name.`,
    );
  }
  if (db.length + 1 + name.length > 255)
    fail('InvalidNamespace', `Fully qualified namespace ${db}.${name} is too long (max 255 bytes).`);
  return name;
}
