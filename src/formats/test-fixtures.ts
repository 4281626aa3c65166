/** Shared data for the format tests: terms that break naive serializers, and quad comparison. */
import { blankNode, defaultGraph, factory, literal, namedNode, termKey, tripleTerm, type Literal, type Quad, type Term } from '../rdf/index.js';
import { xsd } from '../rdf/index.js';

export const EX = 'http://example.org/';
export const ex = (local: string) => namedNode(EX + local);

/** Literal lexical forms that need escaping somewhere (controls other than \t\n\r are not XML-safe). */
export const TRICKY_STRINGS = [
  'plain',
  'with "double" and \'single\' quotes',
  'line one\nline two',
  'crlf\r\nend',
  'tab\there',
  'back\\slash',
  'unicode: é ü 日本 🎉',
  '<script>alert(1)</script> & more',
  ',comma,',
  '',
  ' leading and trailing ',
];
export const CONTROL_STRING = 'controls: ' + Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('') + '\u007f';

export function trickyLiterals(withControls: boolean): Literal[] {
  return [
    ...TRICKY_STRINGS.map((s) => literal(s)),
    ...(withControls ? [literal(CONTROL_STRING)] : []),
    literal('chat', 'fr'),
    literal('colour', 'en-GB'),
    literal('42', namedNode(xsd.integer)),
    literal('-0.5', namedNode(xsd.decimal)),
    literal('1.0E6', namedNode(xsd.double)),
    literal('true', namedNode(xsd.boolean)),
    literal('007', namedNode(xsd.integer)),
    literal('not a number', namedNode(xsd.integer)),
    literal('2024-01-02', namedNode(xsd.date)),
    literal('x"y', namedNode(EX + 'custom#type')),
  ];
}

/**
 * A dataset exercising subject grouping (runs, and a subject that comes back), repeated predicates,
 * blank nodes as subject and object, unusual IRIs and every tricky literal.
 */
export function trickyQuads(options: { graphs: boolean; controls: boolean }): Quad[] {
  const g1 = options.graphs ? ex('graph/1') : defaultGraph();
  const g2 = options.graphs ? blankNode('g2') : defaultGraph();
  const b1 = blankNode('b1');
  const odd = blankNode('0 odd label');
  const quads: Quad[] = [];
  trickyLiterals(options.controls).forEach((o, i) => quads.push(factory.quad(ex('s'), ex('p' + (i % 3)), o)));
  quads.push(
    factory.quad(ex('s'), ex('p0'), ex('again')),
    factory.quad(ex('s'), namedNode('http://www.w3.org/1999/02/22-rdf-syntax-ns#type'), ex('Class')),
    factory.quad(ex('s'), ex('link'), b1),
    factory.quad(b1, ex('name'), literal('blank')),
    factory.quad(b1, ex('next'), odd),
    factory.quad(odd, ex('name'), literal('odd')),
    factory.quad(ex('path/with.dots.'), ex('p0'), namedNode(EX + 'a(b)c?d=e#f')),
    factory.quad(namedNode('urn:isbn:0451450523'), ex('p0'), namedNode('http://example.org/é/ü')),
    factory.quad(ex('s'), ex('p1'), literal('s comes back')),
    factory.quad(ex('in-g1'), ex('p0'), literal('one'), g1),
    factory.quad(ex('in-g1'), ex('p0'), literal('two'), g1),
    factory.quad(ex('in-g2'), ex('p1'), b1, g2),
    factory.quad(ex('back-in-default'), ex('p0'), literal('d')),
  );
  return quads;
}

/** Sorted quad keys with blank nodes renamed by first appearance, for comparison up to renaming. */
export function canonicalQuads(quads: Quad[]): string[] {
  const blankInsensitive = (q: Quad) => [q.subject, q.predicate, q.object, q.graph].map((t) => termKey(renamed(t, () => '_'))).join(' ');
  const sorted = [...quads].sort((a, b) => compare(blankInsensitive(a), blankInsensitive(b)));
  const names = new Map<string, string>();
  const name = (label: string): string => names.get(label) ?? names.set(label, ':c' + names.size).get(label)!;
  return sorted.map((q) => [q.subject, q.predicate, q.object, q.graph].map((t) => termKey(renamed(t, name))).join(' '));
}

/** The term with its blank nodes, those inside RDF 1.2 triple terms too, relabelled. */
function renamed(term: Term, name: (label: string) => string): Term {
  if (term.termType === 'BlankNode') return blankNode(name(term.value));
  if (term.termType !== 'Quad') return term;
  return tripleTerm(renamed(term.subject, name) as Quad['subject'], term.predicate as Quad['predicate'], renamed(term.object, name) as Quad['object']);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Drops the graph of every quad, for formats that only carry triples. */
export function asTriples(quads: Quad[]): Quad[] {
  return quads.map((q) => factory.quad(q.subject, q.predicate, q.object));
}

export async function collect<T>(batches: AsyncIterable<T[]>): Promise<T[]> {
  const all: T[] = [];
  for await (const batch of batches) all.push(...batch);
  return all;
}
