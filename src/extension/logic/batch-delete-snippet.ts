/**
 * The documentation's advice before a TTL index goes onto a big collection: delete the documents
 * that are already eligible in batches first, so the first TTL pass does not delete them all at
 * once (one long pass, replication lag, cache churn). This writes that advice as a playground
 * notebook: a count of what is eligible, then a loop that deletes at most `batchSize` documents at
 * a time, by `_id`, with a pause between batches. Bound to the connection it was offered on, so
 * its cells run on that server. Pure text; the notebook command opens it.
 */
import type { Document } from '../../engine';
import { serializeTtlbook, type Ttlbook } from '../../formats/ttlbook';
import { collectionRef, valueBlock } from './mongosh';

export interface BatchDeleteTarget {
  db: string;
  collection: string;
  /** The TTL index's date field. */
  field: string;
  expireAfterSeconds: number;
  partialFilterExpression?: Document;
  /** The saved connection the preview ran on (absent: the embedded engine). */
  connection?: string;
  /** Documents per batch (default 1000). */
  batchSize?: number;
  /** Pause between batches in milliseconds (default 100). */
  pauseMs?: number;
}

/** The filter of what the TTL index would delete now: the field at or before now − expireAfterSeconds. */
function eligibleFilterText(t: BatchDeleteTarget): string {
  const threshold = `{ ${JSON.stringify(t.field)}: { $lte: cutoff } }`;
  return t.partialFilterExpression ? `{ $and: [${threshold}, ${valueBlock(t.partialFilterExpression)}] }` : threshold;
}

export function batchDeleteSnippet(t: BatchDeleteTarget): string {
  const batch = t.batchSize ?? 1000;
  const pause = t.pauseMs ?? 100;
  const coll = collectionRef(t.db, t.collection);
  const where = t.connection ? `the connection **${t.connection}**` : 'the embedded engine';
  const book: Ttlbook = {
    metadata: {
      title: `Delete eligible documents of ${t.db}.${t.collection} in batches`,
      ...(t.connection ? { connection: t.connection } : {}),
    },
    cells: [
      {
        kind: 'markdown',
        line: 0,
        source: [
          `# Delete eligible documents in batches`,
          ``,
          `A TTL index with \`expireAfterSeconds: ${t.expireAfterSeconds}\` on \`${t.field}\` makes every document whose`,
          `\`${t.field}\` is older than that eligible at once, and the first TTL pass deletes them all. On a big`,
          `collection, delete them in batches first, then create the index. These cells run on ${where}.`,
          ``,
          `Run the first two cells to see how many documents are eligible; the third deletes them,`,
          `${batch} at a time, pausing ${pause} ms between batches (interrupt it to stop between batches).`,
        ].join('\n'),
      },
      {
        kind: 'code',
        line: 0,
        source: [
          `// The same threshold as the TTL monitor: now minus expireAfterSeconds (var: the cell can run again).`,
          `var cutoff = new Date(Date.now() - ${t.expireAfterSeconds} * 1000)`,
          `var eligible = ${eligibleFilterText(t)}`,
        ].join('\n'),
      },
      { kind: 'code', line: 0, source: `${coll}.countDocuments(eligible)` },
      {
        kind: 'code',
        line: 0,
        source: [
          `{`,
          `  let deleted = 0`,
          `  for (;;) {`,
          `    const ids = ${coll}.find(eligible, { _id: 1 }).limit(${batch}).toArray().map((d) => d._id)`,
          `    if (ids.length === 0) break`,
          `    deleted += ${coll}.deleteMany({ _id: { $in: ids } }).deletedCount`,
          `    sleep(${pause})`,
          `  }`,
          `  print(\`deleted \${deleted} documents\`)`,
          `}`,
        ].join('\n'),
      },
    ],
  };
  return serializeTtlbook(book);
}
