/**
 * A playground notebook's `"connection": "<name>"` metadata: the saved connection its cells run on
 * instead of the embedded engine. Pure, so the refusals are tested in plain Node.
 */

/** The `.ttlbook` header kept in a notebook document's metadata (the serializer puts it there). */
export function headerOfMetadata(metadata: unknown): Record<string, unknown> {
  const header = (metadata as { ttlbook?: { header?: unknown } } | undefined)?.ttlbook?.header;
  return header !== null && typeof header === 'object' ? (header as Record<string, unknown>) : {};
}

/** What the header asks for: a connection by name, or none (the embedded engine). */
export function connectionRequestOf(header: Record<string, unknown>): { connection?: string } | { error: string } {
  const raw = header.connection;
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'string' || raw.trim() === '')
    return {
      error: `The notebook's connection metadata must be the name of a saved connection, such as "staging", got ${JSON.stringify(raw)}`,
    };
  if (header.engine !== undefined)
    return {
      error: `This notebook names both a connection ("${raw}") and an embedded engine ("engine"): a notebook runs on one of them. Remove "engine" to run on the connection, or "connection" to run on the embedded engine.`,
    };
  return { connection: raw };
}

/** The header with the connection set (a name) or removed (undefined: the embedded engine). */
export function headerWithConnection(
  header: Record<string, unknown>,
  name: string | undefined,
): Record<string, unknown> {
  const next: Record<string, unknown> = { ...header };
  delete next.connection;
  if (name !== undefined) {
    delete next.engine;
    next.connection = name;
  }
  return next;
}
