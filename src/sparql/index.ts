/** What sparql/ offers to the layers above it. Kept up to date by scripts/layer-imports.mjs. */
export { isSolutionWildcard, type SolutionWildcard } from './distinct-star.js';
export { parseCostBytes } from './parse-cost.js';
export {
  type Algebra,
  parseAsTemplate,
  type ParsedQuery,
  parseQuery,
  parseQueryShape,
  parseUpdate,
} from './parse.js';
export {
  MAX_TEMPLATE_TEXT_LENGTH,
  placeholderNumber,
  substituteTerm,
  templateOf,
  withConstants,
} from './query-template.js';
export { checkTextLimits } from './text-limits.js';
