import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { runMixes } from '../http-driver.js';
import type { QueryMix } from '../query-mixes.js';
import type { LaunchContext, RunningEngine } from './engine.js';
import { launchOxigraph } from './oxigraph.js';
import { launchQuiver } from './quiver.js';
import { launchVirtuoso } from './virtuoso.js';

const REPO_ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

const DATA =
  Array.from({ length: 30 }, (_, i) => `<http://example.org/s${i}> <http://example.org/p> "${i}"^^<http://www.w3.org/2001/XMLSchema#integer> .`).join('\n') +
  '\n';

const MIX: QueryMix[] = [
  {
    mix: 1,
    queries: [
      { query: 'q01', seq: 1, form: 'select', params: {}, text: 'SELECT ?s WHERE { ?s <http://example.org/p> ?o FILTER(?o >= 10) }', deterministic: true },
      {
        query: 'q12',
        seq: 2,
        form: 'construct',
        params: {},
        text: 'CONSTRUCT { ?s <http://example.org/q> ?o } WHERE { ?s <http://example.org/p> ?o FILTER(?o < 5) }',
        deterministic: true,
      },
    ],
  },
];

test('both engines load the same gzipped file, serve it in a child process and give the same answers', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'quiver-bench-'));
  const dataset = join(dir, 'tiny.nt.gz');
  writeFileSync(dataset, gzipSync(DATA));
  const context: LaunchContext = { dataset, repoRoot: REPO_ROOT, workDir: dir, queryTimeoutMs: 10_000 };
  const engines: RunningEngine[] = [];
  try {
    for (const launch of [launchQuiver, launchOxigraph]) {
      const launched = await launch(context);
      assert.ok('engine' in launched, 'skipped' in launched ? launched.skipped : '');
      engines.push(launched.engine);
    }
    for (const engine of engines) {
      assert.equal(engine.load.triples, 30, engine.name);
      const run = await runMixes(MIX, { endpoint: engine.endpoint, clients: 1, timeoutMs: 10_000 });
      assert.deepEqual(
        run.samples.map((s) => [s.error, s.rows]),
        [
          [undefined, 20],
          [undefined, 5],
        ],
        engine.name,
      );
      assert.ok(engine.memory()!.peakRssBytes > 0);
    }
    assert.ok(engines[0].load.bytesPerTriple! > 0);
  } finally {
    for (const engine of engines) await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Virtuoso, when installed, loads into its graph and answers like the others (DESCRIBE as a concise description)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'quiver-bench-virtuoso-'));
  const dataset = join(dir, 'tiny.nt.gz');
  writeFileSync(dataset, gzipSync(DATA + '<http://example.org/s1> <http://example.org/q> <http://example.org/s2> .\n'));
  const launched = await launchVirtuoso({ dataset, repoRoot: REPO_ROOT, workDir: dir, queryTimeoutMs: 10_000 });
  if ('skipped' in launched) {
    rmSync(dir, { recursive: true, force: true });
    t.skip(launched.skipped);
    return;
  }
  const engine = launched.engine;
  try {
    assert.equal(engine.load.triples, 31); // its own system graphs are not counted
    const describe: QueryMix = {
      mix: 2,
      queries: [{ query: 'q09', seq: 1, form: 'describe', params: {}, text: 'DESCRIBE <http://example.org/s2>', deterministic: true }],
    };
    const run = await runMixes([...MIX, describe], { endpoint: engine.endpoint, clients: 1, timeoutMs: 10_000, protocol: engine.protocol });
    // s2's own triple only, not the incoming s1 q s2
    assert.deepEqual(
      run.samples.map((s) => [s.error, s.rows]),
      [
        [undefined, 20],
        [undefined, 5],
        [undefined, 1],
      ],
    );
    assert.ok(engine.load.bytesPerTriple! > 0);
    assert.ok(engine.memory()!.peakRssBytes > 0);
  } finally {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
