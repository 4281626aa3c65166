/**
 * The real `quiver` command in a child process: `serve` until SIGTERM, and the one-shot `update`
 * and `query` subcommands against a store directory.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../protocol/protocol-manifest.js';
import { encodeQuery } from './harness.js';

const MAIN = join(repoRoot(), 'dist', 'src', 'cli', 'main.js');
/** The package's bin, bundled by scripts/build-cli.mjs (npm run build): absent after tsc alone. */
const BIN = join(repoRoot(), 'dist', 'src', 'cli', 'quiver.cjs');
const run = promisify(execFile);

/** Starts `quiver serve` and resolves with its URL once it prints the listening line. */
async function startCli(args: string[], env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [MAIN, 'serve', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`quiver serve exited with ${code}: ${output}`)));
  });
  return { child, url };
}

async function stop(child: ChildProcess): Promise<number | null> {
  const exited = once(child, 'exit');
  process.kill(child.pid!, 'SIGTERM');
  const [code] = await exited;
  return code as number | null;
}

describe('quiver serve', () => {
  it('prints the URL it listens on, serves queries and updates, and stops cleanly on SIGTERM', async () => {
    const { child, url } = await startCli(['--memory', '--port', '0', '--workers', '1']);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/sparql$/);
    const inserted = await fetch(`${url}/update`, {
      method: 'POST',
      headers: { 'content-type': 'application/sparql-update' },
      body: 'INSERT DATA { <http://example.org/s> <http://example.org/p> "o" }',
    });
    assert.equal(inserted.status, 200);
    const response = await fetch(`${url}?${encodeQuery({ query: 'SELECT ?o { ?s ?p ?o }' })}`);
    assert.equal(response.status, 200);
    const json = (await response.json()) as any;
    assert.equal(json.results.bindings[0].o.value, 'o');
    assert.equal(await stop(child), 0);
    await assert.rejects(fetch(`${url}/select`), 'the port is closed after the stop');
  });

  it('reads its settings from QUIVER_* environment variables', async () => {
    const { child, url } = await startCli([], { QUIVER_MEMORY: 'true', QUIVER_PORT: '0', QUIVER_BASE_PATH: '/marmotta', QUIVER_WORKERS: '1' });
    try {
      assert.match(url, /\/marmotta\/sparql$/);
      const health = await fetch(url.replace(/\/sparql$/, '/health'));
      assert.equal(await health.text(), 'ok\n');
    } finally {
      assert.equal(await stop(child), 0);
    }
  });

  it('lists its flags, defaults and environment variables with --help', async () => {
    const { stdout } = await run(process.execPath, [MAIN, 'serve', '--help']);
    for (const text of [
      '--store DIR',
      '--memory',
      '--port PORT',
      'default: 7878',
      'default: 127.0.0.1',
      'QUIVER_PORT',
      'QUIVER_QUERY_TIMEOUT',
      '--no-get-update',
    ]) {
      assert.ok(stdout.includes(text), text);
    }
  });

  it('serves a union default graph with --union-default-graph, and says so in its service description', async () => {
    const { child, url } = await startCli(['--memory', '--port', '0', '--workers', '1', '--union-default-graph']);
    try {
      const update = (text: string) => fetch(`${url}/update`, { method: 'POST', headers: { 'content-type': 'application/sparql-update' }, body: text });
      assert.equal((await update('INSERT DATA { GRAPH <http://example.org/g> { <http://example.org/s> <http://example.org/p> "in g" } }')).status, 200);
      assert.equal((await update('INSERT { ?s <http://example.org/copy> ?o } WHERE { ?s <http://example.org/p> ?o }')).status, 200);
      const select = async (query: string) => ((await (await fetch(`${url}?${encodeQuery({ query })}`)).json()) as any).results.bindings.length;
      assert.equal(await select('SELECT * { ?s <http://example.org/p> ?o }'), 1, 'a named graph is in the default graph of queries');
      assert.equal(await select('SELECT * { GRAPH ?g { ?s <http://example.org/copy> ?o } }'), 0, 'the update wrote to the real default graph');
      const description = await (await fetch(url, { headers: { accept: 'text/turtle' } })).text();
      assert.match(description, /UnionDefaultGraph/);
      const defaultGraph = await (await fetch(`${url}/store?default`, { headers: { accept: 'application/n-triples' } })).text();
      assert.doesNotMatch(defaultGraph, /example\.org\/p>/, 'the graph store protocol addresses the real default graph');
      assert.match(defaultGraph, /copy/);
    } finally {
      assert.equal(await stop(child), 0);
    }
  });

  it('refuses --union-default-graph in remote mode, where the remote decides', async () => {
    await assert.rejects(
      run(process.execPath, [MAIN, 'serve', '--remote', 'http://127.0.0.1:1/sparql', '--union-default-graph']),
      (error: any) => error.code === 2 && /union-default-graph/.test(error.stderr),
    );
  });

  it('refuses an unknown flag with exit code 2', async () => {
    await assert.rejects(run(process.execPath, [MAIN, 'serve', '--bogus']), (error: any) => error.code === 2 && /bogus/.test(error.stderr));
  });
});

