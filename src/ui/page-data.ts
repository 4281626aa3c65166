/** What the server tells the page (src/server/pages.ts writes it into a JSON data block). */

export interface Example {
  name: string;
  text: string;
}

export interface PageData {
  page: 'query' | 'update';
  endpoints: { select: string; update: string };
  prefixes: Record<string, string>;
  /** The store's classes, properties and prefixes (JSON), for completion. */
  vocabulary: string;
  examples: Example[];
  queryCredentials: boolean;
  updateCredentials: boolean;
  styleNonce: string;
  /** Queries read the union of all graphs as their default graph: the store's own cannot be named. */
  unionDefaultGraph?: boolean;
}

/** Read as data, never run: the policy allows no inline script, and JSON is not script anyway. */
export function readPageData(): PageData {
  const block = document.getElementById('quiver-page-data');
  if (block === null) throw new Error('the page has no data block');
  return JSON.parse(block.textContent ?? '{}') as PageData;
}
