/** The package's public entry: the library (library/index.ts). The `quiver` command is cli/main.ts. */
export * from './library/index.js';
