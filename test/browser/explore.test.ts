/**
 * The query page as a place to work all day, in a real browser (Debian's Chromium): the root leads
 * to it; query tabs and the history of runs survive a reload and can be cleared; a failed run
 * clears the old result; the plan speaks the query's prefixes; the table filters, cuts long values
 * and aligns numbers; the raw response; the graph writes literals on their nodes and expands a node
 * from the store; an IRI opens the view of its resource, and so on, with back and forward.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { SPARQL_UPDATE, startLocalServer, type RunningServer } from '../http/harness.js';
import { launchChromium, openWatchedPage, runAndExpectSuccess, screenshot, skipBrowser, typeInEditor, type WatchedPage } from './browser-harness.js';
import { FIXED_EXPLANATION } from './fixed-plan.js';

const EX = 'http://example.org/';
const SHOP = 'http://data.example.com/shop#';
const LONG = 'A very long description that goes on and on, far longer than any column should be allowed to grow in a table';

const DATA = `PREFIX ex: <${EX}>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
INSERT DATA {
  ex:alice a ex:Person ; rdfs:label "Alice Liddell"@en ; ex:age 7 ; ex:knows ex:bob ; ex:about "${LONG}" ;
    ex:address [ ex:city "Oxford" ; ex:street [ ex:name "High Street" ] ] .
  ex:bob a ex:Person ; rdfs:label "Bob" ; ex:age 1234567 ; ex:knows ex:carol .
  GRAPH ex:g1 { ex:carol rdfs:label "Carol" ; ex:knows ex:alice . }
  <${SHOP}item1> <${SHOP}price> 3 .
}`;

describe('working in the query page', { skip: skipBrowser }, () => {
  let server: RunningServer;
  let browser: Browser;
  let watched: WatchedPage;

  before(async () => {
    server = await startLocalServer({ basePath: '/q' });
    const response = await fetch(server.url('/q/sparql/update'), { method: 'POST', headers: { 'content-type': SPARQL_UPDATE }, body: DATA });
    assert.equal(response.status, 200, await response.text());
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  async function open(path = '/q/sparql/select'): Promise<Page> {
    watched = await openWatchedPage(browser);
    await watched.page.goto(server.url(path));
    await watched.page.waitForSelector('.cm-content');
    return watched.page;
  }

  async function closeChecked(): Promise<void> {
    assert.deepEqual(watched.foreignRequests(server.origin), [], 'every request goes to the server under test');
    assert.deepEqual(watched.errors, [], 'no uncaught error in the page');
    await watched.close();
  }

  async function editorText(page: Page): Promise<string> {
    // An empty editor shows its placeholder in its one line.
    if ((await page.locator('.cm-placeholder').count()) > 0) return '';
    return (await page.locator('.cm-line').allTextContents()).join('\n');
  }

  it('the root of the server (under its base path) opens the query page, which links the update page', async () => {
    const page = await open('/q/');
    assert.equal(new URL(page.url()).pathname, '/q/sparql/select');
    assert.equal(await page.getAttribute('nav a[aria-current="page"]', 'href'), '/q/sparql/select');
    await page.click('nav a:text("Update")');
    await page.waitForSelector('.cm-content');
    assert.equal(new URL(page.url()).pathname, '/q/sparql/update');
    await closeChecked();
  });

  it('keeps query tabs, their texts and a history of runs across a reload, and clears them', async () => {
    const page = await open();
    await typeInEditor(page, `SELECT ?age WHERE { <${EX}alice> <${EX}age> ?age }`);
    await runAndExpectSuccess(page);
    await page.click('.query-tab-new');
    assert.equal(await editorText(page), '', 'a new tab starts empty');
    assert.equal(await page.locator('table.results').count(), 0, 'and without a result');
    await typeInEditor(page, `SELECT ?label WHERE { <${EX}bob> <http://www.w3.org/2000/01/rdf-schema#label> ?label }`);
    await runAndExpectSuccess(page);
    assert.equal(await page.textContent('table.results tbody td'), 'Bob');
    await page.click('.query-tab:text("Query 1")');
    assert.match(await editorText(page), /alice/, 'the first tab has its own text');
    assert.equal(await page.textContent('table.results tbody td'), '7', 'and its own result');
    await screenshot(page, 'query-page-tabs');

    await page.reload();
    await page.waitForSelector('.cm-content');
    assert.deepEqual(await page.locator('.query-tab').allTextContents(), ['Query 1', 'Query 2']);
    assert.match(await editorText(page), /alice/, 'the active tab and its text came back');
    await page.click('details.history summary');
    // The address named the first tab's query: it was run again, and is on top of the history.
    assert.equal(await page.locator('.history-list li').count(), 2);
    assert.match((await page.locator('.history-list li').nth(1).textContent())!, /bob.*1 row in/);
    await screenshot(page, 'query-page-history');
    await page.click('.history-list li:nth-child(2) .history-pick');
    assert.match(await editorText(page), /bob/, 'a history entry goes back into the editor');

    await page.click('.history-clear');
    assert.equal(await page.locator('.history-list li').count(), 0);
    await page.click('button.tabs-clear');
    assert.deepEqual(await page.locator('.query-tab').allTextContents(), ['Query 1']);
    await page.reload();
    await page.waitForSelector('.cm-content');
    assert.equal(await page.locator('.history-list li').count(), 0, 'the cleared history stays cleared');
    assert.equal(await editorText(page), '');
    await closeChecked();
  });

  it('a failed run clears the previous result and plan', async () => {
    const page = await open();
    await typeInEditor(page, `SELECT * WHERE { ?s <${EX}age> ?age }`);
    await runAndExpectSuccess(page);
    await page.click('button.explain');
    await page.waitForSelector('table.plan');
    await typeInEditor(page, 'SELECT * WHERE { ?s ?p }');
    await page.keyboard.press('Control+Enter');
    await page.waitForSelector('.status.error');
    assert.equal(await page.locator('table.results, table.plan').count(), 0, 'nothing of the earlier run is left');
    assert.equal(await page.locator('.downloads').count(), 0);
    assert.equal(await page.isDisabled('.tab-plan'), true);
    await screenshot(page, 'query-page-failed-run');
    await closeChecked();
  });

  it('the plan uses the query prefixes, names graphs and rounds estimates', async () => {
    const page = await open();
    const plan = structuredClone(FIXED_EXPLANATION);
    plan.plan.estimatedRows = 414.1;
    plan.plan.children[1]!.details = `?p <${EX}name> ?name (in graph <${EX}g1>)`;
    await page.route('**/sparql/select', async (route) => {
      if (route.request().postData()?.includes('explain=true')) {
        await route.fulfill({ status: 200, contentType: 'application/json; charset=utf-8', body: JSON.stringify(plan) });
      } else {
        await route.continue();
      }
    });
    await typeInEditor(page, `PREFIX ex: <${EX}>\n${FIXED_EXPLANATION.query}`);
    await page.click('button.explain');
    await page.waitForSelector('table.plan tbody tr');
    const rows = page.locator('table.plan tbody tr');
    assert.equal(await rows.nth(0).locator('td').nth(2).textContent(), '414');
    assert.equal(await rows.nth(3).locator('td').nth(1).textContent(), '?p ex:name ?name (in graph ex:g1)');
    await screenshot(page, 'query-page-plan-prefixes');
    await closeChecked();

    // The real engine names the graph of a GRAPH clause.
    const real = await open();
    await typeInEditor(real, `PREFIX ex: <${EX}>\nSELECT * WHERE { GRAPH ex:g1 { ?s ex:knows ?o } }`);
    await real.click('button.explain');
    await real.waitForSelector('table.plan tbody tr');
    assert.match((await real.locator('td.plan-details').allTextContents()).join('\n'), /\(in graph ex:g1\)/);
    await closeChecked();
  });

  it('filters the table, cuts long values, right-aligns numbers and shows the raw response', async () => {
    const page = await open();
    await typeInEditor(page, `SELECT ?s ?p ?o WHERE { ?s ?p ?o FILTER(!isBlank(?o) && !isBlank(?s)) } ORDER BY ?s ?p`);
    await runAndExpectSuccess(page);
    const all = await page.locator('table.results tbody tr').count();
    await page.fill('input.row-filter', 'bob');
    const filtered = await page.locator('table.results tbody tr').count();
    assert.ok(filtered > 0 && filtered < all, `the filter keeps the rows about bob (${filtered} of ${all})`);
    assert.match((await page.textContent('.pager-position'))!, /filtered from/);
    await page.fill('input.row-filter', '');

    const long = page.locator('td.long').first();
    const box = await long.locator('span').boundingBox();
    assert.ok(box !== null && box.height < 30, 'a long value takes one line');
    await long.locator('button.show-whole').click();
    assert.match((await long.getAttribute('class'))!, /whole/);
    const whole = await long.locator('span').boundingBox();
    assert.ok(whole !== null && whole.height * whole.width > box.height * box.width * 1.5, 'shown whole on demand');
    const number = page.locator('td.number').first();
    // Run by the test driver (not as page script), so the page's policy does not apply to it.
    const align = await number.evaluate(
      (td) => (globalThis as unknown as { getComputedStyle(e: unknown): { textAlign: string } }).getComputedStyle(td).textAlign,
    );
    assert.equal(align, 'right');
    await screenshot(page, 'query-page-table-tools');

    await page.click('.tab-response');
    const raw = (await page.textContent('pre.raw'))!;
    assert.match(raw, /"head"/, 'the SPARQL JSON as the server wrote it');
    assert.match((await page.textContent('.raw-response .note'))!, /application\/sparql-results\+json/);
    await screenshot(page, 'query-page-raw-response');
    await closeChecked();
  });

  it('the graph writes literals on their nodes, and expands a node with its neighbours from the store', async () => {
    const page = await open();
    await typeInEditor(page, `CONSTRUCT { <${EX}alice> ?p ?o } WHERE { <${EX}alice> ?p ?o FILTER(!isBlank(?o)) }`);
    await runAndExpectSuccess(page);
    await page.click('.tab-graph');
    await page.waitForSelector('.view-panel[data-nodes] canvas');
    assert.equal(await page.getAttribute('.view-panel', 'data-nodes'), '3', 'alice, bob, Person: no literal nodes');
    assert.match((await page.textContent('li[data-node="uri:http://example.org/alice"]'))!, /Alice Liddell/);
    await page.click('details.graph-node-list summary');
    await page.click(`li[data-node="uri:${EX}bob"] button.graph-expand`);
    await page.waitForSelector('.view-panel[data-nodes="4"]');
    assert.ok(await page.locator(`li[data-node="uri:${EX}carol"]`).count(), 'carol came in as bob’s neighbour');
    await page.waitForTimeout(200);
    await screenshot(page, 'query-page-graph-expanded');
    await closeChecked();
  });

  it('opens the view of a resource from the table; its IRIs open theirs; back, forward and a shared address work', async () => {
    const page = await open();
    await typeInEditor(page, `SELECT ?who WHERE { ?who a <${EX}Person> } ORDER BY ?who`);
    await runAndExpectSuccess(page);
    await page.click(`table.results a[title="${EX}alice"]`);
    await page.waitForSelector('.resource-properties');
    assert.equal(await page.textContent('h2.resource-title'), 'Alice Liddell', 'titled by its label');
    assert.match((await page.textContent('.resource-properties'))!, /Bob/, 'its values by their labels');
    assert.match((await page.textContent('.resource-incoming'))!, /Carol/, 'who points to it');
    assert.match((await page.textContent('.resource-graphs'))!, /the default graph.*g1|g1.*the default graph/, 'the graphs of those triples');
    assert.match(page.url(), /#resource=/);
    await screenshot(page, 'resource-view');

    await page.click(`.resource-properties a[title="${EX}bob"]`);
    await page.waitForSelector('h2.resource-title:text-is("Bob")');
    await page.goBack();
    await page.waitForSelector('h2.resource-title:text-is("Alice Liddell")');
    await page.goForward();
    await page.waitForSelector('h2.resource-title:text-is("Bob")');
    const shared = page.url();
    await page.goBack();
    await page.goBack();
    await page.waitForSelector('table.results tbody tr');
    assert.equal(await page.isVisible('.resource-area'), false, 'back at the results');
    await closeChecked();

    const again = await open(new URL(shared).pathname + new URL(shared).hash);
    await again.waitForSelector('h2.resource-title:text-is("Bob")');
    await closeChecked();
  });

  it('follows blank nodes from the resource that holds them, two levels deep', async () => {
    const page = await open(`/q/sparql/select#${new URLSearchParams({ resource: `${EX}alice` })}`);
    await page.waitForSelector('.resource-properties');
    await page.click('.resource-properties a.bnode');
    await page.waitForSelector('.resource-properties:has-text("Oxford")');
    assert.match((await page.textContent('.resource-incoming'))!, /Alice Liddell/, 'its holder points to it');
    await page.click('.resource-properties a.bnode');
    await page.waitForSelector('.resource-properties:has-text("High Street")');
    await screenshot(page, 'resource-view-blank-node');
    // The address names the path, so it can be reopened.
    const shared = page.url();
    assert.match(decodeURIComponent(shared), /path=<http:\/\/example\.org\/address>.*path=<http:\/\/example\.org\/street>/);
    await closeChecked();
    const again = await open(new URL(shared).pathname + new URL(shared).hash);
    await again.waitForSelector('.resource-properties:has-text("High Street")');
    await closeChecked();
  });
});

