/**
 * Whether the hand-written N-Triples reader (src/formats/nquads-reader.ts) is worth having: the BSBM
 * 1k file, decompressed into memory first, read by
 *   - N3.js's StreamParser with its own terms (the parser alone, at its fastest);
 *   - N3.js's StreamParser as parseRdf used it before (rdf-data-factory terms, each quad's IRIs
 *     checked: rdf-parser-setup.ts's n3IriChecks);
 *   - parseRdf now: our reader to RDF/JS quads, in batches, from a stream of the same chunks;
 *   - our reader to term keys, line by line, as the bulk loader's string path reads (from the text
 *     decoded once, before the timing: the loader decodes only the lines it hands the reader);
 *   - the loader's byte parser (src/loader/byte-line-parser.ts), keys as bytes, for comparison (it
 *     hands lines with escapes to the reader, which is not timed here: it gets no statement).
 * Each is run RUNS times (default 3) after one warm-up run; the best and the median triples/s are
 * printed. Run: npx tsc -p tsconfig.json && node dist/bench/nquads-reading.js [RUNS] [FILE]
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { StreamParser } from 'n3';
import { DEFAULT_GRAPH_KEY, NQuadsReader, TERM_KEYS } from '../src/formats/nquads-reader.js';
import { n3IriChecks } from '../src/formats/rdf-parser-setup.js';
import { parseRdf } from '../src/formats/rdf-parser.js';
import { ByteLineParser, STATEMENT } from '../src/loader/byte-line-parser.js';
import { describeMachine } from './machine.js';

const RUNS = Number(process.argv[2] ?? 3);
const REPOSITORY = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const FILE = resolve(REPOSITORY, process.argv[3] ?? '../shared/bench/bsbm/bsbm-1000.nt.gz');
/** The chunk size of a file read stream (fs.createReadStream's default). */
const CHUNK = 1 << 16;

const bytes = FILE.endsWith('.gz') ? gunzipSync(readFileSync(FILE)) : readFileSync(FILE);
const text = bytes.toString('utf8');
const chunks: Buffer[] = [];
for (let at = 0; at < bytes.length; at += CHUNK) chunks.push(bytes.subarray(at, at + CHUNK));

/** Each way of reading, answering the statements it read. */
const READERS: Record<string, () => Promise<number>> = {
  'N3.js StreamParser, its own terms': () => n3Statements({}),
  'N3.js StreamParser as parseRdf had it (rdf-data-factory, IRI checks)': () => {
    const checked = n3IriChecks();
    return n3Statements(checked.options, (quad) => checked.invalidIri(quad as never));
  },
  'ours to RDF/JS quads (parseRdf)': async () => {
    let count = 0;
    for await (const batch of parseRdf(Readable.from(chunks), 'ntriples')) count += batch.length;
    return count;
  },
  'ours to term keys (the loader’s string path)': () => {
    const reader = new NQuadsReader(TERM_KEYS, { quads: false, blankPrefix: 'b_', defaultGraph: DEFAULT_GRAPH_KEY });
    let count = 0;
    const sink = (): void => void count++;
    for (let start = 0; start < text.length;) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      reader.parseLine(text.slice(start, end), sink);
      start = end + 1;
    }
    return Promise.resolve(count);
  },
  'the loader’s byte parser to key bytes (not the reader)': () => {
    const parser = new ByteLineParser(false, 'b_');
    let count = 0;
    for (let start = 0; start < bytes.length;) {
      let end = bytes.indexOf(10, start);
      if (end < 0) end = bytes.length;
      if (parser.parse(bytes, start, end) === STATEMENT) count++;
      start = end + 1;
    }
    return Promise.resolve(count);
  },
};

function n3Statements(options: object, check?: (quad: unknown) => unknown): Promise<number> {
  return new Promise((done, fail) => {
    const parser = new StreamParser({ format: 'N-Triples', ...options } as never);
    let count = 0;
    parser.on('data', (quad: unknown) => {
      if (check?.(quad) !== undefined) fail(new Error('an invalid IRI'));
      count++;
    });
    parser.on('end', () => done(count));
    parser.on('error', fail);
    Readable.from(chunks).pipe(parser as unknown as NodeJS.WritableStream);
  });
}

console.log(JSON.stringify(describeMachine()));
console.log(`${FILE}: ${(bytes.length / 2 ** 20).toFixed(1)} MiB, ${RUNS} runs each after a warm-up; load average ${loadavg()[0]!.toFixed(2)}`);
for (const [name, read] of Object.entries(READERS)) {
  const rates: number[] = [];
  let statements = 0;
  for (let run = 0; run <= RUNS; run++) {
    const started = performance.now();
    statements = await read();
    const seconds = (performance.now() - started) / 1000;
    if (run > 0) rates.push(statements / seconds);
  }
  rates.sort((a, b) => b - a);
  const median = rates[Math.floor(rates.length / 2)]!;
  console.log(
    `${name.padEnd(72)} ${statements} triples  best ${Math.round(rates[0]!).toLocaleString('en')}/s  median ${Math.round(median).toLocaleString('en')}/s`,
  );
}