describe('quiver update and query', () => {
  it('change and read a store directory', async () => {
    const store = await mkdtemp(join(tmpdir(), 'quiver-cli-'));
    try {
      const updated = await run(process.execPath, [
        MAIN,
        'update',
        '--store',
        store,
        'INSERT DATA { <http://example.org/a> <http://example.org/b> 42 . GRAPH <http://example.org/g> { <http://example.org/a> <http://example.org/b> 1 } }',
      ]);
      assert.equal(updated.stdout, 'inserted 2, deleted 0\n  default graph: inserted 1, deleted 0\n  <http://example.org/g>: inserted 1, deleted 0\n');
      const csv = await run(process.execPath, [MAIN, 'query', '--store', store, '--format', 'csv', 'SELECT ?o { ?s ?p ?o }']);
      assert.equal(csv.stdout, 'o\r\n42\r\n');
      const turtle = await run(process.execPath, [MAIN, 'query', '--store', store, 'CONSTRUCT WHERE { ?s ?p ?o }']);
      assert.match(turtle.stdout, /<http:\/\/example\.org\/a> <http:\/\/example\.org\/b> 42/);
    } finally {
      await rm(store, { recursive: true, force: true });
    }
  });

  it('read and write with the union of all graphs as the default graph (--union-default-graph)', async () => {
    const store = await mkdtemp(join(tmpdir(), 'quiver-cli-'));
    try {
      await run(process.execPath, [
        MAIN,
        'update',
        '--store',
        store,
        'INSERT DATA { GRAPH <http://example.org/g> { <http://example.org/a> <http://example.org/b> 1 } }',
      ]);
      const query = ['query', '--store', store, '--format', 'csv', 'SELECT ?o { ?s <http://example.org/b> ?o }'];
      assert.equal((await run(process.execPath, [MAIN, ...query])).stdout, 'o\r\n');
      assert.equal((await run(process.execPath, [MAIN, ...query, '--union-default-graph'])).stdout, 'o\r\n1\r\n');
      const updated = await run(process.execPath, [
        MAIN,
        'update',
        '--store',
        store,
        '--union-default-graph',
        'INSERT { ?s <http://example.org/c> ?o } WHERE { ?s ?p ?o }',
      ]);
      assert.match(updated.stdout, /default graph: inserted 1/);
    } finally {
      await rm(store, { recursive: true, force: true });
    }
  });

  it('report a syntax error on stderr with exit code 1', async () => {
    const store = await mkdtemp(join(tmpdir(), 'quiver-cli-'));
    try {
      await run(process.execPath, [MAIN, 'update', '--store', store, 'CLEAR DEFAULT']);
      await assert.rejects(
        run(process.execPath, [MAIN, 'query', '--store', store, 'SELECT * {']),
        (error: any) => error.code === 1 && /line 1/.test(error.stderr),
      );
    } finally {
      await rm(store, { recursive: true, force: true });
    }
  });

  it('query a directory that holds no store: an error naming the path, and nothing created', async () => {
    const missing = join(tmpdir(), `quiver-cli-missing-${process.pid}`);
    await assert.rejects(
      run(process.execPath, [MAIN, 'query', '--store', missing, 'ASK {}']),
      (error: any) => error.code === 1 && error.stderr.includes(`no Quiver store at ${missing}`),
    );
    assert.equal(existsSync(missing), false);
  });

  it('query --explain prints the plan with estimated and actual rows', async () => {
    const store = await mkdtemp(join(tmpdir(), 'quiver-cli-'));
    try {
      await run(process.execPath, [MAIN, 'update', '--store', store, 'INSERT DATA { <http://example.org/a> <http://example.org/b> 42 }']);
      const { stdout } = await run(process.execPath, [MAIN, 'query', '--store', store, '--explain', 'SELECT * { ?s ?p ?o }']);
      const explanation = JSON.parse(stdout) as { resultRows: number; plan: { operator: string; actualRows: number } };
      assert.equal(explanation.resultRows, 1);
      assert.equal(typeof explanation.plan.operator, 'string');
    } finally {
      await rm(store, { recursive: true, force: true });
    }
  });

  it('print the version with --version', async () => {
    const { stdout } = await run(process.execPath, [MAIN, '--version']);
    assert.match(stdout, /^quiver \d+\.\d+\.\d+\n$/);
  });

  it('load and dump refuse a wrong command line with exit code 2 (their suites are under test/cli-load)', async () => {
    await assert.rejects(
      run(process.execPath, [MAIN, 'load', 'missing-file.ttl']),
      (error: any) => error.code === 2 && /cannot read missing-file\.ttl/.test(error.stderr),
    );
    await assert.rejects(
      run(process.execPath, [MAIN, 'dump', '--format', 'csv']),
      (error: any) => error.code === 2 && /--format must be one of/.test(error.stderr),
    );
  });
});