describe('completion from the data', { skip: skipBrowser }, () => {
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

  it('offers the prefixes the data uses, then its classes and properties ranked by use', async () => {
    const watched = await openWatchedPage(browser);
    const { page } = watched;
    await page.goto(server.url('/sparql/select'));
    await page.waitForSelector('.cm-content');
    await typeInEditor(page, 'SELECT * WHERE { ?s ');
    await page.keyboard.type('sho');
    await page.waitForSelector('.cm-tooltip-autocomplete .cm-completionLabel');
    assert.ok((await page.locator('.cm-completionLabel').allTextContents()).includes('shop:'), 'a prefix made for the data’s own namespace');
    await page.waitForTimeout(250);
    await page.keyboard.press('Enter');
    await page.keyboard.type('pr');
    await page.locator('.cm-tooltip-autocomplete .cm-completionLabel', { hasText: /^price$/ }).waitFor();
    await page.keyboard.press('Escape');

    await typeInEditor(page, `PREFIX ex: <${EX}>\nSELECT * WHERE { ?s a ex:`);
    await page.keyboard.type('P');
    await page.locator('.cm-tooltip-autocomplete .cm-completionLabel', { hasText: /^Person$/ }).waitFor();
    assert.match((await page.textContent('.cm-tooltip-autocomplete li[aria-selected]'))!, /Person.*class, 2 uses/);
    await screenshot(page, 'query-page-completion-classes');
    await page.keyboard.press('Escape');
    await page.keyboard.type(' ; ex:');
    await page.keyboard.press('Control+Space');
    await page.waitForSelector('.cm-tooltip-autocomplete .cm-completionLabel');
    const labels = await page.locator('.cm-tooltip-autocomplete .cm-completionLabel').allTextContents();
    assert.deepEqual(labels.slice(0, 2), ['knows', 'age'], `properties by use first: ${labels.join(', ')}`);
    await screenshot(page, 'query-page-completion-properties');
    assert.deepEqual(watched.foreignRequests(server.origin), []);
    assert.deepEqual(watched.errors, []);
    await watched.close();
  });

  it('offers the data’s prefixes for what was typed before the vocabulary arrived', async () => {
    const watched = await openWatchedPage(browser);
    const { page } = watched;
    // The server's answer held back until the name is typed and looked up, as on a busy server.
    let typed!: () => void;
    const nameTyped = new Promise<void>((resolve) => (typed = resolve));
    await page.route('**/sparql/vocabulary', async (route) => {
      await nameTyped;
      await route.continue();
    });
    await page.goto(server.url('/sparql/select'));
    await page.waitForSelector('.cm-content');
    await typeInEditor(page, 'SELECT * WHERE { ?s ');
    await page.keyboard.type('sho');
    // Long enough for the editor to have looked for completions, and found none of the data's.
    await page.waitForTimeout(500);
    typed();
    await page.waitForSelector('.cm-tooltip-autocomplete .cm-completionLabel');
    assert.ok((await page.locator('.cm-completionLabel').allTextContents()).includes('shop:'), 'the data’s prefix, once it arrived');
    assert.deepEqual(watched.errors, []);
    await watched.close();
  });
});

