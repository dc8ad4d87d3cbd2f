/**
 * The server side of SCRAM-SHA-256 (RFC 5802 with SHA-256, RFC 7677), as pure functions and one
 * small state machine: no sockets, no BSON. The server keeps only what RFC 5802 lets it keep,
 * computed once from the password: the salt, the iteration count, StoredKey = H(ClientKey) and
 * ServerKey, where ClientKey = HMAC(SaltedPassword, "Client Key"), ServerKey =
 * HMAC(SaltedPassword, "Server Key") and SaltedPassword = PBKDF2-HMAC-SHA-256(SASLprep(password),
 * salt, i). The password itself is not kept.
 *
 * One conversation:
 *   client-first  n,,n=<user>,r=<client nonce>
 *   server-first  r=<client nonce><server nonce>,s=<base64 salt>,i=<iterations>
 *   client-final  c=biws,r=<both nonces>,p=<base64 ClientKey XOR HMAC(StoredKey, AuthMessage)>
 *   server-final  v=<base64 HMAC(ServerKey, AuthMessage)>
 * with AuthMessage = client-first-bare + "," + server-first + "," + client-final-without-proof.
 * Every refusal is a ScramError whose message says why (for the server's log); the wire answers
 * each with mongod's bare "Authentication failed.".
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import { saslPrep } from './saslprep';

export const SCRAM_SHA_256 = 'SCRAM-SHA-256';
/** mongod's default scramSHA256IterationCount. */
export const DEFAULT_ITERATIONS = 15_000;
/** RFC 7677's minimum; clients refuse fewer. */
export const MIN_ITERATIONS = 4096;
const SALT_BYTES = 28;
const NONCE_BYTES = 24;

/** What the server stores for a user: enough to check a proof, not to make one. */
export interface ScramCredentials {
  user: string;
  salt: Buffer;
  iterations: number;
  storedKey: Buffer;
  serverKey: Buffer;
}

export class ScramError extends Error {}

const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text, 'utf8').digest();
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest();

/** Derives a user's stored credentials; the password is SASLprepped first (SaslPrepError if it cannot be). */
export function deriveCredentials(
  user: string,
  password: string,
  options: { salt?: Buffer; iterations?: number } = {},
): ScramCredentials {
  const iterations = options.iterations ?? DEFAULT_ITERATIONS;
  if (!Number.isInteger(iterations) || iterations < MIN_ITERATIONS)
    throw new RangeError(`SCRAM-SHA-256 needs at least ${MIN_ITERATIONS} iterations, got ${iterations}`);
  const salt = options.salt ?? randomBytes(SALT_BYTES);
  const salted = pbkdf2Sync(Buffer.from(saslPrep(password), 'utf8'), salt, iterations, 32, 'sha256');
  const clientKey = hmac(salted, 'Client Key');
  return { user, salt, iterations, storedKey: sha256(clientKey), serverKey: hmac(salted, 'Server Key') };
}

/**
 * One SCRAM-SHA-256 conversation on the server: `start` takes client-first and answers
 * server-first, `finish` takes client-final and answers server-final. Any refusal ends the
 * conversation (state "failed"); after server-final it is "done" and takes nothing more, so a
 * replayed client-final is refused.
 */
export class ScramConversation {
  state: 'new' | 'started' | 'done' | 'failed' = 'new';
  /** The user named in client-first (known once start has parsed it). */
  user: string | undefined;
  private credentials: ScramCredentials | undefined;
  private gs2Header = '';
  private clientFirstBare = '';
  private serverFirst = '';
  private nonce = '';

  constructor(
    private readonly lookup: (user: string) => ScramCredentials | undefined,
    private readonly serverNonce: () => string = () => randomBytes(NONCE_BYTES).toString('base64'),
  ) {}

