/**
 * The file system as durable storage sees it: every call the store, its journal, its atomic
 * writes and its lock make goes through one `StorageFs`. Production passes Node's `fs`; the
 * fault-injection tests pass a wrapper that fails chosen calls with ENOSPC or EIO, so the store's
 * own code (not a mock of it) meets a full or failing disk.
 */
import * as fs from 'node:fs';

export type StorageFs = Pick<
  typeof fs,
  | 'mkdirSync'
  | 'readdirSync'
  | 'existsSync'
  | 'openSync'
  | 'closeSync'
  | 'readSync'
  | 'writeSync'
  | 'fsyncSync'
  | 'fdatasyncSync'
  | 'fsync'
  | 'ftruncateSync'
  | 'fstatSync'
  | 'statSync'
  | 'readFileSync'
  | 'writeFileSync'
  | 'renameSync'
  | 'rmSync'
  | 'linkSync'
  | 'copyFileSync'
> & { promises: Pick<typeof fs.promises, 'rm'> };

/** Node's own file system: what every store uses unless a test says otherwise. */
export const nodeFs: StorageFs = fs;
