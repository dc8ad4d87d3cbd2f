/**
 * The names of the files a data folder holds, in one place for the store that writes them and
 * the tools that read a folder without opening it (verify, salvage). Generations are written
 * without leading zeros and stay far below 2^53: any other spelling is a stray file, never read.
 */
export const SNAPSHOT_NAME = /^snapshot-(0|[1-9]\d{0,14})\.ttls$/;
export const JOURNAL_NAME = /^journal-(0|[1-9]\d{0,14})\.ttlj$/;
/** A file recovery could not use whole, kept aside under a second name (never deleted by the store). */
export const KEPT_NAME =
  /^(snapshot-(0|[1-9]\d{0,14})\.ttls|journal-(0|[1-9]\d{0,14})\.ttlj)\.(damaged|unreplayed)-\d+$/;
/** The temporary file of a compaction that died before its rename. */
export const COMPACTION_TMP_NAME = /^\.snapshot-\d+\.ttls\.\d+\.tmp$/;
