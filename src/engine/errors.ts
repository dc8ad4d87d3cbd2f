/**
 * MongoDB error codes the engine answers with. Names are mongod's codeNames (error_codes.yml), so
 * a client written against a real server can branch on the same values.
 */
export const ErrorCode = {
  InternalError: 1,
  BadValue: 2,
  GraphContainsCycle: 5,
  Unauthorized: 13,
  ProtocolError: 17,
  AuthenticationFailed: 18,
  MechanismUnavailable: 334,
  InvalidLength: 16,
  NoSuchKey: 4,
  FailedToParse: 9,
  TypeMismatch: 14,
  Overflow: 15,
  OperationFailed: 96,
  NoQueryExecutionPlans: 291,
  IllegalOperation: 20,
  NamespaceNotFound: 26,
  IndexNotFound: 27,
  PathNotViable: 28,
  ConflictingUpdateOperators: 40,
  CursorNotFound: 43,
  CappedPositionLost: 136,
  QueryPlanKilled: 175,
  ClientMetadataCannotBeMutated: 186,
  NamespaceExists: 48,
  DatabaseDifferCase: 13297,
  MaxTimeMSExpired: 50,
  DollarPrefixedFieldName: 52,
  InvalidIdField: 53,
  InvalidDBRef: 55,
  NotSingleValueField: 54,
  NotExactValueField: 111,
  CommandNotFound: 59,
  ImmutableField: 66,
  CannotCreateIndex: 67,
  InvalidOptions: 72,
  NoReplicationEnabled: 76,
  NotAReplicaSet: 123,
  AlreadyInitialized: 23,
  WriteConflict: 112,
  ConflictingOperationInProgress: 117,
  TransactionTooOld: 225,
  IncompleteTransactionHistory: 217,
  SnapshotTooOld: 239,
  NoSuchTransaction: 251,
  TransactionCommitted: 256,
  InvalidResumeToken: 260,
  OperationNotSupportedInTransaction: 263,
  ChangeStreamFatalError: 280,
  ChangeStreamHistoryLost: 286,
  InvalidNamespace: 73,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  CannotIndexParallelArrays: 171,
  DocumentValidationFailure: 121,
  ViewDepthLimitExceeded: 165,
  CommandNotSupportedOnView: 166,
  OptionNotSupportedOnView: 167,
  IncompatibleCollationVersion: 161,
  InvalidViewDefinition: 182,
  InvalidIndexSpecificationOption: 197,
  InvalidPipelineOperator: 168,
  NotImplemented: 238,
  InvalidUUID: 242,
  Location17419: 17419,
  Location51024: 51024,
  AmbiguousIndexKeyPattern: 181,
  QueryFeatureNotAllowed: 224,
  Location40415: 40415,
  DuplicateKey: 11000,
  Interrupted: 11601,
  BSONObjectTooLarge: 10334,
  Location31254: 31254,
  Location31253: 31253,
  Location15974: 15974,
  Location16410: 16410,
  Location40323: 40323,
  Location40324: 40324,
  Location15952: 15952,
  Location6049202: 6049202,
  Location5979700: 5979700,
} as const;

export type ErrorCodeName = keyof typeof ErrorCode;

/** Maps a numeric code back to the name mongod reports (`Location<n>` for codes without a name). */
export function codeNameOf(code: number): string {
  switch (code) {
    case 166:
      return 'CommandNotSupportedOnView';
  }
  for (const [name, value] of Object.entries(ErrorCode)) {
    if (value === code) return name;
  }
  return `Location${code}`;
}

/** The one error type of the engine: a mongod error reply `{ok: 0, errmsg, code, codeName}`. */
export class EngineError extends Error {
  readonly code: number;
  readonly codeName: string;
  /** Extra reply fields (e.g. `keyPattern`/`keyValue` of a DuplicateKey). */
  readonly info?: Record<string, unknown>;

  constructor(code: number | ErrorCodeName, message: string, info?: Record<string, unknown>) {
    super(message);
    this.name = 'MongoServerError';
    this.code = typeof code === 'number' ? code : ErrorCode[code];
    this.codeName = codeNameOf(this.code);
    this.info = info;
  }

  get errmsg(): string {
    return this.message;
  }

  toReply(): Record<string, unknown> {
    return { ok: 0, errmsg: this.message, code: this.code, codeName: this.codeName, ...this.info };
  }
}

/** Shorthand for `throw new EngineError(...)` in expression position. */
export function fail(code: number | ErrorCodeName, message: string, info?: Record<string, unknown>): never {
  throw new EngineError(code, message, info);
}
