/**
 * The vocabulary of the analysis layer: problems with offsets (never `vscode` ranges), fixes as
 * text edits, the index definitions found, and what the connected engine knows. Offsets are
 * UTF-16 indices into the analysed text (a file, or one notebook cell when `cell` is set).
 */
import type { Document } from '../engine';
import type { RuleCode, Severity } from './rules';

// Severity lives with the rule table that assigns it (rules.ts); re-exported for the analysis API.
export type { Severity };

export interface Span {
  start: number;
  end: number;
  /** Index of the notebook cell the offsets are in (notebook input only). */
  cell?: number;
}

export interface TextEdit extends Span {
  newText: string;
  /** The fix needs a value from the user (a number of seconds) in place of `newText`. */
  fromInput?: boolean;
}

export interface Fix {
  title: string;
  edits: TextEdit[];
  preferred?: boolean;
  /** Set when an edit is `fromInput`: what to ask. */
  input?: { prompt: string; placeholder: string };
}

export interface RelatedSpan extends Span {
  message: string;
}

export interface Problem extends Span {
  code: RuleCode;
  severity: Severity;
  message: string;
  /** The MongoDB documentation page that explains the rule. */
  docs: string;
  /** The rule of docs/ttl-rules.md this diagnostic restates (its number, e.g. "1.2"). */
  specRule: string;
  fixes: Fix[];
  related?: RelatedSpan[];
}

/** A namespace as far as the source says it: the database only when the code names it. */
export interface Namespace {
  collection: string;
  db?: string;
}

/** A definition the "Apply to engine" lens can run: a command for one database. */
export interface RunnableDefinition extends Span {
  label: string;
  ns: Namespace;
  command: Document;
}

/** Where a hover over `expireAfterSeconds` (or Mongoose `expires`) has something to say. */
export interface TTLValueSite extends Span {
  seconds: number;
  ns?: Namespace;
  /** The indexed date field (absent for a collection-level TTL, which is on `_id` or the timeField). */
  field?: string;
  partialFilterExpression?: Document;
  /** Collection-level TTL (clustered or time series). */
  collectionLevel?: boolean;
}

export interface AnalysisResult {
  problems: Problem[];
  runnable: RunnableDefinition[];
  ttlValues: TTLValueSite[];
  /** Syntax errors the parser recovered from (the analysis still ran). */
  syntaxErrors: number;
  /** Part of the input could not be read (a TTL022 information says where). */
  partial: boolean;
}

export interface EngineCollectionFacts {
  db: string;
  name: string;
  capped: boolean;
  clustered: boolean;
  timeseries?: { timeField: string; metaField?: string };
  /** Collection-level TTL of a clustered or time-series collection. */
  expireAfterSeconds?: number;
  /** listIndexes documents. */
  indexes: Document[];
}

/**
 * What the connected engine knows, filled by the extension from its Backend (a snapshot: the
 * analysis is synchronous). `db` is undefined when the source does not name the database; an
 * implementation then answers only when exactly one database has that collection.
 */
export interface EngineFacts {
  collection(ns: Namespace): EngineCollectionFacts | undefined;
}

export interface AnalysisOptions {
  /** Where the 7.0 and 8.0 rules differ (capped collections). Default "8.0". */
  serverVersion?: '8.0' | '7.0';
  engine?: EngineFacts;
  disabledRules?: readonly string[];
  /** For collection-level TTL ranges (rule 5.3): the engine clock's time. Default Date.now(). */
  nowMs?: number;
  /** Other files of the workspace, for `const` values imported from them (a duration in `config.js`). */
  imports?: WorkspaceImports;
}

/**
 * The workspace around the analysed file, as the CLI and the editor see it (the analysis reads no
 * files itself). Both pass the same implementation, so they report the same problems.
 */
export interface WorkspaceImports {
  /** The text and file name of a module the analysed file imports (`./config`); undefined when outside the workspace. */
  moduleText(specifier: string): { text: string; fileName: string } | undefined;
}
