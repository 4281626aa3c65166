/**
 * Nothing a user or the data controls runs as script, on any HTML page, in a real browser:
 * script-bearing literals, IRIs, variable names, queries and error messages are put through the
 * query page (table, graph, plan, errors, a shared address), the update page, the server-side HTML
 * result pages (SELECT, CONSTRUCT; and the query page around them, its editor holding a
 * script-bearing query, opened by a link or a plain form submit), the HTML error pages and the 404 page. Each
 * page must show the payloads as text, run none of them (no dialog, no flag set, no policy
 * violation for script), and carry a Content-Security-Policy.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { SPARQL_UPDATE, startLocalServer, type RunningServer } from '../http/harness.js';
import { launchChromium, openWatchedPage, skipBrowser, typeInEditor, type WatchedPage } from './browser-harness.js';

const EX = 'http://example.org/';

/** Each payload, if it ran, would set window.pwned or open a dialog. */
const SCRIPT_LITERAL = `<script>window.pwned = 'script'</script>`;
const IMG_LITERAL = `"><img src=x onerror="window.pwned='img'">`;
const SVG_LITERAL = `</td></table><svg onload=alert('svg')></svg>`;
const TEXTAREA_LITERAL = `</textarea></pre><script>alert('textarea')</script>`;
/** Only http(s) IRIs become links, so this must never be a clickable javascript: link. */
const JAVASCRIPT_IRI = `javascript:alert('iri')`;
const MARKUP_IRI = `${EX}<b>bold</b>`.replace(/[<>]/g, (c) => (c === '<' ? '%3C' : '%3E'));

const DATA = `PREFIX ex: <${EX}>
INSERT DATA {
  ex:s1 ex:label """${SCRIPT_LITERAL}""" .
  ex:s2 ex:label """${IMG_LITERAL}"""@en .
  ex:s3 ex:label """${SVG_LITERAL}"""^^<${EX}type'onmouseover=alert(1)> .
  ex:s4 ex:label """${TEXTAREA_LITERAL}""" .
  ex:s5 ex:link <${JAVASCRIPT_IRI}> .
  ex:s6 ex:link <${MARKUP_IRI}> .
  <${JAVASCRIPT_IRI}> ex:label """${SCRIPT_LITERAL}""" .
}`;

const SELECT = `SELECT ?s ?script ?img_onerror WHERE { ?s ?p ?script OPTIONAL { ?s ?p ?img_onerror } }`;
const CONSTRUCT = `CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }`;
/** The parser echoes the offending token in its message. */
const BROKEN = `SELECT * WHERE { ?s ?p ?o } "<img src=x onerror=alert('error')>"`;

