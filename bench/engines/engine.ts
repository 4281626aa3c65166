/**
 * What the harness needs of an engine under test: a SPARQL endpoint over the loaded dataset,
 * running in its own process, and how long the load took.
 */
import { createServer } from 'node:net';
import type { ProcessMemory } from './process-memory.js';

export interface LoadReport {
  triples: number;
  seconds: number;
  triplesPerSecond: number;
  /** Bytes on disk of the store, where the engine keeps one. */
  storeBytes?: number;
  bytesPerTriple?: number;
  /** What the load covers, e.g. "harness bulk load through the store API". */
  method: string;
}

/** How a query is put on the wire, where an engine needs more than the plain SPARQL Protocol POST. */
export interface QueryProtocol {
  /** 'direct': body application/sparql-query (the default); 'form': application/x-www-form-urlencoded `query=`. */
  encoding?: 'direct' | 'form';
  /** Extra protocol parameters, e.g. { 'default-graph-uri': G }; in the URL, so they go with every encoding. */
  params?: Record<string, string>;
  /** Text put before every query, e.g. an engine's pragma for implementation-defined forms (DESCRIBE). */
  prologue?: string;
  /**
   * A new connection per request instead of kept-alive ones: for servers that leave Nagle's
   * algorithm on and write an answer in pieces, which a kept-alive connection stalls by 40 ms.
   */
  freshConnections?: boolean;
}

export interface RunningEngine {
  name: string;
  /** Product and version, and how it runs (e.g. "oxigraph 0.5.11 (JS/WASM, in-memory)"). */
  description: string;
  endpoint: string;
  pid: number;
  load: LoadReport;
  /** Absent: POST application/sparql-query, as the SPARQL 1.1 Protocol's direct encoding. */
  protocol?: QueryProtocol;
  memory(): ProcessMemory | undefined;
  stop(): Promise<void>;
}

export interface LaunchContext {
  dataset: string;
  repoRoot: string;
  /** A directory the engine may use for its store and files (bench/out/...). */
  workDir: string;
  queryTimeoutMs: number;
  /** Run the server under the CPU profiler, writing profiles here. */
  profileDir?: string;
}

/** An engine that is not installed says why instead of failing the run. */
export type LaunchResult = { engine: RunningEngine } | { skipped: string };

export type EngineLauncher = (context: LaunchContext) => Promise<LaunchResult>;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
