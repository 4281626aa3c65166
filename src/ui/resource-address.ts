/**
 * The address of a resource view, in the page's fragment (never sent to the server), so that it
 * can be shared and back and forward walk through the views:
 *
 * - `#resource=IRI` for an IRI;
 * - `#bnode=LABEL&root=IRI&path=<p>&path=^<q>` for a blank node. A blank node's label is the
 *   store's, stable only within one snapshot of it, and a query cannot name it. So a blank node is
 *   reached the way it was found: from an IRI (`root`) along predicates (`<p>` forwards, `^<q>`
 *   backwards). The label picks one among the blank nodes at the end of that path; when the
 *   store has changed since and no longer uses the label, the view shows every blank node there.
 */

export type ResourceTarget = { kind: 'iri'; iri: string } | { kind: 'bnode'; label: string; root: string; path: string[] };

export function resourceHref(target: ResourceTarget): string {
  const params =
    target.kind === 'iri'
      ? new URLSearchParams({ resource: target.iri })
      : new URLSearchParams([['bnode', target.label], ['root', target.root], ...target.path.map((step) => ['path', step] as [string, string])]);
  return `#${params.toString()}`;
}

export function targetFromHash(hash: string): ResourceTarget | undefined {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const iri = params.get('resource');
  if (iri !== null && iri !== '') return { kind: 'iri', iri };
  const label = params.get('bnode');
  const root = params.get('root');
  const path = params.getAll('path').filter((step) => /^\^?<[^<>\s]*>$/.test(step));
  if (label !== null && root !== null && root !== '' && path.length > 0) return { kind: 'bnode', label, root, path };
  return undefined;
}

/** One more step from a blank node or IRI already reached: `predicate` forwards, or backwards. */
export function stepFrom(from: ResourceTarget, predicate: string, backwards: boolean, label: string): ResourceTarget {
  const step = `${backwards ? '^' : ''}<${predicate}>`;
  return from.kind === 'iri' ? { kind: 'bnode', label, root: from.iri, path: [step] } : { kind: 'bnode', label, root: from.root, path: [...from.path, step] };
}
