/**
 * Scripts of the corpus whose output differs from mongosh's on purpose, each with the reason
 * (docs/mongosh-parity.md says the same for users). The parity test fails when a listed script
 * matches again, so the list only holds differences that exist.
 */
const BULK_CODENAME =
  "MongoBulkWriteError carries the first write error's codeName (DuplicateKey) here: every error of the project carries code and codeName; mongosh's leaves codeName undefined.";

export const DELIBERATE: Record<string, string> = {
  'generated/bulk/084-ordered-duplicate-key': BULK_CODENAME,
  'generated/insert/091-insertMany-duplicate-ordered': BULK_CODENAME,
  'generated/insert/092-insertMany-duplicate-unordered-caught': BULK_CODENAME,
  'generated/errors/300-caught-bulk-error-fields': BULK_CODENAME,
  'generated/cursor/049-close-isClosed':
    "isClosed() is true once close() was called; mongosh's (the driver's) stays false while read documents are left in the closed cursor's buffer.",
  'generated/shell/173-use-bad-name':
    "use() with a bad name fails with the engine's InvalidNamespace (73), which says which characters are not allowed; mongosh checks the name itself (MongoshInvalidInputError, no code).",
  'generated/print/234-print-error':
    'An Error prints with its stack, whose frames name the line in the script; mongosh reports lines of its rewritten code.',
  'generated/printjson/235-printjson-error':
    'An Error prints with its stack, whose frames name the line in the script; mongosh reports lines of its rewritten code.',
  'generated/bson/273-UUID-methods':
    "UUID() returns the BSON library's UUID (toHexString() and the rest); mongosh 2.x returns a plain Binary without them.",
  'generated/bson/274-UUID-bad':
    "UUID('xyz') fails and says what a UUID looks like; mongosh 2.x returns an empty Binary without a word.",
  'generated/bson/275-UUID-new':
    "UUID() returns the BSON library's UUID (toHexString() and the rest); mongosh 2.x returns a plain Binary without them.",
  'generated/errors/297-thrown-string':
    'A thrown non-Error value is reported as "Uncaught: value" with the line it came from; mongosh reports it without a line.',
  'generated/errors/301-server-error-instanceof':
    'MongoServerError and MongoBulkWriteError are globals here, so a script can test what it caught; mongosh does not define them.',
};
