/**
 * BSBM-shaped data of any size, for the scales the shared 1,000-product file does not cover.
 *
 * It follows the shape of the BSBM V3 data generator (bsbmtools, forward-chained): the same
 * vocabulary, IRIs, per-entity properties and literal forms, and the same statistics: a product type
 * tree whose depth and branching grow with log10(products); features per type by depth, each product
 * taking a quarter of its types' features; about 50 products per producer, 20 offers and 10 reviews
 * per product, 2,000 offers per vendor, 20 reviews per reviewer and 10,000 per rating site;
 * half-normal product-type and property-value popularity; the same country weights, date windows
 * and optional properties. Words come from the shared 1k file's own literals, so labels, comments and
 * review texts have its vocabulary and sizes. bsbm-generator.test.ts checks that 1,000 generated
 * products give the real file's counts per class and per predicate within 10%.
 *
 * The output is deterministic for a given size and seed (its own PRNG, no Math.random).
 */
import { createReadStream, createWriteStream, existsSync, mkdirSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import { Random } from './random.js';

const INST = 'http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/';
const VOC = 'http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/';
const RDF_TYPE = '<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>';
const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';
const DC = 'http://purl.org/dc/elements/1.1/';
const REV = 'http://purl.org/stuff/rev#';
const FOAF = 'http://xmlns.com/foaf/0.1/';
const XSD = 'http://www.w3.org/2001/XMLSchema#';
const COUNTRY = 'http://downlode.org/rdf/iso-3166/countries#';

/** The BSBM generator's "today": offers and reviews are dated relative to it. */
const TODAY = Date.UTC(2008, 5, 20);
const DAY = 86_400_000;

/** Country weights of producers, vendors and reviewers, and the language a reviewer writes in. */
const COUNTRIES: [code: string, weight: number, language: string][] = [
  ['US', 40, 'en'],
  ['GB', 10, 'en'],
  ['JP', 10, 'ja'],
  ['CN', 10, 'zh'],
  ['DE', 5, 'de'],
  ['FR', 5, 'fr'],
  ['ES', 5, 'es'],
  ['RU', 5, 'ru'],
  ['KR', 5, 'ko'],
  ['AT', 5, 'de'],
];

export interface Dictionary {
  /** Words for labels, comments, titles and texts. */
  words: string[];
  /** Given names for reviewers. */
  names: string[];
}

export interface GeneratorOptions {
  products: number;
  seed: number;
  dictionary: Dictionary;
}

/** The generator's draws, as BSBM makes them, on the shared seeded PRNG. */
class BsbmRandom extends Random {
  /** A count around `average` (normal, mean 3, sd 1, scaled), as BSBM draws entities per owner. */
  countAround(average: number, plusOne = true): number {
    let g = this.gaussian(3, 1);
    while (g < 0) g = this.gaussian(3, 1);
    return Math.floor((g / 3) * average) + (plusOne ? 1 : 0);
  }

  /** 1..max from a normal(mean, 1) cut to [0, limit]: BSBM's skewed popularity of types and products. */
  skewed(mean: number, limit: number, max: number): number {
    let g = this.gaussian(mean, 1);
    while (g < 0 || g > limit) g = this.gaussian(mean, 1);
    return Math.min(max, Math.floor((g / limit) * max) + 1);
  }

  sentence(words: readonly string[], lo: number, hi: number): string {
    const n = this.int(lo, hi);
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(this.pick(words));
    return out.join(' ');
  }
}

interface ProductType {
  nr: number;
  depth: number;
  parent?: ProductType;
  features: number[];
}

/** Levels and branching of the type tree: deeper and wider with log10(products), as in BSBM. */
export function typeBranching(products: number): number[] {
  const log = Math.log10(Math.max(10, products));
  const depth = Math.round(log / 2) + 1;
  const last = [2, 4, 8][Math.round((log * 3) / 2 + 1) % 3];
  return Array.from({ length: depth }, (_, i) => (i === 0 ? 2 * Math.round(log) : i + 1 < depth ? 8 : last));
}

const iri = (local: string): string => `<${INST}${local}>`;
const voc = (local: string): string => `<${VOC}${local}>`;
const lit = (text: string): string => `"${text}"`;
const typed = (text: string, datatype: string): string => `"${text}"^^<${datatype}>`;
const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const dateLit = (ms: number): string => typed(day(ms), XSD + 'date');
const dateTimeLit = (ms: number): string => typed(`${day(ms)}T00:00:00`, XSD + 'dateTime');
const between = (rng: BsbmRandom, from: number, to: number): number => from + rng.int(0, Math.floor((to - from) / DAY)) * DAY;

/**
 * Every triple of the dataset, as N-Triples lines, in batches (a batch is one entity or a few).
 * Memory stays small whatever the size: only the type tree and per-owner counts are kept.
 */
export function* generateBsbm(options: GeneratorOptions): Generator<string> {
  const { products, seed, dictionary } = options;
  const { words, names } = dictionary;
  const institution = iri('StandardizationInstitution1');
  const line = (s: string, p: string, o: string): string => `${s} ${p} ${o} .\n`;

  // Product types, breadth first.
  const branching = typeBranching(products);
  const typeRng = new BsbmRandom(seed, 'types');
  const root: ProductType = { nr: 1, depth: 0, features: [] };
  const inner: ProductType[] = [root];
  const leaves: ProductType[] = [];
  const typeTriples = (t: ProductType, label: string, comment: string): string =>
    line(iri(`ProductType${t.nr}`), RDF_TYPE, voc('ProductType')) +
    line(iri(`ProductType${t.nr}`), `<${RDFS}label>`, lit(label)) +
    line(iri(`ProductType${t.nr}`), `<${RDFS}comment>`, lit(comment)) +
    (t.parent ? line(iri(`ProductType${t.nr}`), `<${RDFS}subClassOf>`, iri(`ProductType${t.parent.nr}`)) : '') +
    line(iri(`ProductType${t.nr}`), `<${DC}publisher>`, institution) +
    line(iri(`ProductType${t.nr}`), `<${DC}date>`, dateLit(between(typeRng, Date.UTC(2000, 5, 20), Date.UTC(2000, 6, 23))));
  yield typeTriples(root, 'Thing', 'The Product Type of all Products');
  let typeNr = 1;
  for (let i = 0; i < inner.length; i++) {
    const parent = inner[i];
    for (let k = 0; k < branching[parent.depth]; k++) {
      const t: ProductType = { nr: ++typeNr, depth: parent.depth + 1, parent, features: [] };
      (t.depth === branching.length ? leaves : inner).push(t);
      yield typeTriples(t, typeRng.sentence(words, 1, 3), typeRng.sentence(words, 20, 50));
    }
  }

  // Features: each type below the root owns some, more the deeper it is; leaves as their parents.
  const featureRng = new BsbmRandom(seed, 'features');
  const depth = branching.length;
  const depthSum = (depth * (depth + 1)) / 2 - 1;
  const featureRange = (d: number): [number, number] => [Math.floor((35 * (d + 1)) / depthSum), Math.floor((75 * (d + 1)) / depthSum)];
  let featureNr = 0;
  for (const t of [...inner.slice(1), ...leaves]) {
    const [from, to] = featureRange(Math.min(t.depth, depth - 1));
    const count = featureRng.int(from, to);
    let text = '';
    for (let i = 0; i < count; i++) {
      const f = iri(`ProductFeature${++featureNr}`);
      t.features.push(featureNr);
      text +=
        line(f, RDF_TYPE, voc('ProductFeature')) +
        line(f, `<${RDFS}label>`, lit(featureRng.sentence(words, 1, 3))) +
        line(f, `<${RDFS}comment>`, lit(featureRng.sentence(words, 20, 50))) +
        line(f, `<${DC}publisher>`, institution) +
        line(f, `<${DC}date>`, dateLit(between(featureRng, Date.UTC(2000, 5, 20), Date.UTC(2000, 6, 23))));
    }
    yield text;
  }

  // Producers and their products.
  const producerRng = new BsbmRandom(seed, 'producers');
  const productRng = new BsbmRandom(seed, 'products');
  const countryOf = (rng: BsbmRandom): (typeof COUNTRIES)[number] => {
    let r = rng.next() * 100;
    for (const c of COUNTRIES) if ((r -= c[1]) < 0) return c;
    return COUNTRIES[0];
  };
  const shares = producerShares(products, seed);
  let productNr = 0;
  for (let producerNr = 1; producerNr <= shares.length; producerNr++) {
    const count = shares[producerNr - 1] - productNr;
    const producer = iri(`dataFromProducer${producerNr}/Producer${producerNr}`);
    yield (
      line(producer, RDF_TYPE, voc('Producer')) +
      line(producer, `<${RDFS}label>`, lit(producerRng.sentence(words, 1, 3))) +
      line(producer, `<${RDFS}comment>`, lit(producerRng.sentence(words, 20, 50))) +
      line(producer, `<${FOAF}homepage>`, `<http://www.Producer${producerNr}.com/>`) +
      line(producer, voc('country'), `<${COUNTRY}${countryOf(producerRng)[0]}>`) +
      line(producer, `<${DC}publisher>`, producer) +
      line(producer, `<${DC}date>`, dateLit(between(producerRng, Date.UTC(2000, 7, 20), Date.UTC(2005, 6, 23))))
    );
    for (let i = 0; i < count; i++) yield productTriples(++productNr, producerNr, producer, productRng, leaves, words, line);
  }

  // Vendors and their offers.
  const vendorRng = new BsbmRandom(seed, 'vendors');
  const offerRng = new BsbmRandom(seed, 'offers');
  const offers = products * 20;
  let offerNr = 0;
  for (let vendorNr = 1; offerNr < offers; vendorNr++) {
    const count = Math.min(offers - offerNr, vendorRng.countAround(2000));
    const vendor = iri(`dataFromVendor${vendorNr}/Vendor${vendorNr}`);
    yield (
      line(vendor, RDF_TYPE, voc('Vendor')) +
      line(vendor, `<${RDFS}label>`, lit(vendorRng.sentence(words, 1, 3))) +
      line(vendor, `<${RDFS}comment>`, lit(vendorRng.sentence(words, 20, 50))) +
      line(vendor, `<${FOAF}homepage>`, `<http://www.vendor${vendorNr}.com/>`) +
      line(vendor, voc('country'), `<${COUNTRY}${countryOf(vendorRng)[0]}>`) +
      line(vendor, `<${DC}publisher>`, vendor) +
      line(vendor, `<${DC}date>`, dateLit(between(vendorRng, TODAY - 97 * DAY, TODAY)))
    );
    let text = '';
    for (let i = 0; i < count; i++) {
      const nr = ++offerNr;
      const offer = iri(`dataFromVendor${vendorNr}/Offer${nr}`);
      const product = offerRng.skewed(2, 4, products);
      const published = between(offerRng, TODAY - 97 * DAY, TODAY);
      text +=
        line(offer, RDF_TYPE, voc('Offer')) +
        line(offer, voc('product'), iri(`dataFromProducer${producerOf(shares, product)}/Product${product}`)) +
        line(offer, voc('vendor'), vendor) +
        line(offer, voc('price'), typed((5 + offerRng.next() * 9995).toFixed(2), VOC + 'USD')) +
        line(offer, voc('validFrom'), dateTimeLit(published - offerRng.int(0, 90) * DAY)) +
        line(offer, voc('validTo'), dateTimeLit(published + offerRng.int(7, 90) * DAY)) +
        line(offer, voc('deliveryDays'), typed(String(offerRng.skewed(2, 14.2, 21)), XSD + 'integer')) +
        line(offer, voc('offerWebpage'), iri(`dataFromVendor${vendorNr}/Offer${nr}/`)) +
        line(offer, `<${DC}publisher>`, vendor) +
        line(offer, `<${DC}date>`, dateLit(published));
      if (i % 200 === 199) {
        yield text;
        text = '';
      }
    }
    yield text;
  }

  // Rating sites, their reviewers, and the reviewers' reviews.
  const siteRng = new BsbmRandom(seed, 'ratingsites');
  const reviewRng = new BsbmRandom(seed, 'reviews');
  const reviews = products * 10;
  let reviewNr = 0;
  let personNr = 0;
  for (let siteNr = 1; reviewNr < reviews; siteNr++) {
    const siteEnd = reviewNr + Math.min(reviews - reviewNr, siteRng.countAround(10_000));
    const site = iri(`dataFromRatingSite${siteNr}/RatingSite${siteNr}`);
    while (reviewNr < siteEnd) {
      const person = iri(`dataFromRatingSite${siteNr}/Reviewer${++personNr}`);
      const [country, , language] = countryOf(siteRng);
      let text =
        line(person, RDF_TYPE, `<${FOAF}Person>`) +
        line(person, `<${FOAF}name>`, lit(siteRng.pick(names))) +
        line(person, `<${FOAF}mbox_sha1sum>`, lit(Array.from({ length: 40 }, () => siteRng.int(0, 15).toString(16)).join(''))) +
        line(person, voc('country'), `<${COUNTRY}${country}>`) +
        line(person, `<${DC}publisher>`, site) +
        line(person, `<${DC}date>`, dateLit(between(siteRng, TODAY, Date.UTC(2008, 8, 23))));
      const count = Math.min(siteEnd - reviewNr, Math.max(1, siteRng.countAround(20, false)));
      for (let i = 0; i < count; i++) {
        const review = iri(`dataFromRatingSite${siteNr}/Review${++reviewNr}`);
        const product = reviewRng.skewed(2, 4, products);
        const reviewed = between(reviewRng, TODAY - 365 * DAY, TODAY);
        text +=
          line(review, RDF_TYPE, `<${REV}Review>`) +
          line(review, voc('reviewFor'), iri(`dataFromProducer${producerOf(shares, product)}/Product${product}`)) +
          line(review, `<${REV}reviewer>`, person) +
          line(review, voc('reviewDate'), dateTimeLit(reviewed)) +
          line(review, `<${DC}title>`, lit(reviewRng.sentence(words, 4, 15))) +
          line(review, `<${REV}text>`, `"${reviewRng.sentence(words, 50, 200)}"@${language}`);
        for (let r = 1; r <= 4; r++) if (reviewRng.chance(0.7)) text += line(review, voc(`rating${r}`), typed(String(reviewRng.int(1, 10)), XSD + 'integer'));
        text += line(review, `<${DC}publisher>`, site) + line(review, `<${DC}date>`, dateLit(between(reviewRng, reviewed, TODAY)));
      }
      yield text;
    }
  }
}

/** Products per producer, as the last product number of each producer (its own stream). */
function producerShares(products: number, seed: number): number[] {
  const rng = new BsbmRandom(seed, 'producer-shares');
  const ends: number[] = [];
  for (let nr = 0; nr < products;) ends.push((nr += Math.min(products - nr, rng.countAround(50))));
  return ends;
}

/** Producer number (from 1) of product `product`, by binary search in the shares' ends. */
function producerOf(ends: number[], product: number): number {
  let lo = 0;
  let hi = ends.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ends[mid] >= product) hi = mid;
    else lo = mid + 1;
  }
  return lo + 1;
}

