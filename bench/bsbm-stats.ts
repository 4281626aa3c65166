/**
 * The shape of a BSBM dataset in numbers: triples per predicate, instances per class and triples per
 * class (of their subjects). The generator's test compares its output with the real file by these.
 */
export interface DatasetShape {
  triples: number;
  /** Predicate IRI → triples. */
  predicates: Record<string, number>;
  /** Class IRI (BSBM's own classes, not the product types) → instances. */
  instances: Record<string, number>;
  /** Class IRI → triples whose subject is an instance of it. */
  triplesPerClass: Record<string, number>;
}

const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const PRODUCT_TYPE_INSTANCE = /\/instances\/ProductType\d+$/;

export async function datasetShape(lines: AsyncIterable<string> | Iterable<string>): Promise<DatasetShape> {
  const predicates = new Map<string, number>();
  const classOf = new Map<string, string>();
  const perSubject = new Map<string, number>();
  let triples = 0;
  for await (const chunk of lines) {
    for (const line of chunk.split('\n')) {
      const match = /^<([^>]*)> <([^>]*)> (.*) \.$/.exec(line);
      if (!match) continue;
      const [, s, p, o] = match;
      triples++;
      predicates.set(p, (predicates.get(p) ?? 0) + 1);
      perSubject.set(s, (perSubject.get(s) ?? 0) + 1);
      if (p === RDF_TYPE && o.startsWith('<') && !PRODUCT_TYPE_INSTANCE.test(o.slice(1, -1))) classOf.set(s, o.slice(1, -1));
    }
  }
  const instances: Record<string, number> = {};
  const triplesPerClass: Record<string, number> = {};
  for (const [subject, count] of perSubject) {
    const cls = classOf.get(subject) ?? '(untyped)';
    instances[cls] = (instances[cls] ?? 0) + 1;
    triplesPerClass[cls] = (triplesPerClass[cls] ?? 0) + count;
  }
  return { triples, predicates: Object.fromEntries(predicates), instances, triplesPerClass };
}

/**
 * Keys whose counts differ by more than `tolerance` (a fraction) between `actual` and `expected`, and
 * by more than `slack`: a class with a dozen instances (vendors at 1k) is a couple of random draws,
 * where 10% is less than one instance.
 */
export function countsOutside(actual: Record<string, number>, expected: Record<string, number>, tolerance: number, slack = 0): string[] {
  const keys = new Set([...Object.keys(actual), ...Object.keys(expected)]);
  return [...keys]
    .filter((k) => Math.abs((actual[k] ?? 0) - (expected[k] ?? 0)) > Math.max(slack, tolerance * (expected[k] ?? 0)))
    .map((k) => `${k}: ${actual[k] ?? 0} vs ${expected[k] ?? 0}`);
}
