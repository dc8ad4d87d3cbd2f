/**
 * The client's side of SCRAM-SHA-256 for tests, written from RFC 5802 section 3 (node:crypto):
 * answers a server-first with the proof for a password, and says what server-final must be.
 */
import { createHash, createHmac, pbkdf2Sync } from 'node:crypto';

export interface ClientFinal {
  /** c=biws,r=...,p=... */
  message: string;
  /** The server-final a server that knows the password answers: v=... */
  expectedServerFinal: string;
}

export function scramClientFinal(password: string, clientFirstBare: string, serverFirst: string): ClientFinal {
  const fields = Object.fromEntries(serverFirst.split(',').map((p) => [p[0], p.slice(2)]));
  const salted = pbkdf2Sync(password, Buffer.from(fields.s, 'base64'), Number(fields.i), 32, 'sha256');
  const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest();
  const clientKey = hmac(salted, 'Client Key');
  const storedKey = createHash('sha256').update(clientKey).digest();
  const withoutProof = `c=biws,r=${fields.r}`;
  const authMessage = `${clientFirstBare},${serverFirst},${withoutProof}`;
  const signature = hmac(storedKey, authMessage);
  const proof = Buffer.from(clientKey.map((b, i) => b ^ signature[i]));
  return {
    message: `${withoutProof},p=${proof.toString('base64')}`,
    expectedServerFinal: `v=${hmac(hmac(salted, 'Server Key'), authMessage).toString('base64')}`,
  };
}
