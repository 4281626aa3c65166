/** The format table: names, media types and extensions as the HTTP spec's Formats table says. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  defaultFormatFor,
  formatForMediaType,
  formatForOutputName,
  mediaTypesFor,
  outputNamesFor,
  queryKindOf,
  rdfFormatForFileName,
  rdfFormatForMediaType,
  RDF_FORMATS,
  RESULTS_FORMATS,
  PARSEABLE_RDF_FORMATS,
  parseableRdfFormat,
  resultsFormatOf,
  w3cFormatIris,
  outputChoices,
} from './format-table.js';

describe('format table', () => {
  it('maps json and xml by query kind', () => {
    assert.equal(formatForOutputName('json', 'results')?.mediaTypes[0], 'application/sparql-results+json');
    assert.equal(formatForOutputName('json', 'rdf')?.mediaTypes[0], 'application/ld+json');
    assert.equal(formatForOutputName('xml', 'results')?.mediaTypes[0], 'application/sparql-results+xml');
    assert.equal(formatForOutputName('xml', 'rdf')?.format, 'rdfxml');
    assert.equal(formatForOutputName('html', 'results')?.format, 'html');
    assert.equal(formatForOutputName('html', 'rdf')?.format, 'html');
  });

  it('refuses formats of the other kind (the server answers 406)', () => {
    assert.equal(formatForOutputName('csv', 'rdf'), undefined);
    assert.equal(formatForOutputName('tsv', 'rdf'), undefined);
    for (const name of ['turtle', 'ntriples', 'nquads', 'jsonld', 'rdfxml', 'trig']) {
      assert.equal(formatForOutputName(name, 'results'), undefined, name);
      assert.equal(formatForOutputName(name, 'rdf')?.format, name);
    }
    assert.equal(formatForOutputName('nonsense', 'results'), undefined);
  });

  it('accepts a media type as output, and media type aliases with parameters', () => {
    assert.equal(formatForOutputName('text/csv', 'results')?.format, 'csv');
    assert.equal(formatForMediaType('application/json', 'results')?.format, 'json');
    assert.equal(formatForMediaType('Application/X-Turtle; charset=utf-8', 'rdf')?.format, 'turtle');
    assert.equal(formatForMediaType('text/plain', 'rdf')?.format, 'ntriples');
    assert.equal(formatForMediaType('application/xhtml+xml', 'results')?.format, 'html');
    assert.equal(formatForMediaType('text/turtle', 'results'), undefined);
  });

  it('says charset=utf-8 and gives an extension for Content-Disposition', () => {
    const json = formatForOutputName('json', 'results')!;
    assert.equal(json.contentType, 'application/sparql-results+json; charset=utf-8');
    assert.equal(formatForOutputName('turtle', 'rdf')!.extension, 'ttl');
    assert.equal(formatForOutputName('xml', 'rdf')!.extension, 'rdf');
    for (const kind of ['results', 'rdf'] as const) {
      for (const name of outputNamesFor(kind)) assert.match(formatForOutputName(name, kind)!.contentType, /; charset=utf-8$/);
    }
  });

  it('lists negotiation candidates in preference order, defaults first', () => {
    assert.equal(mediaTypesFor('results')[0], 'application/sparql-results+json');
    assert.equal(mediaTypesFor('rdf')[0], 'text/turtle');
    assert.ok(mediaTypesFor('results').includes('text/html'));
    assert.ok(mediaTypesFor('rdf').includes('application/n-triples'));
    assert.equal(defaultFormatFor('results').format, 'json');
    assert.equal(defaultFormatFor('rdf').format, 'turtle');
    assert.equal(queryKindOf('boolean'), 'results');
    assert.equal(queryKindOf('quads'), 'rdf');
  });

  it('recognizes RDF files by extension, gzip separately', () => {
    assert.deepEqual(rdfFormatForFileName('data/dump.nq.gz'), { format: 'nquads', gzip: true });
    assert.deepEqual(rdfFormatForFileName('ONTOLOGY.OWL'), { format: 'rdfxml', gzip: false });
    assert.deepEqual(rdfFormatForFileName('x.ttl'), { format: 'turtle', gzip: false });
    assert.equal(rdfFormatForFileName('notes.txt'), undefined);
    assert.equal(rdfFormatForFileName('README'), undefined);
  });

  it('recognizes RDF request bodies by media type', () => {
    assert.equal(rdfFormatForMediaType('text/turtle;charset=utf-8'), 'turtle');
    assert.equal(rdfFormatForMediaType('application/ld+json'), 'jsonld');
    assert.equal(rdfFormatForMediaType('application/trig'), 'trig');
    assert.equal(rdfFormatForMediaType('text/html'), undefined);
  });

  it('reads back every format it writes but HTML, by name, media type and file extension', () => {
    for (const info of [...RESULTS_FORMATS, ...RDF_FORMATS]) {
      if (info.format === 'html') continue;
      if (info.kind === 'rdf') {
        assert.equal(parseableRdfFormat(info.format), info.format);
        for (const type of [...info.mediaTypes, ...info.alsoReads]) assert.equal(rdfFormatForMediaType(type), info.format, type);
        assert.equal(rdfFormatForFileName(`data.${info.extension}.gz`)?.format, info.format);
      } else {
        for (const type of [...info.mediaTypes, ...info.alsoReads]) assert.equal(resultsFormatOf(type), info.format, type);
        for (const extension of info.fileExtensions) assert.equal(resultsFormatOf(`.${extension}`), info.format, extension);
      }
    }
    assert.deepEqual([...PARSEABLE_RDF_FORMATS].sort(), ['jsonld', 'nquads', 'ntriples', 'rdfxml', 'trig', 'turtle']);
  });

  it('gives the Service Description a W3C format IRI for every format but HTML', () => {
    const iris = w3cFormatIris();
    assert.equal(iris.length, RESULTS_FORMATS.length + RDF_FORMATS.length - 2);
    assert.ok(iris.includes('http://www.w3.org/ns/formats/TriG'));
    assert.ok(iris.includes('http://www.w3.org/ns/formats/SPARQL_Results_TSV'));
  });

  it("offers the query form every format's name, each saying what it gives for which kind of query", () => {
    const choices = outputChoices();
    assert.equal(choices[0]!.name, 'html');
    for (const info of [...RESULTS_FORMATS, ...RDF_FORMATS])
      assert.ok(
        choices.some((c) => c.name === info.outputNames[0]),
        info.format,
      );
    assert.equal(choices.find((c) => c.name === 'json')!.label, 'SPARQL JSON / JSON-LD (CONSTRUCT, DESCRIBE)');
    assert.equal(choices.find((c) => c.name === 'csv')!.label, 'CSV (SELECT, ASK)');
    assert.equal(choices.find((c) => c.name === 'trig')!.label, 'TriG (CONSTRUCT, DESCRIBE)');
  });
});
