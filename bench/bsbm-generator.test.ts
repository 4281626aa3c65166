import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { generateBsbm, harvestDictionary, linesOf, typeBranching } from './bsbm-generator.js';
import { countsOutside, datasetShape } from './bsbm-stats.js';

const REAL_1K = resolve(fileURLToPath(new URL('../..', import.meta.url)), '../shared/bench/bsbm/bsbm-1000.nt.gz');

test("1,000 generated products have the real BSBM file's counts per class and per predicate, within 10% (2 vendors)", async () => {
  const real = await datasetShape(linesOf(REAL_1K));
  const dictionary = await harvestDictionary(REAL_1K);
  const generated = await datasetShape(generateBsbm({ products: 1000, seed: 1, dictionary }));
  assert.ok(Math.abs(generated.triples - real.triples) < 0.05 * real.triples, `${generated.triples} triples vs ${real.triples}`);
  assert.deepEqual(countsOutside(generated.predicates, real.predicates, 0.1), []);
  // Vendors are 12 in the real file and about 10 expected (2,000 offers each): allow two of them.
  assert.deepEqual(countsOutside(generated.instances, real.instances, 0.1, 2), []);
  assert.deepEqual(countsOutside(generated.triplesPerClass, real.triplesPerClass, 0.1, 2 * 7), []);
});

test('the same size and seed give the same triples; another seed gives others', async () => {
  const dictionary = { words: ['alpha', 'beta', 'gamma', 'delta'], names: ['Ada', 'Bob'] };
  const text = (seed: number): string => [...generateBsbm({ products: 50, seed, dictionary })].join('');
  assert.equal(text(7), text(7));
  assert.notEqual(text(7), text(8));
});

test('the type tree deepens and widens with the scale, as in BSBM', () => {
  assert.deepEqual(typeBranching(1000), [6, 8, 2]); // 151 types, as in the real 1k file
  assert.deepEqual(typeBranching(10_000), [8, 8, 4]); // 329 types
  assert.deepEqual(typeBranching(100_000), [10, 8, 8, 2]); // 2,011 types
});
