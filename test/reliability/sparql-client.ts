/** Plain SPARQL protocol calls over fetch, shared by the reliability suites. */

export interface JsonBinding {
  type: 'uri' | 'literal' | 'bnode' | 'triple';
  value: string;
  datatype?: string;
  'xml:lang'?: string;
}

export type JsonRow = Record<string, JsonBinding | undefined>;

export async function postUpdate(origin: string, update: string, signal?: AbortSignal): Promise<Response> {
  return fetch(`${origin}/sparql/update`, {
    method: 'POST',
    headers: { 'content-type': 'application/sparql-update' },
    body: update,
    signal,
  });
}

/** `padding` (spaces, say) goes after the query, to make the body as large as a test needs. */
export async function postQuery(
  origin: string,
  query: string,
  accept = 'application/sparql-results+json',
  signal?: AbortSignal,
  padding = '',
): Promise<Response> {
  return fetch(`${origin}/sparql`, {
    method: 'POST',
    headers: { 'content-type': 'application/sparql-query', accept },
    body: query + padding,
    signal,
  });
}

/** The rows of a SELECT, failing with the server's message on any status but 200. */
export async function selectRows(origin: string, query: string): Promise<JsonRow[]> {
  const response = await postQuery(origin, query);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`query answered ${response.status}: ${text}\n${query}`);
  return (JSON.parse(text) as { results: { bindings: JsonRow[] } }).results.bindings;
}

/** Runs an update, failing with the server's message on any status but 200/204. */
export async function update(origin: string, text: string): Promise<void> {
  const response = await postUpdate(origin, text);
  const body = await response.text();
  if (response.status !== 200 && response.status !== 204) throw new Error(`update answered ${response.status}: ${body}\n${text}`);
}

export async function isHealthy(origin: string, timeoutMs = 5000): Promise<boolean> {
  try {
    const response = await fetch(`${origin}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
