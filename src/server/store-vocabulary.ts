/**
 * The vocabulary of the store for the query editor's completion ({base}/sparql/vocabulary, JSON):
 * its classes and properties ranked by use, and prefixes for the namespaces they are in.
 *
 * Counting them is two GROUP BY queries over the whole store (seconds on millions of triples), so
 * it runs once, through the service like any query, and the answer is kept: writes through this
 * server mark it stale, and it is recounted on the next request, but no sooner after the last count
 * than RECOUNT_FACTOR times what that count took (a stale answer is served meanwhile: counting a
 * large store never takes more than a tenth of the service's time), and at least every MAX_AGE_MS
 * (writers beside the server, such as `quiver load`, are not seen otherwise). Typing never waits for it.
 */
import type { FastifyInstance } from 'fastify';
import type { SparqlService } from '../service/index.js';
import { KNOWN_PREFIXES } from './page-examples.js';

export interface VocabularyTerm {
  iri: string;
  /** Triples that use it: as predicate for a property, as rdf:type object for a class. */
  count: number;
}

export interface StoreVocabulary {
  classes: VocabularyTerm[];
  properties: VocabularyTerm[];
  /** Prefix names for the namespaces of those classes and properties. */
  prefixes: Record<string, string>;
  /** When it was counted (ISO 8601), and how long counting took. */
  countedAt: string;
  countMs: number;
}

/** Terms of each kind kept, the most used first: beyond them completion lists are not read anyway. */
const TERM_LIMIT = 5000;
const RECOUNT_FACTOR = 10;
const MAX_AGE_MS = 5 * 60_000;
const COUNT_TIMEOUT_MS = 60_000;

/** Vocabularies that data uses with these names, beyond the pages' own well-known prefixes. */
const COMMON_PREFIXES: Record<string, string> = {
  dbo: 'http://dbpedia.org/ontology/',
  dbp: 'http://dbpedia.org/property/',
  dbr: 'http://dbpedia.org/resource/',
  schemas: 'https://schema.org/',
  wd: 'http://www.wikidata.org/entity/',
  wdt: 'http://www.wikidata.org/prop/direct/',
  vcard: 'http://www.w3.org/2006/vcard/ns#',
  org: 'http://www.w3.org/ns/org#',
  time: 'http://www.w3.org/2006/time#',
  qb: 'http://purl.org/linked-data/cube#',
  adms: 'http://www.w3.org/ns/adms#',
  odrl: 'http://www.w3.org/ns/odrl/2/',
  bibo: 'http://purl.org/ontology/bibo/',
  sioc: 'http://rdfs.org/sioc/ns#',
  doap: 'http://usefulinc.com/ns/doap#',
  gr: 'http://purl.org/goodrelations/v1#',
  wgs84: 'http://www.w3.org/2003/01/geo/wgs84_pos#',
};

export class VocabularyCache {
  private answer: Promise<StoreVocabulary> | undefined;
  private countedAt = 0;
  private countMs = 0;
  private stale = false;

  constructor(private readonly service: SparqlService) {}

  /** A write went through: the next request counts again. */
  invalidate(): void {
    this.stale = true;
  }

  get(): Promise<StoreVocabulary> {
    const age = Date.now() - this.countedAt;
    const due = this.answer === undefined || age > MAX_AGE_MS || (this.stale && age > RECOUNT_FACTOR * this.countMs);
    if (due) {
      const previous = this.answer;
      this.stale = false;
      this.countedAt = Date.now();
      const counting = countVocabulary(this.service);
      void counting.then(
        (vocabulary) => (this.countMs = vocabulary.countMs),
        () => {},
      );
      // A recount that fails keeps the last good answer (and is tried again when due).
      this.answer = previous === undefined ? counting : counting.catch(() => previous);
      counting.catch(() => {
        this.countedAt = 0;
      });
    }
    return this.answer!;
  }
}

