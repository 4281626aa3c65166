/** Pieces shared by every HTML response: escaping, the Content-Security-Policy, the page frame. */
import { createHash } from 'node:crypto';
import { RESULT_PAGE_STYLE } from '../formats/index.js';

export const PAGE_STYLE = `
  body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; color: #222; }
  h1 { font-size: 1.4rem; }
  textarea { width: 100%; box-sizing: border-box; font-family: ui-monospace, monospace; font-size: 0.95rem; }
  .controls { margin-top: 0.5rem; display: flex; gap: 1rem; align-items: center; }
  button { padding: 0.4rem 1.2rem; font-size: 1rem; }
  pre.error { background: #fff0f0; border: 1px solid #e0a0a0; padding: 1rem; white-space: pre-wrap; }
  nav a { margin-right: 1rem; }
  table.results { border-collapse: collapse; font-size: 0.9rem; }
  table.results th, table.results td { border: 1px solid #ddd; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
  table.results th { background: #f0f0f0; }
  .literal { white-space: pre-wrap; } .lang, .datatype { color: #777; font-size: 0.85em; } .bnode { color: #795da3; }
  .iri { word-break: break-all; } .summary { color: #555; } .boolean { font-size: 1.2rem; font-weight: bold; }
`;

/**
 * The one inline `<style>` cytoscape (the graph view's library) inserts into the page head. Allowed
 * by its hash, so the graph view does not log a CSP violation; nothing else inline is allowed.
 */
const CYTOSCAPE_CONTAINER_STYLE = '.__________cytoscape_container { position: relative; }';

function styleHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

const FIXED_STYLES = [PAGE_STYLE, RESULT_PAGE_STYLE].map(styleHash).join(' ');

/**
 * Every HTML response but the query and update pages: no script at all; the only styles are the
 * fixed inline blocks of the error and result pages, allowed by hash; forms post back only here.
 * Sent with every HTML response, so that even a bug in escaping cannot run script.
 */
export const HTML_CONTENT_SECURITY_POLICY = `default-src 'none'; style-src ${FIXED_STYLES}; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'self'`;

/**
 * The headers every HTML response carries, whichever code path wrote it, where it has not set its
 * own (the query and update pages set a stricter policy by nonce); undefined for other types.
 */
export function htmlProtection(contentType: unknown): Readonly<Record<string, string>> | undefined {
  return typeof contentType === 'string' && contentType.startsWith('text/html') ? HTML_PROTECTION : undefined;
}

const HTML_PROTECTION = Object.freeze({ 'content-security-policy': HTML_CONTENT_SECURITY_POLICY, 'x-content-type-options': 'nosniff' });

/**
 * The query and update pages: scripts only from this origin (the bundled assets under {base}/ui/,
 * no inline script, no eval), styles from this origin or carrying this response's nonce (the
 * editor inserts its styles at run time), requests (fetch) only to this origin.
 */
export function pageContentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}' ${styleHash(CYTOSCAPE_CONTAINER_STYLE)}`,
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'self'",
  ].join('; ');
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/**
 * JSON for a `<script type="application/json">` block: `<`, `>` and `&` are written as \u escapes so
 * no value can close the element or open a comment; the line separators for old JSON readers.
 */
export function jsonForScriptBlock(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export interface PageHead {
  /** Extra markup for the head (stylesheet links), already escaped. */
  headMarkup?: string;
  /** The nonce of the page's inline style, when the response's policy names one. */
  nonce?: string;
}

/** A complete, self-contained page around already-escaped body markup. */
export function htmlPage(title: string, bodyMarkup: string, head: PageHead = {}): string {
  const nonce = head.nonce !== undefined ? ` nonce="${escapeHtml(head.nonce)}"` : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style${nonce}>${PAGE_STYLE}</style>
${head.headMarkup ?? ''}</head>
<body>
${bodyMarkup}
</body>
</html>
`;
}
