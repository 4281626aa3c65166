/**
 * DESCRIBE: the concise bounded description of each resource — its triples as subject in the
 * default graph, and recursively those of the blank nodes they lead to.
 */
import { factory, defaultGraph, type Quad, type Term } from '../rdf/index.js';
import { unitBatch } from './batch.js';
import type { ExecContext } from './exec-context.js';
import type { Operator } from './operators/operator.js';
import type { Scope } from './plan/scope.js';
import { QUERY_LOCAL_ID_BASE, type TermId } from '../store/index.js';

export function* describeQuads(op: Operator, terms: Term[], scope: Scope, ctx: ExecContext): Generator<Quad[]> {
  const resources = new Set<TermId>();
  const variables = terms.filter((t) => t.termType === 'Variable').map((t) => scope.slot(t.value));
  for (const t of terms) if (t.termType !== 'Variable') resources.add(ctx.idOf(t));
  if (variables.length > 0) {
    for (const batch of op.execute([unitBatch(ctx.width)], ctx)) {
      for (let r = 0; r < batch.length; r++) {
        for (const slot of variables) {
          const id = batch.data[r * ctx.width + slot];
          if (id !== 0) resources.add(id);
        }
      }
    }
  }
  const described = new Set<TermId>();
  const seen = new Set<string>();
  const queue = [...resources];
  let out: Quad[] = [];
  while (queue.length > 0) {
    const subject = queue.shift()!;
    if (described.has(subject) || subject >= QUERY_LOCAL_ID_BASE) continue;
    described.add(subject);
    for (const g of ctx.dataset.defaultGraphs) {
      for (const q of ctx.reader.scan(subject, 0, 0, g)) {
        // Store IDs name one term each: the triple is repeated exactly when its IDs are.
        const key = `${q[0]} ${q[1]} ${q[2]}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const s = ctx.termOf(q[0]);
        const p = ctx.termOf(q[1]);
        const o = ctx.termOf(q[2]);
        out.push(factory.quad(s as any, p as any, o as any, defaultGraph()));
        if (o.termType === 'BlankNode') queue.push(q[2]);
      }
    }
    if (out.length >= 1024) {
      yield out;
      out = [];
    }
  }
  if (out.length > 0) yield out;
}
