/**
 * The browser pages' bundled assets (scripts, styles), built by scripts/build-ui.mjs into dist/ui/
 * and served from {base}/ui/ by this small static route. Every file is read once at start: the set
 * is small, and a name that is not in it can never reach the file system.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { HttpError } from './http-error.js';

interface UiAsset {
  body: Buffer;
  contentType: string;
  /** A hash of the content: links carry it as ?v=, so a cached copy is never stale. */
  version: string;
}

export interface UiAssets {
  /** The asset's URL under {base}/ui/ with its version, or undefined when it was not built. */
  href(name: string): string | undefined;
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** dist/ui/, next to dist/src/ where this module is compiled to. */
const BUILT_UI_DIR = fileURLToPath(new URL('../../ui/', import.meta.url));

/** esbuild names shared chunks chunk-<content hash>.js: they never change under one name. */
const CONTENT_NAMED = /^chunk-[A-Z0-9]+\.js$/;

const ONE_YEAR = 'public, max-age=31536000, immutable';

let loaded: Map<string, UiAsset> | undefined;

/** The built assets (read on first use); empty when the UI was not built (the pages then work without script). */
function builtAssets(): Map<string, UiAsset> {
  loaded ??= readAssets(BUILT_UI_DIR);
  return loaded;
}

function readAssets(dir: string): Map<string, UiAsset> {
  const assets = new Map<string, UiAsset>();
  if (!existsSync(dir)) return assets;
  for (const name of readdirSync(dir)) {
    const contentType = CONTENT_TYPES[extname(name)];
    if (contentType === undefined) continue;
    const body = readFileSync(join(dir, name));
    assets.set(name, { body, contentType, version: createHash('sha256').update(body).digest('hex').slice(0, 12) });
  }
  return assets;
}

export function uiPath(basePath: string): string {
  return `${basePath}/ui`;
}

export function uiAssets(basePath: string): UiAssets {
  const assets = builtAssets();
  return {
    href(name) {
      const asset = assets.get(name);
      return asset && `${uiPath(basePath)}/${name}?v=${asset.version}`;
    },
  };
}

export function registerUiAssets(app: FastifyInstance, basePath: string): void {
  app.get(`${uiPath(basePath)}/:name`, async (request, reply) => {
    const { name } = request.params as { name: string };
    const asset = builtAssets().get(name);
    if (asset === undefined) throw new HttpError(404, `no asset ${name} under ${uiPath(basePath)}/`);
    const version = (request.query as Record<string, unknown>)['v'];
    const immutable = version === asset.version || CONTENT_NAMED.test(name);
    const etag = `"${asset.version}"`;
    reply
      .type(asset.contentType)
      .header('cache-control', immutable ? ONE_YEAR : 'no-cache')
      .header('etag', etag)
      .header('x-content-type-options', 'nosniff');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.send(asset.body);
  });
}
