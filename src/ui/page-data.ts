/** What the server tells the page (src/server/pages.ts writes it into a JSON data block). */

/** A format to save a result in: the button's label, the `output` value asked for, the file's extension. */
export interface DownloadFormat {
  label: string;
  output: string;
  extension: string;
}

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
  /** The formats a result can be saved in: `results` for SELECT and ASK, `rdf` for CONSTRUCT and DESCRIBE. */
  downloads: { results: DownloadFormat[]; rdf: DownloadFormat[] };
}

/** Read as data, never run: the policy allows no inline script, and JSON is not script anyway. */
export function readPageData(): PageData {
  const block = document.getElementById('quiver-page-data');
  if (block === null) throw new Error('the page has no data block');
  return JSON.parse(block.textContent ?? '{}') as PageData;
}
