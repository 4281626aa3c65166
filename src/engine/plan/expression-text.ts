/** A short SPARQL-like rendering of an algebra expression, for explain output only. */
import type { Algebra } from '../../sparql/index.js';
import type { Term } from '../../rdf/index.js';

const MAX_LENGTH = 160;

export function expressionText(expr: Algebra.Expression): string {
  const text = render(expr);
  return text.length > MAX_LENGTH ? text.slice(0, MAX_LENGTH - 1) + '…' : text;
}

function render(expr: Algebra.Expression): string {
  switch (expr.subType) {
    case 'term':
      return termText((expr as Algebra.TermExpression).term);
    case 'operator': {
      const e = expr as Algebra.OperatorExpression;
      const args = e.args.map((a) => render(a as Algebra.Expression));
      if (args.length === 2 && /^[^a-z]/i.test(e.operator)) return `(${args[0]} ${e.operator} ${args[1]})`;
      if (args.length === 1 && (e.operator === '!' || e.operator === '-' || e.operator === '+')) return `${e.operator}${args[0]}`;
      return `${e.operator.toUpperCase()}(${args.join(', ')})`;
    }
    case 'named': {
      const e = expr as Algebra.NamedExpression;
      return `<${e.name.value}>(${e.args.map((a) => render(a)).join(', ')})`;
    }
    case 'existence':
      return `${(expr as Algebra.ExistenceExpression).not ? 'NOT EXISTS' : 'EXISTS'} {…}`;
    default:
      return expr.subType;
  }
}

function termText(term: Term): string {
  switch (term.termType) {
    case 'Variable':
      return `?${term.value}`;
    case 'NamedNode':
      return `<${term.value}>`;
    case 'Literal':
      return JSON.stringify(term.value);
    default:
      return term.value;
  }
}
