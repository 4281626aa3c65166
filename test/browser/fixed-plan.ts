/**
 * A plan in the shape of the explain contract (what the server answers to explain=true), for
 * testing the plan view on its own: a join of two scans, one of them behind a filter.
 */
export const FIXED_EXPLANATION = {
  query: 'SELECT ?name WHERE { ?p <http://example.org/name> ?name ; <http://example.org/age> ?age FILTER(?age > 20) }',
  resultRows: 30,
  totalTimeMs: 5,
  plan: {
    operator: 'HashJoin',
    details: '?p',
    estimatedRows: 12,
    actualRows: 30,
    timeMs: 4.2,
    children: [
      {
        operator: 'Filter',
        details: '?age > 20',
        estimatedRows: 10,
        actualRows: 29,
        timeMs: 1.5,
        children: [{ operator: 'PatternScan', details: '?p <http://example.org/age> ?age', estimatedRows: 30, actualRows: 30, timeMs: 0.9, children: [] }],
      },
      { operator: 'PatternScan', details: '?p <http://example.org/name> ?name', estimatedRows: 2, actualRows: 30, timeMs: 0.8, children: [] },
    ],
  },
};
