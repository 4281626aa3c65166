/**
 * What a query gives a program: SELECT solutions as records of RDF/JS terms, ASK a boolean,
 * CONSTRUCT and DESCRIBE RDF/JS quads. Solutions and quads are async iterables that stream from the
 * evaluation (breaking out of the loop stops it), with `toArray()` for when the whole answer fits.
 */
import type * as RDF from '@rdfjs/types';
import type { QueryResult } from '../service/index.js';

/** One solution: each bound variable's term, by the variable's name (unbound ones are absent). */
export type Bindings = Record<string, RDF.Term>;

export interface SelectAnswer extends AsyncIterable<Bindings> {
  readonly type: 'bindings';
  /** The projected variables, in the query's order. */
  readonly variables: string[];
  toArray(): Promise<Bindings[]>;
}

export interface AskAnswer {
  readonly type: 'boolean';
  readonly value: boolean;
}

export interface QuadsAnswer extends AsyncIterable<RDF.Quad> {
  readonly type: 'quads';
  /** The prefixes the query declared, for a serializer that abbreviates. */
  readonly prefixes: Record<string, string>;
  toArray(): Promise<RDF.Quad[]>;
}

export type QueryAnswer = SelectAnswer | AskAnswer | QuadsAnswer;

export function answerOf(result: Exclude<QueryResult, { kind: 'explain' }>): QueryAnswer {
  switch (result.kind) {
    case 'boolean':
      return { type: 'boolean', value: result.value };
    case 'bindings':
      return withToArray<Bindings, Omit<SelectAnswer, 'toArray'>>({
        type: 'bindings',
        variables: result.variables,
        [Symbol.asyncIterator]: () => solutions(result.variables, result.rows),
      });
    case 'quads':
      return withToArray<RDF.Quad, Omit<QuadsAnswer, 'toArray'>>({
        type: 'quads',
        prefixes: result.prefixes,
        [Symbol.asyncIterator]: () => flatten(result.quads),
      });
  }
}

function withToArray<T, A extends AsyncIterable<T>>(answer: A): A & { toArray(): Promise<T[]> } {
  return Object.assign(answer, {
    async toArray(): Promise<T[]> {
      const items: T[] = [];
      for await (const item of answer) items.push(item);
      return items;
    },
  });
}

async function* solutions(variables: string[], rows: AsyncIterable<(RDF.Term | undefined)[][]>): AsyncGenerator<Bindings> {
  for await (const batch of rows) {
    for (const row of batch) {
      const bindings: Bindings = {};
      row.forEach((term, i) => {
        if (term !== undefined) bindings[variables[i]!] = term;
      });
      yield bindings;
    }
  }
}

async function* flatten<T>(batches: AsyncIterable<T[]>): AsyncGenerator<T> {
  for await (const batch of batches) yield* batch;
}
