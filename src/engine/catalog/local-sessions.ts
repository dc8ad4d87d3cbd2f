/**
 * mongod's logical session cache, the part a single server keeps in memory: the sessions started
 * on it (startSession) and those its commands carried (an lsid), each with its owner's digest and
 * its last use, as $listLocalSessions lists them. Ended sessions leave it. The engine runs without
 * users, so every session belongs to the no-auth user, whose digest is the SHA-256 of "".
 */
import { createHash } from 'node:crypto';
import { Binary, UUID } from 'bson';
import type { EngineContext } from '../engine-context';
import type { Document } from '../values/types';

interface LocalSession {
  id: UUID;
  uid: Buffer;
  lastUse: Date;
}

const cacheByEngine = new WeakMap<EngineContext, Map<string, LocalSession>>();

function cacheOf(engine: EngineContext): Map<string, LocalSession> {
  let cache = cacheByEngine.get(engine);
  if (!cache) cacheByEngine.set(engine, (cache = new Map()));
  return cache;
}

/** A user's digest as mongod computes it: SHA-256 of "user@db", or of "" for the no-auth user. */
export function userDigest(user: string, db: string): Buffer {
  return createHash('sha256')
    .update(user === '' && db === '' ? '' : `${user}@${db}`)
    .digest();
}

const NO_AUTH_DIGEST = userDigest('', '');

/** A UUID as the key of the cache; undefined for what is not a UUID (an lsid's id is one). */
function keyOf(id: unknown): string | undefined {
  if (id instanceof Binary && id.sub_type === Binary.SUBTYPE_UUID && id.buffer.length === 16)
    return Buffer.from(id.buffer).toString('hex');
  return undefined;
}

/** startSession: a new session in the cache, used now. */
export function startLocalSession(engine: EngineContext): UUID {
  const id = new UUID();
  cacheOf(engine).set(keyOf(id)!, { id, uid: NO_AUTH_DIGEST, lastUse: engine.now() });
  return id;
}

/** A command carried this lsid: its session is in the cache (added on first use, as mongod does) and used now. */
export function touchLocalSession(engine: EngineContext, lsid: unknown): void {
  const id = (lsid as Document | null | undefined)?.id;
  const key = keyOf(id);
  if (key === undefined) return;
  const cache = cacheOf(engine);
  const found = cache.get(key);
  if (found) found.lastUse = engine.now();
  else cache.set(key, { id: new UUID(Buffer.from((id as Binary).buffer)), uid: NO_AUTH_DIGEST, lastUse: engine.now() });
}

/** endSessions / killSessions: these sessions leave the cache; no lsids at all means every session. */
export function endLocalSessions(engine: EngineContext, lsids: readonly unknown[] | undefined): void {
  const cache = cacheOf(engine);
  if (lsids === undefined) return cache.clear();
  for (const lsid of lsids) {
    const key = keyOf((lsid as Document | null | undefined)?.id);
    if (key !== undefined) cache.delete(key);
  }
}

/**
 * $listLocalSessions: every session with allUsers, else those of the named users ({user, db}),
 * else those of the user running it (the no-auth user here).
 */
export function listLocalSessions(
  engine: EngineContext,
  options: { allUsers?: boolean; users?: readonly { user: string; db: string }[] },
): Document[] {
  const wanted = options.allUsers
    ? undefined
    : (options.users ?? [{ user: '', db: '' }]).map((u) => userDigest(u.user, u.db));
  const records: Document[] = [];
  for (const session of cacheOf(engine).values()) {
    if (wanted && !wanted.some((digest) => digest.equals(session.uid))) continue;
    records.push({
      _id: { id: new UUID(Buffer.from(session.id.buffer)), uid: new Binary(session.uid, 0) },
      lastUse: new Date(session.lastUse.getTime()),
    });
  }
  return records;
}