  start(clientFirst: string): string {
    return this.step('new', () => {
      const header = /^([ny]|p=[^,]*),(a=[^,]*)?,/.exec(clientFirst);
      if (!header) throw new ScramError('client-first does not start with a GS2 header such as "n,,"');
      if (header[1].startsWith('p='))
        throw new ScramError(
          'the client asks for channel binding (SCRAM-SHA-256-PLUS), which this server does not offer',
        );
      if (header[2] !== undefined)
        throw new ScramError('the client names an authorization identity (a=...), which this server does not take');
      this.gs2Header = header[0];
      this.clientFirstBare = clientFirst.slice(header[0].length);
      const attrs = attributes(this.clientFirstBare, 'client-first');
      if (attrs[0]?.[0] === 'm')
        throw new ScramError('client-first carries a mandatory extension (m=) this server does not know');
      if (attrs[0]?.[0] !== 'n' || attrs[1]?.[0] !== 'r')
        throw new ScramError('client-first-bare must be n=<user>,r=<nonce>');
      const user = decodeName(attrs[0][1]);
      const clientNonce = attrs[1][1];
      if (!isNonce(clientNonce))
        throw new ScramError('the client nonce is empty or has characters outside printable ASCII');
      this.user = user;
      this.credentials = this.lookup(user);
      if (!this.credentials) throw new ScramError(`no user "${user}" here`);
      this.nonce = clientNonce + this.serverNonce();
      this.serverFirst = `r=${this.nonce},s=${this.credentials.salt.toString('base64')},i=${this.credentials.iterations}`;
      return this.serverFirst;
    });
  }

  finish(clientFinal: string): string {
    return this.step('started', () => {
      const proofAt = clientFinal.lastIndexOf(',p=');
      if (proofAt < 0) throw new ScramError('client-final has no proof (p=) at its end');
      const withoutProof = clientFinal.slice(0, proofAt);
      const attrs = attributes(withoutProof, 'client-final');
      if (attrs[0]?.[0] !== 'c' || attrs[1]?.[0] !== 'r')
        throw new ScramError('client-final must be c=<channel binding>,r=<nonce>,...,p=<proof>');
      if (!isBase64(attrs[0][1]) || Buffer.from(attrs[0][1], 'base64').toString('latin1') !== this.gs2Header)
        throw new ScramError("the channel binding (c=) does not repeat client-first's GS2 header");
      if (attrs[1][1] !== this.nonce)
        throw new ScramError('the nonce in client-final is not the one server-first sent');
      const proofText = clientFinal.slice(proofAt + 3);
      const proof = Buffer.from(proofText, 'base64');
      if (!isBase64(proofText) || proof.length !== 32) throw new ScramError('the proof is not 32 bytes of base64');
      const credentials = this.credentials!;
      const authMessage = `${this.clientFirstBare},${this.serverFirst},${withoutProof}`;
      const signature = hmac(credentials.storedKey, authMessage);
      const clientKey = Buffer.alloc(32);
      for (let i = 0; i < 32; i++) clientKey[i] = proof[i] ^ signature[i];
      if (!timingSafeEqual(sha256(clientKey), credentials.storedKey))
        throw new ScramError('the proof is wrong (wrong password)');
      return `v=${hmac(credentials.serverKey, authMessage).toString('base64')}`;
    });
  }

  private step(expected: ScramConversation['state'], run: () => string): string {
    if (this.state !== expected) {
      const was = this.state;
      this.state = 'failed';
      throw new ScramError(
        was === 'done'
          ? 'the conversation is over: a finished conversation takes no more messages'
          : `a ${expected === 'new' ? 'client-first' : 'client-final'} message was not expected now (the conversation is ${was})`,
      );
    }
    try {
      const answer = run();
      this.state = expected === 'new' ? 'started' : 'done';
      return answer;
    } catch (err) {
      this.state = 'failed';
      throw err;
    }
  }
}

/** `k=v,k=v,...` into pairs; every attribute is one letter, "=", then its value. */
function attributes(text: string, what: string): Array<[string, string]> {
  return text.split(',').map((part) => {
    if (!/^[a-zA-Z]=/.test(part)) throw new ScramError(`${what} has a malformed attribute "${part.slice(0, 20)}"`);
    return [part[0], part.slice(2)];
  });
}

/** saslname: "=2C" is a comma, "=3D" an equals sign; any other "=" is malformed. */
function decodeName(name: string): string {
  if (/=(?!2C|3D)/.test(name)) throw new ScramError('the user name has an "=" that is not =2C or =3D');
  if (!name) throw new ScramError('the user name is empty');
  return name.replace(/=2C/g, ',').replace(/=3D/g, '=');
}

function isNonce(nonce: string): boolean {
  return /^[\x21-\x2b\x2d-\x7e]+$/.test(nonce);
}

function isBase64(text: string): boolean {
  return /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text);
}
