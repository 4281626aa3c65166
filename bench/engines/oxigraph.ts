/**
 * The peer: Oxigraph (npm `oxigraph`, a devDependency) loaded in memory inside the harness's own
 * small SPARQL server (oxigraph-server.ts), in a child process like every engine.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChildServer } from './child-server.js';
import type { EngineLauncher, LoadReport } from './engine.js';

export const launchOxigraph: EngineLauncher = async (context) => {
  const version = oxigraphVersion();
  if (!version) return { skipped: 'the npm package oxigraph is not installed (npm ci installs it as a devDependency)' };
  const script = fileURLToPath(new URL('./oxigraph-server.js', import.meta.url));
  const server = await startChildServer({
    command: process.execPath,
    args: [script, '--dataset', context.dataset, '--port', '0'],
    cwd: context.repoRoot,
    startupMs: 300_000,
  });
  const loadLine = server.stdout.find((line) => line.startsWith('load '));
  const load = JSON.parse(loadLine?.slice(5) ?? '{}') as Omit<LoadReport, 'method'>;
  return {
    engine: {
      name: 'oxigraph',
      description: `oxigraph ${version} (npm package: JS/WASM, in-memory store, one thread, behind the harness's node:http server)`,
      endpoint: server.endpoint,
      pid: server.pid,
      load: { ...load, method: 'Store.load of the gunzipped file, no_transaction (in memory, nothing on disk)' },
      memory: () => server.memory(),
      stop: () => server.stop(),
    },
  };
};

function oxigraphVersion(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const main = require.resolve('oxigraph');
    return (JSON.parse(readFileSync(join(main, '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return undefined;
  }
}