describe('the bundled quiver bin', { skip: !existsSync(BIN) && 'run scripts/build-cli.mjs first' }, () => {
  it('runs update and query from its bundle, the second query through the code cache the first one left', async () => {
    const store = await mkdtemp(join(tmpdir(), 'quiver-cli-'));
    const cache = await mkdtemp(join(tmpdir(), 'quiver-cli-cache-'));
    const env = { ...process.env, QUIVER_CODE_CACHE: cache };
    try {
      await run(process.execPath, [BIN, 'query', '--help'], { env });
      assert.deepEqual(await readdir(cache), [], '--help leaves no cache');
      await run(process.execPath, [BIN, 'update', '--store', store, 'INSERT DATA { <http://example.org/a> <http://example.org/b> 42 }'], { env });
      const cached = await readdir(cache);
      assert.equal(cached.length, 1, 'the update left the cache');
      for (let i = 0; i < 2; i++) {
        const csv = await run(process.execPath, [BIN, 'query', '--store', store, '--format', 'csv', 'SELECT ?o { ?s ?p ?o }'], { env });
        assert.equal(csv.stdout, 'o\r\n42\r\n');
      }
      assert.deepEqual(await readdir(cache), cached, 'a cache that was used is not written again');
      await assert.rejects(
        run(process.execPath, [BIN, 'query', '--store', store, 'SELECT * {'], { env }),
        (error: any) => error.code === 1 && /quiver query: SyntaxError: .*line 1/.test(error.stderr),
      );
      // SERVICE loads Node's HTTP client on demand, from the bundle; the fetch policy then refuses loopback.
      await assert.rejects(
        run(process.execPath, [BIN, 'query', '--store', store, 'SELECT * { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }'], { env }),
        (error: any) => error.code === 1 && /refused: 127\.0\.0\.1 is/.test(error.stderr),
      );
    } finally {
      await rm(store, { recursive: true, force: true });
      await rm(cache, { recursive: true, force: true });
    }
  });
});
