/**
 * The query and update pages in a real browser (Debian's Chromium): type and run a query, read the
 * table, sort and page it, download a result, chart it, draw a graph, see a syntax error marked,
 * share a query's address, look at a plan, run an update. Every test also checks that the page
 * asked nothing of anyone but the server under test.
 */
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { HttpError } from '../../src/server/http-error.js';
import { SPARQL_UPDATE, startLocalServer, type RunningServer } from '../http/harness.js';
import { launchChromium, openWatchedPage, runAndExpectSuccess, screenshot, skipBrowser, typeInEditor, type WatchedPage } from './browser-harness.js';
import { FIXED_EXPLANATION } from './fixed-plan.js';

const EX = 'http://example.org/';

/** 30 people (so the table has two pages), in three cities (a label-and-number result to chart). */
function people(): string {
  const cities = ['Paris', 'Lyon', 'Nice'];
  const triples = Array.from({ length: 30 }, (_, i) => `ex:p${i} a ex:Person ; ex:name "Person ${i}" ; ex:age ${20 + i} ; ex:city ex:${cities[i % 3]} .`);
  return `PREFIX ex: <${EX}>\nINSERT DATA {\n${triples.join('\n')}\n ex:Paris ex:label "Paris" . ex:Lyon ex:label "Lyon" .\n}`;
}

