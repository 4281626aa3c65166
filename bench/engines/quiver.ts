/**
 * Quiver as users run it: `quiver load` into a fresh store, then the real CLI server
 * (`quiver serve --store DIR`) in a child process over it.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadQuiverStore } from '../dataset-loader.js';
import { startChildServer } from './child-server.js';
import type { EngineLauncher } from './engine.js';

export const launchQuiver: EngineLauncher = async (context) => {
  const storeDir = join(context.workDir, 'quiver-store');
  const load = await loadQuiverStore(context.dataset, storeDir, context.repoRoot);
  const nodeFlags: string[] = [];
  if (context.profileDir) {
    mkdirSync(context.profileDir, { recursive: true });
    nodeFlags.push('--cpu-prof', '--cpu-prof-dir', context.profileDir);
  }
  const cli = join(context.repoRoot, 'dist/src/cli/main.js');
  const server = await startChildServer({
    command: process.execPath,
    args: [...nodeFlags, cli, 'serve', '--store', storeDir, '--host', '127.0.0.1', '--port', '0', '--query-timeout', String(context.queryTimeoutMs / 1000)],
    cwd: context.repoRoot,
    startupMs: 60_000,
  });
  const version = (JSON.parse(readFileSync(join(context.repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
  return {
    engine: {
      name: 'quiver',
      description: `quiver ${version} (quiver serve, LMDB store, ${context.profileDir ? 'under --cpu-prof' : 'default workers'}, --inline-queries ${process.env.QUIVER_INLINE_QUERIES ?? 'auto'})`,
      endpoint: server.endpoint,
      pid: server.pid,
      load: { ...load, method: '`quiver load` (CLI, wall-clock including Node start-up)' },
      memory: () => server.memory(),
      stop: () => server.stop(),
    },
  };
};
