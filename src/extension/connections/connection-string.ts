/**
 * A connection string as the user types it, split into what may be stored in settings (the
 * string without its password) and the password, which goes to SecretStorage only. Parsing and
 * validation are `mongodb-connection-string-url`'s, the parser the driver itself uses, so a string
 * accepted here is one the driver accepts. No `vscode` import.
 */
import { ConnectionString, redactConnectionString } from 'mongodb-connection-string-url';

export interface ParsedConnection {
  /** The string as settings keep it: user name kept, password removed. */
  withoutPassword: string;
  /** The password typed in the string, if any (to be kept in SecretStorage). */
  password?: string;
  username?: string;
  srv: boolean;
  hosts: string[];
  /** `tls=true` / `ssl=true`, or implied by mongodb+srv. */
  tls: boolean;
}

export type ParseResult = { ok: true; value: ParsedConnection } | { ok: false; message: string };

/** Options that name a password or a secret file: never kept in a stored string. */
const SECRET_OPTIONS = ['tlsCertificateKeyFilePassword', 'sslPEMKeyPassword'];

export function parseConnectionString(text: string): ParseResult {
  const trimmed = text.trim();
  if (!/^mongodb(\+srv)?:\/\//i.test(trimmed))
    return {
      ok: false,
      message: 'A connection string starts with mongodb:// or mongodb+srv:// (for example mongodb://localhost:27017).',
    };
  let cs: ConnectionString;
  try {
    cs = new ConnectionString(trimmed);
  } catch (err) {
    // The parser's messages name the problem but may quote the string: never the password.
    const why = redactText((err as Error).message, trimmed);
    const fix = /unescaped/i.test(why)
      ? 'Percent-encode special characters of the user name and password (@ as %40, : as %3A, / as %2F).'
      : 'Check the host list and the options after "?".';
    return { ok: false, message: `Not a valid connection string: ${why}. ${fix}` };
  }
  const params = cs.typedSearchParams<Record<string, string>>();
  for (const name of SECRET_OPTIONS)
    if (params.has(name))
      return {
        ok: false,
        message: `Remove ${name} from the string: secrets are never stored in settings. Enter it in the TLS options instead.`,
      };
  const password = cs.password ? decodeURIComponent(cs.password) : undefined;
  const username = cs.username ? decodeURIComponent(cs.username) : undefined;
  if (password !== undefined && username === undefined)
    return {
      ok: false,
      message: 'The string has a password but no user name: write it as mongodb://USER:PASSWORD@HOST.',
    };
  const stripped = cs.clone();
  stripped.password = '';
  const tlsParam = params.get('tls') ?? params.get('ssl');
  return {
    ok: true,
    value: {
      withoutPassword: stripped.toString(),
      ...(password !== undefined && password !== '' ? { password } : {}),
      ...(username !== undefined ? { username } : {}),
      srv: cs.isSRV,
      hosts: [...cs.hosts],
      tls: tlsParam === null ? cs.isSRV : tlsParam.toLowerCase() === 'true',
    },
  };
}

/** The stored string with the password put back, for the driver only (never shown or logged). */
export function withPassword(stored: string, password: string | undefined): string {
  if (password === undefined || password === '') return stored;
  const cs = new ConnectionString(stored);
  if (!cs.username)
    throw new Error('A password is stored for a connection whose string has no user name: edit the connection.');
  cs.password = encodeURIComponent(password);
  return cs.toString();
}

/** The string with any password replaced by `****` (mongodb-connection-string-url's redaction). */
export function redactUri(uri: string): string {
  try {
    return redactConnectionString(uri);
  } catch {
    return uri.replace(/\/\/[^@/]*@/, '//****@');
  }
}

/**
 * A text (an error message, a log line) with every occurrence of the connection's password
 * removed: a driver or server message may quote the string it was given.
 */
export function redactText(text: string, uri: string, password?: string): string {
  let out = text.split(uri).join(redactUri(uri));
  const secrets = new Set<string>();
  if (password) secrets.add(password);
  try {
    const cs = new ConnectionString(uri, { looseValidation: true });
    if (cs.password) {
      secrets.add(cs.password);
      secrets.add(decodeURIComponent(cs.password));
    }
  } catch {
    // An unparsable string holds no password we can find; the URI itself was replaced above.
  }
  for (const s of secrets) if (s.length > 0) out = out.split(s).join('****');
  return out;
}
