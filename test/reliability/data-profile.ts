/**
 * What the query generator knows of the data: every subject's triples (for random walks that are
 * sure to match something), and sample values per predicate (for FILTER constants).
 */

/** A term in N-Triples syntax, exactly as in the file (valid in SPARQL too). */
export type TermText = string;

export interface Triple {
  s: TermText;
  p: TermText;
  o: TermText;
}

export interface DataProfile {
  subjects: TermText[];
  bySubject: Map<TermText, Triple[]>;
  predicates: TermText[];
  /** Up to SAMPLE object values per predicate. */
  objectsOf: Map<TermText, TermText[]>;
}

const LINE = /^(<[^>]*>|_:\S+)\s+(<[^>]*>)\s+(.*?)\s*\.\s*$/;
const SAMPLE = 64;

export function parseNTriples(text: string): Triple[] {
  const triples: Triple[] = [];
  for (const line of text.split('\n')) {
    const match = LINE.exec(line);
    if (match) triples.push({ s: match[1], p: match[2], o: match[3] });
  }
  return triples;
}

export function profile(triples: Triple[]): DataProfile {
  const bySubject = new Map<TermText, Triple[]>();
  const objectsOf = new Map<TermText, TermText[]>();
  for (const t of triples) {
    const list = bySubject.get(t.s);
    if (list) list.push(t);
    else bySubject.set(t.s, [t]);
    const objects = objectsOf.get(t.p) ?? [];
    if (objects.length < SAMPLE) objects.push(t.o);
    else objects[(objects.length * 7919 + t.o.length) % SAMPLE] = t.o;
    objectsOf.set(t.p, objects);
  }
  return { subjects: [...bySubject.keys()], bySubject, predicates: [...objectsOf.keys()], objectsOf };
}

export function isIri(term: TermText): boolean {
  return term.startsWith('<');
}

/** The datatype IRI of a literal in N-Triples syntax (plain strings: xsd:string; language tags: rdf:langString). */
export function datatypeOf(term: TermText): string | undefined {
  if (!term.startsWith('"')) return undefined;
  const typed = /\^\^<([^>]*)>$/.exec(term);
  if (typed) return typed[1];
  return /"@[a-zA-Z-]+$/.test(term) ? 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString' : 'http://www.w3.org/2001/XMLSchema#string';
}
