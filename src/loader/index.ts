/**
 * What loader/ offers to the layers above it: bulk loading of an RDF file or stream into a store in
 * staged transactions (loadFile), with progress and syntax errors that name their line. The export
 * list is kept up to date by scripts/layer-imports.mjs; this paragraph is not.
 */
export { loadFile, type LoadProgress, type LoadSource, LoadSyntaxError } from './file-loader.js';
