/**
 * Reads a test's expected answer: a SPARQL results document (.srx, .srj, .csv, .tsv), a result
 * set written in RDF with the DAWG result-set vocabulary (older tests), or a graph.
 */
import type * as RDF from '@rdfjs/types';
import { parseSparqlResults } from '../../src/formats/results-parser.js';
import { resultsFormatOf } from '../../src/formats/format-table.js';
import type { Term } from '../../src/rdf/terms.js';
import type { Answer } from './compare-results.js';
import { readRdfFile, readText } from './rdf-files.js';
import type { Row } from './isomorphism.js';

const RS = 'http://www.w3.org/2001/sw/DataAccess/tests/result-set#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

export interface ExpectedAnswer {
  answer: Answer;
  /** rs:index was given: the expected solutions are a sequence. */
  indexed?: boolean;
}

export async function readExpectedAnswer(fileUrl: string): Promise<ExpectedAnswer> {
  const extension = fileUrl.slice(fileUrl.lastIndexOf('.') + 1);
  if (resultsFormatOf(extension)) {
    const parsed = await parseSparqlResults(readText(fileUrl), extension);
    return { answer: parsed };
  }
  const quads = await readRdfFile(fileUrl);
  const resultSet = quads.find((q) => q.predicate.value === RDF_TYPE && q.object.value === `${RS}ResultSet`);
  if (resultSet) return readResultSetGraph(quads, resultSet.subject);
  return { answer: { kind: 'quads', quads: quads.map(quadRow) } };
}

export function quadRow(quad: RDF.Quad): Row {
  return [quad.subject, quad.predicate, quad.object, quad.graph] as Term[];
}

/** rs:ResultSet with rs:resultVariable, rs:solution / rs:binding (rs:variable, rs:value), rs:index, rs:boolean. */
function readResultSetGraph(quads: RDF.Quad[], resultSet: RDF.Term): ExpectedAnswer {
  const bySubject = new Map<string, RDF.Quad[]>();
  for (const q of quads) {
    const key = `${q.subject.termType}:${q.subject.value}`;
    const list = bySubject.get(key);
    if (list) list.push(q);
    else bySubject.set(key, [q]);
  }
  const objects = (subject: RDF.Term, predicate: string) =>
    (bySubject.get(`${subject.termType}:${subject.value}`) ?? []).filter((q) => q.predicate.value === predicate).map((q) => q.object);
  const booleanValue = objects(resultSet, `${RS}boolean`)[0];
  if (booleanValue) return { answer: { kind: 'boolean', value: booleanValue.value === 'true' } };
  const variables = objects(resultSet, `${RS}resultVariable`).map((v) => v.value);
  let indexed = false;
  const solutions = objects(resultSet, `${RS}solution`).map((solution) => {
    const index = objects(solution, `${RS}index`)[0];
    if (index) indexed = true;
    const row: (Term | undefined)[] = new Array(variables.length).fill(undefined);
    for (const binding of objects(solution, `${RS}binding`)) {
      const name = objects(binding, `${RS}variable`)[0]?.value;
      const value = objects(binding, `${RS}value`)[0];
      let column = name === undefined ? -1 : variables.indexOf(name);
      if (column < 0 && name !== undefined) {
        // A binding of a variable the result set forgot to declare: declare it.
        variables.push(name);
        row.push(undefined);
        column = variables.length - 1;
      }
      if (column >= 0 && value) row[column] = value as Term;
    }
    return { row, index: index ? Number(index.value) : 0 };
  });
  if (indexed) solutions.sort((a, b) => a.index - b.index);
  const width = variables.length;
  const rows: Row[] = solutions.map(({ row }) => [...row, ...new Array(width - row.length).fill(undefined)]);
  return { answer: { kind: 'bindings', variables, rows }, indexed };
}
