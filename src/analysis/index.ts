/** Static TTL analysis of source text (see docs/ARCHITECTURE.md, "The analysis"). No `vscode` here. */
export { analyzeCells, analyzeText, type CellInput } from './analyze';
export { applyEdits } from './edits';
export { AnalysisSession, type ContentChange, type UpdateInfo } from './session';
export { RULE_CODES, RULES, type RuleCode, type RuleInfo } from './rules';
export { LineIndex, sourceKindOf } from './source';
export * from './types';
export { durationWords, secondsInWords } from './words';
export { engineFactsFrom } from './engine-facts';
