/**
 * SASLprep (RFC 4013, a profile of stringprep, RFC 3454), which SCRAM-SHA-256 applies to the
 * password before deriving keys (MongoDB's auth spec: passwords are SASLprepped, user names are
 * not). The client prepares the password it types and the server the one it stores; both must
 * agree, or a correct password fails.
 *
 * What is done, in RFC 4013's order:
 *   1. map: non-ASCII spaces (C.1.2) to U+0020, and "commonly mapped to nothing" (B.1) removed;
 *   2. normalize with Unicode NFKC;
 *   3. prohibit: the tables C.1.2 to C.9 (controls, private use, non-characters, lone surrogates,
 *      and so on), and unassigned code points (a stored string's rule);
 *   4. bidirectional text: a string with right-to-left characters (table D.1) may hold no
 *      left-to-right ones and must start and end with one.
 * Two approximations, both on the side of refusing: "unassigned" is judged by the Unicode version
 * of this Node (`\p{Cn}`) rather than Unicode 3.2's table A.1, and a left-to-right character
 * (table D.2, several hundred ranges) is any letter or spacing mark outside table D.1. Plain ASCII
 * passwords without control characters come out unchanged.
 */

export class SaslPrepError extends Error {}

type Ranges = ReadonlyArray<readonly [number, number]>;

/** C.1.2: non-ASCII space characters (mapped to U+0020). */
const NON_ASCII_SPACE: Ranges = [
  [0x00a0, 0x00a0],
  [0x1680, 0x1680],
  [0x2000, 0x200b],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
];

/** B.1: commonly mapped to nothing. */
const MAPPED_TO_NOTHING: Ranges = [
  [0x00ad, 0x00ad],
  [0x034f, 0x034f],
  [0x1806, 0x1806],
  [0x180b, 0x180d],
  [0x200b, 0x200d],
  [0x2060, 0x2060],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
];

/** C.1.2 to C.9, each with what it is, for the error message. */
const PROHIBITED: ReadonlyArray<readonly [string, Ranges]> = [
  ['a non-ASCII space', NON_ASCII_SPACE],
  [
    'a control character',
    [
      [0x0000, 0x001f],
      [0x007f, 0x009f],
      [0x06dd, 0x06dd],
      [0x070f, 0x070f],
      [0x180e, 0x180e],
      [0x200c, 0x200d],
      [0x2028, 0x2029],
      [0x2060, 0x2063],
      [0x206a, 0x206f],
      [0xfeff, 0xfeff],
      [0xfff9, 0xfffc],
      [0x1d173, 0x1d17a],
    ],
  ],
  [
    'a private-use character',
    [
      [0xe000, 0xf8ff],
      [0xf0000, 0xffffd],
      [0x100000, 0x10fffd],
    ],
  ],
  ['a surrogate (a lone half of a UTF-16 pair)', [[0xd800, 0xdfff]]],
  ['a character inappropriate for plain text', [[0xfff9, 0xfffd]]],
  ['an ideographic description character', [[0x2ff0, 0x2ffb]]],
  [
    'a display-changing or deprecated character',
    [
      [0x0340, 0x0341],
      [0x200e, 0x200f],
      [0x202a, 0x202e],
      [0x206a, 0x206f],
    ],
  ],
  [
    'a tagging character',
    [
      [0xe0001, 0xe0001],
      [0xe0020, 0xe007f],
    ],
  ],
];

/** D.1: characters with bidirectional property "R" or "AL". */
const RAND_AL: Ranges = [
  [0x05be, 0x05be],
  [0x05c0, 0x05c0],
  [0x05c3, 0x05c3],
  [0x05d0, 0x05ea],
  [0x05f0, 0x05f4],
  [0x061b, 0x061b],
  [0x061f, 0x061f],
  [0x0621, 0x063a],
  [0x0640, 0x064a],
  [0x066d, 0x066f],
  [0x0671, 0x06d5],
  [0x06dd, 0x06dd],
  [0x06e5, 0x06e6],
  [0x06fa, 0x06fe],
  [0x0700, 0x070d],
  [0x0710, 0x0710],
  [0x0712, 0x072c],
  [0x0780, 0x07a5],
  [0x07b1, 0x07b1],
  [0x200f, 0x200f],
  [0xfb1d, 0xfb1d],
  [0xfb1f, 0xfb28],
  [0xfb2a, 0xfb36],
  [0xfb38, 0xfb3c],
  [0xfb3e, 0xfb3e],
  [0xfb40, 0xfb41],
  [0xfb43, 0xfb44],
  [0xfb46, 0xfbb1],
  [0xfbd3, 0xfd3d],
  [0xfd50, 0xfd8f],
  [0xfd92, 0xfdc7],
  [0xfdf0, 0xfdfc],
  [0xfe70, 0xfe74],
  [0xfe76, 0xfefc],
];

const UNASSIGNED = /^\p{Cn}$/u;
const LEFT_TO_RIGHT = /^[\p{L}\p{Mc}]$/u;

function inRanges(cp: number, ranges: Ranges): boolean {
  for (const [lo, hi] of ranges) if (cp >= lo && cp <= hi) return true;
  return false;
}

/** C.4: non-character code points (U+FDD0..FDEF and the last two of every plane). */
function isNonCharacter(cp: number): boolean {
  return (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) === 0xfffe;
}

function hex(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The string SCRAM derives keys from; throws SaslPrepError saying which character is refused. */
export function saslPrep(input: string): string {
  let mapped = '';
  for (const ch of input) {
    const cp = ch.codePointAt(0)!;
    if (inRanges(cp, NON_ASCII_SPACE)) mapped += ' ';
    else if (!inRanges(cp, MAPPED_TO_NOTHING)) mapped += ch;
  }
  const normalized = mapped.normalize('NFKC');
  const chars = [...normalized];
  for (const ch of chars) {
    const cp = ch.codePointAt(0)!;
    if (isNonCharacter(cp)) throw new SaslPrepError(`${hex(cp)} is a non-character code point`);
    for (const [what, ranges] of PROHIBITED) if (inRanges(cp, ranges)) throw new SaslPrepError(`${hex(cp)} is ${what}`);
    if (UNASSIGNED.test(ch)) throw new SaslPrepError(`${hex(cp)} is not an assigned Unicode character`);
  }
  const rtl = chars.map((ch) => inRanges(ch.codePointAt(0)!, RAND_AL));
  if (rtl.some(Boolean)) {
    const ltr = chars.find((ch, i) => !rtl[i] && LEFT_TO_RIGHT.test(ch));
    if (ltr !== undefined)
      throw new SaslPrepError(
        `it mixes right-to-left and left-to-right characters (${hex(ltr.codePointAt(0)!)}), which RFC 3454 section 6 forbids`,
      );
    if (!rtl[0] || !rtl[rtl.length - 1])
      throw new SaslPrepError('right-to-left text must start and end with a right-to-left character');
  }
  return normalized;
}