describe('no script from users or data runs on any HTML page', { skip: skipBrowser }, () => {
  let server: RunningServer;
  let browser: Browser;

  before(async () => {
    server = await startLocalServer();
    const response = await fetch(server.url('/sparql/update'), { method: 'POST', headers: { 'content-type': SPARQL_UPDATE }, body: DATA });
    assert.equal(response.status, 200, await response.text());
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Opens the page, lets `act` do its part, then checks nothing ran. */
  async function visit(path: string, act: (page: Page) => Promise<void> = async () => {}): Promise<WatchedPage> {
    const watched = await openWatchedPage(browser);
    const response = await watched.page.goto(server.url(path));
    assert.ok(response !== null);
    const headers = response.headers();
    if (headers['content-type']?.startsWith('text/html')) {
      const policy = headers['content-security-policy'];
      assert.ok(policy?.includes("default-src 'none'"), `${path} carries a Content-Security-Policy`);
      assert.ok(!policy.includes('unsafe-inline') && !policy.includes('unsafe-eval'), `${path}: no unsafe-inline, no unsafe-eval`);
    } else {
      // Plain text is shown as text: browsers do not sniff a text/plain document into HTML.
      assert.match(headers['content-type'] ?? '', /^text\/plain/, `${path} is HTML or plain text`);
    }
    await act(watched.page);
    await watched.page.waitForTimeout(100);
    await assertNothingRan(watched);
    await watched.close();
    return watched;
  }

  async function assertNothingRan(watched: WatchedPage): Promise<void> {
    const { page } = watched;
    assert.equal(await page.evaluate('window.pwned'), undefined, 'no payload set its flag');
    assert.deepEqual(watched.dialogs, [], 'no payload opened a dialog');
    assert.deepEqual(
      watched.violations.filter((v) => v.startsWith('script-src')),
      [],
      'no injected script even tried to run',
    );
    assert.deepEqual(watched.errors, []);
    assert.equal(await page.locator('a[href^="javascript:"]').count(), 0, 'no javascript: link');
    assert.equal(await page.locator('img, svg, iframe, object, embed, script:not([src]):not([type="application/json"])').count(), 0, 'no injected element');
    assert.equal(await page.locator('[onerror], [onload], [onmouseover]').count(), 0, 'no event handler attribute');
    assert.deepEqual(watched.foreignRequests(server.origin), []);
  }

  async function bodyText(page: Page): Promise<string> {
    return (await page.textContent('body')) ?? '';
  }

  it('the query page shows script-bearing results as text, in the table and the graph', async () => {
    await visit('/sparql/select', async (page) => {
      await page.waitForSelector('.cm-content');
      await typeInEditor(page, SELECT);
      await page.keyboard.press('Control+Enter');
      await page.waitForSelector('table.results tbody tr');
      await page.selectOption('select[aria-label="Rows per page"]', '100');
      const text = await bodyText(page);
      for (const payload of [SCRIPT_LITERAL, IMG_LITERAL, SVG_LITERAL, TEXTAREA_LITERAL]) assert.ok(text.includes(payload), `shown as text: ${payload}`);
      assert.ok(text.includes(`<${JAVASCRIPT_IRI}>`));
      assert.deepEqual(await page.locator('table.results th').allTextContents(), ['?s', '?script', '?img_onerror']);

      await typeInEditor(page, CONSTRUCT);
      await page.keyboard.press('Control+Enter');
      await page.waitForSelector('.status.success');
      await page.click('.tab-graph');
      await page.waitForSelector('.view-panel[data-nodes] canvas');
    });
  });

  it('the resource view, the raw response, the graph nodes and the history show script-bearing data as text', async () => {
    await visit(`/sparql/select#${new URLSearchParams({ resource: JAVASCRIPT_IRI })}`, async (page) => {
      await page.waitForSelector('.resource-properties');
      assert.ok((await bodyText(page)).includes(SCRIPT_LITERAL), 'the label of a javascript: IRI is text');
      assert.equal(await page.locator('.resource-area a.external').count(), 0, 'a javascript: IRI is never linked out of the page');
    });
    await visit(`/sparql/select#${new URLSearchParams({ resource: `${EX}s2` })}`, async (page) => {
      await page.waitForSelector('.resource-properties');
      assert.ok((await bodyText(page)).includes(IMG_LITERAL));
    });
    await visit(`/sparql/select#${new URLSearchParams({ resource: `${EX}s5` })}`, async (page) => {
      await page.waitForSelector('.resource-properties a.iri');
      await page.click('.resource-properties td:nth-child(2) a.iri');
      await page.waitForSelector('h2.resource-title:has-text("javascript:")');
      await page.waitForSelector('.resource-properties');
      assert.ok((await bodyText(page)).includes(SCRIPT_LITERAL), 'its values as text');
    });
    await visit('/sparql/select', async (page) => {
      await page.waitForSelector('.cm-content');
      await typeInEditor(page, CONSTRUCT);
      await page.keyboard.press('Control+Enter');
      await page.waitForSelector('.status.success');
      await page.click('.tab-response');
      for (const payload of [SCRIPT_LITERAL, TEXTAREA_LITERAL]) assert.ok((await page.textContent('pre.raw'))!.includes(payload), 'the N-Triples as text');
      await page.click('.tab-graph');
      await page.waitForSelector('.view-panel[data-nodes] canvas');
      await page.click('details.graph-node-list summary');
      assert.ok((await page.textContent('.graph-nodes'))!.includes(SCRIPT_LITERAL), 'literals on the nodes are text');
      await page.click('details.history summary');
      assert.ok((await page.textContent('.history-list'))!.includes('CONSTRUCT'));
    });
  });

  it('the query page shows an error message that echoes markup as text', async () => {
    await visit('/sparql/select', async (page) => {
      await page.waitForSelector('.cm-content');
      await typeInEditor(page, BROKEN);
      await page.keyboard.press('Control+Enter');
      await page.waitForSelector('.status.error');
      assert.match((await page.textContent('.status'))!, /<img src=x onerror=alert\('error'\)>/);
      await page.locator('.cm-lintRange-error').hover();
      await page.waitForTimeout(200);
    });
  });

  it('the query page shows the plan of a script-bearing query as text', async () => {
    await visit('/sparql/select', async (page) => {
      await page.waitForSelector('.cm-content');
      await typeInEditor(page, `SELECT * WHERE { ?s ?p """${SCRIPT_LITERAL}""" }`);
      await page.click('button.explain');
      await page.waitForSelector('.status.success, .status.error');
    });
  });

  it('a shared address with a script-bearing query only fills the editor', async () => {
    const fragment = new URLSearchParams({ query: `SELECT * WHERE { ?s ?p """${SCRIPT_LITERAL}${IMG_LITERAL}""" }` });
    await visit(`/sparql/select#${fragment.toString()}`, async (page) => {
      await page.waitForSelector('.status.success');
      assert.ok((await page.textContent('.cm-content'))!.includes(SCRIPT_LITERAL));
    });
  });

  it('the update page shows an error message that echoes markup as text', async () => {
    await visit('/sparql/update', async (page) => {
      await page.waitForSelector('.cm-content');
      await typeInEditor(page, `INSERT DATA { <${EX}a> <${EX}b> "x" } ${TEXTAREA_LITERAL}`);
      await page.keyboard.press('Control+Enter');
      await page.waitForSelector('.status.error');
      assert.ok((await page.textContent('.status'))!.includes('<'));
    });
  });

  it('the server-side HTML result pages escape literals, IRIs and variable names', async () => {
    for (const query of [SELECT, CONSTRUCT]) {
      await visit(`/sparql/select?${new URLSearchParams({ query, output: 'html' })}`, async (page) => {
        const text = await bodyText(page);
        for (const payload of [SCRIPT_LITERAL, IMG_LITERAL, SVG_LITERAL, TEXTAREA_LITERAL]) assert.ok(text.includes(payload), `shown as text: ${payload}`);
      });
    }
  });

  it('the results page (the query page around HTML results) shows a script-bearing query and results as text', async () => {
    // The query's own text closes the textarea and the table, and opens script, if written unescaped.
    const query = `SELECT ?s ?script ("${TEXTAREA_LITERAL.replace(/'/g, '')}" AS ?q) WHERE { ?s ?p ?script } # ${SVG_LITERAL}`;
    for (const [path, text] of [
      [`/sparql/select?${new URLSearchParams({ query, output: 'html' })}`, query],
      [`/sparql/select?${new URLSearchParams({ query: `ASK { ?s ?p """${SCRIPT_LITERAL}""" }`, output: 'html' })}`, SCRIPT_LITERAL],
      [`/sparql/select?${new URLSearchParams({ query: `DESCRIBE <${JAVASCRIPT_IRI}>`, output: 'html' })}`, JAVASCRIPT_IRI],
    ]) {
      await visit(path!, async (page) => {
        await page.waitForSelector('.cm-content');
        assert.ok((await page.textContent('.cm-content'))!.includes(text!), 'the editor holds the query as text');
        await page.waitForSelector('.view-panel #query-results');
      });
    }
    await visit('/sparql/select', async (page) => {
      await page.evaluate(`{
        const form = document.getElementById('sparql-form');
        form.elements.namedItem('query').value = ${JSON.stringify(query)};
        form.submit();
      }`);
      await page.waitForSelector('.view-panel #query-results table.results tbody tr');
      const shown = await bodyText(page);
      for (const payload of [SCRIPT_LITERAL, IMG_LITERAL, SVG_LITERAL]) assert.ok(shown.includes(payload), `shown as text: ${payload}`);
    });
  });

  it('the HTML error pages and the 404 page escape what the request said', async () => {
    await visit(`/sparql/select?${new URLSearchParams({ query: BROKEN, output: 'html' })}`, async (page) => {
      assert.ok((await bodyText(page)).includes(`<img src=x onerror=alert('error')>`));
    });
    await visit(`/sparql/update?${new URLSearchParams({ update: `CLEAR GRAPH <x> ${SCRIPT_LITERAL}`, output: 'html' })}`);
    await visit(`/sparql/select?${new URLSearchParams({ query: SELECT, output: 'html', timeout: `<script>alert('t')</script>` })}`);
    await visit(`/nothing/<script>alert('404')</script>?output=html`);
  });
});
