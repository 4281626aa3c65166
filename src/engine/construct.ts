/**
 * CONSTRUCT: the template instantiated with each solution. Blank nodes of the template are fresh
 * for each solution; triples with unbound variables or ill-placed terms (a literal as subject)
 * are left out; the result is a set, so repeated triples come once.
 */
import type { Algebra } from '../sparql/index.js';
import type { BaseQuad, Quad_Object, Quad_Predicate, Quad_Subject } from '@rdfjs/types';
import { blankNode, defaultGraph, factory, tripleTerm, type Quad, type Term } from '../rdf/index.js';
import { termKey } from '../rdf/index.js';
import { unitBatch } from './batch.js';
import type { ExecContext } from './exec-context.js';
import type { Operator } from './operators/operator.js';
import type { Scope } from './plan/scope.js';

const QUADS_PER_BATCH = 1024;
let constructRun = 0;

export function* constructQuads(op: Operator, template: Algebra.Pattern[], scope: Scope, ctx: ExecContext): Generator<Quad[]> {
  const width = ctx.width;
  const run = (++constructRun).toString(36);
  const resolve = (t: Term, data: Float64Array, offset: number, solution: number): Term | undefined => {
    if (t.termType === 'Variable') {
      const id = data[offset + scope.slot(t.value)];
      return id === 0 ? undefined : ctx.termOf(id);
    }
    if (t.termType === 'BlankNode') return blankNode(`c${run}_${solution}_${t.value}`);
    if (t.termType === 'Quad') return instantiateTripleTerm(t, (part) => resolve(part, data, offset, solution));
    return t;
  };
  const seen = new Set<string>();
  let out: Quad[] = [];
  let solution = 0;
  for (const batch of op.execute([unitBatch(width)], ctx)) {
    for (let r = 0; r < batch.length; r++, solution++) {
      const offset = r * width;
      for (const pattern of template) {
        const s = resolve(pattern.subject, batch.data, offset, solution);
        const p = resolve(pattern.predicate, batch.data, offset, solution);
        const o = resolve(pattern.object, batch.data, offset, solution);
        if (!s || !p || !o || !validTriple(s, p, o)) continue;
        const key = `${termKey(s)} ${termKey(p)} ${termKey(o)}`;
        if (seen.has(key)) continue;
        seen.add(key);
        // Every distinct triple is remembered until the end, to drop its repetitions.
        ctx.reserve(48 + 2 * key.length);
        out.push(factory.quad(s as any, p as any, o as any, defaultGraph()));
        if (out.length >= QUADS_PER_BATCH) {
          yield out;
          out = [];
        }
      }
    }
  }
  if (out.length > 0) yield out;
}

/** A template's triple term with its parts resolved; undefined when a part is unbound or ill-placed. */
export function instantiateTripleTerm(t: BaseQuad, resolve: (part: Term) => Term | undefined): Term | undefined {
  const s = resolve(t.subject);
  const p = resolve(t.predicate);
  const o = resolve(t.object);
  if (!s || !p || !o || !validTriple(s, p, o)) return undefined;
  return tripleTerm(s as Quad_Subject, p as Quad_Predicate, o as Quad_Object);
}

export function validTriple(s: Term, p: Term, o: Term): boolean {
  return (s.termType === 'NamedNode' || s.termType === 'BlankNode') && p.termType === 'NamedNode' && o.termType !== 'Variable';
}
