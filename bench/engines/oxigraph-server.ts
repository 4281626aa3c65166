/**
 * The peer engine's server, run as a child process by oxigraph.ts: Oxigraph's JS build (an
 * in-memory store, Rust compiled to WASM) behind the smallest SPARQL 1.1 Protocol endpoint that
 * answers the harness: query by GET ?query=, POST application/sparql-query or POST form;
 * SELECT/ASK as SPARQL JSON, CONSTRUCT/DESCRIBE as N-Triples.
 *
 * Evaluation is synchronous on the one JS thread, so concurrent clients are served one query at a
 * time; the native Oxigraph server would use several threads.
 *
 *   node dist/bench/engines/oxigraph-server.js --dataset FILE [--port P]
 *
 * Prints "load {json}" once loaded, then "listening on http://127.0.0.1:P/sparql".
 */
import { createReadStream } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import { createGunzip } from 'node:zlib';
import oxigraph from 'oxigraph';

/**
 * The file in slices of whole lines: N-Triples lines stand alone, and one load of a 10k-product file
 * (about 900 MB) would not fit in the WASM build's 4 GB address space next to the store.
 */
async function loadStore(dataset: string): Promise<oxigraph.Store> {
  const started = process.hrtime.bigint();
  const store = new oxigraph.Store();
  const format = dataset.includes('.nq') ? 'application/n-quads' : 'application/n-triples';
  const input = createReadStream(dataset);
  let pending = '';
  for await (const chunk of dataset.endsWith('.gz') ? input.pipe(createGunzip()) : input) {
    pending += (chunk as Buffer).toString('utf8');
    if (pending.length < SLICE_CHARS) continue;
    const cut = pending.lastIndexOf('\n') + 1;
    // no_transaction: Oxigraph's bulk path, the counterpart of the harness's bulk load into Quiver.
    store.load(pending.slice(0, cut), { format, no_transaction: true });
    pending = pending.slice(cut);
  }
  if (pending.length > 0) store.load(pending, { format, no_transaction: true });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const triples = store.size;
  process.stdout.write(`load ${JSON.stringify({ triples, seconds, triplesPerSecond: triples / seconds })}\n`);
  return store;
}

const SLICE_CHARS = 32 * 1024 * 1024;

const RESULTS_JSON = 'application/sparql-results+json';
const N_TRIPLES = 'application/n-triples';

/** SPARQL JSON for SELECT/ASK; a graph result refuses that format, so it is asked for N-Triples. */
function evaluate(store: oxigraph.Store, query: string): { type: string; body: string } {
  try {
    return { type: RESULTS_JSON, body: String(store.query(query, { results_format: RESULTS_JSON })) };
  } catch (error) {
    if (!/RDF format/.test((error as Error).message)) throw error;
    return { type: N_TRIPLES, body: String(store.query(query, { results_format: N_TRIPLES })) };
  }
}

async function queryOf(req: IncomingMessage): Promise<string | undefined> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (req.method === 'GET') return url.searchParams.get('query') ?? undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim();
  if (type === 'application/x-www-form-urlencoded') return new URLSearchParams(body).get('query') ?? undefined;
  return body;
}

async function answer(store: oxigraph.Store, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const query = await queryOf(req);
  if (!query) {
    res.writeHead(400, { 'content-type': 'text/plain' }).end('missing query');
    return;
  }
  let result: { type: string; body: string };
  try {
    result = evaluate(store, query);
  } catch (error) {
    res.writeHead(400, { 'content-type': 'text/plain' }).end((error as Error).message);
    return;
  }
  res.writeHead(200, { 'content-type': `${result.type}; charset=utf-8` }).end(result.body);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { dataset: { type: 'string' }, port: { type: 'string', default: '0' } } });
  if (!values.dataset) throw new Error('--dataset is required');
  const store = await loadStore(values.dataset);
  const server = createServer((req, res) => {
    answer(store, req, res).catch((error: Error) => res.writeHead(500).end(error.message));
  });
  server.keepAliveTimeout = 60_000;
  server.listen(Number(values.port), '127.0.0.1', () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : values.port;
    process.stdout.write(`listening on http://127.0.0.1:${port}/sparql\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

await main();
