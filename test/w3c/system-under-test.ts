/**
 * The parts of Quiver the suites exercise, loaded on first use: syntax tests then run even while
 * the engine or the store cannot be loaded, and an evaluation test reports the load failure as its
 * own failure instead of stopping the run.
 */
import type { QuadStore } from '../../src/store/quad-store.js';
import type { EngineQueryOptions, EngineQueryResult, EngineUpdateOptions } from '../../src/engine/engine-api.js';

export interface Engine {
  runQuery(store: QuadStore, query: string, options?: EngineQueryOptions): Promise<EngineQueryResult>;
  runUpdate(store: QuadStore, update: string, options?: EngineUpdateOptions): Promise<unknown>;
}

export interface Parser {
  parseQuery(text: string, baseIri?: string): unknown;
  parseUpdate(text: string, baseIri?: string): unknown;
}

export type OpenStore = (options: { memory: true }) => Promise<QuadStore> | QuadStore;

export async function loadEngine(): Promise<Engine> {
  return (await import('../../src/engine/query-engine.js')) as Engine;
}

export async function loadParser(): Promise<Parser> {
  return (await import('../../src/sparql/parse.js')) as Parser;
}

export async function loadOpenStore(): Promise<OpenStore> {
  const module = (await import('../../src/store/lmdb-store.js')) as { openStore: OpenStore };
  return module.openStore;
}
