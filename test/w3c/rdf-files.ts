/**
 * Reads the suites' RDF files (Turtle, N-Triples, RDF/XML) into quads of the shared term model.
 * Each file's base IRI is its own file: URL, as the manifests assume. Blank node labels are made
 * unique per file read, so two files never share a blank node by accident.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import N3 from 'n3';
import { RdfXmlParser } from 'rdfxml-streaming-parser';
import type { Quad } from '../../src/rdf/terms.js';
import { factory } from '../../src/rdf/terms.js';

let fileCounter = 0;

export function readText(fileUrl: string): string {
  return readFileSync(fileURLToPath(fileUrl), 'utf8');
}

/** The quads of an RDF file: in the default graph, or in their own graphs for TriG and N-Quads. */
export async function readRdfFile(fileUrl: string): Promise<Quad[]> {
  const text = readText(fileUrl);
  if (/\.(rdf|owl|xml)$/i.test(fileUrl)) return parseRdfXml(text, fileUrl);
  const prefix = `f${++fileCounter}_`;
  const parser = new N3.Parser({ baseIRI: fileUrl, format: formatOf(fileUrl), blankNodePrefix: prefix, factory });
  return parser.parse(text) as Quad[];
}

function formatOf(fileUrl: string): string {
  if (/\.nt$/i.test(fileUrl)) return 'application/n-triples';
  if (/\.nq$/i.test(fileUrl)) return 'application/n-quads';
  if (/\.trig$/i.test(fileUrl)) return 'application/trig';
  return 'text/turtle';
}

function parseRdfXml(text: string, baseIRI: string): Promise<Quad[]> {
  return new Promise((resolve, reject) => {
    const quads: Quad[] = [];
    const parser = new RdfXmlParser({ baseIRI, dataFactory: factory });
    parser.on('data', (quad: Quad) => quads.push(quad));
    parser.on('error', reject);
    parser.on('end', () => resolve(quads));
    parser.write(text);
    parser.end();
  });
}