function productTriples(
  nr: number,
  producerNr: number,
  producer: string,
  rng: BsbmRandom,
  leaves: ProductType[],
  words: string[],
  line: (s: string, p: string, o: string) => string,
): string {
  const product = iri(`dataFromProducer${producerNr}/Product${nr}`);
  const leaf = leaves[rng.skewed(0, 2, leaves.length) - 1];
  let text =
    line(product, RDF_TYPE, voc('Product')) +
    line(product, `<${RDFS}label>`, lit(rng.sentence(words, 1, 3))) +
    line(product, `<${RDFS}comment>`, lit(rng.sentence(words, 50, 150)));
  for (let t: ProductType | undefined = leaf; t; t = t.parent) text += line(product, RDF_TYPE, iri(`ProductType${t.nr}`));
  text += line(product, voc('producer'), producer);
  // Property kinds 1 (40%), 2 (20%), 3 (40%) decide which of the optional properties 4-6 exist.
  const kind = rng.chance(0.4) ? 1 : rng.chance(0.333) ? 2 : 3;
  const has4 = kind === 1 ? [true, true] : kind === 2 ? [rng.chance(0.5), rng.chance(0.5)] : [false, false];
  const has5 = kind === 1 ? [true, true] : [rng.chance(0.25), rng.chance(0.25)];
  const has6 = kind === 3 ? [rng.chance(0.5), rng.chance(0.5)] : [false, false];
  const numeric = [true, true, true, has4[0], has5[0], has6[0]];
  const textual = [true, true, true, has4[1], has5[1], has6[1]];
  numeric.forEach((has, i) => {
    if (has) text += line(product, voc(`productPropertyNumeric${i + 1}`), typed(String(rng.skewed(0, 2, 2000)), XSD + 'integer'));
  });
  textual.forEach((has, i) => {
    if (has) text += line(product, voc(`productPropertyTextual${i + 1}`), typed(rng.sentence(words, 3, 15), XSD + 'string'));
  });
  for (let t: ProductType | undefined = leaf; t?.parent; t = t.parent) {
    for (const f of t.features) if (rng.chance(0.25)) text += line(product, voc('productFeature'), iri(`ProductFeature${f}`));
  }
  text += line(product, `<${DC}publisher>`, producer) + line(product, `<${DC}date>`, dateLit(between(rng, Date.UTC(2000, 9, 20), Date.UTC(2007, 0, 23))));
  return text;
}

