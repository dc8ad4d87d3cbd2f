/**
 * The SCRAM-SHA-256 server machine and SASLprep on their own: RFC 7677's published exchange
 * (section 3: user "user", password "pencil"), refusals (wrong proof, wrong nonce, a finished
 * conversation replayed, channel binding, malformed messages), and RFC 4013's SASLprep examples.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { saslPrep, SaslPrepError } from '../../../src/wire/saslprep';
import { deriveCredentials, ScramConversation, ScramError, type ScramCredentials } from '../../../src/wire/scram';
import { scramClientFinal } from './scram-client';

// RFC 7677 section 3 (repeated in MongoDB's auth spec, "SCRAM-SHA-256: Conversation").
const RFC = {
  salt: 'W22ZaJ0SNY7soEsUEjb6gQ==',
  clientNonce: 'rOprNGfwEbeRWgbNEkqO',
  serverNonce: '%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0',
  clientFirst: 'n,,n=user,r=rOprNGfwEbeRWgbNEkqO',
  serverFirst: 'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096',
  clientFinal:
    'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=',
  serverFinal: 'v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=',
};

function rfcCredentials(user = 'user', password = 'pencil'): ScramCredentials {
  return deriveCredentials(user, password, { salt: Buffer.from(RFC.salt, 'base64'), iterations: 4096 });
}

function conversation(credentials: ScramCredentials = rfcCredentials()): ScramConversation {
  return new ScramConversation(
    (user) => (user === credentials.user ? credentials : undefined),
    () => RFC.serverNonce,
  );
}

function clientFinal(password: string, clientFirstBare: string, serverFirst: string): string {
  return scramClientFinal(password, clientFirstBare, serverFirst).message;
}

const refused = (pattern: RegExp) => (e: unknown) => e instanceof ScramError && pattern.test(e.message);

describe('SCRAM-SHA-256 server', () => {
  test("RFC 7677's exchange: server-first and server-final byte for byte", () => {
    const conv = conversation();
    assert.equal(conv.start(RFC.clientFirst), RFC.serverFirst);
    assert.equal(conv.user, 'user');
    assert.equal(conv.finish(RFC.clientFinal), RFC.serverFinal);
    assert.equal(conv.state, 'done');
    // The tests' client (scram-client.ts) reproduces the RFC's client side too.
    const client = scramClientFinal('pencil', RFC.clientFirst.slice(3), RFC.serverFirst);
    assert.deepEqual(client, { message: RFC.clientFinal, expectedServerFinal: RFC.serverFinal });
  });

  test('the server keeps the salt, the count, StoredKey and ServerKey: not the password', () => {
    const c = rfcCredentials();
    assert.deepEqual(Object.keys(c).sort(), ['iterations', 'salt', 'serverKey', 'storedKey', 'user']);
    assert.equal(c.storedKey.length, 32);
    assert.ok(!c.storedKey.equals(c.serverKey));
    const fresh = deriveCredentials('user', 'pencil');
    assert.equal(fresh.iterations, 15000, "mongod's default scramSHA256IterationCount");
    assert.ok(!fresh.salt.equals(deriveCredentials('user', 'pencil').salt), 'a new salt each time');
    assert.throws(() => deriveCredentials('user', 'pencil', { iterations: 4095 }), RangeError);
  });

  test('a wrong proof (a wrong password) is refused and ends the conversation', () => {
    const conv = conversation();
    const serverFirst = conv.start(RFC.clientFirst);
    assert.throws(
      () => conv.finish(clientFinal('pencils', 'n=user,r=rOprNGfwEbeRWgbNEkqO', serverFirst)),
      refused(/proof is wrong/),
    );
    assert.equal(conv.state, 'failed');
    assert.throws(() => conv.finish(RFC.clientFinal), refused(/not expected now/));

    const tampered = RFC.clientFinal.replace('p=dHzb', 'p=dHzc');
    const again = conversation();
    again.start(RFC.clientFirst);
    assert.throws(() => again.finish(tampered), refused(/proof is wrong/));
  });

  test('a proof for another nonce, or a nonce cut short, is refused', () => {
    const conv = conversation();
    conv.start(RFC.clientFirst);
    const otherNonce = RFC.clientFinal.replace('hNlF$k0', 'hNlF$k1');
    assert.throws(() => conv.finish(otherNonce), refused(/nonce in client-final/));

    const cut = conversation();
    cut.start(RFC.clientFirst);
    assert.throws(
      () => cut.finish(`c=biws,r=${RFC.clientNonce},p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=`),
      refused(/nonce/),
    );
  });

  test('a finished conversation takes no more messages: a replayed client-final is refused', () => {
    const conv = conversation();
    conv.start(RFC.clientFirst);
    conv.finish(RFC.clientFinal);
    assert.throws(() => conv.finish(RFC.clientFinal), refused(/conversation is over/));
    assert.throws(() => conv.start(RFC.clientFirst), refused(/not expected now/));
    // The server nonce is fresh for every conversation, so a recorded exchange fails in a new one.
    const fresh = new ScramConversation(
      () => rfcCredentials(),
      () => 'another-server-nonce',
    );
    fresh.start(RFC.clientFirst);
    assert.throws(() => fresh.finish(RFC.clientFinal), refused(/nonce/));
  });

  test('client-final before client-first is refused', () => {
    assert.throws(() => conversation().finish(RFC.clientFinal), refused(/client-final message was not expected/));
  });

  test('an unknown user, channel binding, an authorization identity and malformed messages are refused', () => {
    assert.throws(() => conversation().start('n,,n=someone,r=abc'), refused(/no user "someone"/));
    assert.throws(() => conversation().start('p=tls-unique,,n=user,r=abc'), refused(/channel binding/));
    assert.throws(() => conversation().start('n,a=admin,n=user,r=abc'), refused(/authorization identity/));
    assert.throws(() => conversation().start('hello'), refused(/GS2 header/));
    assert.throws(() => conversation().start('n,,r=abc,n=user'), refused(/n=<user>,r=<nonce>/));
    assert.throws(() => conversation().start('n,,m=ext,n=user,r=abc'), refused(/mandatory extension/));
    assert.throws(() => conversation().start('n,,n=user,r='), refused(/nonce is empty/));
    assert.throws(() => conversation().start('n,,n=us=er,r=abc'), refused(/=2C or =3D/));

    const conv = conversation();
    conv.start(RFC.clientFirst);
    assert.throws(() => conv.finish(RFC.clientFinal.replace(',p=', ',q=')), refused(/no proof/));
    const other = conversation();
    other.start(RFC.clientFirst);
    // c= must repeat the GS2 header of client-first ("n,," is "biws"; "eSws" is "y,,").
    assert.throws(() => other.finish(RFC.clientFinal.replace('c=biws', 'c=eSws')), refused(/channel binding \(c=\)/));
    const short = conversation();
    short.start(RFC.clientFirst);
    assert.throws(() => short.finish(RFC.clientFinal.replace(/p=.*$/, 'p=AAAA')), refused(/32 bytes/));
  });

  test('a user name with "," and "=" travels as =2C and =3D', () => {
    const credentials = deriveCredentials('a,b=c', 'pw', { iterations: 4096 });
    const conv = conversation(credentials);
    const bare = 'n=a=2Cb=3Dc,r=xyz';
    const serverFirst = conv.start(`n,,${bare}`);
    assert.equal(conv.user, 'a,b=c');
    assert.match(conv.finish(clientFinal('pw', bare, serverFirst)), /^v=/);
  });

  test("the password is SASLprepped on the server as the client does (MongoDB's auth spec, step 4)", () => {
    // Stored as U+2163 (ROMAN NUMERAL FOUR); the client sends SASLprep("IV") or SASLprep("I\u00ADV").
    for (const typed of ['IV', 'I\u00ADV', '\u2163']) {
      const conv = conversation(deriveCredentials('\u2168', '\u2163', { iterations: 4096 }));
      const bare = 'n=\u2168,r=abc';
      const serverFirst = conv.start(`n,,${bare}`);
      assert.match(conv.finish(clientFinal(saslPrep(typed), bare, serverFirst)), /^v=/, typed);
    }
  });
});

describe('SASLprep (RFC 4013)', () => {
  test("RFC 4013 section 3's examples", () => {
    assert.equal(saslPrep('I\u00ADX'), 'IX');
    assert.equal(saslPrep('user'), 'user');
    assert.equal(saslPrep('USER'), 'USER');
    assert.equal(saslPrep('\u00AA'), 'a');
    assert.equal(saslPrep('\u2168'), 'IX');
    assert.throws(() => saslPrep('\u0007'), SaslPrepError);
    assert.throws(() => saslPrep('\u0627\u0031'), SaslPrepError);
  });

  test('spaces, refused characters and right-to-left text', () => {
    assert.equal(saslPrep('a\u00A0b\u3000c'), 'a b c', 'non-ASCII spaces become U+0020');
    assert.equal(saslPrep('pass word: ok!'), 'pass word: ok!', 'printable ASCII is unchanged');
    assert.equal(saslPrep('\u00E9t\u00E9'), '\u00E9t\u00E9');
    assert.equal(saslPrep('e\u0301'), '\u00E9', 'NFKC composes');
    const refuses = (input: string, why: RegExp) =>
      assert.throws(
        () => saslPrep(input),
        (e: unknown) => e instanceof SaslPrepError && why.test(e.message),
        JSON.stringify(input),
      );
    refuses('tab\there', /U\+0009 is a control character/);
    refuses('\uE000', /private-use/);
    refuses('\uD800x', /surrogate/);
    refuses('\uFDD0', /non-character/);
    refuses('\u0378', /not an assigned/);
    refuses('\u200E', /display-changing/);
    refuses('\u05D0a\u05D0', /mixes right-to-left and left-to-right/);
    assert.equal(saslPrep('\u05D0\u05D1'), '\u05D0\u05D1', 'right-to-left text alone is fine');
  });
});
