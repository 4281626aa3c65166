/** What loader/ offers to the layers above it. Kept up to date by scripts/layer-imports.mjs. */
export { loadFile, type LoadProgress, type LoadSource, LoadSyntaxError } from './file-loader.js';
