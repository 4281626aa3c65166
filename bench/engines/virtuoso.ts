/**
 * Virtuoso Open Source, when installed (virtuoso-t and its isql client on the PATH): a throw-away
 * database in the work directory, loaded with the bulk loader (ld_dir + rdf_loader_run), queried at
 * its built-in /sparql endpoint. Not installed: skipped with a reason; the harness installs nothing.
 *
 * The data goes into one named graph, made the default graph of every query by the ini's
 * [SPARQL] DefaultGraph: without it, Virtuoso's default graph is the union of all its graphs, its
 * own system graphs included (2,496 more triples on a fresh database). Requests no longer name it
 * (`default-graph-uri`), as an installation's users do not; measured, that made no difference.
 *
 * Three protocol details of Virtuoso 7.2 (Debian's virtuoso-opensource): a POST with the direct
 * `application/sparql-query` body is never answered, so queries go form-encoded; DESCRIBE, whose
 * answer SPARQL leaves to the engine, returns incoming as well as outgoing triples unless asked for
 * the concise bounded description that Quiver and Oxigraph return; and its HTTP server leaves
 * Nagle's algorithm on and writes an answer of more than 32 KiB in pieces (headers, then 32 KiB at
 * a time), each waiting for the ACK of the last. On a kept-alive connection Linux delays that ACK
 * by 40 ms (delayed ACK in interactive mode), so BSBM Q2 took 45-60 ms instead of 6: every request
 * gets a connection of its own, which acknowledges at once.
 *
 * Tuning, as an independent installation measured on this machine: 1.3 GiB of buffers (170,000
 * pages, 130,000 dirty: the ini's own recommendation for 2 GB of memory, enough for 10k products),
 * and Debian's query-engine parameters (virtuoso-ini.ts). The harness's Virtuoso used to run with 2 GB
 * of buffers and Virtuoso's built-in query parameters, which made it about half as fast on
 * Explore and 4× slower on small analytic queries; the protocol details (form POST, the DESCRIBE pragma, default-graph-uri) cost nothing
 * measurable (bench/RESULTS-LOG.md, 2026-11-28).
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { startChildServer } from './child-server.js';
import { freePort, type EngineLauncher, type QueryProtocol } from './engine.js';
import { virtuosoIni } from './virtuoso-ini.js';

const run = promisify(execFile);
const GRAPH = 'http://example.org/bsbm';

const PROTOCOL: QueryProtocol = { encoding: 'form', prologue: 'DEFINE sql:describe-mode "CBD"', freshConnections: true };

export const launchVirtuoso: EngineLauncher = async (context) => {
  const server = onPath('virtuoso-t');
  const isql = onPath('isql-vt') ?? onPath('isql-v');
  if (!server || !isql) return { skipped: 'Virtuoso is not installed (no virtuoso-t and isql-vt on the PATH)' };
  const dir = resolve(context.workDir, 'virtuoso');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const [sqlPort, httpPort] = [await freePort(), await freePort()];
  const dataset = resolve(context.dataset);
  const ini = join(dir, 'virtuoso.ini');
  writeFileSync(
    ini,
    virtuosoIni({
      dir,
      sqlPort,
      httpPort,
      queryTimeoutS: Math.ceil(context.queryTimeoutMs / 1000),
      readableDirs: [dirname(dataset)],
      buffers: 170_000,
      dirtyBuffers: 130_000,
      defaultGraph: GRAPH,
    }),
  );
  const endpoint = `http://127.0.0.1:${httpPort}/sparql`;
  const child = await startChildServer({
    command: server,
    args: ['+foreground', '+configfile', ini],
    cwd: dir,
    startupMs: 120_000,
    readyUrl: `${endpoint}?query=${encodeURIComponent('ASK {}')}`,
  });
  try {
    const started = process.hrtime.bigint();
    const loader = `ld_dir('${dirname(dataset)}', '${basename(dataset)}', '${GRAPH}'); rdf_loader_run(); checkpoint;`;
    await run(isql, [`127.0.0.1:${sqlPort}`, 'dba', 'dba', `exec=${loader}`], { maxBuffer: 16 * 1024 * 1024 });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const triples = await tripleCount(endpoint);
    const storeBytes = allocatedBytes(join(dir, 'virtuoso.db')) + allocatedBytes(join(dir, 'virtuoso.trx'));
    const version =
      spawnSync(server, ['-?'], { encoding: 'utf8' })
        .stderr.split('\n')
        .find((l) => /Version/i.test(l))
        ?.trim() ?? 'version unknown';
    return {
      engine: {
        name: 'virtuoso',
        description: `Virtuoso (${version}), virtuoso-t with the harness's virtuoso.ini`,
        endpoint,
        pid: child.pid,
        load: {
          triples,
          seconds,
          triplesPerSecond: triples / seconds,
          storeBytes,
          bytesPerTriple: storeBytes / triples,
          method: 'isql ld_dir + rdf_loader_run + checkpoint (server already running); store = virtuoso.db + .trx',
        },
        protocol: PROTOCOL,
        memory: () => child.memory(),
        stop: () => child.stop(60_000),
      },
    };
  } catch (error) {
    await child.stop();
    throw error;
  }
};

function onPath(command: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

function allocatedBytes(file: string): number {
  try {
    return statSync(file).blocks * 512;
  } catch {
    return 0;
  }
}

async function tripleCount(endpoint: string): Promise<number> {
  const query = 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }';
  const url = `${endpoint}?query=${encodeURIComponent(query)}&default-graph-uri=${encodeURIComponent(GRAPH)}`;
  const response = await fetch(url, { headers: { accept: 'application/sparql-results+json' } });
  const json = (await response.json()) as { results: { bindings: { n: { value: string } }[] } };
  return Number(json.results.bindings[0].n.value);
}