async function countVocabulary(service: SparqlService): Promise<StoreVocabulary> {
  const started = performance.now();
  const anyGraph = (pattern: string): string => `{ ${pattern} } UNION { GRAPH ?g { ${pattern} } }`;
  const [properties, classes] = await Promise.all([
    countTerms(service, `SELECT ?t (COUNT(*) AS ?n) WHERE { ${anyGraph('?s ?t ?o')} } GROUP BY ?t ORDER BY DESC(?n) LIMIT ${TERM_LIMIT}`),
    countTerms(service, `SELECT ?t (COUNT(*) AS ?n) WHERE { ${anyGraph('?s a ?t')} FILTER(isIRI(?t)) } GROUP BY ?t ORDER BY DESC(?n) LIMIT ${TERM_LIMIT}`),
  ]);
  return {
    classes,
    properties,
    prefixes: prefixesFor([...classes, ...properties]),
    countedAt: new Date().toISOString(),
    countMs: Math.round(performance.now() - started),
  };
}

async function countTerms(service: SparqlService, query: string): Promise<VocabularyTerm[]> {
  const result = await service.query({ query, timeoutMs: COUNT_TIMEOUT_MS });
  if (result.kind !== 'bindings') return [];
  const terms: VocabularyTerm[] = [];
  for await (const batch of result.rows) {
    for (const [term, count] of batch) {
      if (term?.termType === 'NamedNode') terms.push({ iri: term.value, count: Number(count?.value ?? 0) });
    }
  }
  return terms;
}

/** The namespace of an IRI: up to its last `#` or `/` (or `:` of a URN). */
export function namespaceOf(iri: string): string | undefined {
  const match = /^(.*[#/:])[^#/:]+$/.exec(iri);
  return match?.[1];
}

/**
 * A prefix for each namespace in use: its well-known name, or one made from the namespace's last
 * word (`http://example.com/vocab/shop#` gives `shop`), numbered when taken.
 */
export function prefixesFor(terms: VocabularyTerm[]): Record<string, string> {
  const known = new Map(Object.entries({ ...COMMON_PREFIXES, ...KNOWN_PREFIXES }).map(([name, ns]) => [ns, name]));
  const uses = new Map<string, number>();
  for (const term of terms) {
    const ns = namespaceOf(term.iri);
    if (ns !== undefined) uses.set(ns, (uses.get(ns) ?? 0) + term.count);
  }
  const taken = new Set(Object.keys(KNOWN_PREFIXES));
  const prefixes: Record<string, string> = {};
  for (const [ns] of [...uses].sort((a, b) => b[1] - a[1])) {
    let name = known.get(ns);
    if (name === undefined || (taken.has(name) && KNOWN_PREFIXES[name] !== ns)) name = uniqueName(madeName(ns), taken);
    taken.add(name);
    prefixes[name] = ns;
  }
  return prefixes;
}

function madeName(ns: string): string {
  const words = ns.split(/[^A-Za-z]+/).filter((w) => w !== '' && !/^(https?|www|org|com|net|ns|ontology|vocab|schema|resource|rdf|owl)$/i.test(w));
  const word = (words.at(-1) ?? 'ns').toLowerCase().slice(0, 10);
  return /^[a-z]/.test(word) ? word : 'ns';
}

function uniqueName(base: string, taken: Set<string>): string {
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}${i}`)) return `${base}${i}`;
}

/**
 * GET {vocabularyPath}: the vocabulary as JSON. Successful writes to the routes `writePaths` (any method
 * but GET/HEAD/OPTIONS, and GET updates) mark it stale.
 */
export function registerVocabulary(app: FastifyInstance, service: SparqlService, vocabularyPath: string, writePaths: string[]): void {
  const cache = new VocabularyCache(service);
  app.get(vocabularyPath, async (_request, reply) => {
    const vocabulary = await cache.get();
    return reply.type('application/json; charset=utf-8').header('cache-control', 'no-store').send(JSON.stringify(vocabulary));
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url;
    if (reply.statusCode >= 300 || route === undefined || !writePaths.includes(route)) return;
    const write = !['GET', 'HEAD', 'OPTIONS'].includes(request.method) || (request.raw.url ?? '').includes('update=');
    if (write) cache.invalidate();
  });
}