/**
 * Words and names from a real BSBM file's literals: plain literals' words (labels, comments, titles,
 * texts) and foaf:name values.
 */
export async function harvestDictionary(bsbmFile: string): Promise<Dictionary> {
  const words = new Set<string>();
  const names = new Set<string>();
  for await (const l of linesOf(bsbmFile)) {
    const quote = l.indexOf(' "');
    if (quote < 0) continue;
    const end = l.lastIndexOf('"');
    const value = l.slice(quote + 2, end);
    if (l.includes(`<${FOAF}name>`)) names.add(value);
    else if (l[end + 1] !== '^' && !value.includes('\\')) for (const w of value.split(' ')) if (w) words.add(w);
  }
  return { words: [...words].sort(), names: [...names].sort() };
}

export async function* linesOf(file: string): AsyncGenerator<string> {
  const input = createReadStream(file);
  const lines = createInterface({ input: file.endsWith('.gz') ? input.pipe(createGunzip()) : input, crlfDelay: Infinity });
  yield* lines;
}

/** Writes the dataset gzipped, to a temporary name first so an interrupted run leaves no half file. */
export async function writeBsbmFile(file: string, options: GeneratorOptions): Promise<void> {
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.partial`;
  await pipeline(Readable.from(generateBsbm(options), { objectMode: false }), createGzip({ level: 3 }), createWriteStream(partial));
  renameSync(partial, file);
}

/** The cached file for this size and seed, generated the first time. */
export async function generatedDataset(dir: string, products: number, seed: number, dictionarySource: string): Promise<string> {
  const file = `${dir}/bsbm-generated-${products}-seed${seed}.nt.gz`;
  if (!existsSync(file)) await writeBsbmFile(file, { products, seed, dictionary: await harvestDictionary(dictionarySource) });
  return file;
}
