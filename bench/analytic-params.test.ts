import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { drawParams, Reservoir, sampleDataset, splitTriple, type DataSample } from './analytic-params.js';
import { ANALYTIC_SHAPES, monthBounds, previousMonth } from './analytic-workload.js';
import { Random } from './random.js';

const V = 'http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/';
const I = 'http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/';
const XSD = 'http://www.w3.org/2001/XMLSchema#';

/** A few lines shaped like the BSBM data: enough of every kind the scan looks for. */
const DATA = [
  `<${I}ProductType2> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <${I}ProductType1> .`,
  `<${I}ProductType3> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <${I}ProductType2> .`,
  `<${I}dataFromProducer1/Product1> <http://www.w3.org/2000/01/rdf-schema#label> "totally annat" .`,
  `<${I}dataFromProducer1/Product1> <${V}productPropertyNumeric1> "831"^^<${XSD}integer> .`,
  `<${I}dataFromVendor1/Offer1> <${V}validFrom> "2008-03-20T00:00:00"^^<${XSD}dateTime> .`,
  `<${I}dataFromRatingSite1/Reviewer1> <${V}country> <http://downlode.org/rdf/iso-3166/countries#US> .`,
  `<${I}dataFromRatingSite1/Review1> <${V}reviewFor> <${I}dataFromProducer1/Product1> .`,
  `<${I}dataFromRatingSite1/Review1> <http://purl.org/dc/elements/1.1/date> "2008-06-06"^^<${XSD}date> .`,
  `<${I}dataFromRatingSite1/Review2> <http://purl.org/dc/elements/1.1/date> "2008-05-30"^^<${XSD}date> .`,
].join('\n');

test('one pass over the file finds a candidate of every parameter', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'analytic-params-'));
  try {
    writeFileSync(join(dir, 'data.nt'), DATA + '\n');
    const sample = await sampleDataset(join(dir, 'data.nt'), 1);
    assert.deepEqual(sample, {
      products: [`${I}dataFromProducer1/Product1`],
      productTypes: [`${I}ProductType2`],
      months: ['2008-05', '2008-06'],
      days: ['2008-03-20T00:00:00'],
      countries: ['http://downlode.org/rdf/iso-3166/countries#US'],
      numerics: [831],
      letters: ['t'],
    });
    const [params] = drawParams(sample, 1, 1);
    assert.equal(params.month, '2008-06', 'the month drawn has its previous month in the data');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const SAMPLE: DataSample = {
  products: ['http://example.org/p1', 'http://example.org/p2', 'http://example.org/p3'],
  productTypes: ['http://example.org/t1', 'http://example.org/t2'],
  months: ['2008-01', '2008-02', '2008-03'],
  days: ['2008-01-05T00:00:00'],
  countries: ['http://example.org/c1'],
  numerics: [1, 2, 3],
  letters: ['a', 'b'],
};

test('the same seed draws the same parameters; another seed, others', () => {
  assert.deepEqual(drawParams(SAMPLE, 7, 5), drawParams(SAMPLE, 7, 5));
  assert.notDeepEqual(drawParams(SAMPLE, 7, 5), drawParams(SAMPLE, 8, 5));
});

test('a sample without a candidate for some parameter is an error, not an empty query', () => {
  assert.throws(() => drawParams({ ...SAMPLE, countries: [] }, 1, 1), /no countries/);
  assert.throws(() => drawParams({ ...SAMPLE, months: ['2008-01', '2008-03'] }, 1, 1), /consecutive months/);
});

test('a reservoir keeps at most its size, every item once', () => {
  const reservoir = new Reservoir<number>(10, new Random(1));
  for (let i = 0; i < 1000; i++) reservoir.offer(i);
  assert.equal(reservoir.items.length, 10);
  assert.equal(new Set(reservoir.items).size, 10);
});

test('a triple splits into its three terms, a literal with spaces kept whole', () => {
  assert.deepEqual(splitTriple('<s> <p> "a b . c"@en .'), ['<s>', '<p>', '"a b . c"@en']);
  assert.equal(splitTriple(''), undefined);
});

test('months: bounds and the month before, across a year', () => {
  assert.deepEqual(monthBounds('2008-12'), { from: '"2008-12-01"^^xsd:date', to: '"2009-01-01"^^xsd:date' });
  assert.equal(previousMonth('2008-01'), '2007-12');
});

test('the workload has at least 15 shapes, named in order, each ordered answer with a tie-breaking key', () => {
  assert.ok(ANALYTIC_SHAPES.length >= 15);
  assert.deepEqual(
    ANALYTIC_SHAPES.map((s) => s.name),
    ANALYTIC_SHAPES.map((_, i) => 'a' + String(i + 1).padStart(2, '0')),
  );
  const params = drawParams(SAMPLE, 1, 1)[0];
  for (const shape of ANALYTIC_SHAPES) {
    const text = shape.text(params);
    assert.equal(shape.ordered, /ORDER BY/.test(text), `${shape.name}: ordered iff it has an ORDER BY`);
  }
});
