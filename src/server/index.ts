/** What server/ offers to the layers above it. Kept up to date by scripts/layer-imports.mjs. */
export { buildServer } from './app.js';
export { accessHooks } from './auth.js';
export { normalizeBasePath, type ServerConfig } from './config.js';
