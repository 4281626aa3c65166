/**
 * What sparql/ offers to the layers above it: SPARQL text to algebra (parseQuery, parseUpdate,
 * templates and their caches), with syntax errors that name line and column, and the checks the
 * parser does not make. The export list is kept up to date by scripts/layer-imports.mjs; this
 * paragraph is not.
 */
export { isSolutionWildcard, type SolutionWildcard } from './distinct-star.js';
export { parseCostBytes } from './parse-cost.js';
export { type Algebra, parseAsTemplate, type ParsedQuery, parseQuery, parseQueryShape, parseUpdate } from './parse.js';
export { MAX_TEMPLATE_TEXT_LENGTH, placeholderNumber, substituteTerm, templateOf, withConstants } from './query-template.js';
export { checkTextLimits } from './text-limits.js';
