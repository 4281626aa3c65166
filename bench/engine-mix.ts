/**
 * The engine's own CPU per BSBM mix, in process: every query instance of a harness run's mixes
 * through `runQuery` on a store opened read-only, all rows pulled (the terms of every cell decoded,
 * as the service does before serializing), no HTTP, no worker hand-off. On this shared 2-core
 * machine wall-clock figures are noise; CPU time (user + system of the process) is the measure.
 *
 *   npm run build && node dist/bench/engine-mix.js --store DIR --mixes DIR [--rounds 6] [--warmup 20]
 *       [--per-query] [--digests FILE] [--queries q02,q07] [--off hashJoins,preparedPlans]
 *
 * `--store` and `--mixes` are what every harness run leaves in its work directory
 * (`bench/out/work/NAME/quiver-store` and `bench/out/work/NAME/mixes`); both are only read. The first `--warmup` mixes run once to let V8
 * compile the engine; each round then runs all the other mixes and prints CPU per mix. The first
 * rounds still include optimizing compilation: compare the later ones, alternating the trees
 * compared (A B A B…). `--per-query` adds each query's median CPU per instance (a `cpuUsage` call
 * around each query, which itself costs a little). `--digests FILE` writes one line per instance,
 * a digest of its answer in the order the engine gave it, plus an order-free digest, to diff two
 * trees' answers. `--queries` keeps only those queries of each mix (to profile one of them).
 * `--off` turns fast paths off, to measure what each saves (and, with `--digests`, to compare
 * answers): the engine's (src/engine/fast-paths.ts: hashJoins, objectRanges, equalityBinds,
 * idComparisons, idCounts), `preparedPlans`, or `optimize` (the whole optimizer). The store's
 * native reads go off with QUIVER_NATIVE_SCAN=0 in the environment, the young-generation flag with
 * `node --allocation-site-pretenuring`.
 *
 * To measure another build with this tool, copy `dist/bench/engine-mix.js` into that tree's
 * `dist/bench/`: its imports are relative, so it then runs that tree's engine.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runQuery } from '../src/engine/query-engine.js';
import type { EngineQueryOptions } from '../src/engine/engine-api.js';
import { FAST_PATH_NAMES, type FastPathName } from '../src/engine/fast-paths.js';
import { openStore } from '../src/store/lmdb-store.js';
import { keepQueryGarbageYoung } from '../src/service/young-generation.js';
import { termKey } from '../src/rdf/terms.js';
import { instanceKey, readMixes } from './query-mixes.js';
import type { QuadStore } from '../src/store/quad-store.js';

interface Instance {
  query: string;
  name: string;
  text: string;
}

const { values } = parseArgs({
  options: {
    store: { type: 'string' },
    mixes: { type: 'string' },
    rounds: { type: 'string', default: '6' },
    warmup: { type: 'string', default: '20' },
    'per-query': { type: 'boolean', default: false },
    digests: { type: 'string' },
    queries: { type: 'string' },
    off: { type: 'string' },
  },
});
if (!values.store || !values.mixes) {
  console.error(
    'usage: node dist/bench/engine-mix.js --store DIR --mixes DIR [--rounds N] [--warmup N] [--per-query] [--digests FILE] [--queries q02,q07] [--off NAME,...]',
  );
  process.exit(2);
}

// As the query workers do (src/service/query-worker.ts): without it, evaluation's garbage is promoted.
keepQueryGarbageYoung();

/** The query options with the fast paths named by --off turned off. */
function engineOptions(off: string[]): EngineQueryOptions {
  const options: EngineQueryOptions = {};
  for (const name of off) {
    if (name === 'optimize') options.optimize = false;
    else if (name === 'preparedPlans') options.preparedPlans = false;
    else if ((FAST_PATH_NAMES as readonly string[]).includes(name)) options.fastPaths = { ...options.fastPaths, [name as FastPathName]: false };
    else throw new Error(`--off ${name}: not one of optimize, preparedPlans, ${FAST_PATH_NAMES.join(', ')}`);
  }
  return options;
}
const queryOptions = engineOptions(values.off ? values.off.split(',') : []);

const only = values.queries ? values.queries.split(',') : [];
const mixes: Instance[][] = readMixes(values.mixes, only).mixes.map((m) =>
  m.queries.map((q) => ({ query: q.query, name: instanceKey(m.mix, q.seq), text: q.text })),
);
const warmup = Number(values.warmup);
if (mixes.length <= warmup) throw new Error(`${mixes.length} mixes: need more than the ${warmup} warm-up mixes`);
const measured = mixes.slice(warmup);
const store = openStore({ path: values.store, readOnly: true });

/** Runs one query to its end; returns the number of cells or quads seen. */
async function runOne(store: QuadStore, text: string): Promise<number> {
  const result = await runQuery(store, text, queryOptions);
  let n = 0;
  if (result.kind === 'bindings') for (const batch of result.rows) n += batch.length;
  else if (result.kind === 'quads') for (const batch of result.quads) n += batch.length;
  else n = result.value ? 1 : 0;
  return n;
}

async function answerDigests(instance: Instance): Promise<string> {
  const result = await runQuery(store, instance.text, queryOptions);
  const lines: string[] = [];
  if (result.kind === 'bindings') {
    for (const batch of result.rows) for (const row of batch) lines.push(row.map((t) => (t ? termKey(t) : '')).join('\t'));
  } else if (result.kind === 'quads') {
    for (const batch of result.quads) for (const q of batch) lines.push([q.subject, q.predicate, q.object, q.graph].map(termKey).join('\t'));
  } else lines.push(String(result.value));
  const inOrder = createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16);
  const anyOrder = createHash('sha256').update(lines.sort().join('\n')).digest('hex').slice(0, 16);
  return `${instance.name}\t${instance.query}\t${lines.length}\t${inOrder}\t${anyOrder}`;
}

if (values.digests) {
  const lines: string[] = [];
  for (const mix of mixes) for (const instance of mix) lines.push(await answerDigests(instance));
  writeFileSync(values.digests, lines.join('\n') + '\n');
  console.log(`digests of ${lines.length} instances written to ${values.digests}`);
}

let sink = 0;
for (const mix of mixes.slice(0, warmup)) for (const instance of mix) sink += await runOne(store, instance.text);

const perQuery = new Map<string, number[]>();
for (let round = 1; round <= Number(values.rounds); round++) {
  const start = process.cpuUsage();
  for (const mix of measured) {
    for (const instance of mix) {
      if (values['per-query']) {
        const before = process.cpuUsage();
        sink += await runOne(store, instance.text);
        const used = process.cpuUsage(before);
        let list = perQuery.get(instance.query);
        if (!list) perQuery.set(instance.query, (list = []));
        list.push((used.user + used.system) / 1000);
      } else sink += await runOne(store, instance.text);
    }
  }
  const used = process.cpuUsage(start);
  console.log(`round ${round}: CPU per mix ${((used.user + used.system) / 1000 / measured.length).toFixed(2)} ms (${measured.length} mixes)`);
}
if (values['per-query']) {
  const rows = [...perQuery].sort(([a], [b]) => a.localeCompare(b));
  for (const [query, ms] of rows) {
    ms.sort((a, b) => a - b);
    const mean = ms.reduce((a, b) => a + b, 0) / ms.length;
    console.log(`${query}: median ${ms[ms.length >> 1].toFixed(3)} ms, mean ${mean.toFixed(3)} ms over ${ms.length} runs`);
  }
}
await store.close();
if (sink < 0) console.log(sink);
