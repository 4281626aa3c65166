#!/usr/bin/env node
/* global URL, process, console */
// Builds the browser pages' assets: type-checks src/ui/ (its own tsconfig: DOM types), bundles each
// page's script with every library it uses into dist/ui/ (no asset is ever fetched from elsewhere;
// chart.js and cytoscape land in chunks loaded only when a chart or graph is first drawn), and
// copies the stylesheet. Run by `npm run build` and `npm run prepare`, after tsc.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const source = join(root, 'src', 'ui');
const out = join(root, 'dist', 'ui');

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const check = spawnSync(process.execPath, [tsc, '-p', join(source, 'tsconfig.json')], { stdio: 'inherit' });
if (check.status !== 0) process.exit(check.status ?? 1);

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: { query: join(source, 'query-page.ts'), update: join(source, 'update-page.ts') },
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  chunkNames: 'chunk-[hash]',
  minify: true,
  target: ['es2022'],
  platform: 'browser',
  legalComments: 'eof',
  logLevel: 'warning',
});
copyFileSync(join(source, 'quiver.css'), join(out, 'quiver.css'));

const sizes = readdirSync(out).map((name) => [name, statSync(join(out, name)).size]);
const total = sizes.reduce((sum, [, size]) => sum + size, 0);
console.log(`dist/ui: ${sizes.length} files, ${(total / 1024).toFixed(0)} KiB (${sizes.map(([n, s]) => `${n} ${(s / 1024).toFixed(0)} KiB`).join(', ')})`);
