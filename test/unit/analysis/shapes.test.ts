/**
 * The shapes real Node projects write TTL definitions in (issue 25), each on a fixture written
 * here: the definition must be seen (its seconds show in the hover sites) and a bad value on it
 * must draw a diagnostic on its line. The same texts go through AnalysisSession, which the
 * editor uses, to hold the one-analysis promise.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AnalysisSession, analyzeText, LineIndex, type AnalysisOptions } from '../../../src/analysis';

/** Seconds of every TTL value the analysis sees, with the 1-based line it is on. */
function seen(text: string, file: string, options: AnalysisOptions = {}): Array<[number, number]> {
  const index = new LineIndex(text);
  return analyzeText(text, file, options).ttlValues.map((v) => [index.position(v.start).line + 1, v.seconds]);
}

/** Codes reported on a 1-based line. */
function codesOn(text: string, file: string, line: number, options: AnalysisOptions = {}): string[] {
  const index = new LineIndex(text);
  return analyzeText(text, file, options)
    .problems.filter((p) => index.position(p.start).line + 1 === line)
    .map((p) => p.code);
}

const NEST = `import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { InjectModel } from '@nestjs/mongoose';

@Schema({ timestamps: true })
export class Otp {
  constructor(@InjectModel('Otp') private readonly model: unknown) {}

  @Prop({ required: true })
  email: string;

  @Prop({ expires: 300 })
  createdAt: Date;

  @Prop({ type: Date, index: { expires: '1h' } })
  lastSeen: Date;
}

export const OtpSchema = SchemaFactory.createForClass(Otp);
OtpSchema.index({ email: 1, createdAt: 1 });
OtpSchema.index({ updatedAt: 1 }, { expireAfterSeconds: 86400 });
`;

