/**
 * How much a tool result may carry, so an agent never receives megabytes: lists are cut to a
 * number of items with a count of what was left out, long texts to a number of characters with a
 * note of how many more there were. README "Using TTL Workbench with agents" documents these.
 */

export const LIMITS = {
  /** Documents shown per statement value (ttl_simulate) and reply. */
  documents: 20,
  /** Characters of one text (a statement's mongosh rendering, a printed block, a reply). */
  textChars: 4000,
  /** Printed lines kept per statement. */
  printLines: 50,
  /** Statements reported by ttl_simulate (the rest are counted). */
  statements: 100,
  /** Problems reported by ttl_check_definitions. */
  problems: 100,
  /** Collections described by ttl_engine_state. */
  collections: 50,
  /** Sample positions listed per group by ttl_explain_index. */
  samplePositions: 100,
} as const;

/** The first `max` items, and how many were left out. */
export function capList<T>(items: readonly T[], max: number): { items: T[]; omitted: number } {
  return { items: items.slice(0, max), omitted: Math.max(0, items.length - max) };
}

/** A text cut to `max` characters, ending with a note of what was cut. */
export function capText(text: string, max: number = LIMITS.textChars): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${(text.length - max).toLocaleString('en-US')} more characters left out)`;
}

/** A JSON value with long strings and arrays cut (documents stay readable, sizes stay bounded). */
export function capJson(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return capText(value, 500);
  if (Array.isArray(value)) {
    const { items, omitted } = capList(value, LIMITS.documents);
    const out = items.map((v) => capJson(v, depth + 1));
    return omitted ? [...out, `… ${omitted} more left out`] : out;
  }
  if (value !== null && typeof value === 'object') {
    if (depth > 8) return '{…}';
    const out: Record<string, unknown> = {};
    const entries = Object.entries(value);
    for (const [k, v] of entries.slice(0, 100)) out[k] = capJson(v, depth + 1);
    if (entries.length > 100) out['…'] = `${entries.length - 100} more fields left out`;
    return out;
  }
  return value;
}
