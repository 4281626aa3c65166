/**
 * CPU per query of the shapes that negate, in process (as engine-mix.ts measures): the analytic
 * workload's a08 (NOT EXISTS), a09 (MINUS) and a10 (OPTIONAL/!BOUND), and three of our own that
 * set the two ways of an anti-join (operators/anti-join.ts) against each other on BSBM data:
 *
 * - n1: NOT EXISTS whose pattern is a large share of the data (four reviews in ten), few solutions;
 * - n2: NOT EXISTS over every review against a small pattern (one country's producers' products):
 *   a probe per review used to cost some 250 ms at 10,000 products;
 * - n3: n2 as OPTIONAL … FILTER(!BOUND).
 *
 *   npx tsc -p tsconfig.json && node dist/bench/negation-shapes.js --store DIR [--runs 9]
 *       [--shapes a08,n2] [--country IRI]
 *
 * A store loaded with `quiver load` from a BSBM file (bench/bsbm-generator.ts makes larger ones).
 * Prints each shape's median and lowest CPU over the runs, after one warm-up run, and its first
 * answer row. To compare two trees, copy this file's compiled form into the other's dist/bench/
 * (its imports are relative) and alternate the two.
 */
import { parseArgs } from 'node:util';
import { runQuery } from '../src/engine/query-engine.js';
import { openStore } from '../src/store/lmdb-store.js';
import { ANALYTIC_SHAPES } from './analytic-workload.js';

const PREFIXES = `PREFIX bsbm: <http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/>
PREFIX rev: <http://purl.org/stuff/rev#>
`;

const { values } = parseArgs({
  options: {
    store: { type: 'string' },
    runs: { type: 'string', default: '9' },
    shapes: { type: 'string', default: 'a08,a09,a10,n1,n2,n3' },
    country: { type: 'string', default: 'http://downlode.org/rdf/iso-3166/countries#US' },
  },
});
if (!values.store) throw new Error('--store DIR is required');
const country = values.country!;

const OWN: Record<string, string> = {
  n1: `${PREFIXES}SELECT (COUNT(?product) AS ?n) WHERE {
  ?product a bsbm:Product .
  FILTER NOT EXISTS { ?review bsbm:reviewFor ?product ; rev:reviewer ?r . ?r bsbm:country <${country}> }
}`,
  n2: `${PREFIXES}SELECT (COUNT(?review) AS ?n) WHERE {
  ?review bsbm:reviewFor ?product .
  FILTER NOT EXISTS { ?product bsbm:producer ?p . ?p bsbm:country <${country}> }
}`,
  n3: `${PREFIXES}SELECT (COUNT(?review) AS ?n) WHERE {
  ?review bsbm:reviewFor ?product .
  OPTIONAL { ?product bsbm:producer ?p . ?p bsbm:country <${country}> }
  FILTER(!BOUND(?p))
}`,
};

function textOf(name: string): string {
  if (OWN[name]) return OWN[name];
  const shape = ANALYTIC_SHAPES.find((s) => s.name === name);
  if (!shape) throw new Error(`no shape ${name}`);
  // a08-a10 read only the country among the parameters.
  return shape.text({ country, product: '', productType: '', month: '2008-01', day: '', numeric: 0, letter: 'a' });
}

const store = openStore({ path: values.store, readOnly: true });
try {
  for (const name of values.shapes!.split(',')) {
    const text = textOf(name);
    const cpu: number[] = [];
    let first = '';
    for (let run = 0; run <= Number(values.runs); run++) {
      const started = process.cpuUsage();
      const result = await runQuery(store, text, {});
      const rows: string[] = [];
      if (result.kind === 'bindings') for (const batch of result.rows) for (const row of batch) rows.push(row.map((t) => t?.value ?? '').join(' '));
      const used = process.cpuUsage(started);
      if (run > 0) cpu.push((used.user + used.system) / 1000);
      first = rows[0] ?? '';
    }
    cpu.sort((a, b) => a - b);
    console.log(`${name}: median ${cpu[cpu.length >> 1].toFixed(1)} ms CPU, lowest ${cpu[0].toFixed(1)}; first row: ${first}`);
  }
} finally {
  store.close();
}
