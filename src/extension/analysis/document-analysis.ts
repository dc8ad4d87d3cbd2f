/**
 * Analysing one editor document: a file (an `AnalysisSession` per document, by file name or
 * language id, so that an edit re-parses only the statements it touches) or a notebook cell,
 * analysed together with its notebook's other cells so that a later cell sees the collections of
 * earlier ones. Results are cached per document version; problems are converted to
 * `vscode.Diagnostic`s here and nowhere else.
 */
import * as vscode from 'vscode';
import {
  AnalysisSession,
  analyzeCells,
  sourceKindOf,
  type AnalysisOptions,
  type AnalysisResult,
  type Problem,
  type Span,
} from '../../analysis';

export const SOURCE = 'TTL Workbench';

export interface DocumentAnalysis {
  version: number;
  result: AnalysisResult;
  /** Notebook cell index of this document (cell documents only). */
  cell?: number;
}

const SEVERITY: Record<Problem['severity'], vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  information: vscode.DiagnosticSeverity.Information,
  hint: vscode.DiagnosticSeverity.Hint,
};

export function isAnalysable(doc: vscode.TextDocument): boolean {
  if (doc.uri.scheme === 'vscode-notebook-cell') return sourceKindOf(doc.languageId) !== undefined;
  if (doc.uri.scheme !== 'file' && doc.uri.scheme !== 'untitled' && doc.uri.scheme !== 'vscode-remote') return false;
  return (sourceKindOf(doc.fileName) ?? sourceKindOf(doc.languageId)) !== undefined;
}

function notebookOf(doc: vscode.TextDocument): { notebook: vscode.NotebookDocument; index: number } | undefined {
  for (const notebook of vscode.workspace.notebookDocuments) {
    const index = notebook.getCells().findIndex((c) => c.document === doc);
    if (index >= 0) return { notebook, index };
  }
  return undefined;
}

export class DocumentAnalyzer {
  private readonly cache = new Map<string, DocumentAnalysis>();
  /** Sessions of file documents (they hold the document's syntax tree between edits). */
  private readonly sessions = new Map<string, { name: string; session: AnalysisSession }>();

  constructor(private readonly options: (uri: vscode.Uri) => AnalysisOptions) {}

  /** The analysis of a document, from the cache when the version has not changed. */
  analyze(doc: vscode.TextDocument, force = false): DocumentAnalysis {
    const key = doc.uri.toString();
    const cached = this.cache.get(key);
    if (!force && cached && cached.version === doc.version) return cached;
    let analysis: DocumentAnalysis;
    const cell = doc.uri.scheme === 'vscode-notebook-cell' ? notebookOf(doc) : undefined;
    if (cell) {
      const cells = cell.notebook.getCells().map((c) => ({
        text: c.kind === vscode.NotebookCellKind.Code ? c.document.getText() : '',
        language: c.kind === vscode.NotebookCellKind.Code ? c.document.languageId : 'markdown',
      }));
      analysis = { version: doc.version, result: analyzeCells(cells, this.options(doc.uri)), cell: cell.index };
    } else {
      analysis = { version: doc.version, result: this.sessionOf(doc).update(doc.getText(), this.options(doc.uri)) };
    }
    this.cache.set(key, analysis);
    return analysis;
  }

  /**
   * The document's session, new when the document is new or its language changed. The session
   * finds what changed since its last text by comparing the texts (a few milliseconds for a large
   * file), which holds whatever editor events came in between.
   */
  private sessionOf(doc: vscode.TextDocument): AnalysisSession {
    const key = doc.uri.toString();
    const name = sourceKindOf(doc.fileName) ? doc.fileName : doc.languageId;
    let entry = this.sessions.get(key);
    if (!entry || entry.name !== name) {
      entry = { name, session: new AnalysisSession(name) };
      this.sessions.set(key, entry);
    }
    return entry.session;
  }

  forget(doc: vscode.TextDocument): void {
    this.cache.delete(doc.uri.toString());
    this.sessions.delete(doc.uri.toString());
  }

  /** Drop the syntax trees of documents no longer shown (they are parsed again when shown). */
  keepSessionsOf(docs: readonly vscode.TextDocument[]): void {
    const keep = new Set(docs.map((d) => d.uri.toString()));
    for (const key of [...this.sessions.keys()]) if (!keep.has(key)) this.sessions.delete(key);
  }

  /** Forget the results (options changed); sessions stay, their trees do not depend on options. */
  clear(): void {
    this.cache.clear();
  }
}

/** Whether a span belongs to this document (cells: the span's cell is the document's). */
export function inDocument(span: Span, analysis: DocumentAnalysis): boolean {
  return analysis.cell === undefined ? span.cell === undefined : span.cell === analysis.cell;
}

export function rangeOf(doc: vscode.TextDocument, span: Span): vscode.Range {
  return new vscode.Range(doc.positionAt(span.start), doc.positionAt(span.end));
}

export function toDiagnostic(
  p: Problem,
  range: vscode.Range,
  relatedRange: (s: Span) => vscode.Location | undefined,
): vscode.Diagnostic {
  const d = new vscode.Diagnostic(range, p.message, SEVERITY[p.severity]);
  d.source = SOURCE;
  d.code = { value: p.code, target: vscode.Uri.parse(p.docs) };
  const related = (p.related ?? []).flatMap((r) => {
    const location = relatedRange(r);
    return location ? [new vscode.DiagnosticRelatedInformation(location, r.message)] : [];
  });
  if (related.length) d.relatedInformation = related;
  return d;
}

/** Diagnostics of a document from its analysis. */
export function diagnosticsOf(doc: vscode.TextDocument, analysis: DocumentAnalysis): vscode.Diagnostic[] {
  return analysis.result.problems
    .filter((p) => inDocument(p, analysis))
    .map((p) =>
      toDiagnostic(p, rangeOf(doc, p), (r) =>
        inDocument(r, analysis) ? new vscode.Location(doc.uri, rangeOf(doc, r)) : undefined,
      ),
    );
}

/** The problem a diagnostic came from (same code and range). */
export function problemFor(
  doc: vscode.TextDocument,
  analysis: DocumentAnalysis,
  d: vscode.Diagnostic,
): Problem | undefined {
  const code = typeof d.code === 'object' ? d.code.value : d.code;
  return analysis.result.problems.find(
    (p) => p.code === code && inDocument(p, analysis) && rangeOf(doc, p).isEqual(d.range),
  );
}
