/**
 * Download buttons: the query is run again in the chosen format (the `output` parameter) and the
 * answer saved as a file. Fetched rather than linked, so credentials go along. Which formats: the
 * page data's, from the server's table of formats.
 */
import { button, el } from './dom.js';
import { postForm, type Credentials } from './endpoint.js';
import type { DownloadFormat } from './page-data.js';

export interface DownloadRequest {
  endpoint: string;
  query: string;
  credentials: () => Credentials | undefined;
  onError: (error: unknown) => void;
}

export function downloadButtons(formats: DownloadFormat[], request: DownloadRequest): HTMLElement {
  const buttons = formats.map((format) =>
    button(format.label, () => void download(format, request).catch(request.onError), `download download-${format.output}`),
  );
  return el('div', { className: 'downloads' }, [el('span', { text: 'Download:' }), ...buttons]);
}

async function download(format: DownloadFormat, request: DownloadRequest): Promise<void> {
  const response = await postForm(request.endpoint, { query: request.query, output: format.output }, '*/*', request.credentials());
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  const link = el('a', { attrs: { download: `result.${format.extension}` } });
  link.href = url;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