describe('the browser pages', { skip: skipBrowser }, () => {
  let server: RunningServer;
  let browser: Browser;
  let watched: WatchedPage;

  before(async () => {
    server = await startLocalServer();
    const response = await fetch(server.url('/sparql/update'), { method: 'POST', headers: { 'content-type': SPARQL_UPDATE }, body: people() });
    assert.equal(response.status, 200, await response.text());
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  async function open(path: string): Promise<WatchedPage> {
    watched = await openWatchedPage(browser);
    await watched.page.goto(server.url(path));
    await watched.page.waitForSelector('.cm-content');
    return watched;
  }

  /** After each test's page: nothing left the machine, nothing threw. */
  async function closeChecked(): Promise<void> {
    assert.deepEqual(watched.foreignRequests(server.origin), [], 'every request goes to the server under test');
    assert.deepEqual(watched.errors, [], 'no uncaught error in the page');
    assert.ok(
      watched.requests.some((url) => url.includes('/ui/query.js') || url.includes('/ui/update.js')),
      'the page loaded its bundled script from the server',
    );
    await watched.close();
  }

  it('runs a typed query with Ctrl+Enter and shows the rows, their count and the time', async () => {
    const { page } = await open('/sparql/select');
    await page.click('.cm-content');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type(`SELECT ?name ?age WHERE { ?p <${EX}name> ?name ; <${EX}age> ?age } ORDER BY ?age LIMIT 3`);
    await page.keyboard.press('Control+Enter');
    await page.waitForSelector('table.results tbody tr');
    const header = await page.locator('table.results th').allTextContents();
    assert.deepEqual(header, ['?name', '?age']);
    const cells = await page.locator('table.results tbody tr').first().locator('td').allTextContents();
    assert.deepEqual(cells, ['Person 0', '20']);
    assert.match((await page.textContent('.status'))!, /^3 rows in [\d.]+ (ms|s)$/);
    await screenshot(page, 'query-page-table');
    await closeChecked();
  });

  it('sorts the table by a column and pages through it', async () => {
    const { page } = await open('/sparql/select');
    await typeInEditor(page, `SELECT ?name ?age WHERE { ?p <${EX}name> ?name ; <${EX}age> ?age }`);
    await page.click('button.run');
    await page.waitForSelector('table.results tbody tr');
    assert.equal(await page.locator('table.results tbody tr').count(), 25, 'the first page has 25 rows');
    assert.match((await page.textContent('.pager-position'))!, /1–25 of 30 rows/);
    await page.click('table.results th:nth-child(2)');
    await page.click('table.results th:nth-child(2)');
    assert.equal(await page.textContent('table.results th:nth-child(2)'), '?age ▼');
    assert.equal(await page.textContent('table.results tbody tr:first-child td:nth-child(2)'), '49', 'highest age first');
    await page.click('button.pager-next');
    assert.equal(await page.locator('table.results tbody tr').count(), 5);
    assert.equal(await page.textContent('table.results tbody tr:last-child td:nth-child(2)'), '20');
    await closeChecked();
  });

  it('marks a syntax error at the line and column the server names', async () => {
    const { page } = await open('/sparql/select');
    await typeInEditor(page, 'SELECT * WHERE {\n  ?s ?p ?o .\n  FILTER(}\n}');
    await page.keyboard.press('Control+Enter');
    await page.waitForSelector('.status.error');
    assert.match((await page.textContent('.status'))!, /line 3, column 10/);
    const marked = page.locator('.cm-lintRange-error');
    await marked.waitFor();
    assert.equal(await marked.textContent(), '}', 'the character the parser stopped at is underlined');
    assert.equal(await page.locator('.cm-gutter-lint .cm-lint-marker-error').count(), 1, 'and its line is flagged');
    await screenshot(page, 'query-page-syntax-error');
    await closeChecked();
  });

  it('downloads the result in the format of the button', async () => {
    const { page } = await open('/sparql/select');
    await typeInEditor(page, `SELECT ?name WHERE { <${EX}p1> <${EX}name> ?name }`);
    await page.keyboard.press('Control+Enter');
    await page.waitForSelector('button.download-csv');
    assert.deepEqual(await page.locator('.downloads button').allTextContents(), ['JSON', 'XML', 'CSV', 'TSV']);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('button.download-csv')]);
    assert.equal(download.suggestedFilename(), 'result.csv');
    assert.equal(readFileSync((await download.path())!, 'utf8'), 'name\r\nPerson 1\r\n');
    await closeChecked();
  });

  it('charts a result of a label and numbers, as bars and as lines', async () => {
    const { page } = await open('/sparql/select');
    await typeInEditor(
      page,
      `SELECT ?city (COUNT(?p) AS ?people) (SUM(?age) AS ?years) WHERE { ?p <${EX}city> ?city ; <${EX}age> ?age } GROUP BY ?city ORDER BY ?city`,
    );
    await page.keyboard.press('Control+Enter');
    await page.waitForSelector('table.results tbody tr');
    assert.equal(await page.isDisabled('.tab-graph'), true, 'no graph for solutions');
    await page.click('.tab-chart');
    await page.waitForSelector('.view-panel[data-chart-kind="bar"] canvas');
    await screenshot(page, 'query-page-chart-bar');
    await page.click('button.chart-line');
    await page.waitForSelector('.view-panel[data-chart-kind="line"] canvas');
    const size = await page.locator('.view-panel canvas').boundingBox();
    assert.ok(size !== null && size.width > 300 && size.height > 200, 'the chart was drawn at a readable size');
    await screenshot(page, 'query-page-chart-line');
    await closeChecked();
  });

  it('draws a CONSTRUCT result as a node-link graph and offers RDF downloads', async () => {
    const { page } = await open('/sparql/select');
    await typeInEditor(
      page,
      `PREFIX ex: <${EX}>\nCONSTRUCT { ?p ex:city ?city ; ex:name ?name }\nWHERE { VALUES ?p { ex:p0 ex:p1 ex:p2 ex:p3 ex:p4 ex:p5 } ?p ex:city ?city ; ex:name ?name }`,
    );
    assert.match(await runAndExpectSuccess(page), /^12 triples in /);
    await page.waitForSelector('table.results tbody tr');
    assert.deepEqual(await page.locator('.downloads button').allTextContents(), ['Turtle', 'N-Triples', 'N-Quads', 'TriG', 'JSON-LD', 'RDF/XML']);
    assert.equal(await page.isDisabled('.tab-chart'), true, 'no chart for triples');
    await page.click('.tab-graph');
    await page.waitForSelector('.view-panel[data-nodes] canvas');
    assert.equal(await page.getAttribute('.view-panel', 'data-edges'), '6', 'one edge a triple between resources');
    assert.equal(await page.getAttribute('.view-panel', 'data-nodes'), '9', 'six people, three cities: names are written on their people');
    assert.match((await page.textContent('.graph-nodes li[data-node="uri:http://example.org/p0"]')) ?? '', /ex:name: Person 0/);
    assert.equal(await page.locator('table.results').count(), 0, 'the table made way for the graph');
    await page.waitForTimeout(200);
    await screenshot(page, 'query-page-graph');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('button.download-turtle')]);
    assert.equal(download.suggestedFilename(), 'result.ttl');
    assert.match(readFileSync((await download.path())!, 'utf8'), /example\.org/);
    await closeChecked();
  });

  it('puts a run query in the address, and that address reopens and runs it', async () => {
    const { page } = await open('/sparql/select');
    const query = `SELECT ?name WHERE { <${EX}p7> <${EX}name> ?name }`;
    await typeInEditor(page, query);
    await page.keyboard.press('Control+Enter');
    await page.waitForSelector('table.results tbody tr');
    const shared = page.url();
    assert.match(shared, /#query=/);
    await watched.close();

    const reopened = await open(new URL(shared).pathname + new URL(shared).hash);
    await reopened.page.waitForSelector('table.results tbody tr');
    assert.equal(await reopened.page.textContent('table.results tbody td'), 'Person 7');
    assert.equal(await reopened.page.textContent('.cm-content'), query);
    await closeChecked();
  });

  it('offers the known prefixes while typing, and declares the chosen one', async () => {
    const { page } = await open('/sparql/select');
    await typeInEditor(page, 'SELECT * WHERE { ?s a ');
    await page.keyboard.type('foa');
    await page.waitForSelector('.cm-tooltip-autocomplete li[aria-selected] .cm-completionLabel');
    assert.ok((await page.locator('.cm-completionLabel').allTextContents()).includes('foaf:'));
    // The editor ignores Enter for a moment after the list opens, so a fast typist does not pick by accident.
    await page.waitForTimeout(250);
    await page.keyboard.press('Enter');
    await page.keyboard.type('Person }');
    const text = (await page.locator('.cm-line').allTextContents()).join('\n');
    assert.equal(text, 'PREFIX foaf: <http://xmlns.com/foaf/0.1/>\nSELECT * WHERE { ?s a foaf:Person }');
    await closeChecked();
  });

  it('loads an example query from the menu', async () => {
    const { page } = await open('/sparql/select');
    await page.selectOption('select.examples', { label: 'Classes by number of instances (try the chart)' });
    assert.match((await page.locator('.cm-line').allTextContents()).join('\n'), /GROUP BY \?class/);
    await page.click('button.run');
    await page.waitForSelector('table.results tbody tr');
    assert.equal(await page.textContent('table.results tbody td:nth-child(2)'), '30');
    await closeChecked();
  });

  it('shows a plan: each operator with its estimated and actual rows and its time (fixed plan JSON)', async () => {
    const { page } = await open('/sparql/select');
    // The request still goes to the server's address; its answer is the fixed plan of the contract.
    await page.route('**/sparql/select', async (route) => {
      if (route.request().postData()?.includes('explain=true')) {
        await route.fulfill({ status: 200, contentType: 'application/json; charset=utf-8', body: JSON.stringify(FIXED_EXPLANATION) });
      } else {
        await route.continue();
      }
    });
    await typeInEditor(page, FIXED_EXPLANATION.query);
    await page.click('button.explain');
    await page.waitForSelector('table.plan tbody tr');
    const rows = page.locator('table.plan tbody tr');
    assert.equal(await rows.count(), 4);
    assert.deepEqual(await rows.nth(0).locator('td').allTextContents(), ['HashJoin', '?p', '12', '30', '4.2 ms', '']);
    assert.equal(await rows.nth(2).getAttribute('data-depth'), '2');
    assert.match((await rows.nth(3).getAttribute('class'))!, /misestimate/, 'an estimate ten times off is flagged');
    assert.match((await page.textContent('.plan-summary'))!, /30 result rows in 5\.0 ms/);
    await screenshot(page, 'query-page-plan');
    await closeChecked();
  });

  it('shows the plan the real engine chose, when the server explains', async (t) => {
    const probe = await fetch(server.url('/sparql/select'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ query: 'SELECT * WHERE { ?s ?p ?o } LIMIT 1', explain: 'true' }),
    });
    const body = (await probe.json().catch(() => ({}))) as { plan?: unknown };
    if (body.plan === undefined) return t.skip('the server does not explain yet (the engine work has not landed)');
    const { page } = await open('/sparql/select');
    await typeInEditor(page, `SELECT ?name WHERE { ?p <${EX}city> <${EX}Paris> ; <${EX}name> ?name }`);
    await page.click('button.explain');
    await page.waitForSelector('table.plan tbody tr');
    assert.match((await page.textContent('.plan-summary'))!, /^10 result rows in /);
    assert.ok((await page.locator('table.plan tbody tr').count()) >= 1);
    await screenshot(page, 'query-page-plan-real');
    await closeChecked();
  });

  it('without script: the form posts the query, and the results page holds it to edit and post again', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(server.url('/sparql/select'));
    await page.fill('textarea[name="query"]', `SELECT ?name WHERE { ?p <${EX}city> <${EX}Lyon> ; <${EX}name> ?name } ORDER BY ?name LIMIT 2`);
    await Promise.all([page.waitForURL(server.url('/sparql/select')), page.click('button[type="submit"]')]);
    await page.waitForSelector('#query-results table.results');
    assert.deepEqual(await page.locator('#query-results tbody tr td').allTextContents(), ['Person 1', 'Person 10']);
    assert.match(await page.inputValue('textarea[name="query"]'), /<http:\/\/example\.org\/Lyon>/, 'the query is in the form again');
    await screenshot(page, 'results-page-without-script');

    await page.fill('textarea[name="query"]', `ASK { ?p <${EX}city> <${EX}Nice> }`);
    await page.click('button[type="submit"]');
    await page.waitForSelector('#query-results p.boolean');
    assert.equal(await page.textContent('#query-results p.boolean'), 'true');
    assert.equal(await page.inputValue('textarea[name="query"]'), `ASK { ?p <${EX}city> <${EX}Nice> }`);
    await context.close();
  });

  it('a results page from a plain form submit shows its table, then edits and reruns the query in place', async () => {
    const { page } = await open('/sparql/select');
    const query = `SELECT ?name WHERE { ?p <${EX}city> <${EX}Paris> ; <${EX}name> ?name } ORDER BY ?name LIMIT 2`;
    // The form as a browser without script sends it: form.submit() skips the page script's handler.
    await page.evaluate(`{
      const form = document.getElementById('sparql-form');
      form.elements.namedItem('query').value = ${JSON.stringify(query)};
      form.submit();
    }`);
    await page.waitForSelector('#query-results table.results');
    await page.waitForSelector('.cm-content');
    assert.deepEqual(await page.locator('.view-panel #query-results tbody tr td').allTextContents(), ['Person 0', 'Person 12']);
    assert.equal((await page.locator('.cm-line').allTextContents()).join('\n'), query, 'the editor holds the query');
    await screenshot(page, 'results-page');

    await typeInEditor(page, query.replace('Paris', 'Nice'));
    assert.match(await runAndExpectSuccess(page), /^2 rows in /);
    assert.equal(await page.locator('#query-results').count(), 0, "the server's table gave way to the new results");
    assert.deepEqual(await page.locator('.view-panel table.results tbody tr td').allTextContents(), ['Person 11', 'Person 14']);
    await closeChecked();
  });

  it('runs an update and says it was carried out; marks an update syntax error', async () => {
    const { page } = await open('/sparql/update');
    await screenshot(page, 'update-page');
    await typeInEditor(page, `INSERT DATA { <${EX}new> <${EX}name> "New" }`);
    await page.keyboard.press('Control+Enter');
    await page.waitForSelector('.status.success');
    assert.match((await page.textContent('.status'))!, /^Update carried out in .*: 1 triple inserted, 0 triples deleted \(default graph \+1 −0\)\.$/);
    const check = await fetch(server.url(`/sparql/select?query=${encodeURIComponent(`ASK { <${EX}new> <${EX}name> "New" }`)}`));
    assert.equal(((await check.json()) as { boolean: boolean }).boolean, true);

    await typeInEditor(page, 'INSERT DATA {\n  <x> <y> \n}');
    await page.click('button.run');
    await page.waitForSelector('.status.error');
    await page.locator('.cm-lintRange-error').waitFor();
    await screenshot(page, 'update-page-error');
    await closeChecked();
  });
});

