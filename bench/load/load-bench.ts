/**
 * Bulk-load benchmark: loads the BSBM data (../shared/bench/bsbm/bsbm-1000.nt.gz) and a larger
 * generated data set of the same shape into empty stores through the `quiver load` path, and prints
 * statements per second and bytes per statement on disk, with the machine's details.
 *
 *   node dist/bench/load/load-bench.js [--data FILE.nt.gz] [--generated N] [--runs R]
 */
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createGzip } from 'node:zlib';
import { loadFile } from '../../src/cli/load/file-loader.js';
import { rdfFormatForFileName } from '../../src/formats/registry.js';
import { openStore } from '../../src/store/lmdb-store.js';
import { describeMachine } from '../machine.js';

interface LoadFigures {
  name: string;
  statements: number;
  seconds: number;
  perSecond: number;
  storeBytes: number;
  bytesPerStatement: number;
}

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: resolve(process.cwd(), '../shared/bench/bsbm/bsbm-1000.nt.gz') },
    generated: { type: 'string', default: '3000000' },
    runs: { type: 'string', default: '1' },
  },
});

async function measure(name: string, file: string): Promise<LoadFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'quiver-load-bench-'));
  try {
    const store = openStore({ path: dir });
    const { format, gzip } = rdfFormatForFileName(file)!;
    const started = process.hrtime.bigint();
    const result = await loadFile(store, { path: file, format, gzip });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    await store.close();
    const storeBytes = statSync(join(dir, 'data.mdb')).size;
    return {
      name,
      statements: result.statements,
      seconds: round(seconds, 2),
      perSecond: Math.round(result.statements / seconds),
      storeBytes,
      bytesPerStatement: round(storeBytes / result.statements, 1),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * BSBM-shaped N-Triples: products with labels, comments, numeric properties and features,
 * producers, offers and reviews, in the proportions of the BSBM generator (about 10 statements
 * per product, reviews with long text).
 */
async function generate(path: string, statements: number): Promise<void> {
  const gzip = createGzip({ level: 1 });
  const out = gzip.pipe(createWriteStream(path));
  const ns = 'http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/';
  const v = (local: string) => `<${ns}vocabulary/${local}>`;
  const inst = (local: string) => `<${ns}instances/${local}>`;
  const words = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua'.split(' ');
  let seed = 42;
  const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n);
  const text = (n: number) => Array.from({ length: n }, () => words[random(words.length)]).join(' ');
  let written = 0;
  for (let product = 1; written < statements; product++) {
    const p = inst(`dataFromProducer${product % 500}/Product${product}`);
    let chunk = '';
    chunk += `${p} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> ${inst(`ProductType${random(300)}`)} .\n`;
    chunk += `${p} <http://www.w3.org/2000/01/rdf-schema#label> "${text(3)}" .\n`;
    chunk += `${p} <http://www.w3.org/2000/01/rdf-schema#comment> "${text(30)}" .\n`;
    chunk += `${p} ${v('producer')} ${inst(`Producer${product % 500}`)} .\n`;
    chunk += `${p} ${v('productFeature')} ${inst(`ProductFeature${random(10000)}`)} .\n`;
    chunk += `${p} ${v('productFeature')} ${inst(`ProductFeature${random(10000)}`)} .\n`;
    chunk += `${p} ${v('productPropertyNumeric1')} "${random(2000)}"^^<http://www.w3.org/2001/XMLSchema#integer> .\n`;
    const offer = inst(`dataFromVendor${product % 100}/Offer${product}`);
    chunk += `${offer} ${v('product')} ${p} .\n`;
    chunk += `${offer} ${v('price')} "${random(10000) / 100}"^^<${ns}vocabulary/USD> .\n`;
    const review = inst(`dataFromRatingSite${product % 50}/Review${product}`);
    chunk += `${review} ${v('reviewFor')} ${p} .\n`;
    chunk += `${review} <http://purl.org/stuff/rev#text> "${text(40)}"@en .\n`;
    chunk += `${review} ${v('rating1')} "${random(10)}"^^<http://www.w3.org/2001/XMLSchema#integer> .\n`;
    written += 12;
    if (!gzip.write(chunk)) await once(gzip, 'drain');
  }
  gzip.end();
  await once(out, 'close');
}

function round(value: number, digits: number): number {
  return Math.round(value * 10 ** digits) / 10 ** digits;
}

async function main(): Promise<void> {
  const machine = describeMachine();
  console.log(`machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}, Node ${machine.node}, ${machine.date}`);
  const runs = Number(values.runs);
  const figures: LoadFigures[] = [];
  for (let run = 0; run < runs; run++) figures.push(await measure('bsbm-1000', values.data!));
  const dir = mkdtempSync(join(tmpdir(), 'quiver-load-bench-data-'));
  try {
    const generated = join(dir, 'generated.nt.gz');
    const count = Number(values.generated);
    await generate(generated, count);
    for (let run = 0; run < runs; run++) figures.push(await measure(`generated-${count}`, generated));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.table(figures);
}

await main();
