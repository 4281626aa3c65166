/**
 * The bundled assets of the browser pages, over HTTP (no browser needed): served from {base}/ui/
 * with their types and long cache lifetimes, nothing else served from there, and the pages that
 * link them under a policy that allows exactly these scripts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startLocalServer, type RunningServer } from '../http/harness.js';

describe('the assets of the browser pages', () => {
  let server: RunningServer;
  before(async () => {
    server = await startLocalServer({ basePath: '/base' });
  });
  after(async () => server.close());

  async function pageLinks(path: string): Promise<{ html: string; policy: string; links: string[] }> {
    const response = await fetch(server.url(path), { headers: { accept: 'text/html' } });
    assert.equal(response.status, 200);
    const html = await response.text();
    const links = [...html.matchAll(/(?:src|href)="(\/base\/ui\/[^"]+)"/g)].map((m) => m[1]!);
    return { html, policy: response.headers.get('content-security-policy')!, links };
  }

  it('links the page script and stylesheet under {base}/ui/ with a version, and serves them cached for a year', async () => {
    const { links } = await pageLinks('/base/sparql/select');
    assert.deepEqual(links.map((l) => l.replace(/\?v=\w+$/, '')).sort(), ['/base/ui/query.js', '/base/ui/quiver.css']);
    for (const link of links) {
      const response = await fetch(server.url(link));
      assert.equal(response.status, 200, link);
      assert.match(response.headers.get('content-type')!, link.includes('.js') ? /^text\/javascript/ : /^text\/css/);
      assert.equal(response.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      const etag = response.headers.get('etag')!;
      const again = await fetch(server.url(link), { headers: { 'if-none-match': etag } });
      assert.equal(again.status, 304);
    }
  });

  it('revalidates an asset asked for without its version', async () => {
    const response = await fetch(server.url('/base/ui/query.js'));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('cache-control'), 'no-cache');
  });

  it('serves nothing but the built assets', async () => {
    for (const path of ['/base/ui/missing.js', '/base/ui/..%2Fsrc%2Fcli%2Fmain.js', '/base/ui/%2E%2E%2Fpackage.json']) {
      assert.equal((await fetch(server.url(path))).status, 404, path);
    }
  });

  it('sends the pages with a nonce policy: scripts from this origin only, no inline script, no eval', async () => {
    for (const path of ['/base/sparql/select', '/base/sparql/update']) {
      const { html, policy } = await pageLinks(path);
      const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
      assert.ok(nonce, policy);
      assert.ok(html.includes(`<style nonce="${nonce}">`), 'the page style carries the nonce');
      assert.match(policy, /script-src 'self';/);
      assert.match(policy, /connect-src 'self';/);
      assert.ok(!policy.includes('unsafe'), policy);
    }
    const first = (await pageLinks('/base/sparql/select')).policy;
    const second = (await pageLinks('/base/sparql/select')).policy;
    assert.notEqual(first, second, 'a new nonce for every page');
  });

  it('passes server data to the page as a JSON block that cannot close its element', async () => {
    const { html } = await pageLinks('/base/sparql/select');
    const block = /<script type="application\/json" id="quiver-page-data">([^<]*)<\/script>/.exec(html);
    assert.ok(block, 'the data block is there, with no < inside');
    const data = JSON.parse(block[1]!) as { endpoints: { select: string }; prefixes: Record<string, string> };
    assert.equal(data.endpoints.select, '/base/sparql/select');
    assert.equal(data.prefixes['foaf'], 'http://xmlns.com/foaf/0.1/');
  });
});
