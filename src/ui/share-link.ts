/**
 * The address of a run query: the query text in the fragment (#query=…), which never goes to the
 * server, so reopening it shows this page with the query in the editor, and runs it.
 */

export function queryFromLocation(): string | undefined {
  const fragment = new URLSearchParams(location.hash.slice(1));
  return fragment.get('query') ?? undefined;
}

export function rememberQueryInLocation(query: string): void {
  const fragment = new URLSearchParams({ query });
  history.replaceState(null, '', `${location.pathname}${location.search}#${fragment.toString()}`);
}

/** A tab without a run: the address no longer names a query. */
export function forgetQueryInLocation(): void {
  if (queryFromLocation() !== undefined) history.replaceState(null, '', `${location.pathname}${location.search}`);
}
