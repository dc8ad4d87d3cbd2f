/**
 * What to do about a refused operation: the engine's message already says it in words; this picks
 * the command that does it, where there is one, for the error notification's button.
 */
export interface ErrorFacts {
  code?: number;
  codeName?: string;
  message: string;
}

export interface RemedyContext {
  /** The command that failed, e.g. `ttlWorkbench.createTTLIndex`. */
  command: string;
  db?: string;
  collection?: string;
  /** An existing index on the same key, when the operation created one (rules 2.3–2.5). */
  existingIndex?: { name: string; isTTL: boolean };
  /** The engine emulates MongoDB 7.0 (capped TTL needs 8.0). */
  serverVersion?: '8.0' | '7.0';
  /** An import refused: what it read and the database it went into (the command to run again). */
  importing?: { command: string; args: Record<string, unknown>; into: string };
}

export interface Remedy {
  title: string;
  command: string;
  args?: unknown[];
}

/** `CannotCreateIndex (67)`. */
export function errorLabel(err: ErrorFacts): string {
  if (err.code === undefined) return '';
  return err.codeName ? `${err.codeName} (${err.code})` : `code ${err.code}`;
}

/** The text of the error notification: the MongoDB code first, then the engine's words. */
export function errorMessageText(err: ErrorFacts, action?: string): string {
  const label = errorLabel(err);
  const prefix = action ? `${action} failed` : 'Failed';
  return label ? `${prefix} — ${label}: ${err.message}` : `${prefix}: ${err.message}`;
}

export function remediesFor(err: ErrorFacts, ctx: RemedyContext): Remedy[] {
  const ns = ctx.db && ctx.collection ? { db: ctx.db, collection: ctx.collection } : undefined;
  switch (err.code) {
    case 85: // IndexOptionsConflict: an equivalent index exists; change it with collMod instead.
      if (ns && ctx.existingIndex) {
        return ctx.existingIndex.isTTL
          ? [
              {
                title: 'Change expireAfterSeconds… (collMod)',
                command: 'ttlWorkbench.changeExpireAfterSeconds',
                args: [{ ...ns, index: ctx.existingIndex.name }],
              },
            ]
          : [
              {
                title: 'Convert to TTL Index… (collMod)',
                command: 'ttlWorkbench.convertToTTLIndex',
                args: [{ ...ns, index: ctx.existingIndex.name }],
              },
            ];
      }
      return [];
    case 86: // IndexKeySpecsConflict: the name is taken by another key.
      return ns && ctx.existingIndex
        ? [
            {
              title: `Drop Index ${ctx.existingIndex.name}…`,
              command: 'ttlWorkbench.dropIndex',
              args: [{ ...ns, index: ctx.existingIndex.name }],
            },
          ]
        : [];
    case 48: // NamespaceExists: an import met collections that exist; run it again elsewhere, or replace them.
      return ctx.importing
        ? [
            {
              title: 'Import as another name…',
              command: ctx.importing.command,
              args: [{ ...ctx.importing.args, into: undefined, askInto: true, interactive: true }],
            },
            {
              title: 'Drop and replace',
              command: ctx.importing.command,
              args: [{ ...ctx.importing.args, into: ctx.importing.into, replace: true, interactive: true }],
            },
          ]
        : [];
    case 26: // NamespaceNotFound
      return [
        {
          title: 'Create Collection…',
          command: 'ttlWorkbench.createCollection',
          args: ns ? [{ db: ns.db, name: ns.collection, interactive: true }] : [],
        },
      ];
    case 27: // IndexNotFound: the tree was stale.
      return [{ title: 'Refresh', command: 'ttlWorkbench.refresh' }];
    case 20: // IllegalOperation: e.g. the engine was closed.
      if (/closed/i.test(err.message)) return [{ title: 'Reset Engine', command: 'ttlWorkbench.resetEngine' }];
      return [];
    case 67:
    case 72:
      if (/capped/i.test(err.message) && ctx.serverVersion === '7.0') {
        return [
          {
            title: 'Emulate MongoDB 8.0 (setting)',
            command: 'workbench.action.openSettings',
            args: ['ttlWorkbench.serverVersion'],
          },
        ];
      }
      if (/time-series/i.test(err.message) && ns) {
        return [
          {
            title: "Set the Collection's expireAfterSeconds…",
            command: 'ttlWorkbench.changeCollectionExpireAfterSeconds',
            args: [ns],
          },
        ];
      }
      return [];
    case 2: // BadValue: a hint on a hidden index.
      if (/hidden/i.test(err.message) && ns) {
        const m = /'([^']+)' is hidden/.exec(err.message);
        if (m)
          return [{ title: `Unhide ${m[1]}`, command: 'ttlWorkbench.unhideIndex', args: [{ ...ns, index: m[1] }] }];
      }
      return [];
    default:
      return [];
  }
}