describe('the update page of a server whose writes need credentials', { skip: skipBrowser }, () => {
  const TOKEN = 'let-me-write';
  let server: RunningServer;
  let browser: Browser;

  before(async () => {
    server = await startLocalServer({
      authorizeUpdate: ({ headers }) => {
        if (headers['authorization'] !== `Bearer ${TOKEN}`) {
          throw new HttpError(401, 'updates on this server need credentials', { 'www-authenticate': 'Bearer realm="quiver"' });
        }
      },
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('asks for credentials, refuses without them and runs the update with them', async () => {
    const watched = await openWatchedPage(browser);
    const { page } = watched;
    await page.goto(server.url('/sparql/update'));
    await page.waitForSelector('.cm-content');
    assert.equal(await page.isVisible('fieldset.credentials'), true, 'the credentials are asked for up front');
    await page.click('button.run');
    await page.waitForSelector('.status.error');
    assert.match((await page.textContent('.status'))!, /^Credentials needed or not accepted: .*need credentials/);
    await page.fill('input[name="token"]', TOKEN);
    await page.click('button.run');
    await page.waitForSelector('.status.success');
    await screenshot(page, 'update-page-credentials');
    assert.deepEqual(watched.foreignRequests(server.origin), []);
    assert.deepEqual(watched.errors, []);
    await watched.close();
  });
});
