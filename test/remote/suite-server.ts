/**
 * Runs the HTTP protocol suite (test/http/protocol-rules.test.ts) in remote mode: with
 * QUIVER_TEST_REMOTE=virtuoso the server under test is Quiver in remote mode in front of a fresh
 * Virtuoso, instead of Quiver over the scripted service. test/remote/protocol-rules-remote.test.ts
 * runs the suite that way once per test run.
 *
 * The tests listed below are skipped in remote mode: each asserts what the scripted service did
 * (the requests it recorded, the failure or data a keyword makes it produce), which a real remote
 * cannot be told to reproduce. The behaviour behind each is covered for remote mode elsewhere, as
 * each reason says.
 */
import type { it as nodeIt } from 'node:test';
import { startServer, type RunningServer } from '../http/harness.js';
import type { ServerConfig } from '../../src/server/config.js';
import { RemoteService } from '../../src/service/remote-service.js';
import type { SparqlService } from '../../src/service/sparql-service.js';
import { startVirtuoso, virtuosoMissing } from './virtuoso.js';

export const REMOTE_MODE = process.env.QUIVER_TEST_REMOTE === 'virtuoso';

const RECORDED = 'reads the requests the scripted service recorded; forwarding of the same fields is pinned in src/service/remote-service.test.ts';
const SCRIPTED_FAILURE =
  'provokes a failure with a keyword only the scripted service understands (our parser rejects the keyword as a syntax error first); remote failures are tested in remote-service.test.ts and virtuoso-remote.test.ts';

export const EXCLUDED_IN_REMOTE_MODE: Record<string, string> = {
  'runs a POST application/sparql-update body as an update: empty 200': `${RECORDED} (and would CLEAR ALL of Virtuoso)`,
  'dispatches a form by its field: query or update': RECORDED,
  'runs GET ?query and answers SPARQL JSON by default, streamed, with charset and Content-Disposition':
    "asserts the scripted service's two rows; the same headers are asserted by the format tests that do run",
  'reads a form-typed body without a query field as the query itself': RECORDED,
  'passes the protocol dataset, a base IRI and the time limit to the service': RECORDED,
  'never lets timeout exceed the server maximum, and refuses a malformed one': RECORDED,
  'answers 500 with the message when evaluation fails before the first row': SCRIPTED_FAILURE,
  'cuts the connection when evaluation fails after streaming began: JSON is left incomplete': SCRIPTED_FAILURE,
  'answers 503 with Retry-After when the service is overloaded': `${SCRIPTED_FAILURE}; remote mode has no queue of its own`,
  'answers 504 when the query ran past its time limit': `${SCRIPTED_FAILURE}; a real 504 from a slow Virtuoso is in virtuoso-remote.test.ts`,
  'aborts the evaluation when the client disconnects': `${SCRIPTED_FAILURE}; the remote request's abort is in remote-service.test.ts`,
  'gives the service description in Turtle by default and to */*':
    'expects the triple counts of the scripted describe(); remote mode describes no statistics (counting on the remote could be expensive)',
  'runs GET ?update, and ?query as the legacy name; update wins when both are sent': `${RECORDED} (and would CLEAR ALL of Virtuoso)`,
  'runs a POST application/sparql-update body, with using-graph-uri from the URL': `${RECORDED} (and would DELETE WHERE of Virtuoso)`,
  'runs a POST form (both form media types) with update or legacy query, and the using parameters': `${RECORDED} (and would CLEAR ALL of Virtuoso)`,
  'answers 400 when the request is missing or does not parse, 500 when it failed': SCRIPTED_FAILURE,
  'writes the error body in the format output asks for': `${SCRIPTED_FAILURE} (its HTML case expects the scripted 500)`,
  'decodes UTF-8 in forms and bodies': RECORDED,
};

/** `it`, skipping in remote mode the tests listed above, with their reason. */
export function remoteAware(it: typeof nodeIt): (name: string, fn: () => Promise<void>) => void {
  return (name, fn) => {
    const reason = REMOTE_MODE ? EXCLUDED_IN_REMOTE_MODE[name] : undefined;
    if (reason) it(name, { skip: `remote mode: ${reason}` }, fn);
    else it(name, fn);
  };
}

/** The scripted service's data, in Virtuoso, so that the tests that read it see the same terms. */
const FIXTURE = `INSERT DATA { GRAPH <http://example.org/fixture> {
  <http://example.org/a> <http://example.org/label> "<b>A & \\"a\\"</b>" .
  <http://example.org/s> <http://example.org/p> "o" .
} }`;

/**
 * The server the suite talks to: over `service` normally; in remote mode, Quiver in remote mode in
 * front of a new Virtuoso holding the fixture (`service` is then only closed).
 */
export async function startSuiteServer(service: SparqlService, config: ServerConfig): Promise<RunningServer> {
  if (!REMOTE_MODE) return startServer(service, config);
  const missing = virtuosoMissing();
  if (missing) throw new Error(`QUIVER_TEST_REMOTE=virtuoso, but ${missing}`);
  const virtuoso = await startVirtuoso();
  try {
    const loaded = await fetch(virtuoso.endpoint, { method: 'POST', body: new URLSearchParams({ update: FIXTURE }) });
    if (!loaded.ok) throw new Error(`loading the fixture into Virtuoso: ${loaded.status} ${await loaded.text()}`);
    const server = await startServer(new RemoteService({ queryEndpoint: virtuoso.endpoint }), config);
    return {
      ...server,
      close: async () => {
        await server.close();
        await service.close();
        await virtuoso.stop();
      },
    };
  } catch (error) {
    await virtuoso.stop();
    throw error;
  }
}