describe('TTL definitions in the shapes real code writes them', () => {
  test('a NestJS @Schema() class is read past its decorators: @Prop({expires}), @Prop({index: {expires}}) and a later schema.index()', () => {
    assert.deepEqual(seen(NEST, 'otp.schema.ts'), [
      [20, 86400],
      [11, 300],
      [14, 3600],
    ]);
    assert.equal(analyzeText(NEST, 'otp.schema.ts').syntaxErrors, 0, 'parameter decorators parse without errors');
    assert.deepEqual(codesOn(NEST.replace('expires: 300', 'expires: -300'), 'otp.schema.ts', 11), ['TTL003']);
  });

  test('standard decorators (export @dec class) are read too', () => {
    const text = `export @index({ at: 1 }, { expireAfterSeconds: 60 }) class Nonce {}\n`;
    assert.deepEqual(seen(text, 'nonce.ts'), [[1, 60]]);
  });

  test('Typegoose: class-level @index and @prop({expires}), seen and checked', () => {
    const text = `import { index, modelOptions, prop } from '@typegoose/typegoose';
@index({ expiresAt: 1 }, { expireAfterSeconds: 0 })
@modelOptions({ schemaOptions: { timestamps: true } })
export class PasswordReset {
  @prop({ required: true, type: Date })
  public expiresAt!: Date;

  @prop({ expires: '7d' })
  public createdAt?: Date;
}
`;
    assert.deepEqual(seen(text, 'reset.ts'), [
      [2, 0],
      [8, 604800],
    ]);
    assert.deepEqual(codesOn(text.replace("'7d'", 'NaN'), 'reset.ts', 8), ['TTL002']);
  });

  test('Mongoose path-level index options: {index: {expires: 86400000}} is the millisecond mistake (TTL014)', () => {
    const text = `const tokenSchema = new mongoose.Schema({
  expireAt: { type: Date, default: Date.now, index: { expires: 86400000 } },
  createdAt: { type: Date, index: { expireAfterSeconds: 600 } },
});
`;
    assert.deepEqual(seen(text, 'token.js'), [
      [2, 86400000],
      [3, 600],
    ]);
    assert.deepEqual(codesOn(text, 'token.js', 2), ['TTL014']);
  });

  test('index specs held in a variable, an array or an exported collection-spec module', () => {
    const text = `export default {
  name: 'searchRequests',
  indexes: [{ name: '_idx_expiresOn_', key: { expiresOn: 1 }, expireAfterSeconds: 0 }],
};
const specs = [{ key: { expires: 1 }, name: 'expires_1', expireAfterSeconds: 30 }];
await db.collection('locks').createIndexes(specs);
`;
    assert.deepEqual(seen(text, 'search-requests.js'), [
      [5, 30],
      [3, 0],
    ]);
    assert.deepEqual(codesOn(text.replace('expireAfterSeconds: 0', "expireAfterSeconds: '0'"), 'x.js', 3), ['TTL001']);
  });

  test('path specs held in a constant or a plain exported object are seen', () => {
    const text = `const SCHEMA_TOKEN_EXPIRES = { type: Date, default: Date.now, index: { expires: '1d' } };
module.exports = {
  createdAt: { type: Date, expires: 30 * 24 * 60 * 60, default: Date.now },
};
`;
    assert.deepEqual(seen(text, 'schema.js'), [
      [1, 86400],
      [3, 2592000],
    ]);
  });

  test('a wrapper that passes options on (index(fields, {...options, expireAfterSeconds})) is checked', () => {
    const text = `import { index } from '@typegoose/typegoose';
export function ExpiryIndex(fields, options = {}) {
  return (target) => index(fields, { ...options, expireAfterSeconds: 0 })(target);
}
`;
    assert.deepEqual(seen(text, 'expiry.ts'), [[3, 0]]);
    assert.deepEqual(codesOn(text.replace('expireAfterSeconds: 0', 'expireAfterSeconds: -5'), 'expiry.ts', 3), [
      'TTL003',
    ]);
  });

  test('process.env read as expireAfterSeconds is a string or undefined at run time (TTL001, code 67)', () => {
    const text = `refreshTokenSchema.index({ createdAt: 1 }, { expireAfterSeconds: process.env.JWT_REFRESH_EXPIRE_SEC });
refreshTokenSchema.index({ other: 1 }, { expireAfterSeconds: Number(process.env.TTL ?? 3600) });
`;
    const problems = analyzeText(text, 'refresh.js').problems;
    assert.deepEqual(
      problems.map((p) => p.code),
      ['TTL001'],
    );
    assert.match(problems[0].message, /CannotCreateIndex \(67\).*process\.env\.JWT_REFRESH_EXPIRE_SEC is a string/);
  });

  test('a const imported from a workspace file is followed as far as it is literal arithmetic', () => {
    const files: Record<string, string> = {
      './config': `export const SESSION_TTL = 7 * 24 * 60 * 60 * 1000;\nexport const LOG_TTL = 14 * 86400;\nexport const FROM_ENV = process.env.TTL;`,
      '../constants': `module.exports = { OTP_EXPIRATION_IN_SECONDS: 5 * 60 };`,
    };
    const options: AnalysisOptions = {
      imports: {
        moduleText: (specifier) =>
          files[specifier] !== undefined ? { text: files[specifier], fileName: `${specifier}.ts` } : undefined,
      },
    };
    const text = `import { SESSION_TTL, LOG_TTL, FROM_ENV } from './config';
const { OTP_EXPIRATION_IN_SECONDS } = require('../constants');
import { NOT_THERE } from './missing';
s.index({ a: 1 }, { expireAfterSeconds: SESSION_TTL });
s.index({ b: 1 }, { expireAfterSeconds: LOG_TTL });
s.index({ c: 1 }, { expireAfterSeconds: OTP_EXPIRATION_IN_SECONDS });
s.index({ d: 1 }, { expireAfterSeconds: FROM_ENV });
s.index({ e: 1 }, { expireAfterSeconds: NOT_THERE });
`;
    assert.deepEqual(seen(text, 'models.ts', options), [
      [4, 604800000],
      [5, 1209600],
      [6, 300],
    ]);
    assert.deepEqual(codesOn(text, 'models.ts', 4, options), ['TTL014']);
    // Without a workspace, nothing is guessed.
    assert.deepEqual(seen(text, 'models.ts'), []);
  });

  test('the editor (AnalysisSession) gives the same result as check (analyzeText) on every shape', () => {
    for (const [text, file] of [
      [NEST, 'otp.schema.ts'],
      [`export @index({ at: 1 }, { expireAfterSeconds: 60 }) class Nonce {}\n`, 'nonce.ts'],
      [`const s = { type: Date, default: Date.now(), index: { expires: '1d' } };\n`, 's.js'],
    ] as const) {
      const session = new AnalysisSession(file);
      assert.deepStrictEqual(session.update(text), analyzeText(text, file));
      const edited = text.replace(/\d+/, '7');
      assert.deepStrictEqual(session.update(edited), analyzeText(edited, file));
    }
  });
});
