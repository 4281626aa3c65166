/**
 * Parameters of the analytic workload, drawn from the dataset itself: one pass over the N-Triples
 * file keeps a seeded reservoir of candidates per parameter (reviewed products, months with reviews,
 * offer days, reviewer countries, numeric values, label letters, and the product types that have
 * sub-types), then each instance picks from them with the same seed. The same file and seed give
 * the same instances on every engine and every run.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { previousMonth, type AnalyticParams } from './analytic-workload.js';
import { Random } from './random.js';

const BSBM = 'http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/';
const RESERVOIR = 500;

/** Candidates for each parameter, as found in the data. */
export interface DataSample {
  products: string[];
  /** Types that are a sub-class of something and have sub-classes themselves. */
  productTypes: string[];
  /** Months of review dc:date values, 'YYYY-MM', sorted, distinct. */
  months: string[];
  days: string[];
  countries: string[];
  numerics: number[];
  letters: string[];
}

/** Keeps `size` items chosen uniformly from a stream of unknown length (Algorithm R), seeded. */
export class Reservoir<T> {
  readonly items: T[] = [];
  private seen = 0;
  constructor(
    private readonly size: number,
    private readonly random: Random,
  ) {}

  offer(item: T): void {
    this.seen++;
    if (this.items.length < this.size) this.items.push(item);
    else {
      const at = Math.floor(this.random.next() * this.seen);
      if (at < this.size) this.items[at] = item;
    }
  }
}

/** One line of N-Triples cut into its three terms, or undefined for what this scan does not need. */
export function splitTriple(line: string): [string, string, string] | undefined {
  const first = line.indexOf(' ');
  const second = line.indexOf(' ', first + 1);
  if (first < 0 || second < 0) return undefined;
  const object = line.slice(second + 1).replace(/\s*\.\s*$/, '');
  return [line.slice(0, first), line.slice(first + 1, second), object];
}

const iri = (term: string): string => term.slice(1, -1);
const lexical = (term: string): string => term.slice(1, term.indexOf('"', 1));

/** Scans the dataset once (gzip allowed) and returns the candidates of every parameter. */
export async function sampleDataset(path: string, seed: number): Promise<DataSample> {
  const random = new Random(seed, 'analytic-sample');
  const products = new Reservoir<string>(RESERVOIR, random);
  const days = new Reservoir<string>(RESERVOIR, random);
  const countries = new Reservoir<string>(RESERVOIR, random);
  const numerics = new Reservoir<number>(RESERVOIR, random);
  const months = new Set<string>();
  const letters = new Set<string>();
  const parents = new Map<string, string>();
  const input = createReadStream(path);
  const lines = createInterface({ input: path.endsWith('.gz') ? input.pipe(createGunzip()) : input, crlfDelay: Infinity });
  for await (const line of lines) {
    const triple = splitTriple(line);
    if (!triple) continue;
    const [s, p, o] = triple;
    if (p === `<${BSBM}reviewFor>`) products.offer(iri(o));
    else if (p === '<http://purl.org/dc/elements/1.1/date>' && s.includes('/Review')) months.add(lexical(o).slice(0, 7));
    else if (p === `<${BSBM}validFrom>`) days.offer(lexical(o).slice(0, 10) + 'T00:00:00');
    else if (p === `<${BSBM}country>` && s.includes('/Reviewer')) countries.offer(iri(o));
    else if (p === `<${BSBM}productPropertyNumeric1>`) numerics.offer(Number(lexical(o)));
    else if (p === '<http://www.w3.org/2000/01/rdf-schema#label>' && /\/Product\d+>$/.test(s)) {
      const letter = lexical(o).charAt(0);
      if (/^[a-z]$/.test(letter)) letters.add(letter);
    } else if (p === '<http://www.w3.org/2000/01/rdf-schema#subClassOf>') parents.set(iri(s), iri(o));
  }
  const withChildren = new Set(parents.values());
  return {
    products: products.items,
    productTypes: [...parents.keys()].filter((t) => withChildren.has(t)).sort(),
    months: [...months].sort(),
    days: days.items,
    countries: countries.items,
    numerics: numerics.items,
    letters: [...letters].sort(),
  };
}

/** `count` parameter sets drawn from the sample with the seed: the instances of every shape. */
export function drawParams(sample: DataSample, seed: number, count: number): AnalyticParams[] {
  for (const [name, values] of Object.entries(sample))
    if ((values as unknown[]).length === 0) throw new Error(`analytic parameters: no ${name} in the dataset`);
  // A month with a month before it in the data, so that a02 compares two populated months.
  const months = sample.months.filter((m, i) => i > 0 && sample.months.includes(previousMonth(m)));
  if (months.length === 0) throw new Error('analytic parameters: no two consecutive months of reviews');
  const random = new Random(seed, 'analytic-params');
  return Array.from({ length: count }, () => ({
    product: random.pick(sample.products),
    productType: random.pick(sample.productTypes),
    month: random.pick(months),
    day: random.pick(sample.days),
    country: random.pick(sample.countries),
    numeric: random.pick(sample.numerics),
    letter: random.pick(sample.letters),
  }));
}
