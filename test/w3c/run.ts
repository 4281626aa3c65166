/**
 * Developer command for the W3C SPARQL suites:
 *
 *   node dist/test/w3c/run.js [--filter <text>] [--verbose] [--timeout <ms>] [--jobs <n>]
 *                              [--all] [--store clear|reopen] [--union-default-graph]
 *                              [--write-known-failures]
 *
 * --filter keeps tests whose id, IRI or name contains the text; --verbose prints, per failure,
 * the query, the data, the expected and actual answers and their difference; --all also runs
 * tests that are not approved; --write-known-failures rewrites test/w3c/known-failures.json from
 * this run (full runs only; reasons already written there are kept); --union-default-graph runs
 * the evaluation tests that apply with the union of all graphs as the default graph.
 * Exits with 1 when a test fails that is not a known failure, or a known failure passes.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runW3cSuites, type TestResult } from './runner.js';
import { assess, fullReport, knownFailuresFile, readKnownFailures, type KnownFailures } from './report.js';

function progress(result: TestResult): void {
  if (result.status === 'skip') return;
  process.stderr.write(result.status === 'pass' ? '.' : 'F');
}

function updatedKnownFailures(results: TestResult[], previous: KnownFailures): KnownFailures {
  const updated: KnownFailures = {};
  for (const r of results) {
    if (r.status === 'fail') updated[r.test.id] = previous[r.test.id] ?? r.reason ?? 'fails';
  }
  return updated;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      filter: { type: 'string' },
      verbose: { type: 'boolean', short: 'v', default: false },
      timeout: { type: 'string' },
      jobs: { type: 'string' },
      all: { type: 'boolean', default: false },
      store: { type: 'string' },
      'union-default-graph': { type: 'boolean', default: false },
      'write-known-failures': { type: 'boolean', default: false },
    },
  });
  const known = readKnownFailures(knownFailuresFile());
  const run = await runW3cSuites({
    filter: values.filter,
    timeoutMs: values.timeout ? Number(values.timeout) : undefined,
    jobs: values.jobs ? Number(values.jobs) : undefined,
    includeUnapproved: values.all,
    storeMode: values.store === 'reopen' ? 'reopen' : 'clear',
    unionDefaultGraph: values['union-default-graph'],
    onResult: values.verbose ? undefined : progress,
  });
  process.stderr.write('\n');
  const fullRun = !values.filter && !values.all && !values['union-default-graph'];
  console.log(fullReport(run, known, { verbose: values.verbose, fullRun }));
  if (values['write-known-failures']) {
    if (!fullRun) throw new Error('--write-known-failures needs a full run (no --filter, no --all)');
    writeFileSync(knownFailuresFile(), JSON.stringify(updatedKnownFailures(run.results, known), null, 2) + '\n');
    console.log(`\nwrote ${knownFailuresFile()}`);
    return 0;
  }
  const a = assess(run, known);
  return a.unexpectedFailures.length > 0 || a.fixed.length > 0 ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    console.error(error);
    process.exitCode = 2;
  },
);
