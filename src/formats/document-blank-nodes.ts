/**
 * Blank node label spaces for the documents Quiver reads (every RDF format): two documents that
 * both say `_:b0` mean two nodes, in this process or any other (rdf/blank-node-scopes.ts). N3.js
 * (Turtle, TriG) is given one too, instead of its own per-process counter.
 */
import { newBlankNodeScope } from '../rdf/index.js';

/** The prefix of the next document's blank node labels. */
export function documentBlankPrefix(): string {
  return newBlankNodeScope('d');
}
