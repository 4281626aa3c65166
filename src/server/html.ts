/** Pieces shared by every HTML response: escaping and the Content-Security-Policy. */

/**
 * No scripts at all, styles only from our own inline <style> blocks, forms may post only back to
 * this origin. Sent with every HTML response, so that even a bug in escaping cannot run script.
 */
export const HTML_CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'self'";

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

export const PAGE_STYLE = `
  body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; color: #222; }
  h1 { font-size: 1.4rem; }
  textarea { width: 100%; box-sizing: border-box; font-family: ui-monospace, monospace; font-size: 0.95rem; }
  .controls { margin-top: 0.5rem; display: flex; gap: 1rem; align-items: center; }
  button { padding: 0.4rem 1.2rem; font-size: 1rem; }
  pre.error { background: #fff0f0; border: 1px solid #e0a0a0; padding: 1rem; white-space: pre-wrap; }
  nav a { margin-right: 1rem; }
`;

/** A complete, self-contained page around already-escaped body markup. */
export function htmlPage(title: string, bodyMarkup: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
${bodyMarkup}
</body>
</html>
`;
}
