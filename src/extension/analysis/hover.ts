/**
 * Hover on `expireAfterSeconds` / Mongoose `expires`: the duration in words and, when the embedded
 * engine has the collection, how many of its documents the value makes eligible for deletion now
 * (a capped `count` over the date range the TTL monitor deletes, rule 7.7).
 */
import * as vscode from 'vscode';
import { secondsInWords, type TTLValueSite } from '../../analysis';
import type { EngineLink } from '../engine-link';
import { countReplyN, eligibleWords, expiredNowCount, PREVIEW_CAP } from '../logic/expiry-counts';
import { inDocument, rangeOf, type DocumentAnalyzer } from './document-analysis';
import type { EngineSnapshot } from './engine-snapshot';

/** How long a hover waits for the engine's count before it shows without it. */
const HOVER_WAIT_MS = 500;
const BUSY = 'Embedded engine: busy (a playground cell is running); hover again for the count of eligible documents.';

export class TTLValueHover implements vscode.HoverProvider {
  constructor(
    private readonly analyzer: DocumentAnalyzer,
    private readonly engine: EngineLink,
    private readonly snapshot: EngineSnapshot,
  ) {}

  async provideHover(doc: vscode.TextDocument, position: vscode.Position): Promise<vscode.Hover | undefined> {
    const analysis = this.analyzer.analyze(doc);
    const offset = doc.offsetAt(position);
    const site = analysis.result.ttlValues.find((s) => inDocument(s, analysis) && s.start <= offset && offset <= s.end);
    if (!site) return undefined;
    const md = new vscode.MarkdownString();
    md.appendMarkdown(`**expireAfterSeconds** ${secondsInWords(site.seconds)}`);
    md.appendMarkdown(
      site.seconds === 0
        ? ' — documents expire at the date stored in the field.'
        : site.field
          ? ` after the date in \`${site.field}\`.`
          : '.',
    );
    // The count needs the engine; a long cell may hold it. The words above never wait for it.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const eligible = await Promise.race([
      this.eligibleNow(site).catch(() => undefined),
      new Promise<string>((resolve) => (timer = setTimeout(() => resolve(BUSY), HOVER_WAIT_MS))),
    ]);
    clearTimeout(timer);
    if (eligible) md.appendMarkdown(`\n\n${eligible}`);
    return new vscode.Hover(md, rangeOf(doc, site));
  }

  private async eligibleNow(site: TTLValueSite): Promise<string | undefined> {
    // Hovering never starts the engine: without it there is nothing to count.
    const backend = this.engine.backend;
    if (!site.ns || !site.field || !backend) return undefined;
    const known = (this.snapshot.current ?? (await this.snapshot.refresh()))?.collection(site.ns);
    if (!known) return undefined;
    const now = (await backend.clock()).now.getTime();
    const cmd = expiredNowCount(
      {
        collection: known.name,
        field: site.field,
        ...(site.partialFilterExpression ? { partialFilterExpression: site.partialFilterExpression } : {}),
        ...(site.collectionLevel && site.field === '_id' ? { notBeforeEpoch: true } : {}),
      },
      site.seconds,
      now,
      PREVIEW_CAP,
    );
    const n = countReplyN(await backend.runCommand(known.db, cmd));
    return `Embedded engine, ${known.db}.${known.name}: ${eligibleWords(n, PREVIEW_CAP)}`;
  }
}
