/** Terms as comparable strings (N-Triples-like), for comparing answers of two engines. */

const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';

export interface TermLike {
  termType: string;
  value: string;
  language?: string;
  datatype?: { value: string };
}

export function termString(term: TermLike | undefined | null): string {
  if (!term) return 'UNDEF';
  switch (term.termType) {
    case 'NamedNode':
      return `<${term.value}>`;
    case 'BlankNode':
      return `_:${term.value}`;
    case 'Literal':
      if (term.language) return `${JSON.stringify(term.value)}@${term.language.toLowerCase()}`;
      if (!term.datatype || term.datatype.value === XSD_STRING) return JSON.stringify(term.value);
      return `${JSON.stringify(term.value)}^^<${term.datatype.value}>`;
    default:
      return `${term.termType}:${term.value}`;
  }
}

/** A row as one string, its variables in the given order. */
export function rowString(variables: string[], get: (variable: string) => TermLike | undefined): string {
  return variables.map((v) => `${v}=${termString(get(v))}`).join(' ');
}

/** The rows of `b` missing from `a`, counting duplicates (multiset difference). */
export function multisetMinus(a: string[], b: string[]): string[] {
  const counts = new Map<string, number>();
  for (const row of b) counts.set(row, (counts.get(row) ?? 0) + 1);
  const missing: string[] = [];
  for (const row of a) {
    const n = counts.get(row) ?? 0;
    if (n > 0) counts.set(row, n - 1);
    else missing.push(row);
  }
  return missing;
}
