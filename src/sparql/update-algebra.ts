/**
 * SPARQL Update text (as Traqula's AST) to algebra, with each WHERE clause meaning exactly what
 * the same pattern means in a query.
 *
 * Traqula translates INSERT/DELETE templates only in its quads mode, and that mode folds every
 * GRAPH of the WHERE clause into the graph terms of its triple patterns. A GRAPH with no triple
 * pattern of its own (`GRAPH ?g { }`, `GRAPH ?g { FILTER(…) }`, a BIND, VALUES, OPTIONAL-only or
 * NOT EXISTS-only group) then vanishes: `GRAPH ?g { }` binds nothing and `GRAPH <absent> { }`
 * matches. So the templates still come from quads mode, but the WHERE clause is translated as a
 * query's pattern is, with GRAPH kept as an operator.
 *
 * The dataset of the WHERE clause: USING / USING NAMED name it exactly (a From operation, as FROM
 * in a query); WITH <g> alone makes <g> its default graph and leaves every named graph of the store
 * visible (a From marked `namedGraphsOfStore`), which is how Jena and Oxigraph read SPARQL 1.1
 * Update 3.1.3 too.
 */
import { toAlgebra12Builder } from '@traqula/algebra-sparql-1-2';
import { IndirBuilder } from '@traqula/core';
import { translateDatasetClause, translateGraphPattern, translateInsertDelete, translateNamed } from '@traqula/algebra-transformations-1-1';
import { createAlgebraContext, type Algebra } from '@traqula/algebra-transformations-1-2';

/** A From whose named graphs are all of the store's (WITH without USING). */
export interface WithGraphFrom extends Algebra.From {
  namedGraphsOfStore: true;
}

const translateInsertDeleteWithQueryWhere = {
  name: 'translateInsertDelete' as const,
  fun: (rules: any) => {
    const templatesOnly = translateInsertDelete.fun(rules);
    return (c: any, op: any): Algebra.DeleteInsert => {
      const F = c.astFactory;
      if (!F.isUpdateOperationModify(op) || op.where.patterns.length === 0) return templatesOnly(c, op) as Algebra.DeleteInsert;
      const withoutWhere = { ...op, where: { ...op.where, patterns: [] } };
      const { delete: deletes, insert: inserts } = templatesOnly(c, withoutWhere) as Algebra.DeleteInsert;
      return c.algebraFactory.createDeleteInsert(deletes, inserts, whereAsInAQuery(rules, c, op));
    };
  },
};

function whereAsInAQuery(rules: any, c: any, op: any): Algebra.Operation {
  c.useQuads = false;
  let where: Algebra.Operation;
  try {
    where = rules.SUBRULE(translateGraphPattern, op.where);
  } finally {
    c.useQuads = true;
  }
  const using = rules.SUBRULE(translateDatasetClause, op.from);
  if (using.default.length > 0 || using.named.length > 0) return c.algebraFactory.createFrom(where, using.default, using.named);
  if (!op.graph) return where;
  const withGraph = rules.SUBRULE(translateNamed, op.graph);
  return { ...c.algebraFactory.createFrom(where, [withGraph], []), namedGraphsOfStore: true } as WithGraphFrom;
}

// A copy: patchRule changes the builder it is called on, and queries use the shared one unpatched.
const updateTranslator = IndirBuilder.create(toAlgebra12Builder)
  .patchRule(translateInsertDeleteWithQueryWhere as any)
  .build();

export function updateToAlgebra(ast: unknown, baseIri?: string): Algebra.Operation {
  const c = createAlgebraContext({ quads: true, baseIRI: baseIri });
  return updateTranslator.translateQuery(c, ast as any, true, false) as Algebra.Operation;
}
