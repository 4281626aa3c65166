/**
 * The layers of src/ and what each may import: the picture of ../shared/DESIGN.md as data, read by
 * eslint.config.js (which forbids every other import between layers) and scripts/layer-imports.mjs.
 * A layer imports only the layers listed for it, and only through their index.ts. The files directly
 * in src/ (errors.ts, bounded-map.ts) sit below every layer; src/index.ts is the package entry.
 * ui/ is browser code bundled on its own: it may import types only, from the files that define them.
 */
export const MAY_IMPORT = {
  rdf: [],
  store: ['rdf'],
  sparql: ['rdf'],
  formats: ['rdf'],
  net: ['rdf'],
  engine: ['sparql', 'formats', 'store', 'net', 'rdf'],
  // The bulk loader: parse workers feeding the store's writer (quiver load, the library's load).
  loader: ['formats', 'store', 'rdf'],
  service: ['engine', 'loader', 'sparql', 'formats', 'store', 'net', 'rdf'],
  // DESIGN.md: the server never touches the store or the engine; it talks to the SparqlService.
  server: ['service', 'sparql', 'formats', 'net', 'rdf'],
  library: ['server', 'service', 'engine', 'loader', 'sparql', 'formats', 'store', 'net', 'rdf'],
  cli: ['library', 'server', 'service', 'engine', 'loader', 'sparql', 'formats', 'store', 'net', 'rdf'],
  ui: [],
};

export const LAYERS = Object.keys(MAY_IMPORT);
