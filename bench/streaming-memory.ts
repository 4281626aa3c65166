/**
 * Streams a result of one million rows from a real `quiver serve` and samples the server's
 * resident memory while it does: the figure shows whether results stream (flat memory) or
 * buffer (memory growing with the result). Run: npm run build && node dist/bench/streaming-memory.js
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { createInterface } from 'node:readline';

/** SIDE × SIDE rows, from a cross product of two SIDE-triple patterns; default one million. */
const SIDE = Number(process.argv[2] ?? 1000);

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kib / 1024;
}

async function startServer(): Promise<{ pid: number; url: string; stop: () => void }> {
  const child = spawn(process.execPath, ['dist/src/cli/main.js', 'serve', '--memory', '--port', '0', '--workers', '1'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    const match = /listening on (http:\/\/\S+)\/sparql/.exec(line);
    if (match) return { pid: child.pid!, url: match[1], stop: () => child.kill('SIGTERM') };
  }
  throw new Error('the server did not start');
}

async function main(): Promise<void> {
  const server = await startServer();
  try {
    const triples = Array.from({ length: SIDE }, (_, i) => `<urn:s${i}> <urn:p> ${i} .`).join('\n');
    const insert = await fetch(`${server.url}/sparql/update`, {
      method: 'POST',
      headers: { 'content-type': 'application/sparql-update' },
      body: `INSERT DATA { ${triples} }`,
    });
    if (!insert.ok) throw new Error(`insert failed: ${insert.status}`);
    const idle = rssMiB(server.pid);
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(server.pid))), 50);
    const started = performance.now();
    const response = await fetch(`${server.url}/sparql/select`, {
      method: 'POST',
      headers: { 'content-type': 'application/sparql-query', accept: 'application/sparql-results+json' },
      body: 'SELECT ?a ?x ?b ?y { ?a <urn:p> ?x . ?b <urn:p> ?y }',
    });
    let bytes = 0;
    let rows = 0;
    const decoder = new TextDecoder();
    let tail = '';
    for await (const chunk of response.body!) {
      bytes += chunk.length;
      // Each solution object of the JSON results starts with `{"a":`; keep a tail for matches split across chunks.
      const text = tail + decoder.decode(chunk, { stream: true });
      rows += text.split('{"a":').length - 1;
      tail = text.slice(-4).includes('{') ? text.slice(text.lastIndexOf('{')) : '';
      if (tail.startsWith('{"a":')) tail = '';
    }
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    console.log(`machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}`);
    console.log(
      `streamed ${rows.toLocaleString('en')} rows (${(bytes / 2 ** 20).toFixed(0)} MiB of JSON) in ${seconds.toFixed(1)} s ` +
        `(${Math.round(rows / seconds).toLocaleString('en')} rows/s); server RSS idle ${idle.toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB`,
    );
  } finally {
    server.stop();
  }
}

await main();
