/**
 * Blank node label spaces for the documents whose labels Quiver scopes itself (N-Triples and
 * N-Quads through nquads-reader.ts, JSON-LD, RDF/XML): two documents that both say `_:b0` mean two
 * nodes. N3.js scopes its own (Turtle, TriG) with `b<n>_`; ours start `d<n>_`, so neither meets
 * the other's within a process.
 */
let documentCounter = 0;

/** The prefix of the next document's blank node labels. */
export function documentBlankPrefix(): string {
  return `d${documentCounter++}_`;
}
