/**
 * COUNT(DISTINCT *) counts the distinct solutions of its group, and a solution is made of the
 * query's own variables only: exactly what SELECT DISTINCT * would return. The algebra also holds
 * variables the query never wrote (Traqula's fresh variables for property path steps and unnamed
 * GROUP BY expressions) and the evaluator gives blank nodes of patterns slots of their own; neither
 * may make two solutions distinct. So each such aggregate is told, here, the query's variables
 * that occur under its group; the planner keys its distinct set on those alone.
 */
import type { Algebra } from '@traqula/algebra-transformations-1-2';

/** A wildcard aggregate argument with the query's variables of its group's input. */
export interface SolutionWildcard extends Algebra.WildcardExpression {
  solutionVariables: string[];
}

export function isSolutionWildcard(expression: Algebra.Expression): expression is SolutionWildcard {
  return Array.isArray((expression as Partial<SolutionWildcard>).solutionVariables);
}

/** Marks every wildcard aggregate of the algebra with the query variables (`queryVariables`) under its group. */
export function markDistinctStar(algebra: Algebra.Operation, queryVariables: ReadonlySet<string>): void {
  visit(algebra, (node) => {
    if (node.type !== 'group') return;
    const group = node as Algebra.Group;
    const wildcards = group.aggregates.filter((a) => a.expression.subType === 'wildcard');
    if (wildcards.length === 0) return;
    const solutionVariables = [...variablesUnder(group.input)].filter((name) => queryVariables.has(name));
    for (const aggregate of wildcards) {
      (aggregate as { expression: Algebra.Expression }).expression = { ...aggregate.expression, solutionVariables } as SolutionWildcard;
    }
  });
}

function visit(node: unknown, onOperation: (op: Algebra.Operation) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) visit(item, onOperation);
  } else if (node && typeof node === 'object' && !('termType' in node)) {
    const record = node as Record<string, unknown>;
    if (typeof record.type === 'string') onOperation(record as unknown as Algebra.Operation);
    for (const key of Object.keys(record)) visit(record[key], onOperation);
  }
}

function variablesUnder(node: unknown, names = new Set<string>()): Set<string> {
  if (Array.isArray(node)) {
    for (const item of node) variablesUnder(item, names);
  } else if (node && typeof node === 'object') {
    const record = node as Record<string, unknown>;
    if (record.termType === 'Variable') names.add(record.value as string);
    else for (const key of Object.keys(record)) variablesUnder(record[key], names);
  }
  return names;
}
