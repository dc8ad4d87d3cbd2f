/**
 * ICU locale IDs as mongod takes them (`en_US`, `zh_Hant`, `de@collation=phonebook`) and their
 * BCP 47 form for `Intl.Collator`. mongod accepts a locale only when ICU opens a collator for
 * exactly that ID, with no fallback or canonicalization; Node's ICU answers the same question through
 * `resolvedOptions().locale`.
 */
import { fail } from '../errors';
import { formatValue } from '../values/format';

/** The ICU collation keyword values that BCP 47 spells differently (its subtags are 3–8 letters). */
const COLLATION_KEYWORD_TO_BCP47: Record<string, string> = {
  phonebook: 'phonebk',
  traditional: 'trad',
  dictionary: 'dict',
  gb2312han: 'gb2312',
};
const COLLATION_KEYWORD_FROM_BCP47: Record<string, string> = Object.fromEntries(
  Object.entries(COLLATION_KEYWORD_TO_BCP47).map(([k, v]) => [v, k]),
);

/** language[_Script][_REGION][_VARIANT][@collation=keyword], the shape ICU's own IDs have. */
const ICU_LOCALE_ID =
  /^([a-z]{2,3})(?:_([A-Z][a-z]{3}))?(?:_([A-Z]{2}|[0-9]{3}))?(?:_([A-Z0-9]{4,8}))?(?:@collation=([a-z0-9]+))?$/;

export interface ResolvedLocale {
  /** The ID as mongod echoes it. */
  id: string;
  /** The same locale as a BCP 47 tag. */
  bcp47: string;
}

function toBcp47(m: RegExpExecArray): string {
  const [, language, script, region, variant, keyword] = m;
  let tag = language;
  if (script) tag += `-${script}`;
  if (region) tag += `-${region}`;
  const extensions: string[] = [];
  if (keyword) extensions.push(`co-${COLLATION_KEYWORD_TO_BCP47[keyword] ?? keyword}`);
  if (variant) {
    // ICU's only collation variant ID is en_US_POSIX, which BCP 47 writes as a "va" keyword.
    if (variant !== 'POSIX') return '';
    extensions.push('va-posix');
  }
  return extensions.length ? `${tag}-u-${extensions.join('-')}` : tag;
}

/** The ICU ID of a BCP 47 tag that Intl resolved to: what a "Did you mean" suggests. */
function fromBcp47(tag: string): string {
  const [base, ext] = tag.split('-u-');
  let id = base.replace(/-/g, '_');
  if (ext) {
    const parts = ext.split('-');
    for (let i = 0; i + 1 < parts.length; i += 2) {
      if (parts[i] === 'va' && parts[i + 1] === 'posix') id += '_POSIX';
      if (parts[i] === 'co') id += `@collation=${COLLATION_KEYWORD_FROM_BCP47[parts[i + 1]] ?? parts[i + 1]}`;
    }
  }
  return id;
}

function resolvedTag(bcp47: string): string | undefined {
  try {
    return new Intl.Collator(bcp47).resolvedOptions().locale;
  } catch {
    return undefined;
  }
}

/** Fails with BadValue (2), as mongod does, when ICU has no collator for exactly this ID. */
export function resolveLocale(id: string, spec: unknown): ResolvedLocale {
  if (id.length === 0) fail('BadValue', `Field 'locale' cannot be the empty string in: ${formatValue(spec)}`);
  if (id.includes('\0'))
    fail('BadValue', `Field 'locale' cannot contain null byte. Collation spec: ${formatValue(spec)}`);
  // ICU's root locale: the default ordering of the Unicode Collation Algorithm.
  if (id === 'root') return { id, bcp47: 'und' };
  const m = ICU_LOCALE_ID.exec(id);
  const bcp47 = m ? toBcp47(m) : '';
  const resolved = bcp47 ? resolvedTag(bcp47) : undefined;
  if (resolved !== undefined && resolved === bcp47) return { id, bcp47 };
  let message = `Field 'locale' is invalid in: ${formatValue(spec)}`;
  // Intl falls back to the runtime's default locale where ICU falls back to root: suggest only a
  // locale of the same language.
  if (m && resolved !== undefined && resolved.split('-')[0] === m[1])
    message += `. Did you mean '${fromBcp47(resolved)}'?`;
  fail('BadValue', `${message} Use a locale from MongoDB's list of collation locales, or "simple" for binary order.`);
}

/** The defaults ICU's data gives a locale, read back from Node's ICU (the same data mongod's ICU has). */
export interface LocaleDefaults {
  caseFirst: 'upper' | 'lower' | 'off';
  alternate: 'non-ignorable' | 'shifted';
  backwards: boolean;
}

const defaultsCache = new Map<string, LocaleDefaults>();

export function localeDefaults(bcp47: string): LocaleDefaults {
  let d = defaultsCache.get(bcp47);
  if (d) return d;
  const options = new Intl.Collator(bcp47).resolvedOptions();
  const caseFirst = options.caseFirst === 'upper' || options.caseFirst === 'lower' ? options.caseFirst : 'off';
  // French secondary ordering (fr_CA): accents compare from the end of the string, so "côte" sorts
  // before "coté"; Intl has no option for it, but the locale's own data shows it.
  const backwards = new Intl.Collator(bcp47, { sensitivity: 'accent' }).compare('côte', 'coté') < 0;
  d = { caseFirst, alternate: options.ignorePunctuation ? 'shifted' : 'non-ignorable', backwards };
  defaultsCache.set(bcp47, d);
  return d;
}
