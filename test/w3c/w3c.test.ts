/**
 * The W3C SPARQL conformance suites and the RDF 1.2 syntax suites as one node:test case. It fails when a test fails that
 * known-failures.json does not list, and when a listed test passes (the list must stay true).
 * For the details of failures run: node dist/test/w3c/run.js --verbose [--filter <text>].
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { defaultSuitesRoot, runW3cSuites, type RunnerOptions } from './runner.js';
import { assess, failureLine, knownFailuresFile, readKnownFailures, totalsLine } from './report.js';

const suitesMissing = !existsSync(defaultSuitesRoot()) && 'test suites not found';

test('W3C SPARQL 1.0 and 1.1 and RDF 1.2 syntax test suites', { skip: suitesMissing, timeout: 280_000 }, async (t) => {
  await assertSuitesPass(t, {});
});

test('W3C evaluation tests with a union default graph, where the union cannot change the answer', { skip: suitesMissing, timeout: 280_000 }, async (t) => {
  await assertSuitesPass(t, { unionDefaultGraph: true });
});

async function assertSuitesPass(t: TestContext, options: RunnerOptions): Promise<void> {
  const known = readKnownFailures(knownFailuresFile());
  const run = await runW3cSuites(options);
  t.diagnostic(totalsLine(run, known));
  const { unexpectedFailures, fixed } = assess(run, known);
  assert.deepEqual(
    unexpectedFailures.map(failureLine),
    [],
    'tests fail that known-failures.json does not list (details: node dist/test/w3c/run.js --verbose --filter <id>)',
  );
  assert.deepEqual(
    fixed.map((r) => r.test.id),
    [],
    'tests listed in known-failures.json now pass: remove them from the list',
  );
}
