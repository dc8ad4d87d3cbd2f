/**
 * String comparison under a collation, through the ICU that Node ships (`Intl.Collator`). Intl
 * expresses most of a collation directly; what it cannot (strength 4 and 5, `backwards` on a locale
 * whose data does not have it, `maxVariable: "space"`) is built here from Intl comparisons, as
 * docs/collation.md describes.
 */
import { collationKey, type CollationSpec } from './spec';
import { localeDefaults } from './locales';

const WHITESPACE = /\s+/gu;

export class Collator {
  /** Levels 1-3 (and the case level), with `alternate` and `numericOrdering`. */
  private readonly main: Intl.Collator;
  /** Level 1 and 2 alone: French secondary ordering compares accents after the base letters tie. */
  private readonly base?: Intl.Collator;
  private readonly accents?: Intl.Collator;
  /** Strength 4 with `alternate: "shifted"`: the ignored punctuation decides last. */
  private readonly quaternary?: Intl.Collator;
  private readonly stripSpaceOnly: boolean;

  constructor(readonly spec: CollationSpec) {
    const shifted = spec.alternate === 'shifted';
    // maxVariable "space" makes only whitespace ignorable; Intl's ignorePunctuation ignores
    // punctuation too, so whitespace is removed before a non-ignoring comparison instead.
    this.stripSpaceOnly = shifted && spec.maxVariable === 'space';
    const options: Intl.CollatorOptions = {
      usage: 'sort',
      sensitivity: sensitivityOf(spec),
      numeric: spec.numericOrdering,
      caseFirst: spec.caseFirst === 'off' ? 'false' : spec.caseFirst,
      ignorePunctuation: shifted && !this.stripSpaceOnly,
    };
    this.main = new Intl.Collator(spec.bcp47, options);
    if (spec.backwards && !localeDefaults(spec.bcp47).backwards && spec.strength >= 2) {
      this.base = new Intl.Collator(spec.bcp47, { ...options, sensitivity: spec.caseLevel ? 'case' : 'base' });
      this.accents = new Intl.Collator(spec.bcp47, { ...options, sensitivity: 'accent' });
    }
    if (shifted && spec.strength >= 4)
      this.quaternary = new Intl.Collator(spec.bcp47, { ...options, ignorePunctuation: false });
  }

  /** A key naming this collation's behaviour (equal keys: equal comparisons). */
  get key(): string {
    return collationKey(this.spec);
  }

  compare(a: string, b: string): number {
    if (a === b) return 0;
    const x = this.stripSpaceOnly ? a.replace(WHITESPACE, '') : a;
    const y = this.stripSpaceOnly ? b.replace(WHITESPACE, '') : b;
    let c: number;
    if (this.base && this.accents) {
      c = this.base.compare(x, y);
      if (c === 0) c = this.accents.compare(reverseGraphemes(x), reverseGraphemes(y));
      if (c === 0) c = this.main.compare(x, y);
    } else {
      c = this.main.compare(x, y);
    }
    if (c === 0 && this.quaternary) c = this.quaternary.compare(a, b);
    if (c === 0 && this.spec.strength === 5) c = identicalLevel(a, b);
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  }
}

function sensitivityOf(spec: CollationSpec): Intl.CollatorOptions['sensitivity'] {
  if (spec.strength === 1) return spec.caseLevel ? 'case' : 'base';
  if (spec.strength === 2) return spec.caseLevel ? 'variant' : 'accent';
  return 'variant';
}

/** Strings in reverse order of their base letters, each keeping its combining marks. */
function reverseGraphemes(s: string): string {
  return Array.from(s.normalize('NFC').matchAll(/\P{M}\p{M}*|\p{M}+/gu), (m) => m[0])
    .reverse()
    .join('');
}

/** ICU's identical level: code points of the NFD forms. */
function identicalLevel(a: string, b: string): number {
  const x = a.normalize('NFD');
  const y = b.normalize('NFD');
  if (x === y) return 0;
  const xs = Array.from(x, (ch) => ch.codePointAt(0)!);
  const ys = Array.from(y, (ch) => ch.codePointAt(0)!);
  const n = Math.min(xs.length, ys.length);
  for (let i = 0; i < n; i++) if (xs[i] !== ys[i]) return xs[i] < ys[i] ? -1 : 1;
  return xs.length < ys.length ? -1 : xs.length > ys.length ? 1 : 0;
}

const cache = new Map<string, Collator>();

/** One collator per distinct collation: building an Intl.Collator costs far more than a comparison. */
export function collatorFor(spec: CollationSpec | null): Collator | null {
  if (spec === null) return null;
  const key = collationKey(spec);
  let c = cache.get(key);
  if (!c) {
    c = new Collator(spec);
    cache.set(key, c);
  }
  return c;
}
