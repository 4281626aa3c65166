/**
 * What rdf/ offers to every layer: the RDF/JS term model and factory, term keys (the canonical
 * string of a term), IRI syntax checks, term sizes for memory accounting, and vocabularies. The
 * export list is kept up to date by scripts/layer-imports.mjs; this paragraph is not.
 */
export { newBlankNodeScope } from './blank-node-scopes.js';
export { invalidIriInQuad, iriReferenceError, iriSyntaxError, isAbsoluteIri } from './iri-syntax.js';
export { quadBytes, rowBytes, termBytes } from './term-size.js';
export {
  blankNode,
  defaultGraph,
  factory,
  literal,
  type Literal,
  namedNode,
  type NamedNode,
  type Quad,
  type SolutionRow,
  type Term,
  termFromKey,
  termKey,
  termToString,
  typedLiteral,
} from './terms.js';
export { rdf, RDF, xsd, XSD } from './vocabulary.js';
export { compareTripleTerms, type Direction, directionalLiteral, directionOf, orderRank, sameParts, termsEqual, tripleTerm } from './terms.js';