describe('the resource view with a union default graph', { skip: skipBrowser }, () => {
  let server: RunningServer;
  let browser: Browser;

  before(async () => {
    server = await startLocalServer({}, { unionDefaultGraph: true });
    const body = `PREFIX ex: <${EX}> INSERT DATA { ex:alice ex:knows ex:bob . GRAPH ex:g1 { ex:alice ex:age 7 } }`;
    const response = await fetch(server.url('/sparql/update'), { method: 'POST', headers: { 'content-type': SPARQL_UPDATE }, body });
    assert.equal(response.status, 200, await response.text());
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it("lists a named graph's triple once, under its graph, not again under the default graph", async () => {
    const watched = await openWatchedPage(browser);
    const page = watched.page;
    await page.goto(server.url(`/sparql/select#${new URLSearchParams({ resource: `${EX}alice` })}`));
    await page.waitForSelector('.resource-properties');
    const text = (await page.textContent('#app'))!;
    assert.match(text, /Properties \(2\)/, 'knows (default graph) and age (g1), each once');
    assert.match((await page.textContent('.resource-graphs'))!, /In 2 graphs: the default graph, .*g1/);
    await screenshot(page, 'resource-view-union');
    assert.deepEqual(watched.errors, [], 'no uncaught error in the page');
    await watched.close();
  });
});
