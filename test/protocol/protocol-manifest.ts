/**
 * Reads the W3C SPARQL 1.1 Protocol test manifest (rdf-tests/sparql11/protocol/manifest.ttl) into
 * plain HTTP exchanges: each test is a list of requests with the responses they must get.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Parser, Store, type Term } from 'n3';

const MF = 'http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#';
const HT = 'http://www.w3.org/2011/http#';
const CNT = 'http://www.w3.org/2011/content#';
const UT = 'http://www.w3.org/2009/sparql/tests/test-update#';
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';
const HTS = 'http://www.w3.org/2011/http-statusCodes#';

export interface ProtocolRequest {
  method: string;
  /** As in the manifest: always starts with /sparql/. */
  absolutePath: string;
  headers: Record<string, string>;
  body?: { chars: string; encoding: string };
  /** Acceptable status classes, e.g. [2, 3]. */
  expectedStatusClasses: number[];
  expectedBoolean?: boolean;
  expectedFormat?: 'boolean' | 'tabular' | 'RDF';
}

export interface ProtocolTest {
  /** Local name in the manifest, e.g. query_post_form. */
  id: string;
  name: string;
  /** Named graphs to load first: file path → graph IRI. */
  graphData: { file: string; graph: string }[];
  requests: ProtocolRequest[];
}

/** The repository root: the nearest folder above this file with a package.json. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('no package.json above the test file');
    dir = parent;
  }
  return dir;
}

/** The W3C test suites live in the shared folder beside the repository. */
export function sharedTestsDir(): string {
  return resolve(repoRoot(), '../shared/rdf-tests/sparql11');
}

export function readProtocolManifest(): ProtocolTest[] {
  const dir = join(sharedTestsDir(), 'protocol');
  const manifestPath = join(dir, 'manifest.ttl');
  const baseIRI = 'file://' + manifestPath;
  const store = new Store(new Parser({ baseIRI }).parse(readFileSync(manifestPath, 'utf8')));
  const one = (s: Term, p: string): Term | undefined => store.getObjects(s, p, null)[0];
  const all = (s: Term, p: string): Term[] => store.getObjects(s, p, null);
  const list = (head: Term | undefined): Term[] => {
    const items: Term[] = [];
    for (let node = head; node && node.value !== RDF + 'nil'; node = one(node, RDF + 'rest')) items.push(one(node, RDF + 'first')!);
    return items;
  };

  const manifest = store.getSubjects(RDF + 'type', MF + 'Manifest', null)[0]!;
  return list(one(manifest, MF + 'entries')).map((test) => {
    const action = one(test, MF + 'action')!;
    return {
      id: test.value.slice(test.value.indexOf('#') + 1),
      name: one(test, MF + 'name')!.value,
      graphData: all(test, UT + 'graphData').map((data) => ({
        file: fileURLToPath(one(data, UT + 'graph')!.value),
        graph: one(data, RDFS + 'label')!.value,
      })),
      requests: list(one(action, HT + 'requests')).map((request) => {
        const response = one(request, HT + 'resp')!;
        const body = one(request, HT + 'body');
        const headers: Record<string, string> = {};
        for (const header of list(one(request, HT + 'headers'))) {
          headers[one(header, HT + 'fieldName')!.value] = one(header, HT + 'fieldValue')!.value;
        }
        const expectedBoolean = one(response, MF + 'expectedBoolean');
        return {
          method: one(request, HT + 'methodName')!.value,
          absolutePath: one(request, HT + 'absolutePath')!.value,
          headers,
          body: body && { chars: one(body, CNT + 'chars')!.value, encoding: one(body, CNT + 'characterEncoding')?.value ?? 'UTF-8' },
          expectedStatusClasses: all(response, MF + 'expectedStatus').map((status) => Number(status.value.replace(HTS + 'StatusCode', '')[0])),
          expectedBoolean: expectedBoolean === undefined ? undefined : expectedBoolean.value === 'true',
          expectedFormat: one(response, MF + 'expectedFormat')?.value as ProtocolRequest['expectedFormat'],
        };
      }),
    };
  });
}
