/**
 * What server/ offers to the layers above it: the HTTP service over any SparqlService (buildServer),
 * its configuration, and the access hooks. The export list is kept up to date by
 * scripts/layer-imports.mjs; this paragraph is not.
 */
export { buildServer } from './app.js';
export { accessHooks } from './auth.js';
export { normalizeBasePath, type ServerConfig } from './config.js';
