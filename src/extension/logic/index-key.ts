/**
 * A key spec typed for Create Index, checked by the engine's own index-spec rules before the
 * command runs, so the input box says what createIndexes would refuse. No `vscode` import.
 */
import type { Document } from '../../engine';
import { defaultIndexName } from '../../engine/indexes/key-pattern';
import { normalizeIndexSpec } from '../../engine/indexes/index-spec';

/** Why a key spec (already read as a document) cannot make an index, in the engine's words. */
export function keySpecProblem(key: Document | undefined): string | undefined {
  if (!key || Object.keys(key).length === 0) return 'Type the key: {status: 1} or {status: 1, at: -1}.';
  try {
    normalizeIndexSpec({ key, name: defaultIndexName(key) });
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}
